import Foundation

/// Monte Carlo resampling of a strategy's results.
///
/// - Stationary block bootstrap (Politis & Romano, "The Stationary Bootstrap",
///   JASA 1994) of the daily returns: each path has the sample's length; a
///   block starts at a uniformly drawn day and continues day by day (wrapping
///   around) until, with probability 1 / `blockLength` per step, a new block
///   starts. Default mean block length: round(T^(1/3)), T = number of days.
/// - Trade-order shuffle: the trade returns in a random order (Fisher–Yates),
///   compounded trade by trade. The final equity does not depend on the order;
///   the drawdowns do.
///
/// Path `k` draws from its own generator seeded by `(seed, k)`, so results do
/// not depend on how many threads run them. Percentiles interpolate linearly
/// between order statistics (as numpy's default).
public enum MonteCarlo {
  /// Statistics of one simulated path.
  public struct PathStatistics: Sendable {
    /// The initial equity compounded through the path's returns, in money.
    public var finalEquity: Double
    /// `(final / initial)^(252 / days) - 1`; `nil` for a trade shuffle, an empty path or a final equity <= 0.
    public var cagr: Double?
    /// Mean over sample deviation of the path's daily returns × √252; `nil` for a trade shuffle, fewer than two
    /// returns or zero deviation.
    public var sharpe: Double?
    /// The deepest `equity / running peak - 1` along the path, the initial equity the first peak (a fraction <= 0).
    public var maxDrawdown: Double
    /// Longest run of steps (days for a bootstrap, trades for a shuffle) below a previous high.
    public var longestDrawdown: Int
  }

  /// The 5th, 50th and 95th percentiles of a statistic over the paths.
  public struct Percentiles: Sendable, Equatable {
    /// The 5th percentile.
    public var p5: Double
    /// The median.
    public var p50: Double
    /// The 95th percentile.
    public var p95: Double
  }

  /// The distribution of the paths' statistics (`summarize`).
  public struct Summary: Sendable {
    /// The number of paths summarized.
    public var runs: Int
    /// Percentiles of the final equity, in money.
    public var finalEquity: Percentiles
    /// Percentiles of the maximum drawdown (fractions <= 0; `p5` the deepest).
    public var maxDrawdown: Percentiles
    /// Percentiles of the longest drawdown, in steps (days or trades).
    public var longestDrawdown: Percentiles
    /// Percentiles of the CAGR over the paths that have one; `nil` when none has (a trade shuffle).
    public var cagr: Percentiles?
    /// Percentiles of the Sharpe ratio over the paths that have one; `nil` when none has (a trade shuffle).
    public var sharpe: Percentiles?
    /// The fraction of paths whose final equity is below the initial equity.
    public var probabilityOfLoss: Double
    /// The fraction of paths whose maximum drawdown is deeper than the threshold given to `summarize`.
    public var probabilityOfDrawdownWorse: Double
  }

  static func seedFor(_ seed: UInt64, _ k: Int) -> SplitMix64 {
    var mixer = SplitMix64(seed: seed ^ (UInt64(k) &* 0x9E37_79B9_7F4A_7C15))
    return SplitMix64(seed: mixer.next())
  }

  /// Statistics of an equity path given as returns (daily or per trade).
  static func statistics(_ returns: [Double], initial: Double, periodsPerYear: Double?) -> PathStatistics {
    var equity = initial, peak = initial, worst = 0.0, run = 0, longest = 0
    for r in returns {
      equity *= 1 + r
      if equity >= peak { peak = equity; run = 0 } else { run += 1; longest = max(longest, run) }
      worst = min(worst, equity / peak - 1)
    }
    let cagr = periodsPerYear.flatMap { p in !returns.isEmpty && equity > 0 ? pow(equity / initial, p / Double(returns.count)) - 1 : nil }
    return PathStatistics(finalEquity: equity, cagr: cagr, sharpe: periodsPerYear != nil ? sharpeRatio(dailyReturns: returns) : nil,
                          maxDrawdown: worst, longestDrawdown: longest)
  }

  /// One stationary-bootstrap path of `sample`.
  package static func bootstrapPath(_ sample: [Double], blockLength: Double, rng: inout SplitMix64) -> [Double] {
    let n = sample.count
    var out = [Double]()
    out.reserveCapacity(n)
    var i = Int(rng.next() % UInt64(n))
    for step in 0..<n {
      if step > 0 {
        i = rng.unit() < 1 / blockLength ? Int(rng.next() % UInt64(n)) : (i + 1) % n
      }
      out.append(sample[i])
    }
    return out
  }

  /// The default mean block length: round(T^(1/3)), at least 1.
  public static func defaultBlockLength(days: Int) -> Double { max(1, (pow(Double(days), 1.0 / 3)).rounded()) }

  /// Runs `runs` bootstrap paths of the daily returns.
  public static func bootstrap(dailyReturns: [Double], initial: Double, runs: Int, seed: UInt64, blockLength: Double,
                               workers: Int) -> [PathStatistics] {
    parallel(runs: runs, workers: workers) { k in
      var rng = seedFor(seed, k)
      return statistics(bootstrapPath(dailyReturns, blockLength: blockLength, rng: &rng), initial: initial, periodsPerYear: 252)
    }
  }

  /// Runs `runs` shuffles of the trade order.
  public static func shuffleTrades(tradeReturns: [Double], initial: Double, runs: Int, seed: UInt64, workers: Int) -> [PathStatistics] {
    parallel(runs: runs, workers: workers) { k in
      var rng = seedFor(seed &+ 1, k)
      var order = tradeReturns
      for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
      return statistics(order, initial: initial, periodsPerYear: nil)
    }
  }

  static func parallel(runs: Int, workers: Int, _ body: @escaping @Sendable (Int) -> PathStatistics) -> [PathStatistics] {
    let slots = ConcurrentSlots<PathStatistics>(count: runs)
    let chunk = max(1, runs / max(1, workers * 8))
    DispatchQueue.concurrentPerform(iterations: (runs + chunk - 1) / chunk) { c in
      for k in (c * chunk)..<min(runs, (c + 1) * chunk) { slots.set(k, body(k)) }
    }
    return (0..<runs).map { slots.get($0) }
  }

  /// The value at fraction `q` of the sorted values, interpolating linearly.
  public static func percentile(_ sorted: [Double], _ q: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let h = q * Double(sorted.count - 1)
    let lo = Int(h.rounded(.down)), hi = min(lo + 1, sorted.count - 1)
    return sorted[lo] + (h - Double(lo)) * (sorted[hi] - sorted[lo])
  }

  static func percentiles(_ values: [Double]) -> Percentiles? {
    guard !values.isEmpty else { return nil }
    let s = values.sorted()
    return Percentiles(p5: percentile(s, 0.05), p50: percentile(s, 0.5), p95: percentile(s, 0.95))
  }

  /// Summarizes `paths` (at least one): percentiles of each statistic, the fraction ending below `initial` (money),
  /// and the fraction whose drawdown is deeper than `drawdownThreshold` (a positive fraction, `0.2` = 20%).
  public static func summarize(_ paths: [PathStatistics], initial: Double, drawdownThreshold: Double) -> Summary {
    Summary(runs: paths.count, finalEquity: percentiles(paths.map(\.finalEquity))!, maxDrawdown: percentiles(paths.map(\.maxDrawdown))!,
            longestDrawdown: percentiles(paths.map { Double($0.longestDrawdown) })!, cagr: percentiles(paths.compactMap(\.cagr)),
            sharpe: percentiles(paths.compactMap(\.sharpe)),
            probabilityOfLoss: Double(paths.filter { $0.finalEquity < initial }.count) / Double(max(1, paths.count)),
            probabilityOfDrawdownWorse: Double(paths.filter { $0.maxDrawdown < -drawdownThreshold }.count) / Double(max(1, paths.count)))
  }

  package static func json(_ s: Summary) -> [(String, JSONValue)] {
    func p(_ x: Percentiles?) -> JSONValue {
      guard let x else { return .null }
      return .object([("p5", .number(x.p5)), ("p50", .number(x.p50)), ("p95", .number(x.p95))])
    }
    return [("final_equity", p(s.finalEquity)), ("cagr", p(s.cagr)), ("sharpe", p(s.sharpe)), ("max_drawdown", p(s.maxDrawdown)),
            ("longest_drawdown", p(s.longestDrawdown)), ("prob_loss", .number(s.probabilityOfLoss)),
            ("prob_drawdown_worse", .number(s.probabilityOfDrawdownWorse))]
  }
}
