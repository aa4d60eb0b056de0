/// The slow stochastic oscillator of a bar series, as TA-Lib's `STOCH`
/// computes it with simple averages (`slowk_matype = 0`, `slowd_matype = 0`).
///
/// The fast %K at bar `i >= period - 1` is
/// `100 × (close - lowest low) / (highest high - lowest low)` over the last
/// `period` bars, the current one included, and 0 where that range is 0 (to
/// within 1e-14 of the prices' size, as TA-Lib tests it). %K (TA-Lib's
/// `slowk`) is the mean of the last `smoothing` fast %K values, %D (`slowd`)
/// the mean of the last `signal` values of %K.
///
/// TA-Lib's `STOCH` withholds `slowk` until `slowd` is defined too; here %K
/// is defined from its own warm-up, with the same values (TA-Lib's `slowk`
/// of `STOCH` with `slowd_period = 1`).
public struct Stochastic: Sendable {
  /// %K; `nan` before index `period + smoothing - 2`.
  public var k: ContiguousArray<Double>
  /// %D; `nan` before index `period + smoothing + signal - 3`.
  public var d: ContiguousArray<Double>

  /// Computes %K and %D of the bars `high`, `low`, `close`.
  ///
  /// - Complexity: O(n): the window's extremes come from `highest` and `lowest`.
  public init(high: ContiguousArray<Double>, low: ContiguousArray<Double>, close: ContiguousArray<Double>,
              period: Int, smoothing: Int, signal: Int) {
    precondition(signal > 0, "signal must be > 0, was \(signal)")
    k = stochK(high: high, low: low, close: close, period: period, smoothing: smoothing)
    d = movingMean(k, from: period + smoothing - 2, period: signal)
  }
}

/// Returns the fast %K of a bar series (TA-Lib `STOCHF`'s `fastk`; the input
/// of `Stochastic`); `nan` before index `period - 1`.
public func fastStochastic(high: ContiguousArray<Double>, low: ContiguousArray<Double>, close: ContiguousArray<Double>,
                           period: Int) -> ContiguousArray<Double> {
  placeInRange(high: high, low: low, close: close, period: period) { close, top, bottom in ((close - bottom) / (top - bottom)) * 100 }
}

/// Returns %K of a bar series (TA-Lib `STOCH`'s `slowk` with SMA smoothing:
/// `Stochastic`); `nan` before index `period + smoothing - 2`.
public func stochK(high: ContiguousArray<Double>, low: ContiguousArray<Double>, close: ContiguousArray<Double>,
                   period: Int, smoothing: Int) -> ContiguousArray<Double> {
  precondition(smoothing > 0, "smoothing must be > 0, was \(smoothing)")
  return movingMean(fastStochastic(high: high, low: low, close: close, period: period), from: period - 1, period: smoothing)
}

/// Returns %D of a bar series (TA-Lib `STOCH`'s `slowd` with SMA smoothing:
/// `Stochastic`); `nan` before index `period + smoothing + signal - 3`.
public func stochD(high: ContiguousArray<Double>, low: ContiguousArray<Double>, close: ContiguousArray<Double>,
                   period: Int, smoothing: Int, signal: Int) -> ContiguousArray<Double> {
  Stochastic(high: high, low: low, close: close, period: period, smoothing: smoothing, signal: signal).d
}

/// `stochK` of `bars`.
public func stochK(_ bars: BarSeries, period: Int, smoothing: Int) -> ContiguousArray<Double> {
  stochK(high: bars.high, low: bars.low, close: bars.close, period: period, smoothing: smoothing)
}

/// `stochD` of `bars`.
public func stochD(_ bars: BarSeries, period: Int, smoothing: Int, signal: Int) -> ContiguousArray<Double> {
  stochD(high: bars.high, low: bars.low, close: bars.close, period: period, smoothing: smoothing, signal: signal)
}

/// `sma` of `x[start...]` (whose values are all defined) in place: `nan`
/// before index `start + period - 1`. Nothing is allocated for a period
/// longer than the values.
func movingMean(_ x: ContiguousArray<Double>, from start: Int, period: Int) -> ContiguousArray<Double> {
  let n = x.count
  guard start >= 0, n - start >= period else { return ContiguousArray(repeating: .nan, count: n) }
  var state = StreamingSMA(period: period)
  return ContiguousArray(count: n) { out in
    for i in 0..<start { out[i] = .nan }
    for i in start..<n { out[i] = state.update(x[i]) }
  }
}
