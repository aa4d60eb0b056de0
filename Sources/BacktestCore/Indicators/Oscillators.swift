/// Returns Williams' %R of a bar series (TA-Lib `WILLR`); `nan` before index
/// `period - 1`.
///
/// Over the last `period` bars, the current one included:
/// `-100 × (highest high - close) / (highest high - lowest low)`, from -100
/// (a close at the lowest low) to 0 (at the highest high), kept within that
/// range as TA-Lib keeps it; 0 where the range is 0 (to within 1e-14 of the
/// prices' size, as TA-Lib tests it).
///
/// - Complexity: O(n): the window's extremes come from `highest` and `lowest`.
public func willr(high: ContiguousArray<Double>, low: ContiguousArray<Double>, close: ContiguousArray<Double>,
                  period: Int) -> ContiguousArray<Double> {
  placeInRange(high: high, low: low, close: close, period: period) { close, top, bottom in
    let value = ((top - close) / (top - bottom)) * -100
    return value > 0 ? 0 : value < -100 ? -100 : value
  }
}

/// `value(close, highest high, lowest low)` at each bar, the extremes over the last `period` bars (the current one
/// included); `nan` before index `period - 1`, and 0 where the range is 0 (to within 1e-14 of the prices' size, as
/// TA-Lib tests it). What Williams' %R and the fast stochastic share.
func placeInRange(high: ContiguousArray<Double>, low: ContiguousArray<Double>, close: ContiguousArray<Double>, period: Int,
                  _ value: (_ close: Double, _ top: Double, _ bottom: Double) -> Double) -> ContiguousArray<Double> {
  precondition(period > 0, "period must be > 0, was \(period)")
  precondition(high.count == close.count && low.count == close.count, "high, low and close must have the same length")
  let highs = highest(high, period: period), lows = lowest(low, period: period)
  return ContiguousArray(count: close.count) { out in
    for i in 0..<close.count {
      let top = highs[i], bottom = lows[i]
      if top.isNaN {
        out[i] = .nan
      } else {
        out[i] = abs(top - bottom) <= 1e-14 * (abs(top) + abs(bottom)) ? 0 : value(close[i], top, bottom)
      }
    }
  }
}

/// Returns the commodity channel index of a bar series (TA-Lib `CCI`); `nan`
/// before index `period - 1`.
///
/// With the typical price `tp = (high + low + close) / 3`, its mean `m` over
/// the last `period` bars and their mean absolute deviation from it `d`:
/// `cci = (tp - m) / (0.015 × d)`, and 0 where `tp - m` or `d` is within
/// 1e-14 of `|m|` of zero (a flat window), as TA-Lib tests it.
///
/// - Complexity: O(n × period): the mean absolute deviation from the
///   window's own mean has no running form, so each window is summed (in
///   TA-Lib's order, so that the values are TA-Lib's to the last bits).
public func cci(high: ContiguousArray<Double>, low: ContiguousArray<Double>, close: ContiguousArray<Double>,
                period: Int) -> ContiguousArray<Double> {
  precondition(period > 0, "period must be > 0, was \(period)")
  precondition(high.count == close.count && low.count == close.count, "high, low and close must have the same length")
  let n = close.count
  guard n >= period else { return ContiguousArray(repeating: .nan, count: n) }
  let p = Double(period)
  // The typical prices of the window, bar `i` at `i % period` (TA-Lib's circular buffer).
  var window = ContiguousArray<Double>(repeating: 0, count: period)
  return ContiguousArray(count: n) { out in
    window.withUnsafeMutableBufferPointer { window in
      for i in 0..<n {
        let typical = (high[i] + low[i] + close[i]) / 3
        window[i % period] = typical
        guard i >= period - 1 else { out[i] = .nan; continue }
        var mean = 0.0
        for j in 0..<period { mean += window[j] }
        mean /= p
        var deviation = 0.0
        for j in 0..<period { deviation += abs(window[j] - mean) }
        deviation /= p
        let distance = typical - mean, scale = abs(mean)
        out[i] = abs(distance) <= 1e-14 * scale || abs(deviation) <= 1e-14 * scale ? 0 : distance / (0.015 * deviation)
      }
    }
  }
}

/// `willr` of `bars`.
public func willr(_ bars: BarSeries, period: Int) -> ContiguousArray<Double> {
  willr(high: bars.high, low: bars.low, close: bars.close, period: period)
}

/// `cci` of `bars`.
public func cci(_ bars: BarSeries, period: Int) -> ContiguousArray<Double> {
  cci(high: bars.high, low: bars.low, close: bars.close, period: period)
}

/// Returns the on-balance volume of a bar series (TA-Lib `OBV`), defined
/// from the first bar: it starts at the first bar's volume, then adds each
/// bar's volume when its close is above the previous close, subtracts it
/// when below, and stays when equal.
///
/// - Complexity: O(n).
public func obv(close: ContiguousArray<Double>, volume: ContiguousArray<Double>) -> ContiguousArray<Double> {
  precondition(volume.count == close.count, "close and volume must have the same length")
  let n = close.count
  guard n > 0 else { return [] }
  return ContiguousArray(count: n) { out in
    var total = volume[0]
    out[0] = total
    for i in 1..<n {
      if close[i] > close[i - 1] {
        total += volume[i]
      } else if close[i] < close[i - 1] {
        total -= volume[i]
      }
      out[i] = total
    }
  }
}

/// `obv` of `bars`.
public func obv(_ bars: BarSeries) -> ContiguousArray<Double> {
  obv(close: bars.close, volume: bars.volume)
}
