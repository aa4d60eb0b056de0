@testable import BacktestCore
@testable import BacktestRun
import Foundation
import Testing

@Suite struct RulesStrategyTests {
  static let gpixRule = """
    type: rules
      params: {n: 20, k: 2.0, rp: 14, lo: 30, hi: 70}
      entry: close < bb_lower(close, n, k) and rsi(close, rp) < lo
      exit: close > bb_upper(close, n, k) or rsi(close, rp) > hi
      stop_loss: 2%
    """

  static func run(data: String, strategy: String, target: String) throws -> RunOutput {
    try runBacktest("name: t\ndata: \(data)\nstrategy:\n  \(strategy)\n  profit_target: \(target)\n")
  }

  @Test("the GPIX rule written as rules gives byte-identical trades.csv and equity.csv to bollinger_rsi, and the same summary",
        arguments: [("{bars: ../Data/synthetic_gpix_30min.csv, timezone: America/New_York, session: regular}", "null"),
                    ("{bars: ../Data/synthetic_gpix_30min.csv, timezone: America/New_York, session: regular}", "3%"),
                    ("{bars: ../Data/EURUSD.csv, timezone: UTC, session: all}", "null"),
                    ("{bars: ../Data/EURUSD.csv, timezone: UTC, session: all}", "0.5%"),
                    ("{bars: ../Data/GOOG.csv, timezone: America/New_York, session: all}", "null"),
                    ("{bars: ../Data/GOOG.csv, timezone: America/New_York, session: all}", "3%")])
  func gpixEquivalence(data: String, target: String) throws {
    let builtIn = try Self.run(data: data, strategy: "type: bollinger_rsi\n  stop_loss: 2%", target: target)
    let rules = try Self.run(data: data, strategy: Self.gpixRule, target: target)
    #expect(builtIn.summary.totalTrades > 10)
    #expect(RunReport.tradesCSV(rules) == RunReport.tradesCSV(builtIn))
    #expect(RunReport.equityCSV(rules) == RunReport.equityCSV(builtIn))
    #expect(rules.summary == builtIn.summary)
    if target != "null" { #expect(builtIn.run.result.trades.contains { $0.exitReason == .profitTarget }) }
  }

  @Test("the report draws each function: price levels over the price chart, RSI in its panel from 0 to 100 with the rule's levels")
  func columns() throws {
    let output = try Self.run(data: "{bars: ../Data/GOOG.csv}", strategy: Self.gpixRule, target: "null")
    let columns = output.run.indicators
    #expect(columns.map(\.name) == ["bb_lower_close_20_2", "rsi_close_14", "bb_upper_close_20_2"])
    guard case .overlay(let label, _) = columns[0].plot, case .panel(let panel, _) = columns[1].plot else {
      Issue.record("plots: \(columns.map(\.plot))"); return
    }
    #expect(label == "bb_lower(close, 20, 2)")
    #expect(panel == IndicatorPanel(id: "rsi", name: "RSI", title: "rsi(close, 14)", range: 0...100, levels: [30, 70]))
    let bands = BollingerBands(close: output.bars.close, period: 20, deviations: 2)
    #expect(same(Array(columns[0].values), Array(bands.lower), relative: 0))
    #expect(output.run.overlayTitle == "bb_lower(close, 20, 2), bb_upper(close, 20, 2)")
  }

  @Test("the live signal explains the rule with each operand's value at that bar")
  func explanation() throws {
    let output = try Self.run(data: "{bars: ../Data/GOOG.csv}", strategy: Self.gpixRule, target: "null")
    let strategy = RulesStrategy(parameters: output.config.strategy.parameters as! RulesStrategy.Parameters, bars: output.bars)
    let trade = try #require(output.run.result.trades.first { $0.exitReason == .technical })
    let buy = trade.entryBar - 1, sell = trade.exitBar - 1
    let bands = BollingerBands(close: output.bars.close, period: 20, deviations: 2), r = rsi(output.bars.close, period: 14)
    func f(_ x: Double) -> String { String(format: "%.2f", x) }
    let c = output.bars.close
    #expect(strategy.explain(.enterLong(stopLoss: 0.02, profitTarget: nil), at: buy, position: .flat)
      == "close \(f(c[buy])) < bb_lower(close, 20, 2) \(f(bands.lower[buy])) and rsi(close, 14) \(String(format: "%.1f", r[buy])) < 30")
    let held = PositionView(shares: trade.shares, entryPrice: trade.entryPrice, entryBar: trade.entryBar)
    var reasons: [String] = []
    if c[sell] > bands.upper[sell] { reasons.append("close \(f(c[sell])) > bb_upper(close, 20, 2) \(f(bands.upper[sell]))") }
    if r[sell] > 70 { reasons.append("rsi(close, 14) \(String(format: "%.1f", r[sell])) > 70") }
    #expect(!reasons.isEmpty)
    #expect(strategy.explain(.exitLong(.technical), at: sell, position: held) == reasons.joined(separator: " and "))
    #expect(strategy.explain(.hold, at: 5, position: .flat) == "not enough bars yet for every indicator of the entry rule (the first decision is at bar 19)")
    let calm = try #require((30..<output.bars.count).first { c[$0] >= bands.lower[$0] && r[$0] >= 30 })
    #expect(strategy.explain(.hold, at: calm, position: .flat)
      == "no entry: close \(f(c[calm])) >= bb_lower(close, 20, 2) \(f(bands.lower[calm])); rsi(close, 14) \(String(format: "%.1f", r[calm])) >= 30")
    #expect(strategy.details(at: calm).values.map(\.key) == ["bb_lower_close_20_2", "rsi_close_14", "bb_upper_close_20_2"])
  }

  @Test("exits that read the position: bars_held counts from 0 on the entry bar, entry_price is the fill")
  func positionExits() throws {
    // Closes rise by 1 a day from 100; opens are 0.5 below.
    let bars = handBars((0..<12).map { (k: Int) -> (Double, Double, Double, Double) in
      let x = Double(k)
      return (99.5 + x, 100.5 + x, 99 + x, 100 + x)
    })
    var p = RulesStrategy.Parameters()
    p.entry = try RuleEval.check("close > 0")
    p.exit = try RuleEval.check("bars_held >= 2", exit: true)
    var strategy = RulesStrategy(parameters: p, bars: bars)
    let trades = Engine.run(&strategy, bars: bars, broker: BrokerSettings()).trades
    // Buy decided at the close of bar 0, filled at bar 1; bars_held is 2 at the close of bar 3; sold at the open of bar 4,
    // bought again at the close of bar 4 (filled at 5), and so on.
    #expect(trades.map { [$0.entryBar, $0.exitBar] } == [[1, 4], [5, 8], [9, 11]])
    #expect(trades.map { $0.exitReason } == [ExitReason.technical, .technical, .endOfData])
    p.exit = try RuleEval.check("close >= entry_price * 1.025", exit: true)
    strategy = RulesStrategy(parameters: p, bars: bars)
    // Filled at 100.5 on bar 1, so the level is 103.0125: bar 3 closes at 103 (below), bar 4 at 104 (sold at the open of bar 5).
    #expect(Engine.run(&strategy, bars: bars, broker: BrokerSettings()).trades.map { [$0.entryBar, $0.exitBar] }.first == [1, 5])
  }

  @Test("decisions start at the entry's warm-up even when a 'not' holds before it")
  func firstDecision() throws {
    let bars = SyntheticBars.generate(count: 300, seed: 3)
    var p = RulesStrategy.Parameters()
    p.entry = try RuleEval.check("not (sma(close, 50) < 0)")
    var strategy = RulesStrategy(parameters: p, bars: bars)
    #expect(strategy.firstDecisionBar == 49)
    #expect(Engine.run(&strategy, bars: bars, broker: BrokerSettings()).trades.first?.entryBar == 50)
  }

  @Test("the sweep kernel gives each combination exactly what the engine gives, fused or through the engine", arguments: Array(UInt64(1)...12))
  func kernelEquivalence(seed: UInt64) throws {
    var random = RandomRules(seed: seed &* 7_777)
    var rng = SplitMix64(seed: seed)
    let bars = SyntheticBars.generate(count: 1_500 + Int(rng.next() % 1_500), seed: seed)
    var all: [RulesStrategy.Parameters] = []
    for k in 0..<6 {
      var p = RulesStrategy.Parameters()
      p.entry = try RuleEval.check(random.entry(), params: RandomRules.params)
      switch k % 3 {
      case 0: p.exit = try RuleEval.check(random.condition(depth: 3), params: RandomRules.params, exit: true)
      case 1: p.exit = try RuleEval.check(random.condition(depth: 3, position: true) + " or bars_held > 30", params: RandomRules.params, exit: true)
      default: p.exit = nil
      }
      p.stopLoss = rng.unit() < 0.3 ? nil : 0.005 + rng.unit() * 0.03
      p.profitTarget = rng.unit() < 0.5 ? nil : 0.01 + rng.unit() * 0.03
      // A trailing stop or a time exit takes a combination off the fused loop.
      if k % 2 == 1 { p.trailingStop = 0.01 + rng.unit() * 0.05 }
      if k >= 4 { p.maxBarsHeld = 3 + Int(rng.next() % 40) }
      // Short sales and limit or stop entries also run through the engine.
      if k == 2 { p.shortEntry = try RuleEval.check(random.entry(), params: RandomRules.params) }
      if k == 3 {
        p.order = RuleOrder(kind: rng.next() % 2 == 0 ? .limit : .stop, price: try RuleChecker.number("close * 0.995", params: [:], key: "t"),
                            priceText: "close * 0.995", validBars: 1 + Int(rng.next() % 4))
      }
      all.append(p)
    }
    var broker = BrokerSettings()
    if rng.next() % 2 == 0 { broker.commission = .percent(0.001) }
    if rng.next() % 3 == 0 { broker.slippageBasisPoints = 5 }
    if rng.next() % 3 == 0 { broker.intrabarRule = .optimistic }
    let kernel = RulesKernel(bars: bars, parameters: all)
    var accumulator = SummaryAccumulator()
    var traded = 0
    for p in all {
      var strategy = RulesStrategy(parameters: p, bars: bars)
      let expected = PerformanceSummary(result: Engine.run(&strategy, bars: bars, broker: broker), bars: bars)
      kernel.simulate(p, bars: bars, broker: broker, accumulator: &accumulator)
      let actual = accumulator.summary(initialCash: broker.initialCash, calendarDays: SwingKernel.calendarDays(bars))
      #expect(actual == expected, "seed \(seed): \(p.entry.text) / \(p.exit?.text ?? "-")")
      traded += expected.totalTrades > 0 ? 1 : 0
    }
    #expect(traded >= 3, "seed \(seed): too few rules traded")
  }

  @Test("rules with trailing_stop and max_bars_held: exits at the trailing level and after the bars held, as Docs/orders.md says")
  func trailingStopAndTimeExit() throws {
    let output = try runBacktest("""
      name: t
      data: {bars: ../Data/GOOG.csv, timezone: America/New_York}
      strategy:
        type: rules
        entry: close > sma(close, 200) and rsi(close, 2) < 10
        trailing_stop: 4%
        max_bars_held: 8
      """)
    let trades = output.run.result.trades, bars = output.bars
    let trailing = trades.filter { $0.exitReason == .trailingStop }, timed = trades.filter { $0.exitReason == .time }
    #expect(trailing.count >= 3 && timed.count >= 3, "\(trades.map(\.exitReason))")
    // A time exit fills at the open 8 bars after the entry fill (the entry bar counts 1).
    for t in timed { #expect(t.exitBar - t.entryBar == 8 && t.exitPrice == bars.open[t.exitBar]) }
    // The trailing level: 4% under the best of the entry price and the closes since, before the exit bar; filled there or at a gap's open.
    for t in trailing {
      let best = max(t.entryPrice, (t.entryBar..<t.exitBar).map { bars.close[$0] }.max() ?? t.entryPrice)
      let level = best * (1 - 0.04)
      #expect(abs(t.exitPrice - min(level, bars.open[t.exitBar])) < 1e-9 * level, "\(bars.timeLabel(t.exitBar))")
    }
    // Without the keys, the rule's entries only (no exit rule): the position is held to the end.
    let plain = try runBacktest("name: t\ndata: {bars: ../Data/GOOG.csv, timezone: America/New_York}\nstrategy:\n  type: rules\n  entry: close > sma(close, 200) and rsi(close, 2) < 10\n")
    #expect(plain.run.result.trades.count == 1 && plain.run.result.trades[0].exitReason == .endOfData)
  }

  static let sweepFile = """
    name: s
    data: {bars: ../Data/GOOG.csv, timezone: America/New_York}
    strategy:
      type: rules
      params: {n: 20, lo: 30, patience: 10}
      entry: close < bb_lower(close, n, 2) and rsi(close, 14) < lo
      exit: close > bb_mid(close, n) or bars_held >= patience
      stop_loss: 3%
    """

  @Test("a rule sweep by path or by bare param name gives, for each combination, exactly what backtest run gives")
  func sweep() throws {
    let text = Self.sweepFile + "\nsweep: {parameters: {strategy.params.n: [10, 20], lo: [25, 35], patience: [5, 40]}}\n"
    let file = Repo.path("Strategies/s.yaml")
    let (root, settings) = try SweepRunner.parse(text, file: file)
    #expect(settings.parameters.map(\.path) == ["strategy.params.n", "strategy.params.lo", "strategy.params.patience"])
    let jobs = try SweepRunner.jobs(root: root, file: file, settings: settings, combinations: SweepPlan.combinations(settings))
    let results = ConcurrentSlots<PerformanceSummary>(count: jobs.count)
    let bars = try Backtest.run(try RunConfig.parse(Self.sweepFile, file: file)).bars
    SweepRunner.run(jobs, bars: bars, cycle: nil, workers: 2) { c, summary in results.set(c.index, summary) }
    for (k, job) in jobs.enumerated() {
      let overrides = SweepPlan.overrides(job.combination, settings)
      let single = try Backtest.run(try RunConfig.parse(Self.sweepFile, file: file, overrides: overrides)).summary
      #expect(results.get(k) == single, "\(overrides)")
    }
    #expect(Set((0..<jobs.count).map { results.get($0).totalTrades }).count > 2)
    // An unknown bare name still suggests.
    #expect(throws: InputError.self) { try SweepRunner.parse(Self.sweepFile + "\nsweep: {parameters: {nn: [1]}}\n", file: file) }
  }

  @Test("backtest strategies lists rules with its shared keys; a configured rule adds its params as sweepable names")
  func info() throws {
    let entry = try #require(BuiltInStrategies.catalog.entry(named: "rules"))
    #expect(entry.parameters.map(\.path) == ["stop_loss", "profit_target", "trailing_stop", "max_bars_held"])
    let config = try RunConfig.parse(Self.sweepFile, file: "Strategies/s.yaml")
    #expect(config.strategy.parameterInfo.map(\.path) == ["params.n", "params.lo", "params.patience", "stop_loss", "profit_target",
                                                           "trailing_stop", "max_bars_held"])
    #expect(config.strategy.parameterInfo.map(\.alias) == ["n", "lo", "patience", "stop_loss", "profit_target", "trailing_stop", "max_bars_held"])
    #expect(config.strategy.parameterSummary.map { "\($0.name)=\($0.value)" } == [
      "params.n=20", "params.lo=30", "params.patience=10", "entry=close < bb_lower(close, n, 2) and rsi(close, 14) < lo",
      "exit=close > bb_mid(close, n) or bars_held >= patience", "stop_loss=3%", "profit_target=none", "trailing_stop=none", "max_bars_held=0"])
  }
}

@Suite struct RuleFuzzTests {
  static let vocabulary = ["close", "open", "high", "low", "volume", "n", "m", "lo", "w", "entry_price", "bars_held", "sma", "ema", "std", "rsi",
                           "atr", "bb_upper", "bb_lower", "bb_mid", "highest", "lowest", "roc", "abs", "min", "max", "and", "or", "not",
                           "adx", "stoch_d", "macd_hist", "wma", "obv", "cci",
                           "crosses_above", "crosses_below", "(", ")", "[", "]", ",", "+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==",
                           "!=", "0", "1", "2.5", "1e9", "1e999", "1.", ".5", "-1", "1000000000", "9999999999999999999", "&", "#", "=",
                           "é", "\n", "", "rsl", "_x"]

  @Test("random token strings never crash the lexer, parser or checker: each reads or is refused with a message", arguments: Array(UInt64(1)...4))
  func randomTokens(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    let bars = SyntheticBars.generate(count: 80, seed: seed)
    var accepted = 0
    for _ in 0..<2_000 {
      let count = Int(rng.next() % 24)
      let text = (0..<count).map { _ in Self.vocabulary[Int(rng.next() % UInt64(Self.vocabulary.count))] }
        .joined(separator: rng.next() % 3 == 0 ? "" : " ")
      do {
        let e = try RuleEval.check(text, params: RandomRules.params, exit: true)
        accepted += 1
        let evaluator = RuleEvaluator(bars: bars)
        if e.isCondition, !e.readsPosition { _ = evaluator.condition(e) }
        if !e.isCondition, !e.readsPosition { _ = evaluator.number(e) }
      } catch let error as InputError {
        #expect(!error.message.isEmpty && error.location!.column >= 1 && error.location!.column <= text.count + 1, "\(text)")
      } catch {
        Issue.record("\(text): \(error)")
      }
    }
    #expect(accepted > 20, "seed \(seed): only \(accepted) strings read")
  }

  @Test("random well-typed rules read back from their text, see no later bar, and run the engine to the end", arguments: Array(UInt64(1)...6))
  func randomTrees(seed: UInt64) throws {
    var random = RandomRules(seed: seed)
    var rng = SplitMix64(seed: seed ^ 0xABCD)
    let bars = SyntheticBars.generate(count: 400, seed: seed)
    let cut = 150 + Int(rng.next() % 200)
    let early = bars.prefix(cut)
    for _ in 0..<40 {
      let entry = try RuleEval.check(random.condition(depth: 4), params: RandomRules.params)
      let exit = try RuleEval.check(random.condition(depth: 4, position: true), params: RandomRules.params, exit: true)
      #expect(try RuleEval.check(entry.text) == entry, "\(entry.text)")
      #expect(try RuleEval.check(exit.text, exit: true) == exit, "\(exit.text)")
      // No look-ahead: the bits up to the cut do not change when the later bars do not exist.
      let all = RuleEvaluator(bars: bars).condition(entry), part = RuleEvaluator(bars: early).condition(entry)
      #expect((0..<cut).allSatisfy { all[$0] == part[$0] }, "\(entry.text)")
      var p = RulesStrategy.Parameters()
      p.entry = entry
      p.exit = exit
      p.stopLoss = 0.02
      var strategy = RulesStrategy(parameters: p, bars: bars)
      let result = Engine.run(&strategy, bars: bars, broker: BrokerSettings())
      #expect(result.equity.count == bars.count && result.equity.allSatisfy(\.isFinite))
      _ = strategy.explain(result.lastClose.signal, at: bars.count - 1, position: result.lastClose.position)
    }
  }
}
