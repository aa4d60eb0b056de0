import BacktestCLI
import BacktestCore

BacktestCLI.main(catalog: BuiltInStrategies.catalog)
