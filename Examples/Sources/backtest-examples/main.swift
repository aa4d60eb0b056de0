import BacktestCLI
import BacktestCore
import ExampleStrategies

// Every command of `backtest`, for the built-in strategies and these three.
BacktestCLI.main(catalog: BuiltInStrategies.catalog.adding(Donchian.self).adding(RSI2MeanReversion.self).adding(DualMomentum.self))
