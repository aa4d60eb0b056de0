import BacktestCore
import BacktestRun
import Foundation
import Testing

/// A strategy written as an outsider would: buy when the close is above its
/// `lookback`-bar high of closes, sell when it is below the low.
private struct Breakout: Strategy {
  struct Parameters: StrategyParameters {
    var lookback = 5
    var width = 0.0
    var stopLoss: Double? = nil
    static let declarations: [Parameter<Parameters>] = [
      .integer("channel.lookback", \.lookback, in: 2...500, alias: "lookback", doc: "closes in the channel"),
      .number("channel.width", \.width, .from(0...1), doc: "extra margin, a fraction of the channel"),
      .fraction("stop_loss", \.stopLoss, .between(0, 1), doc: "stop below the entry"),
    ]
    func validate() throws(ParameterConflict) {
      if width > 0.5 && lookback < 3 { throw ParameterConflict(path: "channel.width", message: "a wide channel needs lookback >= 3") }
    }
  }
  static let name = "breakout"
  static let summary = "buy above the recent high, sell below the recent low"
  let parameters: Parameters
  let close: ContiguousArray<Double>
  init(parameters: Parameters, bars: BarSeries) {
    self.parameters = parameters
    close = bars.close
  }
  var firstDecisionBar: Int { parameters.lookback }
  mutating func decide(at i: Int, position: PositionView) -> Signal {
    let window = close[(i - parameters.lookback)..<i]
    if !position.isOpen && close[i] > window.max()! { return .enterLong(stopLoss: parameters.stopLoss, profitTarget: nil) }
    if position.isOpen && close[i] < window.min()! { return .exitLong(.technical) }
    return .hold
  }
  var indicatorColumns: [IndicatorColumn] { [] }
}

@Suite struct StrategyPlatformTests {
  static let catalog = BuiltInStrategies.catalog.adding(Breakout.self)

  static func config(_ strategy: String, file: String = "Strategies/b.yaml") throws -> RunConfig {
    try RunConfig.parse("name: b\ndata: {bars: ../Data/GOOG.csv}\nstrategy: \(strategy)\n", file: file, catalog: catalog)
  }

  @Test("a strategy added to a catalog is read from its declarations: defaults, nested keys, fractions")
  func readsDeclarations() throws {
    let c = try Self.config("{type: breakout, channel: {lookback: 7}, stop_loss: 3%}")
    let p = try #require(c.strategy.parameters as? Breakout.Parameters)
    #expect(p.lookback == 7 && p.width == 0 && p.stopLoss == 0.03)
    #expect(c.strategy.parameterSummary.map { "\($0.name)=\($0.value)" } == ["channel.lookback=7", "channel.width=0", "stop_loss=3%"])
  }

  @Test("a value outside its declared range names the file, line, column and the range")
  func outOfRange() {
    #expect(throws: InputError("expected an integer from 2 to 500 for 'strategy.channel.lookback', found 1",
                               at: SourceLocation(file: "Strategies/b.yaml", line: 3, column: 48))) {
      try Self.config("{type: breakout, channel: {lookback: 1}}")
    }
    #expect(throws: InputError("expected a number from 0 to 1 for 'strategy.channel.width', found 2",
                               at: SourceLocation(file: "Strategies/b.yaml", line: 3, column: 45))) {
      try Self.config("{type: breakout, channel: {width: 2}}")
    }
  }

  @Test("a conflict between parameters points at the parameter the strategy names")
  func conflict() {
    // A conflict (each value valid, not together): what a sweep skips instead of stopping.
    var expected = InputError("a wide channel needs lookback >= 3", at: SourceLocation(file: "Strategies/b.yaml", line: 3, column: 58))
    expected.isConflict = true
    #expect(throws: expected) {
      try Self.config("{type: breakout, channel: {lookback: 2, width: 0.9}}")
    }
  }

  @Test("unknown keys inside a declared sub-table and at the top are reported with a suggestion")
  func unknownKeys() {
    #expect(throws: InputError("unknown key 'lokback' in 'strategy.channel'; did you mean 'lookback'?",
                               at: SourceLocation(file: "Strategies/b.yaml", line: 3, column: 38))) {
      try Self.config("{type: breakout, channel: {lokback: 9}}")
    }
    #expect(throws: InputError("unknown key 'stop_los' in 'strategy'; did you mean 'stop_loss'?",
                               at: SourceLocation(file: "Strategies/b.yaml", line: 3, column: 28))) {
      try Self.config("{type: breakout, stop_los: 2%}")
    }
  }

  @Test("an unknown type suggests the closest name in the catalog the caller passed")
  func unknownType() {
    #expect(throws: InputError("unknown strategy 'breakuot'; did you mean 'breakout'?; expected one of bollinger_rsi, sma_cross, buy_and_hold, rules, signals, breakout",
                               at: SourceLocation(file: "Strategies/b.yaml", line: 3, column: 18))) {
      try Self.config("{type: breakuot}")
    }
    // The built-in catalog alone does not know it.
    #expect(throws: InputError.self) {
      try RunConfig.parse("name: b\ndata: {bars: x.csv}\nstrategy: {type: breakout}\n", file: "b.yaml", catalog: BuiltInStrategies.catalog)
    }
  }

  @Test("the catalog describes each parameter: path, short name, type, default, range, doc")
  func describes() throws {
    let entry = try #require(Self.catalog.entry(named: "breakout"))
    #expect(entry.parameters.map(\.path) == ["channel.lookback", "channel.width", "stop_loss"])
    #expect(entry.parameters[0].alias == "lookback" && entry.parameters[0].defaultText == "5" && entry.parameters[0].type.rangeText == "2 to 500")
    #expect(entry.parameters[1].type.rangeText == "from 0 to 1" && entry.parameters[2].defaultText == "none")
    let bollinger = try #require(Self.catalog.entry(named: "bollinger_rsi"))
    #expect(bollinger.parameters.compactMap(\.alias) == ["bb_period", "bb_std", "rsi_period", "oversold", "overbought", "stop_loss", "profit_target"])
  }

  @Test("sweep axes resolve by the declared short name or path, for any strategy")
  func sweepAxes() throws {
    let info = try #require(Self.catalog.entry(named: "breakout")).parameters
    #expect(SweepSettings.keyPath(of: "lookback", strategy: info) == "strategy.channel.lookback")
    #expect(SweepSettings.keyPath(of: "channel.width", strategy: info) == "strategy.channel.width")
    #expect(SweepSettings.keyPath(of: "portfolio.slippage_bps", strategy: info) == "portfolio.slippage_bps")
    #expect(SweepSettings.keyPath(of: "bb_period", strategy: info) == nil)
    let text = "name: b\ndata: {bars: ../Data/GOOG.csv}\nstrategy: {type: breakout}\nsweep: {parameters: {lookback: [3, 9], stop_loss: [1%, none]}}\n"
    let (root, settings) = try SweepRunner.parse(text, file: Repo.path("Strategies/b.yaml"), catalog: Self.catalog)
    let jobs = try SweepRunner.jobs(root: root, file: Repo.path("Strategies/b.yaml"), settings: settings,
                                    combinations: SweepPlan.combinations(settings), catalog: Self.catalog)
    #expect(jobs.map { ($0.config!.strategy.parameters as! Breakout.Parameters).lookback } == [3, 3, 9, 9])
    #expect(jobs.map { ($0.config!.strategy.parameters as! Breakout.Parameters).stopLoss } == [0.01, nil, 0.01, nil])
  }

  @Test("the live signal is the engine's own last decision, explained by the strategy")
  func finalDecision() throws {
    let output = try runBacktest("name: g\ndata: {bars: ../Data/GOOG.csv, timezone: America/New_York}\nstrategy: {type: sma_cross}\n")
    let last = output.bars.count - 1
    let run = output.config.strategy.run(bars: output.bars, broker: output.config.broker, explain: .backtestPosition)
    let final = try #require(run.final)
    #expect(final.signal == run.result.lastClose.signal)
    // A flat probe and a long probe of the same bar: the strategy's own decide, no second rule.
    var strategy = SMACross(parameters: .init(), bars: output.bars)
    let flat = output.config.strategy.run(bars: output.bars, broker: output.config.broker, explain: .position(.flat)).final!
    #expect(flat.signal == strategy.decide(at: last, position: .flat) && flat.position == .flat)
    #expect(flat.reason.hasPrefix("no entry: SMA 10 "))
  }
}
