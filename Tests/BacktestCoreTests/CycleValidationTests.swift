@testable import BacktestCore
@testable import BacktestRun
import Foundation
import Testing

/// The cycle filter, dividends and expenses act in walk-forward and holdout runs as in `backtest run`.
@Suite struct CycleValidationTests {
  static let sweepFile = """
    name: goog-cycle-walkforward
    data: {bars: ../Data/GOOG.csv, timezone: America/New_York, session: all, end: 2009-12-31}
    strategy: {type: bollinger_rsi, stop_loss: 2%}
    cycle:
      macro_file: ../Data/us_macro_quarterly.csv
      filter: true
      buy_stages: [Peak, Recovery]
      exit_stages: [Contraction]
    sweep:
      parameters:
        oversold: [25, 30, 35]
      metric: total_return
      validation: {mode: walk_forward, train: 1y, test: 6m, step: 6m}

    """

  static func load(_ overrides: [String] = []) throws -> (SweepSettings, [SweepJob], BarSeries, CycleContext?) {
    let path = Repo.path("Strategies/test.yaml")
    let (root, settings) = try SweepRunner.parse(sweepFile, file: path, overrides: overrides)
    let config = try RunConfig.parse(document: root, file: path)
    let jobs = try SweepRunner.jobs(root: root, file: path, settings: settings, combinations: SweepPlan.combinations(settings))
    let bars = try Backtest.loadBars(for: config).bars
    return (settings, jobs, bars, try Backtest.loadCycle(config, bars: bars))
  }

  @Test("the stages made for all bars, cut to a prefix, are the stages made for that prefix (no later bar changes a stage)")
  func slicedGateIsPointInTime() throws {
    let (_, jobs, bars, cycle) = try Self.load()
    let gate = try #require(cycle?.gate)
    for n in [300, 800, 1200, bars.count] {
      let prefix = try #require(try Backtest.loadCycle(jobs[0].config!, bars: bars.prefix(n))?.gate)
      #expect(gate.slice(0..<n).stages == prefix.stages)
    }
  }

  @Test("walk-forward with the cycle filter: every out-of-sample entry was decided in a buy stage, every position held into a Contraction close sold at the next open")
  func walkForwardHonoursTheFilter() throws {
    let (settings, jobs, bars, cycle) = try Self.load()
    let gate = try #require(cycle?.gate)
    let wf = try #require(settings.walkForward)
    let filtered = WalkForward.run(wf, jobs: jobs, settings: settings, bars: bars, cycle: gate, initialCash: 100_000, workers: 2)
    let unfiltered = WalkForward.run(wf, jobs: jobs, settings: settings, bars: bars, initialCash: 100_000, workers: 2)
    let trades = filtered.windows.flatMap(\.testTrades)
    #expect(trades.count >= 5)
    for t in trades {
      #expect(gate.buyStages.contains(gate.stages[t.entryBar - 1]), "entry at \(bars.timeLabel(t.entryBar)) decided in \(gate.stages[t.entryBar - 1])")
      // No close in Contraction while held, but the one that made it sell (at the next open).
      let held = (t.entryBar..<max(t.entryBar, t.exitBar - 1))
      #expect(!held.contains { gate.stages[$0] == .contraction }, "held through a Contraction close before \(bars.timeLabel(t.exitBar))")
    }
    // Without the gate, some out-of-sample entries were decided outside the buy stages: the test sees the filter act.
    #expect(unfiltered.windows.flatMap(\.testTrades).contains { !gate.buyStages.contains(gate.stages[$0.entryBar - 1]) })
  }

  @Test("holdout with the cycle filter: the out-of-sample figures are the filtered run's over those bars")
  func holdoutHonoursTheFilter() throws {
    let (settings, jobs, bars, cycle) = try Self.load(["sweep.validation={mode: holdout, split: 0.6}"])
    let gate = try #require(cycle?.gate)
    let start = try #require(settings.validation?.index(in: bars))
    let records = jobs.map { SweepRanking.record($0.combination, PerformanceSummary(result: $0.config!.strategy.run(bars: bars.prefix(start), broker: $0.config!.broker, cycle: gate.slice(0..<start)).result, bars: bars.prefix(start)), fingerprint: "-") }
    let rows = SweepValidation.evaluate(records, settings: settings, jobs: jobs, bars: bars, cycle: gate, outOfSampleStart: start)
    let plain = SweepValidation.evaluate(records, settings: settings, jobs: jobs, bars: bars, outOfSampleStart: start)
    #expect(!rows.isEmpty)
    for row in rows {
      let job = try #require(jobs.first { $0.combination.values == row.values })
      // The filtered run over every bar, traded from the split: its trades after the split are the row's.
      let whole = job.config!.strategy.run(bars: bars, broker: job.config!.broker, cycle: gate, trading: start..<bars.count).result
      #expect(row.outOfSample.totalTrades == whole.trades.count)
      #expect(whole.trades.allSatisfy { gate.buyStages.contains(gate.stages[$0.entryBar - 1]) })
    }
    #expect(zip(rows, plain).contains { $0.outOfSample.totalTrades != $1.outOfSample.totalTrades }, "the filter changes some out-of-sample row")
  }
}
