import BacktestCore
import Foundation

/// A holdout split of a sweep: rank on the in-sample bars, then run the best
/// combinations unchanged on the out-of-sample bars that follow.
package struct HoldoutSplit: Sendable, Equatable {
  package enum Point: Sendable, Equatable {
    /// The first out-of-sample day (days since 1970).
    case date(Int)
    /// The in-sample share of the bars (0.7 = the first 70%).
    case fraction(Double)
  }
  package var point: Point

  /// Reads `validation: {mode: holdout, split: 2012-01-01 | 0.7}`.
  static func read(_ node: YAMLNode) throws -> HoldoutSplit {
    let t = try ConfigTable(node, path: "sweep.validation")
    _ = try t.choice("mode", ["holdout"], default: "holdout")
    for key in ["anchored", "account"] where t.contains(key) {
      throw InputError("'sweep.validation.\(key)' applies to mode: walk_forward only (a holdout has one training and one test part)",
                       at: t.node(key)!.location)
    }
    guard let text = try t.string("split") else {
      throw InputError("expected 'split' (a date like 2012-01-01 or an in-sample fraction like 0.7) in 'sweep.validation'", at: t.location)
    }
    let point: Point
    if let d = parseDate(text) {
      point = .date(d)
    } else if let f = Double(text), f > 0, f < 1 {
      point = .fraction(f)
    } else {
      throw InputError("expected a date YYYY-MM-DD or a fraction between 0 and 1 for 'sweep.validation.split', found '\(text)'",
                       at: t.node("split")!.location)
    }
    try t.finish()
    return HoldoutSplit(point: point)
  }

  /// The index of the first out-of-sample bar; `nil` when a side would be empty.
  package func index(in bars: BarSeries) -> Int? {
    let k: Int
    switch point {
    case .date(let d): k = bars.day.firstIndex { Int($0) >= d } ?? bars.count
    case .fraction(let f): k = Int((Double(bars.count) * f).rounded())
    }
    return k > 0 && k < bars.count ? k : nil
  }

  package var description: String {
    switch point {
    case .date(let d): return "in-sample before \(CivilDate.isoDate(days: d)), out-of-sample from it"
    case .fraction(let f): return "in-sample the first \(formatPercentPlain(f)) of the bars, out-of-sample the rest"
    }
  }
}

/// In-sample against out-of-sample results of the top combinations.
package struct ValidationRow: Sendable {
  package var values: [String]
  package var inSample: SweepRecord
  package var outOfSample: PerformanceSummary
}

package enum SweepValidation {
  /// Runs the top `settings.top` in-sample combinations on the out-of-sample bars, `bars` from `start` on:
  /// a fresh account there, indicators computed over all of `bars` (the in-sample bars warm them).
  package static func evaluate(_ records: [SweepRecord], settings: SweepSettings, jobs: [SweepJob], bars: BarSeries,
                              cycle: CycleGate? = nil, dividends: [Dividend] = [], outOfSampleStart start: Int) -> [ValidationRow] {
    evaluate(records, settings: settings, jobs: jobs, data: .asset(bars: bars, cycle: cycle, dividends: dividends), outOfSampleStart: start)
  }

  /// The top combinations of `records` run over all of `data`, trading from timeline bar `start` on.
  package static func evaluate(_ records: [SweepRecord], settings: SweepSettings, jobs: [SweepJob], data: SweepData,
                              outOfSampleStart start: Int) -> [ValidationRow] {
    let ranked = SweepRanking.ranking(records, settings: settings).prefix(settings.top)
    let byValues = Dictionary(uniqueKeysWithValues: jobs.map { ($0.combination.values, $0) })
    return ranked.compactMap { r in
      guard let job = byValues[r.values] else { return nil }
      return ValidationRow(values: r.values, inSample: r, outOfSample: data.trial(job, trading: start..<data.timeline.count).summary)
    }
  }


}

/// The significance of a sweep's best combination (probabilistic and deflated Sharpe ratios).
package struct SweepSignificance: Sendable {
  /// The most combinations the overfitting test (PBO) runs over.
  package static let overfittingLimit = 2000

  package var trials: Int
  package var observations: Int
  /// Per-day Sharpe ratio of the best combination, and the variance of the per-day Sharpe ratios across trials.
  package var sharpe: Double
  package var variance: Double
  package var skewness: Double
  package var kurtosis: Double
  package var expectedMaximum: Double
  package var psr: Double
  package var dsr: Double
  /// The probability of backtest overfitting over every combination's daily returns (up to 2,000 combinations).
  package var overfitting: BacktestOverfitting.Result?

  /// The tests over the combinations' daily returns: the best one's from
  /// `bestReturns` (as `SweepRunner.run` keeps them) or run again, the block
  /// sums of the others from `known` (by plan index, as `SweepRunner.run` keeps
  /// them) or from running them again; `nil` without a best or enough days.
  package static func evaluate(_ records: [SweepRecord], settings: SweepSettings, jobs: [SweepJob], bars: BarSeries,
                              cycle: CycleGate? = nil, dividends: [Dividend] = [], known: ConcurrentSlots<BacktestOverfitting.BlockSums>? = nil,
                              bestReturns: BestReturns? = nil) -> SweepSignificance? {
    evaluate(records, settings: settings, jobs: jobs, data: .asset(bars: bars, cycle: cycle, dividends: dividends), known: known,
             bestReturns: bestReturns)
  }

  /// The significance of the best of `records`, the combinations run over `data` (see the other `evaluate`).
  package static func evaluate(_ records: [SweepRecord], settings: SweepSettings, jobs: [SweepJob], data: SweepData,
                              known: ConcurrentSlots<BacktestOverfitting.BlockSums>? = nil, bestReturns: BestReturns? = nil) -> SweepSignificance? {
    let sharpes = records.compactMap { $0.metric("sharpe") }.map { $0 / 252.0.squareRoot() }
    guard let best = SweepRanking.ranking(records, settings: settings).first, sharpes.count > 1,
      let job = jobs.first(where: { $0.combination.values == best.values }) else { return nil }
    let daily = bestReturns?.returns(of: best.values) ?? SweepRunner.dailyReturns(of: job, data: data)
    var overfitting: BacktestOverfitting.Result?
    if records.count <= overfittingLimit && jobs.count == records.count {
      let all = ConcurrentSlots<BacktestOverfitting.BlockSums>(count: jobs.count)
      DispatchQueue.concurrentPerform(iterations: jobs.count) { k in
        all.set(k, known?.peek(jobs[k].combination.index)
          ?? BacktestOverfitting.BlockSums(returns: SweepRunner.dailyReturns(of: jobs[k], data: data)))
      }
      overfitting = BacktestOverfitting.pbo((0..<jobs.count).map { all.get($0) })
    }
    return SweepSignificance(bestReturns: daily, trialSharpes: sharpes, trials: records.count, overfitting: overfitting)
  }


}

extension SweepSignificance {
  /// The tests from the best combination's daily returns and every trial's per-day Sharpe ratio (those
  /// defined; `trials` counts them all); `nil` for fewer than two Sharpe ratios or three days, or no deviation.
  init?(bestReturns daily: [Double], trialSharpes sharpes: [Double], trials: Int, overfitting: BacktestOverfitting.Result?) {
    guard sharpes.count > 1, let sd = sampleDeviation(daily), sd > 0, let m = mean(daily), let moments = SharpeSignificance.moments(daily),
      let variance = sampleDeviation(sharpes).map({ $0 * $0 }) else { return nil }
    let sr = m / sd
    let benchmark = SharpeSignificance.expectedMaximum(trials: trials, variance: variance)
    self.init(
      trials: trials, observations: daily.count, sharpe: sr, variance: variance, skewness: moments.skewness, kurtosis: moments.kurtosis,
      expectedMaximum: benchmark,
      psr: SharpeSignificance.probabilistic(sharpe: sr, benchmark: 0, observations: daily.count, skewness: moments.skewness, kurtosis: moments.kurtosis),
      dsr: SharpeSignificance.probabilistic(sharpe: sr, benchmark: benchmark, observations: daily.count, skewness: moments.skewness, kurtosis: moments.kurtosis),
      overfitting: overfitting)
  }
}
