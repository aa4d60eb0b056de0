import Foundation

/// One combination ready to run.
public struct SweepJob: Sendable {
  public var combination: SweepCombination
  public var config: RunConfig

  public init(combination: SweepCombination, config: RunConfig) {
    self.combination = combination
    self.config = config
  }
}

/// Runs sweep combinations in parallel, sharing bars and indicators.
public enum SweepRunner {
  /// Runs `jobs` on `workers` threads; `onResult` is called from the workers
  /// as each combination finishes (in no particular order).
  ///
  /// Bars are shared. When the strategy supplies a sweep kernel
  /// (`SweepAccelerated`), combinations without a cycle filter, dividends or
  /// an expense ratio run through it, sharing what it computes once; all
  /// others run through the general engine. With `blockSums`, the block sums
  /// of each combination's daily returns are kept in the slot of its plan index
  /// (what the overfitting test needs, 20 numbers instead of every day).
  public static func run(_ jobs: [SweepJob], bars: BarSeries, cycle: CycleGate?, dividends: [Dividend] = [], workers: Int,
                         blockSums: ConcurrentSlots<BacktestOverfitting.BlockSums>? = nil, best: BestReturns? = nil,
                         onResult: @escaping @Sendable (SweepCombination, PerformanceSummary) -> Void) {
    let kernel = KernelDispatch(jobs, bars: bars, plain: cycle == nil && dividends.isEmpty)
    let counter = JobCounter()
    let days = bars.dayCount, calendarDays = bars.isEmpty ? 0 : SwingKernel.calendarDays(bars)
    DispatchQueue.concurrentPerform(iterations: max(1, min(workers, jobs.count))) { _ in
      // Kernel combinations are taken four at a time: their Sharpe and Sortino sums run as vector lanes.
      var lanes = (0..<4).map { _ in SummaryAccumulator(expectedDays: days) }
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
          let job = jobs[k]
          let run = job.config.strategy.run(bars: bars, broker: job.config.broker, cycle: cycle,
                                            account: Backtest.accountEvents(job.config, bars: bars, dividends: dividends))
          finish(job, PerformanceSummary(result: run.result, bars: bars),
                 returns: BacktestCore.dailyReturns(equity: run.result.equity, day: bars.day))
        }
        guard let kernel, !batch.isEmpty else { break }
        for (j, k) in batch.enumerated() { kernel.simulate(k, &lanes[j]) }
        if batch.count == 4 {
          let summaries = SummaryAccumulator.summaries(&lanes, initialCash: batch.map { jobs[$0].config.broker.initialCash },
                                                       calendarDays: calendarDays)
          for (j, k) in batch.enumerated() { finish(jobs[k], summaries[j], returns: lanes[j].dailyReturns) }
        } else {
          for (j, k) in batch.enumerated() {
            let summary = lanes[j].summary(initialCash: jobs[k].config.broker.initialCash, calendarDays: calendarDays)
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
  public static func dailyReturns(of job: SweepJob, bars: BarSeries, cycle: CycleGate?, dividends: [Dividend] = []) -> [Double] {
    if let kernel = KernelDispatch([job], bars: bars, plain: cycle == nil && dividends.isEmpty), kernel.covers[0] {
      var accumulator = SummaryAccumulator()
      kernel.simulate(0, &accumulator)
      _ = accumulator.summary(initialCash: job.config.broker.initialCash, calendarDays: SwingKernel.calendarDays(bars))  // writes the returns
      return accumulator.dailyReturns
    }
    let run = job.config.strategy.run(bars: bars, broker: job.config.broker, cycle: cycle,
                                      account: Backtest.accountEvents(job.config, bars: bars, dividends: dividends))
    return BacktestCore.dailyReturns(equity: run.result.equity, day: bars.day)
  }
}

/// The daily returns of the best combination run so far, by the sweep's
/// ranking (`SweepRanking.ranking`: eligible, metric, then plan order), so
/// that the significance tests need not run it again.
public final class BestReturns: @unchecked Sendable {
  private let lock = NSLock()
  private let settings: SweepSettings
  private var best: (combination: SweepCombination, metric: Double?, returns: [Double])?

  public init(settings: SweepSettings) { self.settings = settings }

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
  public func returns(of values: [String]) -> [Double]? {
    lock.lock()
    defer { lock.unlock() }
    return best?.combination.values == values ? best?.returns : nil
  }
}
