import BacktestCore
import BacktestRun
import Foundation
import Testing

@Suite struct CycleFilterTests {
  static let bars = handBars(Array(repeating: (100, 101, 99, 100), count: 8))

  static func run(_ signals: [Int: Signal], stages: [CycleStage], filter: Bool = true, buy: Set<CycleStage> = [.expansion],
                  exit: Set<CycleStage> = []) -> (BacktestResult, Int) {
    let gate = CycleGate(stages: ContiguousArray(stages), filter: filter, buyStages: buy, exitStages: exit)
    var s = CycleFilter(ScriptedStrategy(parameters: .init(signals: signals), bars: bars), gate: gate)
    let r = Engine.run(&s, bars: bars, broker: BrokerSettings())
    return (r, s.blockedEntries)
  }

  static let buy = Signal.enterLong(stopLoss: nil, profitTarget: nil)

  @Test("buy signals pass only in allowed stages; unknown never passes, even when every stage is allowed")
  func entries() {
    let stages: [CycleStage] = [.peak, .expansion, .unknown, .unknown, .unknown, .unknown, .unknown, .unknown]
    var (r, blocked) = Self.run([0: Self.buy, 1: Self.buy], stages: stages)
    #expect(r.trades.count == 1 && r.trades[0].entryBar == 2 && blocked == 1)
    (r, blocked) = Self.run([2: Self.buy], stages: stages, buy: [.expansion, .peak, .contraction, .recovery])
    #expect(r.trades.isEmpty && blocked == 1)
    (r, blocked) = Self.run([0: Self.buy], stages: stages, filter: false)
    #expect(r.trades.count == 1 && blocked == 0)
  }

  @Test("the wrapped strategy's exits are never blocked, whatever the stage")
  func exitsPass() {
    let stages: [CycleStage] = [.expansion, .expansion, .contraction, .contraction, .unknown, .unknown, .unknown, .unknown]
    let (r, _) = Self.run([0: Self.buy, 3: .exitLong(.technical)], stages: stages)
    #expect(r.trades.count == 1 && r.trades[0].exitBar == 4 && r.trades[0].exitReason == .technical)
  }

  @Test("a position is sold with CYCLE_EXIT at the next open after a close in an exit stage")
  func forcedExit() {
    let stages: [CycleStage] = [.expansion, .expansion, .expansion, .contraction, .contraction, .peak, .peak, .peak]
    var (r, _) = Self.run([0: Self.buy], stages: stages, exit: [.contraction])
    #expect(r.trades.count == 1 && r.trades[0].exitBar == 4 && r.trades[0].exitReason == .cycleExit)
    (r, _) = Self.run([0: Self.buy], stages: stages, exit: [])
    #expect(r.trades[0].exitReason == .endOfData)
  }

  @Test("a position filled in an exit stage is sold after its entry bar's close")
  func filledInExitStage() {
    // Bought at the close of bar 2 (Expansion), filled at the open of bar 3 (Contraction): sold at bar 4's open.
    let stages: [CycleStage] = [.expansion, .expansion, .expansion, .contraction, .contraction, .contraction, .peak, .peak]
    let (r, _) = Self.run([2: Self.buy], stages: stages, exit: [.contraction])
    #expect(r.trades.count == 1)
    #expect(r.trades[0].entryBar == 3 && r.trades[0].exitBar == 4 && r.trades[0].exitReason == .cycleExit)
  }

  @Test("unknown never sells, even when listed; the exit stage after a stale stretch does")
  func unknownNeverExits() {
    let stages: [CycleStage] = [.recovery, .contraction, .unknown, .unknown, .contraction, .peak, .peak, .peak]
    let (r, _) = Self.run([0: Self.buy, 2: Self.buy], stages: stages, buy: [.recovery], exit: [.contraction, .unknown])
    // Filled at bar 1 (Contraction), sold at bar 2; the buy at bar 2 (unknown) is blocked.
    #expect(r.trades.count == 1 && r.trades[0].exitBar == 2 && r.trades[0].exitReason == .cycleExit)
    let (held, _) = Self.run([0: Self.buy], stages: [.recovery, .recovery, .unknown, .unknown, .contraction, .peak, .peak, .peak],
                             buy: [.recovery], exit: [.contraction, .unknown])
    #expect(held.trades.count == 1 && held.trades[0].exitBar == 5 && held.trades[0].exitReason == .cycleExit)
  }

  @Test("the strategy's own exit at a close in an exit stage keeps its reason")
  func strategyExitWins() {
    let stages: [CycleStage] = [.expansion, .expansion, .contraction, .contraction, .peak, .peak, .peak, .peak]
    let (r, _) = Self.run([0: Self.buy, 2: .exitLong(.technical)], stages: stages, exit: [.contraction])
    #expect(r.trades.count == 1 && r.trades[0].exitBar == 3 && r.trades[0].exitReason == .technical)
  }

  @Test("filter off: every signal passes in any stage, unknown included, and exit stages sell nothing")
  func off() {
    let stages: [CycleStage] = [.peak, .unknown, .contraction, .contraction, .unknown, .unknown, .unknown, .unknown]
    let (r, blocked) = Self.run([0: Self.buy, 5: .exitLong(.technical), 6: Self.buy], stages: stages, filter: false,
                                exit: [.contraction, .peak, .unknown])
    #expect(blocked == 0)
    #expect(r.trades.map(\.entryBar) == [1, 7] && r.trades.map(\.exitBar) == [6, 7])
    #expect(r.trades.map(\.exitReason) == [.technical, .endOfData])
  }
}

@Suite struct CycleRunTests {
  static let config = """
    name: gc
    data: {bars: ../Data/GOOG.csv, timezone: America/New_York, end: 2009-12-31}
    strategy: {type: bollinger_rsi}
    cycle: {macro_file: ../Data/us_macro_quarterly.csv, buy_stages: [expansion, Recovery], exit_stages: [Contraction]}
    """

  @Test("a filtered run enters only in allowed stages, and its breakdown adds up")
  func filteredRun() throws {
    let output = try Backtest.run(try runConfig(Self.config))
    let cycle = try #require(output.cycle)
    #expect(output.bars.timeLabel(output.bars.count - 1) == "2009-12-31")
    #expect(output.run.result.trades.count == 4 && output.run.blockedEntries == 8)
    for t in output.run.result.trades {
      #expect([CycleStage.expansion, .recovery].contains(cycle.gate.stages[t.entryBar]))
    }
    let breakdown = CycleBreakdown(result: output.run.result, stages: cycle.gate.stages)
    #expect(breakdown.rows.map(\.bars).reduce(0, +) == output.bars.count)
    #expect(breakdown.rows.map(\.trades).reduce(0, +) == output.run.result.trades.count)
    let growth = breakdown.rows.map { 1 + $0.totalReturn }.reduce(1, *)
    #expect(abs(growth - (1 + output.summary.totalReturn)) < 1e-12)
    // The comparison is the same run without the cycle section: the oracle's first 10 GOOG trades (all that
    // 2004-2009 holds), 6 of them decided in Peak or Contraction (Fixtures/cycle/goog_oracle_stages.csv).
    let plain = try runBacktest("""
      name: gc
      data: {bars: ../Data/GOOG.csv, timezone: America/New_York, end: 2009-12-31}
      strategy: {type: bollinger_rsi}
      """)
    let oracle = try SimpleCSV(path: Repo.fixtures + "/oracle/GOOG-default/trades.csv").column("pnl").prefix(10)
    let unfiltered = try #require(cycle.unfiltered)
    #expect(plain.summary.totalTrades == 10 && unfiltered.totalTrades == 10 && cycle.skippedTrades == 6)
    #expect(unfiltered.totalReturn == plain.summary.totalReturn)
    #expect(abs(unfiltered.totalReturn - oracle.map { Double($0)! }.reduce(0, +) / 100_000) < 1e-12)
    let trades = RunReport.tradesCSV(output)
    #expect(trades.hasPrefix(RunReport.tradeColumns + ",entry_cycle,exit_cycle\n"))
    #expect(trades.contains(",STOP_LOSS,") && trades.contains(",Recovery,Recovery\n"))
    #expect(RunReport.equityCSV(output).hasPrefix("time,equity,cash,position_shares,close,drawdown,benchmark_equity,flow,dividends,cycle\n"))
    #expect(MarkdownReport.render(output).contains("### Performance by cycle stage"))
  }

  @Test("over 2004-2013 the comparison without the filter takes the oracle's 21 trades; 15 were decided in blocked stages")
  func comparisonFullRange() throws {
    let output = try runBacktest(Self.config, overrides: ["data.end=2013-03-01"])
    let cycle = try #require(output.cycle)
    let oracle = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Repo.fixtures + "/oracle/GOOG-default/summary.json"))) as! [String: Any]
    #expect(cycle.unfiltered?.totalTrades == 21)
    #expect(close(cycle.unfiltered!.totalReturn, (oracle["total_return"] as! NSNumber).doubleValue, relative: 1e-9))
    // The reference classifier's stages at each oracle trade's decision close and entry fill: 5 decided in Peak or
    // Contraction (2008), 10 in unknown (2009Q3 is stale from the 2010-05-13 bar on).
    let reference = try SimpleCSV(path: Repo.fixtures + "/cycle/goog_oracle_stages.csv")
    #expect(reference.column("decision_stage").filter { $0 != "Expansion" && $0 != "Recovery" }.count == 15)
    #expect(cycle.skippedTrades == 15)
    // With the filter off the run is the oracle's, and each trade's entry_cycle is the stage at its fill.
    let off = try runBacktest(Self.config, overrides: ["data.end=2013-03-01", "cycle.filter=false"])
    let trades = SimpleCSV(text: RunReport.tradesCSV(off))
    #expect(trades.column("entry_time") == reference.column("entry_time"))
    #expect(trades.column("entry_cycle") == reference.column("entry_stage"))
  }

  @Test("GDP lag 22 days: bought 2008-07-22 (decided in Peak, filled in Contraction), sold at the next open")
  func filledInExitStage() throws {
    let output = try runBacktest(Self.config, overrides: ["cycle.buy_stages=[Peak]", "cycle.exit_stages=[Contraction]",
                                                          "cycle.release_lag_days.real_gdp=22"])
    let stages = output.cycle!.gate.stages, bars = output.bars
    let k = try #require(bars.indices.first { bars.timeLabel($0) == "2008-07-22" })
    // 2008Q2 is released at 2008-06-30 + 22 days = 2008-07-22T00:00Z, before the bar's New York midnight.
    #expect(stages[k - 1] == .peak && stages[k] == .contraction)
    let trades = output.run.result.trades
    try #require(trades.count == 1)
    let t = trades[0]
    #expect(bars.timeLabel(t.entryBar) == "2008-07-22" && t.entryPrice == 466.72 && t.shares == 214)
    #expect(bars.timeLabel(t.exitBar) == "2008-07-23" && t.exitPrice == 481.61 && t.exitReason == .cycleExit)
    #expect(abs(t.pnl - 214 * (481.61 - 466.72)) < 1e-9)
    // by_cycle groups the trade by the stage at its entry fill (Contraction), not at its decision (Peak); the
    // equity moved only on the trade's two Contraction bars: 100,000 -> 103,186.46.
    let rows = CycleBreakdown(result: output.run.result, stages: stages).rows
    let peak = rows.first { $0.stage == .peak }!, contraction = rows.first { $0.stage == .contraction }!
    #expect(peak.trades == 0 && peak.totalReturn == 0)
    #expect(contraction.trades == 1 && abs(contraction.totalReturn - 0.0318646) < 1e-12)
    let json = RunReport.summaryJSON(output).rendered()
    #expect(json.contains("\"trades\": \"trades whose entry fill bar is in this stage; win_rate and avg_return are over these trades\""))
    #expect(MarkdownReport.render(output).contains("the trades grouped by the stage at their entry fill (the bar they were bought at)"))
  }

  @Test("a stage in both buy_stages and exit_stages is refused at its place in exit_stages")
  func overlap() {
    let text = """
      name: gc
      data: {bars: ../Data/GOOG.csv}
      strategy: {type: bollinger_rsi}
      cycle:
        macro_file: ../Data/us_macro_quarterly.csv
        buy_stages: [Expansion, Recovery]
        exit_stages:
          - Contraction
          - recovery
      """
    #expect(configError(text) == "Strategies/c.yaml:9:7: error: stage 'Recovery' is in both 'cycle.buy_stages' and 'cycle.exit_stages'; expected exit stages that are not buy stages")
    #expect(configError(text, overrides: ["cycle.filter=false"])?.hasPrefix("Strategies/c.yaml:9:7: error: stage 'Recovery'") == true)
    #expect(configError(Self.config, overrides: ["cycle.exit_stages=expansion"])
            == "--set cycle.exit_stages=expansion:1:19: error: stage 'Expansion' is in both 'cycle.buy_stages' and 'cycle.exit_stages'; expected exit stages that are not buy stages")
  }

  @Test("the stage of a bar is the stage in force at its timestamp")
  func barStages() throws {
    let output = try Backtest.run(try runConfig(Self.config))
    let stages = output.cycle!.gate.stages
    let bars = output.bars
    let k = try #require(bars.indices.first { bars.timeLabel($0) == "2008-08-04" })
    // GOOG dates are read as New York midnight (04:00 UTC), after 2008Q2's release at 00:00 UTC.
    #expect(stages[k - 1] == .peak && stages[k] == .contraction)
  }

  @Test("cycle section errors", arguments: [
    ("cycle.buy_stages=[expanson]", "--set cycle.buy_stages=[expanson]:1:18: error: unknown stage 'expanson' in 'cycle.buy_stages'; did you mean 'Expansion'?; expected some of Expansion, Peak, Contraction, Recovery"),
    ("cycle.macro_file=null", "Strategies/c.yaml:4:8: error: missing 'cycle.macro_file'; expected the path of a macro CSV (required for the cycle filter and stages)"),
    ("cycle.trend_min_quarters=50", "--set cycle.trend_min_quarters=50:1:26: error: expected an integer from 1 to 40 for 'cycle.trend_min_quarters', found 50"),
    ("cycle.release_lag_days.gdp=3", "--set cycle.release_lag_days.gdp=3:1:1: error: unknown key 'gdp' in 'cycle.release_lag_days'; expected one of real_gdp, unemployment_rate, cpi, inflation, short_rate, long_rate"),
  ])
  func errors(_ override: String, _ message: String) {
    #expect(configError(Self.config, overrides: [override]) == message)
  }
}
