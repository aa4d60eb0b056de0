import BacktestCore
import BacktestRun
import Foundation
import Testing

/// An app's use of the engine: bars, dividends and macro series as values in
/// memory, a run configuration as a value, results, statistics and report
/// texts back as values; no file path anywhere.
@Suite struct InMemoryTests {
  /// Bars built from plain arrays, as an app holding prices would.
  static func bars(from file: BarSeries) -> BarSeries {
    let open = Array(file.open), high = Array(file.high), low = Array(file.low), close = Array(file.close)
    let times = Array(file.time), days = Array(file.day), labels = file.indices.map { file.timeLabel($0) }
    var bars = BarSeries(source: "GOOG (app)", capacity: times.count)
    for i in times.indices {
      bars.append(time: times[i], day: days[i], open: open[i], high: high[i], low: low[i], close: close[i], volume: 0,
                  label: Array(labels[i].utf8))
    }
    return bars
  }

  @Test("a run built from values gives the trades and equity of the same run read from its run file, with the cycle filter from macro values")
  func sameAsRunFile() throws {
    let fromFile = try Backtest.run(try RunConfig.parse(String(contentsOfFile: Repo.path("Strategies/goog-cycle.yaml"), encoding: .utf8),
                                                        file: Repo.path("Strategies/goog-cycle.yaml")))
    // The app's values: bars up to 2009-12-31, the macro series, the strategy and the cycle settings.
    let ny = TimeZone(identifier: "America/New_York")!
    let bars = Self.bars(from: fromFile.bars)
    var macro = MacroData()
    let shipped = try MacroReader.read(file: Repo.path("Data/us_macro_quarterly.csv"))
    for (series, observations) in shipped.series {
      macro.series[series] = observations.map { MacroObservation(day: $0.day, value: $0.value, availableAt: $0.availableAt) }
    }
    var parameters = BollingerRSI.Parameters()
    parameters.stopLoss = 0.02
    let cycleSettings = CycleRunSettings(filter: true, buyStages: [.expansion, .recovery], exitStages: [.contraction])
    let config = RunConfig(name: "app", data: DataSettings(bars: "GOOG (app)", timeZone: ny),
                           strategy: ConfiguredStrategy(BollingerRSI.self, parameters: parameters), cycle: cycleSettings)
    let rows = try CycleClassifier.classify(macro, settings: cycleSettings.classifier)
    let output = Backtest.execute(config, RunInputs(bars: bars, cycle: Backtest.cycle(cycleSettings, data: macro, rows: rows, bars: bars)))

    #expect(output.run.result.trades == fromFile.run.result.trades)
    #expect(output.run.result.equity == fromFile.run.result.equity)
    #expect(output.summary.totalReturn == fromFile.summary.totalReturn && output.summary.sharpe == fromFile.summary.sharpe)
    // Report texts come back as values too.
    let files = Dictionary(uniqueKeysWithValues: RunReport.files(output).map { ($0.name, $0.contents) })
    let expected = try String(contentsOfFile: Repo.path("Reports/reference/goog-cycle/trades.csv"), encoding: .utf8)
    #expect(files["trades.csv"] == expected)
    #expect(files["report.md"]?.contains("# Backtest: app") == true && files["report.html"] != nil)
  }

  @Test("dividends as values reach the account: the same trades' dividends as the run file's")
  func dividendsAsValues() throws {
    let fromFile = try Backtest.run(try RunConfig.parse(String(contentsOfFile: Repo.path("Strategies/income-swing.yaml"), encoding: .utf8),
                                                        file: Repo.path("Strategies/income-swing.yaml")))
    let dividends = fromFile.dividends.map { Dividend(exDay: $0.exDay, payDay: $0.payDay, amount: $0.amount) }
    var broker = BrokerSettings()
    broker.initialCash = 10_000
    var parameters = BollingerRSI.Parameters()
    parameters.stopLoss = 0.03
    let config = RunConfig(name: "app", data: DataSettings(bars: "INCM (app)"), strategy: ConfiguredStrategy(BollingerRSI.self, parameters: parameters),
                           broker: broker, expenseRatio: 0.0035)
    let output = Backtest.execute(config, RunInputs(bars: Self.bars(from: fromFile.bars), barsInFile: fromFile.bars.count, dividends: dividends))
    #expect(output.run.result.carry.dividendIncome > 0)
    #expect(output.run.result.carry.dividendIncome == fromFile.run.result.carry.dividendIncome)
    #expect(output.run.result.trades == fromFile.run.result.trades && output.summary.finalEquity == fromFile.summary.finalEquity)
  }
}
