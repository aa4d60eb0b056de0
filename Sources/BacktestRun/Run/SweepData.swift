import BacktestCore
import Foundation

/// What every combination of a sweep shares, loaded once: one asset's bars
/// (with the cycle stage of each bar and the asset's dividends), or a
/// portfolio's assets and ledger on their timeline. A sweep, its holdout and
/// walk-forward windows, its significance tests and Monte Carlo run
/// combinations over it, whatever the kind of strategy.
package enum SweepData: Sendable {
  /// One asset: its bars, the cycle gate of every bar (with a `cycle:` section) and its dividends.
  case asset(bars: BarSeries, cycle: CycleGate?, dividends: [Dividend])
  /// Several assets: their bars and dividends, the ledger, and the timeline they merge into.
  case portfolio(assets: [PortfolioAsset], ledger: CashFlowLedger?, timeline: BarSeries)
  /// A universe: each symbol's own data (`.asset`), in the universe's order; a job runs over its symbol's (`SweepJob.member`).
  case universe(symbols: [String], members: [SweepData])

  /// A portfolio's data, its timeline merged from the assets' bars.
  package static func portfolio(_ assets: [PortfolioAsset], ledger: CashFlowLedger?) -> SweepData {
    .portfolio(assets: assets, ledger: ledger, timeline: Market(assets: assets.map(\.bars)).timeline)
  }

  /// The bars that splits and windows count: the asset's bars, or the portfolio's timeline.
  package var timeline: BarSeries {
    switch self {
    case .asset(let bars, _, _): bars
    case .portfolio(_, _, let timeline): timeline
    case .universe(_, let members): members[0].timeline
    }
  }

  /// The bars `job` runs over: its symbol's in a universe, else `timeline`.
  package func timeline(of job: SweepJob) -> BarSeries {
    if case .universe(_, let members) = self, let k = job.member { return members[k].timeline }
    return timeline
  }

  /// The data of the timeline bars in `range` only (each asset's bars inside it): nothing before or after it exists.
  package func slice(_ range: Range<Int>) -> SweepData {
    switch self {
    case .asset(let bars, let cycle, let dividends):
      return range == 0..<bars.count ? self : .asset(bars: bars.filtered { range.contains($0) }, cycle: cycle?.slice(range), dividends: dividends)
    case .portfolio(var assets, let ledger, let timeline):
      guard range != 0..<timeline.count else { return self }
      let first = timeline.time[range.lowerBound], last = timeline.time[range.upperBound - 1]
      for a in assets.indices {
        let bars = assets[a].bars
        assets[a].bars = bars.filtered { bars.time[$0] >= first && bars.time[$0] <= last }
      }
      return .portfolio(assets: assets, ledger: ledger, timeline: timeline.filtered { range.contains($0) })
    case .universe:
      preconditionFailure("a universe's symbols have timelines of their own: it is not cut into windows (SweepRunner.parse refuses it)")
    }
  }

  /// Runs `job` over this data, trading the timeline bars in `range` only (all when `nil`; the bars before it warm the
  /// strategy), from `initialCash` when given (else the job's own).
  package func trial(_ job: SweepJob, trading range: Range<Int>? = nil, initialCash: Double? = nil) -> Trial {
    if case .universe(_, let members) = self { return members[job.member!].trial(job, trading: range, initialCash: initialCash) }
    switch (self, job.run) {
    case (.asset(let bars, let cycle, let dividends), .swing(let config)):
      var broker = config.broker
      if let initialCash { broker.initialCash = initialCash }
      let result = config.strategy.run(bars: bars, broker: broker, cycle: cycle,
                                       account: Backtest.accountEvents(config, bars: bars, dividends: dividends), trading: range).result
      let traded = range.map { r in bars.filtered { r.contains($0) } } ?? bars
      return Trial(summary: PerformanceSummary(result: result, bars: traded), equity: result.equity, day: traded.day,
                   invested: ContiguousArray(result.shares.map { $0 != 0 }), trades: result.trades, initialCash: broker.initialCash)
    case (.portfolio(var assets, let ledger, _), .portfolio(let config)):
      // The files are shared; the weights and expense ratios are the combination's own.
      for a in assets.indices {
        assets[a].weight = config.assets[a].weight
        assets[a].expenseRatio = config.assets[a].expenseRatio
      }
      var settings = PortfolioBacktest.settings(config, assets: assets, ledger: ledger)
      if let initialCash { settings.initialCash = initialCash }
      let result = config.strategy.run(assets, settings: settings, trading: range)
      let growth = ContiguousArray(result.timeWeightedIndex.map { $0 * settings.initialCash })
      return Trial(summary: PortfolioBacktest.summarize(result, assets: assets, initialCash: settings.initialCash).performance, equity: growth,
                   day: result.timeline.day, invested: ContiguousArray(result.equity.indices.map { t in result.shares.contains { $0[t] != 0 } }),
                   trades: [], initialCash: settings.initialCash)
    default:
      preconditionFailure("a sweep's jobs and data are of one kind: one asset's, or a portfolio's")
    }
  }
}

extension SweepData {
  /// The statistics of a single asset's `job` over this data, as `trial(job).summary` gives them, bit for bit, and
  /// its daily returns in `accumulator.dailyReturns`: the run keeps only the statistics, and its strategy takes its
  /// indicators from `indicators` (shared by the runs over these bars). `nil` unless the data is one asset's.
  func summary(_ job: SweepJob, indicators: IndicatorStore, accumulator: inout SummaryAccumulator) -> PerformanceSummary? {
    guard case .asset(let bars, let cycle, let dividends) = self, case .swing(let config) = job.run else { return nil }
    return config.strategy.summary(bars: bars, broker: config.broker, cycle: cycle,
                                   account: Backtest.accountEvents(config, bars: bars, dividends: dividends), indicators: indicators,
                                   accumulator: &accumulator)
  }
}

/// One run of a sweep's combination over the bars it traded: what ranks it, and what the out-of-sample reports show.
package struct Trial: Sendable {
  /// The statistics (a portfolio's: of its time-weighted return).
  package var summary: PerformanceSummary
  /// The account's value at each close traded; a portfolio's is the initial cash grown at its time-weighted return.
  package var equity: ContiguousArray<Double>
  /// The date of each close traded (days since 1970).
  package var day: ContiguousArray<Int32>
  /// Whether anything was held at each close.
  package var invested: ContiguousArray<Bool>
  /// The closed trades of a single-asset strategy (none for a portfolio).
  package var trades: [Trade]
  package var initialCash: Double

  /// The returns from one day's last close to the next's.
  package var dailyReturns: [Double] { BacktestCore.dailyReturns(equity: equity, day: day) }
}

extension SweepData {
  /// Reads what `config` names: one asset's bars (from `barFile`, the bar file's contents, when already read), cycle
  /// stages and dividends; or a portfolio's assets and ledger.
  ///
  /// - Throws: `InputError` for a missing or bad file, or when no bar is left.
  package static func load(_ config: AnyRunConfig, barFile: Data? = nil) throws -> SweepData {
    switch config {
    case .swing(let c):
      let (bars, _) = try Backtest.loadBars(for: c, contents: barFile)
      return .asset(bars: bars, cycle: try Backtest.loadCycle(c, bars: bars)?.gate, dividends: try Backtest.loadDividends(c.data))
    case .portfolio(let c):
      let (assets, ledger) = try PortfolioBacktest.load(c)
      return .portfolio(assets, ledger: ledger)
    case .universe(let c):
      return .universe(symbols: c.universe.map(\.symbol), members: try c.universe.indices.map { k in
        try load(.swing(c.member(k)), barFile: k == 0 ? barFile : nil)
      })
    }
  }

  /// The in-sample data (all of it without a holdout split) and the timeline bar where the out-of-sample part starts.
  ///
  /// - Throws: `InputError` naming `file` when the split leaves either part empty.
  package func split(_ settings: SweepSettings, file: String) throws -> (inSample: SweepData, outOfSampleStart: Int?) {
    if let wf = settings.walkForward {
      // Test parts that overlap would trade and compound their shared bars twice in the chained equity.
      let windows = wf.windows(timeline)
      if let k = windows.indices.dropFirst().first(where: { windows[$0].test < windows[$0 - 1].end }) {
        throw InputError("walk-forward test parts overlap: sweep.validation.step (\(wf.step.text)) is shorter than test (\(wf.test.text)), so the part from "
                         + "\(timeline.timeLabel(windows[k].test)) starts before the one before it ends (\(timeline.timeLabel(windows[k - 1].end - 1))); "
                         + "expected step >= test", file: file)
      }
    }
    guard let v = settings.validation else { return (self, nil) }
    guard let k = v.index(in: timeline) else {
      throw InputError("the validation split (\(v.description)) leaves no in-sample or no out-of-sample bars", file: file)
    }
    return (slice(0..<k), k)
  }
}

extension ConfiguredStrategy {
  /// Runs the strategy over `bars` as `run` does, keeping only the statistics, with `indicators` shared by the runs
  /// over the same bars: `PerformanceSummary.init(result:bars:)` of `run`'s result, bit for bit, and the daily returns
  /// in `accumulator.dailyReturns`.
  func summary(bars: BarSeries, broker: BrokerSettings, cycle gate: CycleGate?, account: AccountEvents?, indicators: IndicatorStore,
               accumulator: inout SummaryAccumulator) -> PerformanceSummary {
    let money = accumulator.summarize(bars: bars) { summarize(bars, broker, gate, account, indicators, &$0, &$1) }
    return PerformanceSummary(&accumulator, bars: bars, initialCash: broker.initialCash, dividendIncome: money.dividendIncome,
                              expenseDrag: money.expenseDrag)
  }
}
