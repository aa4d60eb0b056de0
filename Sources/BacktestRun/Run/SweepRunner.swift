import BacktestCore
import Foundation

/// One combination ready to run.
package struct SweepJob: Sendable {
  package var combination: SweepCombination
  /// The combination's run file, read: one asset's or a portfolio's (for a universe: its symbol's, `member`).
  package var run: AnyRunConfig
  /// In a universe sweep, the index of the job's symbol (the plan's `symbol` parameter); `nil` otherwise.
  package var member: Int?

  package init(combination: SweepCombination, run: AnyRunConfig) {
    self.combination = combination
    self.run = run
  }

  /// A single-asset combination.
  package init(combination: SweepCombination, config: RunConfig) {
    self.init(combination: combination, run: .swing(config))
  }

  /// The single-asset configuration (`nil` for a portfolio's).
  package var config: RunConfig? {
    if case .swing(let config) = run { config } else { nil }
  }
}

/// Runs sweep combinations in parallel, sharing bars and indicators.
package enum SweepRunner {
  /// A combination a sweep does not run: its values and why (what a run file with them would be refused for).
  package struct Skipped: Sendable {
    package var combination: SweepCombination
    package var reason: String
  }

  /// Runs `jobs` on `workers` threads; `onResult` is called from the workers
  /// as each combination finishes (in no particular order).
  ///
  /// Bars are shared. When the strategy supplies a sweep kernel
  /// (`SweepAccelerated`), combinations without a cycle filter, dividends or
  /// an expense ratio run through it, sharing what it computes once; all
  /// others run through the general engine. With `blockSums`, the block sums
  /// of each combination's daily returns are kept in the slot of its plan index
  /// (what the overfitting test needs, 20 numbers instead of every day).
  package static func run(_ jobs: [SweepJob], bars: BarSeries, cycle: CycleGate?, dividends: [Dividend] = [], workers: Int,
                         blockSums: ConcurrentSlots<BacktestOverfitting.BlockSums>? = nil, best: BestReturns? = nil,
                         onResult: @escaping @Sendable (SweepCombination, PerformanceSummary) -> Void) {
    run(jobs, data: .asset(bars: bars, cycle: cycle, dividends: dividends), workers: workers, blockSums: blockSums, best: best,
        onResult: onResult)
  }

  /// Runs `jobs` over `data` (see `run(_:bars:cycle:dividends:workers:blockSums:best:onResult:)`): one asset's
  /// combinations through the kernel where it applies, every other one through the general engine keeping only the
  /// statistics (`SweepData.summary`, `Engine.summarize`); a portfolio's through `SweepData.trial`.
  package static func run(_ jobs: [SweepJob], data: SweepData, workers: Int,
                         blockSums: ConcurrentSlots<BacktestOverfitting.BlockSums>? = nil, best: BestReturns? = nil,
                         onResult: @escaping @Sendable (SweepCombination, PerformanceSummary) -> Void) {
    // A universe runs each symbol's jobs over its own bars in turn, each symbol on every worker (its kernel shared).
    if case .universe(_, let members) = data {
      for (k, member) in members.enumerated() {
        let mine = jobs.filter { $0.member == k }
        if !mine.isEmpty { run(mine, data: member, workers: workers, blockSums: blockSums, best: best, onResult: onResult) }
      }
      return
    }
    let bars = data.timeline
    let kernel: KernelDispatch? = if case .asset(_, nil, let dividends) = data, dividends.isEmpty { KernelDispatch(jobs, bars: bars) } else { nil }
    let counter = JobCounter()
    let days = bars.dayCount, calendarDays = bars.isEmpty ? 0 : SwingKernel.calendarDays(bars)
    // The combinations the general engine runs compute each of their strategy's shared indicators once.
    let indicators = IndicatorStore()
    DispatchQueue.concurrentPerform(iterations: max(1, min(workers, jobs.count))) { _ in
      // Kernel combinations are taken four at a time: their Sharpe and Sortino sums run as vector lanes.
      var lanes = (0..<4).map { _ in SummaryAccumulator(expectedDays: days) }
      var general = SummaryAccumulator(expectedDays: days)
      func finish(_ job: SweepJob, _ summary: PerformanceSummary, returns: [Double]) {
        if let blockSums { returns.withUnsafeBufferPointer { blockSums.set(job.combination.index, .init(returns: $0)) } }
        best?.offer(job.combination, summary, returns: returns)
        onResult(job.combination, summary)
      }
      var batch: [Int] = []
      while true {
        batch.removeAll(keepingCapacity: true)
        while batch.count < 4, let k = counter.next(below: jobs.count) {
          if let kernel, kernel.covers[k] { batch.append(k); continue }
          if let summary = data.summary(jobs[k], indicators: indicators, accumulator: &general) {
            finish(jobs[k], summary, returns: general.dailyReturns)
          } else {
            let trial = data.trial(jobs[k])
            finish(jobs[k], trial.summary, returns: trial.dailyReturns)
          }
        }
        guard let kernel, !batch.isEmpty else { break }
        for (j, k) in batch.enumerated() { kernel.simulate(k, &lanes[j]) }
        if batch.count == 4 {
          let summaries = SummaryAccumulator.summaries(&lanes, initialCash: batch.map { jobs[$0].config!.broker.initialCash },
                                                       calendarDays: calendarDays)
          for (j, k) in batch.enumerated() { finish(jobs[k], summaries[j], returns: lanes[j].dailyReturns) }
        } else {
          for (j, k) in batch.enumerated() {
            let summary = lanes[j].summary(initialCash: jobs[k].config!.broker.initialCash, calendarDays: calendarDays)
            finish(jobs[k], summary, returns: lanes[j].dailyReturns)
          }
        }
      }
    }
  }
}

extension SweepRunner {
  /// One combination's daily returns, as `run` computes them (the fused kernel
  /// when it applies, the general engine otherwise).
  package static func dailyReturns(of job: SweepJob, bars: BarSeries, cycle: CycleGate?, dividends: [Dividend] = []) -> [Double] {
    dailyReturns(of: job, data: .asset(bars: bars, cycle: cycle, dividends: dividends))
  }

  /// One combination's daily returns over `data`, as `run` computes them.
  package static func dailyReturns(of job: SweepJob, data: SweepData) -> [Double] {
    if case .universe(_, let members) = data { return dailyReturns(of: job, data: members[job.member!]) }
    if case .asset(let bars, nil, let dividends) = data, dividends.isEmpty, let kernel = KernelDispatch([job], bars: bars), kernel.covers[0] {
      var accumulator = SummaryAccumulator()
      kernel.simulate(0, &accumulator)
      _ = accumulator.summary(initialCash: job.config!.broker.initialCash, calendarDays: SwingKernel.calendarDays(bars))  // writes the returns
      return accumulator.dailyReturns
    }
    return data.trial(job).dailyReturns
  }
}

/// The daily returns of the best combination run so far, by the sweep's
/// ranking (`SweepRanking.ranking`: eligible, metric, then plan order), so
/// that the significance tests need not run it again.
package final class BestReturns: @unchecked Sendable {
  private let lock = NSLock()
  private let settings: SweepSettings
  private var best: (combination: SweepCombination, metric: Double?, returns: [Double])?

  package init(settings: SweepSettings) { self.settings = settings }

  /// Keeps `returns` when `combination` ranks before the best so far.
  func offer(_ combination: SweepCombination, _ summary: PerformanceSummary, returns: [Double]) {
    let fields = summary.fields
    let trades = fields.first { $0.key == "total_trades" }?.value
    guard SweepRanking.isEligible(trades: trades, settings: settings) else { return }
    let metric = fields.first { $0.key == settings.metric }?.value ?? nil
    lock.lock()
    defer { lock.unlock() }
    if let best, !SweepRanking.ranksBefore(metric, combination.index, best.metric, best.combination.index) { return }
    best = (combination, metric, returns)
  }

  /// The daily returns of the combination with `values`, if it is the one kept.
  package func returns(of values: [String]) -> [Double]? {
    lock.lock()
    defer { lock.unlock() }
    return best?.combination.values == values ? best?.returns : nil
  }
}
