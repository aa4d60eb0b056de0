import BacktestCore
import Testing

@Suite struct CycleFilterTests {
  static let bars = handBars(Array(repeating: (100, 101, 99, 100), count: 8))

  static func run(_ signals: [Int: Signal], stages: [CycleStage], filter: Bool = true, buy: Set<CycleStage> = [.expansion],
                  exit: Set<CycleStage> = []) -> (BacktestResult, Int) {
    let gate = CycleGate(stages: ContiguousArray(stages), filterEntries: filter, buyStages: buy, exitStages: exit)
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

  @Test("a position is closed with CYCLE_EXIT at the next open when the stage turns to an exit stage")
  func forcedExit() {
    let stages: [CycleStage] = [.expansion, .expansion, .expansion, .contraction, .contraction, .peak, .peak, .peak]
    var (r, _) = Self.run([0: Self.buy], stages: stages, exit: [.contraction])
    #expect(r.trades.count == 1 && r.trades[0].exitBar == 4 && r.trades[0].exitReason == .cycleExit)
    (r, _) = Self.run([0: Self.buy], stages: stages, exit: [])
    #expect(r.trades[0].exitReason == .endOfData)
    // Entered while already in an exit stage (allowed there): no forced exit, the stage did not turn.
    (r, _) = Self.run([3: Self.buy], stages: stages, buy: [.contraction], exit: [.contraction])
    #expect(r.trades.count == 1 && r.trades[0].exitReason == .endOfData)
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
    #expect(cycle.unfiltered?.totalTrades == 10 && cycle.skippedTrades == 6)
    let trades = RunReport.tradesCSV(output)
    #expect(trades.hasPrefix(RunReport.tradeColumns + ",entry_cycle,exit_cycle\n"))
    #expect(trades.contains(",STOP_LOSS,") && trades.contains(",Recovery,Recovery\n"))
    #expect(RunReport.equityCSV(output).hasPrefix("time,equity,cash,position_shares,close,drawdown,benchmark_equity,flow,dividends,cycle\n"))
    #expect(MarkdownReport.render(output).contains("### Performance by cycle stage"))
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
