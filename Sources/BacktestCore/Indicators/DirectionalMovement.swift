/// Wilder's directional movement system over a bar series, as TA-Lib's
/// `PLUS_DI`, `MINUS_DI` and `ADX` compute it, in one pass.
///
/// At bar `i >= 1`, with `up = high[i] - high[i-1]` and `down = low[i-1] - low[i]`:
/// `+DM = up` where `up > 0` and `up > down`, `-DM = down` where `down > 0`
/// and `down > up`, 0 otherwise; `TR` is the true range. Bars `1..<period`
/// are summed; from bar `period` each sum is smoothed,
/// `s = s - s / period + value`.
///
/// - `+DI = 100 × +DM / TR` and `-DI = 100 × -DM / TR` from bar `period`
///   (0 where the smoothed true range is 0).
/// - `DX = 100 × |+DI - -DI| / (+DI + -DI)`; the first `ADX`, at bar
///   `2 × period - 1`, is the mean of the `period` DX of bars
///   `period...2 × period - 1`, then `adx = (adx × (period - 1) + DX) / period`.
///   A bar whose true range is 0, or whose DIs add up to less than 1e-14,
///   has no DX: the mean counts it as 0 and the ADX keeps its value.
///
/// Each value at bar `i` reads bars `0...i` only.
public struct DirectionalMovement: Sendable {
  /// `+DI`; `nan` before index `period`.
  public var plusDI: ContiguousArray<Double>
  /// `-DI`; `nan` before index `period`.
  public var minusDI: ContiguousArray<Double>
  /// The average directional index; `nan` before index `2 × period - 1`.
  public var adx: ContiguousArray<Double>

  /// Computes the three series of the bars `high`, `low`, `close`.
  ///
  /// With `period` 1 the DIs are `100 × DM / TR` of each bar: TA-Lib's
  /// `PLUS_DI` and `MINUS_DI` return that fraction without the factor 100
  /// for a period of 1 only (and its `ADX` refuses the period 1).
  ///
  /// - Complexity: O(n).
  public init(high: ContiguousArray<Double>, low: ContiguousArray<Double>, close: ContiguousArray<Double>, period: Int) {
    precondition(period > 0, "period must be > 0, was \(period)")
    precondition(high.count == close.count && low.count == close.count, "high, low and close must have the same length")
    let n = close.count
    var minusDI = ContiguousArray<Double>(), adx = ContiguousArray<Double>()
    plusDI = ContiguousArray(count: n) { plus in
      minusDI = ContiguousArray(count: n) { minus in
        adx = ContiguousArray(count: n) { adx in
          for i in 0..<n {
            plus[i] = .nan
            minus[i] = .nan
            adx[i] = .nan
          }
          guard n > period else { return }
          high.withUnsafeBufferPointer { high in
            low.withUnsafeBufferPointer { low in
              close.withUnsafeBufferPointer { close in
                Self.run(high, low, close, period: period, plus: plus, minus: minus, adx: adx)
              }
            }
          }
        }
      }
    }
    self.minusDI = minusDI
    self.adx = adx
  }

  private static func run(_ high: UnsafeBufferPointer<Double>, _ low: UnsafeBufferPointer<Double>, _ close: UnsafeBufferPointer<Double>,
                          period: Int, plus: UnsafeMutableBufferPointer<Double>, minus: UnsafeMutableBufferPointer<Double>,
                          adx: UnsafeMutableBufferPointer<Double>) {
    let p = Double(period)
    var plusDM = 0.0, minusDM = 0.0, trueRange = 0.0
    var sumDX = 0.0, average = 0.0
    for i in 1..<high.count {
      let up = high[i] - high[i - 1], down = low[i - 1] - low[i]
      var plusMove = 0.0, minusMove = 0.0
      if down > 0 && up < down {
        minusMove = down
      } else if up > 0 && up > down {
        plusMove = up
      }
      // The true range, compared in TA-Lib's order.
      var range = high[i] - low[i]
      let fromHigh = abs(high[i] - close[i - 1]), fromLow = abs(low[i] - close[i - 1])
      if fromHigh > range { range = fromHigh }
      if fromLow > range { range = fromLow }
      if i < period {
        plusDM += plusMove
        minusDM += minusMove
        trueRange += range
        continue
      }
      plusDM = plusDM - plusDM / p + plusMove
      minusDM = minusDM - minusDM / p + minusMove
      trueRange = trueRange - trueRange / p + range
      var dx = Double.nan
      if trueRange != 0 {
        let plusValue = 100 * (plusDM / trueRange), minusValue = 100 * (minusDM / trueRange)
        plus[i] = plusValue
        minus[i] = minusValue
        let sum = minusValue + plusValue
        if !(-1e-14 < sum && sum < 1e-14) { dx = 100 * (abs(minusValue - plusValue) / sum) }
      } else {
        plus[i] = 0
        minus[i] = 0
      }
      if i < 2 * period {
        if !dx.isNaN { sumDX += dx }
        if i == 2 * period - 1 {
          average = sumDX / p
          adx[i] = average
        }
      } else {
        if !dx.isNaN { average = (average * (p - 1) + dx) / p }
        adx[i] = average
      }
    }
  }
}

/// Returns `+DI` of a bar series (TA-Lib `PLUS_DI`, times 100 for a period
/// of 1 too: `DirectionalMovement`); `nan` before index `period`.
public func plusDI(high: ContiguousArray<Double>, low: ContiguousArray<Double>, close: ContiguousArray<Double>,
                   period: Int) -> ContiguousArray<Double> {
  DirectionalMovement(high: high, low: low, close: close, period: period).plusDI
}

/// Returns `-DI` of a bar series (TA-Lib `MINUS_DI`, times 100 for a period
/// of 1 too: `DirectionalMovement`); `nan` before index `period`.
public func minusDI(high: ContiguousArray<Double>, low: ContiguousArray<Double>, close: ContiguousArray<Double>,
                    period: Int) -> ContiguousArray<Double> {
  DirectionalMovement(high: high, low: low, close: close, period: period).minusDI
}

/// Returns the average directional index of a bar series (TA-Lib `ADX`:
/// `DirectionalMovement`); `nan` before index `2 × period - 1`.
public func adx(high: ContiguousArray<Double>, low: ContiguousArray<Double>, close: ContiguousArray<Double>,
                period: Int) -> ContiguousArray<Double> {
  DirectionalMovement(high: high, low: low, close: close, period: period).adx
}

/// `plusDI` of `bars`.
public func plusDI(_ bars: BarSeries, period: Int) -> ContiguousArray<Double> {
  plusDI(high: bars.high, low: bars.low, close: bars.close, period: period)
}

/// `minusDI` of `bars`.
public func minusDI(_ bars: BarSeries, period: Int) -> ContiguousArray<Double> {
  minusDI(high: bars.high, low: bars.low, close: bars.close, period: period)
}

/// `adx` of `bars`.
public func adx(_ bars: BarSeries, period: Int) -> ContiguousArray<Double> {
  adx(high: bars.high, low: bars.low, close: bars.close, period: period)
}
