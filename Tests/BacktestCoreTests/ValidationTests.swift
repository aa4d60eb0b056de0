import BacktestCore
import BacktestRun
import Foundation
import Testing

/// Decides as `inner` from bar `start` on and holds before it: a whole-series run with this decider is the
/// reference for a run that trades only from `start` (no order before it, so the account is fresh there).
private struct HoldBefore<Inner: BarDecider>: BarDecider {
  var inner: Inner
  let start: Int
  var firstDecisionBar: Int { inner.firstDecisionBar }
  mutating func decide(at i: Int, position: PositionView) -> Signal {
    i < start ? .hold : inner.decide(at: i, position: position)
  }
}

/// The columns of `r` from bar `k` on, as a run that trades from `k` reports them.
private func suffix(_ r: BacktestResult, from k: Int) -> BacktestResult {
  var out = r
  out.equity = ContiguousArray(r.equity[k...])
  out.cash = ContiguousArray(r.cash[k...])
  out.shares = ContiguousArray(r.shares[k...])
  if !r.carry.dividendCash.isEmpty { out.carry.dividendCash = ContiguousArray(r.carry.dividendCash[k...]) }
  out.firstBar = k
  return out
}

/// `backtest run`'s reference run of `bollinger_rsi` over all bars, trading from `start` with a fresh account.
private func referenceRun(_ job: SweepJob, bars: BarSeries, from start: Int) throws -> BacktestResult {
  let p = try #require(job.config!.strategy.parameters as? BollingerRSI.Parameters)
  var decider = HoldBefore(inner: BollingerRSI(parameters: p, bars: bars), start: start)
  return Engine.run(&decider, bars: bars, broker: job.config!.broker)
}

/// A shipped sweep file: its settings, jobs and bars.
private func shippedSweep(_ name: String, overrides: [String] = []) throws -> (SweepSettings, [SweepJob], BarSeries) {
  let path = Repo.path("Strategies/" + name)
  let (root, settings) = try SweepRunner.parse(try String(contentsOfFile: path, encoding: .utf8), file: path, overrides: overrides)
  let config = try RunConfig.parse(document: root, file: path)
  let jobs = try SweepRunner.jobs(root: root, file: path, settings: settings, combinations: SweepPlan.combinations(settings))
  return (settings, jobs, try Backtest.loadBars(config.data).bars)
}

@Suite struct TradingRangeTests {
  @Test("a run over a range of bars equals a whole-series run that holds before the range: trades, every column, dividends, drag",
        arguments: Array(UInt64(1)...8))
  func rangeEqualsHoldingBefore(seed: UInt64) {
    var rng = SplitMix64(seed: seed &+ 500)
    let bars = SyntheticBars.generate(count: 2500, seed: seed)
    var broker = BrokerSettings()
    broker.slippageBasisPoints = Double(rng.next() % 10)
    broker.commission = [.none, .perTrade(1), .perShare(0.01), .percent(0.001)][Int(rng.next() % 4)]
    let p = PropertyTests.parameters(&rng)
    let start = 40 + Int(rng.next() % 800), end = start + 1200 + Int(rng.next() % UInt64(bars.count - start - 1200 + 1))
    // A dividend with an ex-date every day, paid 10 days later, and a 1% expense ratio.
    let dividends = (Int(bars.day[0])...Int(bars.day[bars.count - 1])).map { Dividend(exDay: $0, payDay: $0 + 10, amount: 0.01) }
    let history = bars.prefix(end)
    let account = AccountEvents(dividends: DividendSchedule(dividends, days: history.day), expenseRatio: 0.01)

    var strategy = BollingerRSI(parameters: p, bars: history)
    let ranged = Engine.run(&strategy, bars: history, broker: broker, account: account, trading: start..<end)
    var holding = HoldBefore(inner: BollingerRSI(parameters: p, bars: history), start: start)
    let whole = suffix(Engine.run(&holding, bars: history, broker: broker, account: account), from: start)

    #expect(!ranged.trades.isEmpty && ranged.carry.dividendIncome > 0 && ranged.carry.expenseDrag > 0, "seed \(seed): the property says little: \(ranged.trades.count) trades, dividends \(ranged.carry.dividendIncome), drag \(ranged.carry.expenseDrag)")
    #expect(ranged.firstBar == start && ranged.equity.count == end - start)
    #expect(ranged.trades == whole.trades, "seed \(seed)")
    #expect(ranged.equity == whole.equity && ranged.cash == whole.cash && ranged.shares == whole.shares, "seed \(seed)")
    #expect(ranged.carry.dividendCash == whole.carry.dividendCash && ranged.carry.dividendsPending == whole.carry.dividendsPending, "seed \(seed)")
    #expect(ranged.carry.expenseDrag == whole.carry.expenseDrag && ranged.lastClose.signal == whole.lastClose.signal, "seed \(seed)")
    // Bars after the range change nothing (indicators at a bar read bars up to it only).
    var longer = BollingerRSI(parameters: p, bars: bars)
    let withFuture = Engine.run(&longer, bars: bars, broker: broker, account: account, trading: start..<end)
    #expect(withFuture.trades == ranged.trades && withFuture.equity == ranged.equity, "seed \(seed)")
  }

  @Test("by hand: a decision before the range does not fill; decisions start at the range; the last bar of the range closes the position")
  func byHand() {
    let bars = handBars((0..<8).map { k in let c = 100.0 + Double(k); return (c, c + 1, c - 1, c) })
    var s = ScriptedStrategy(parameters: .init(signals: [1: .enterLong(stopLoss: nil, profitTarget: nil),
                                                         4: .enterLong(stopLoss: nil, profitTarget: nil)]), bars: bars)
    var broker = BrokerSettings()
    broker.initialCash = 1000
    let r = Engine.run(&s, bars: bars, broker: broker, trading: 2..<7)
    #expect(s.asked.map(\.0) == [2, 3, 4, 5, 6])
    #expect(r.equity == [1000, 1000, 1000, 1000, 1000 + 9 * 1], "bought 9 shares at the open of bar 5 (105), marked at 106")
    // The position bought at bar 5's open is closed at bar 6's close (the range's last bar), not at the data's end.
    #expect(r.trades == [Trade(entryBar: 5, entryPrice: 105, exitBar: 6, exitPrice: 106, shares: 9, exitReason: .endOfData)])
    #expect(r.cash.last == 55 && r.shares.last == 9, "the columns are marked before the END_OF_DATA close, as over all bars")
  }
}

@Suite struct WarmValidationTests {
  @Test("walk-forward on shipped data: each window's out-of-sample trades equal the strategy over the whole series traded only in the test part, fresh account")
  func walkForwardWindowsAreWarm() throws {
    let (settings, jobs, bars) = try shippedSweep("gpix-walkforward.yaml")
    let wf = try #require(settings.walkForward)
    let result = WalkForward.run(wf, jobs: jobs, settings: settings, bars: bars, initialCash: 100_000, workers: 2)
    #expect(result.windows.count == 6)
    var coldDiffers = 0, warmOnlyEntries = 0
    for w in result.windows {
      let best = try #require(w.best)
      let job = try #require(jobs.first { $0.combination.values == best.values })
      let history = bars.prefix(w.testEnd)
      let reference = try referenceRun(job, bars: history, from: w.testStart)
      let test = bars.filtered { $0 >= w.testStart && $0 < w.testEnd }
      #expect(w.testTrades == reference.trades, "window from \(bars.timeLabel(w.testStart))")
      #expect(w.testEquity == suffix(reference, from: w.testStart).equity)
      #expect(w.outOfSample == PerformanceSummary(result: suffix(reference, from: w.testStart), bars: test))
      // The cold alternative: the strategy built on the test part alone.
      let cold = job.config!.strategy.run(bars: test, broker: job.config!.broker).result.trades.map { t in
        var t = t
        t.entryBar += w.testStart
        t.exitBar += w.testStart
        return t
      }
      if cold != w.testTrades { coldDiffers += 1 }
      let p = try #require(job.config!.strategy.parameters as? BollingerRSI.Parameters)
      let coldFirstFill = w.testStart + max(p.bollingerPeriod - 1, p.rsiPeriod) + 1
      warmOnlyEntries += w.testTrades.filter { $0.entryBar < coldFirstFill }.count
    }
    // On these bars the warm-up matters: two windows trade differently, one with an entry a cold test part cannot make.
    #expect(coldDiffers == 2 && warmOnlyEntries == 1, "\(coldDiffers) windows differ, \(warmOnlyEntries) early entries")
  }

  @Test("holdout on shipped data: each top combination's out-of-sample result is the whole series traded from the split, fresh account")
  func holdoutIsWarm() throws {
    let (settings, jobs, bars) = try shippedSweep("gpix-sweep-holdout.yaml")
    let start = try #require(settings.validation?.index(in: bars))
    #expect(bars.timeLabel(start) == "2023-07-03T09:30:00-04:00")
    let collected = RecordCollector()
    SweepRunner.run(jobs, bars: bars.prefix(start), cycle: nil, workers: 2) { c, s in
      collected.add(c.index, SweepRanking.record(c, s, fingerprint: "-"))
    }
    let rows = SweepValidation.evaluate(collected.sorted, settings: settings, jobs: jobs, bars: bars, outOfSampleStart: start)
    #expect(rows.count == 5)
    let outOfSample = bars.filtered { $0 >= start }
    var coldDiffers = 0
    for row in rows {
      let job = try #require(jobs.first { $0.combination.values == row.values })
      let reference = suffix(try referenceRun(job, bars: bars, from: start), from: start)
      #expect(row.outOfSample == PerformanceSummary(result: reference, bars: outOfSample), "\(row.values)")
      let cold = job.config!.strategy.run(bars: outOfSample, broker: job.config!.broker).result
      if PerformanceSummary(result: cold, bars: outOfSample) != row.outOfSample { coldDiffers += 1 }
    }
    #expect(coldDiffers == 5)
  }

  @Test("account: carry trades the same bars as a fresh account, each part starting from the previous part's final equity, unscaled")
  func carriedAccount() throws {
    let (settings, jobs, bars) = try shippedSweep("gpix-walkforward.yaml")
    let fresh = WalkForward.run(try #require(settings.walkForward), jobs: jobs, settings: settings, bars: bars, initialCash: 100_000, workers: 2)
    var wf = try #require(settings.walkForward)
    wf.account = .carry
    let carried = WalkForward.run(wf, jobs: jobs, settings: settings, bars: bars, initialCash: 100_000, workers: 2)
    #expect(Array(carried.equity) == carried.windows.flatMap { Array($0.testEquity) })
    var level = 100_000.0
    for (c, f) in zip(carried.windows, fresh.windows) {
      #expect(c.testTrades.map { [$0.entryBar, $0.exitBar] } == f.testTrades.map { [$0.entryBar, $0.exitBar] })
      let firstTrade = try #require(c.testTrades.first)
      // All-in sizing: the first entry buys as many whole shares as the carried cash allows.
      #expect(firstTrade.shares == (level / firstTrade.entryPrice).rounded(.down))
      level = try #require(c.testEquity.last)
    }
    #expect(carried.equity.last == level && abs(level / fresh.equity.last! - 1) < 0.01 && level != fresh.equity.last)
  }

  @Test("anchored windows: every training part starts at the first bar; the test parts are the rolling ones'")
  func anchored() throws {
    let (settings, jobs, bars) = try shippedSweep("gpix-walkforward.yaml", overrides: ["sweep.validation.anchored=true"])
    let wf = try #require(settings.walkForward)
    #expect(wf.anchored && wf.account == .fresh)
    var rolling = wf
    rolling.anchored = false
    #expect(wf.windows(bars).map(\.train) == Array(repeating: 0, count: 6))
    #expect(wf.windows(bars).map { [$0.test, $0.end] } == rolling.windows(bars).map { [$0.test, $0.end] })
    #expect(rolling.windows(bars).map { bars.timeLabel($0.train) }.prefix(2) == ["2021-01-04T09:30:00-05:00", "2021-07-05T09:30:00-04:00"])
    // The last window's winner, in-sample: its figures are a run over every bar before the test part.
    let result = WalkForward.run(wf, jobs: jobs, settings: settings, bars: bars, initialCash: 100_000, workers: 2)
    let last = try #require(result.windows.last), best = try #require(last.best)
    let job = try #require(jobs.first { $0.combination.values == best.values })
    let train = bars.prefix(last.testStart)
    let inSample = PerformanceSummary(result: job.config!.strategy.run(bars: train, broker: job.config!.broker).result, bars: train)
    #expect(close(try #require(best.metric("sharpe")), try #require(inSample.sharpe), relative: 1e-9))
    #expect(close(try #require(best.metric("cagr")), try #require(inSample.cagr), relative: 1e-9))
  }

  @Test("walk-forward efficiency: out-of-sample over in-sample annualized return, undefined unless in-sample is positive")
  func efficiency() throws {
    #expect(WalkForward.efficiency(outOfSample: 0.1, inSample: 0.2) == 0.5)
    #expect(WalkForward.efficiency(outOfSample: -0.05, inSample: 0.1) == -0.5)
    #expect(WalkForward.efficiency(outOfSample: 0.1, inSample: 0) == nil && WalkForward.efficiency(outOfSample: 0.1, inSample: -0.2) == nil)
    #expect(WalkForward.efficiency(outOfSample: nil, inSample: 0.2) == nil)
    let (settings, jobs, bars) = try shippedSweep("gpix-walkforward.yaml")
    let r = WalkForward.run(try #require(settings.walkForward), jobs: jobs, settings: settings, bars: bars, initialCash: 100_000, workers: 2)
    for w in r.windows {
      let inSample = try #require(w.best?.metric("cagr")), outOfSample = try #require(w.outOfSample?.cagr)
      #expect(w.efficiency == (inSample > 0 ? outOfSample / inSample : nil))
    }
    let meanInSample = r.windows.compactMap { $0.best?.metric("cagr") }.reduce(0, +) / Double(r.windows.count)
    #expect(r.efficiency == (try #require(r.summary.cagr)) / meanInSample)
  }

  @Test("validation keys: anchored and account parse for walk_forward; a bad value or a holdout with them is refused")
  func keys() throws {
    let base = "name: v\ndata: {bars: ../Data/GOOG.csv}\nstrategy: {type: bollinger_rsi}\nsweep:\n  parameters:\n    bb_period: [10, 20]\n"
    let (_, s) = try SweepRunner.parse(base + "  validation: {mode: walk_forward, train: 2y, test: 1y, anchored: true, account: carry}\n", file: "v.yaml")
    #expect(s.walkForward == WalkForwardSettings(train: .months(24), test: .months(12), step: .months(12), anchored: true, account: .carry))
    for (validation, message) in [
      ("{mode: walk_forward, train: 2y, test: 1y, account: keep}", "v.yaml:7:66: error: expected one of fresh, carry for 'sweep.validation.account', found 'keep'"),
      ("{mode: walk_forward, train: 2y, test: 1y, anchored: yes}", "v.yaml:7:67: error: expected one of true, false for 'sweep.validation.anchored', found 'yes'"),
      ("{mode: holdout, split: 0.7, account: carry}",
       "v.yaml:7:52: error: 'sweep.validation.account' applies to mode: walk_forward only (a holdout has one training and one test part)"),
    ] {
      do {
        _ = try SweepRunner.parse(base + "  validation: \(validation)\n", file: "v.yaml")
        Issue.record("\(validation) was accepted")
      } catch {
        #expect("\(error)" == message)
      }
    }
  }
}
