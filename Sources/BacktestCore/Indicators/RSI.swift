/// Relative strength index with Wilder smoothing, as TA-Lib's `RSI` computes it.
///
/// With `d = x[i] - x[i-1]`, the first value comes at index `period`: average
/// gain and loss start as the simple means of the first `period` gains and
/// losses, then `avg = (avg * (period - 1) + d⁺) / period`.
/// `rsi = 100 * (gain / (gain + loss))`, and 0 when both are 0.
public struct StreamingRSI: Sendable {
  /// The smoothing period, in values.
  public let period: Int
  private var seen = 0
  private var previous = 0.0
  fileprivate var gain = 0.0
  fileprivate var loss = 0.0

  /// Creates an empty RSI for `period` (`period` > 0).
  public init(period: Int) {
    precondition(period > 0, "period must be > 0, was \(period)")
    self.period = period
  }

  /// Adds `x`; returns the RSI, or `nan` for the first `period` values.
  @inline(__always)
  public mutating func update(_ x: Double) -> Double {
    defer { previous = x; seen += 1 }
    if seen == 0 { return .nan }
    let d = x - previous
    let up = d > 0 ? d : 0.0
    let down = d < 0 ? -d : 0.0
    let p = Double(period)
    if seen < period {
      gain += up; loss += down
      return .nan
    }
    if seen == period {
      gain = (gain + up) / p
      loss = (loss + down) / p
    } else {
      gain = (gain * (p - 1) + up) / p
      loss = (loss * (p - 1) + down) / p
    }
    let total = gain + loss
    return total == 0 ? 0 : 100.0 * (gain / total)
  }
}

/// Returns the RSI of `x` (TA-Lib `RSI`); `nan` before index `period`.
public func rsi(_ x: ContiguousArray<Double>, period: Int) -> ContiguousArray<Double> {
  var state = StreamingRSI(period: period)
  return ContiguousArray(count: x.count) { out in
    x.withUnsafeBufferPointer { x in
      for i in 0..<x.count { out[i] = state.update(x[i]) }
    }
  }
}

/// Up to four RSI periods advanced together, each bit for bit as
/// `StreamingRSI` computes it: after the longest warm-up, the periods are the
/// lanes of one vector (the same operations per lane), so that their chains of
/// divisions overlap instead of following one another.
package struct RSILanes {
  let periods: [Int]
  private var states: [StreamingRSI]
  private var gain = SIMD4<Double>(), loss = SIMD4<Double>(), p = SIMD4<Double>(), pm1 = SIMD4<Double>()
  private var previous = 0.0, seen = 0  // `seen` counts up to the end of the warm-up only
  private let warmUp: Int

  package init(periods: [Int]) {
    precondition((1...4).contains(periods.count), "one to four periods")
    self.periods = periods
    states = periods.map(StreamingRSI.init)
    warmUp = periods.max()! + 1
  }

  /// Adds every value of `xs` in order, writing each period's RSI to `out[k][i]`.
  package mutating func update(_ xs: UnsafeBufferPointer<Double>, into out: [UnsafeMutablePointer<Double>]) {
    let lanes = periods.count
    var i = 0
    // Each period's own warm-up.
    while i < xs.count && seen < warmUp {
      for k in 0..<lanes { out[k][i] = states[k].update(xs[i]) }
      previous = xs[i]
      seen += 1
      i += 1
      if seen == warmUp {
        // Padding lanes repeat the last period.
        func lane(_ value: (Int) -> Double) -> SIMD4<Double> { SIMD4((0..<4).map { value(min($0, lanes - 1)) }) }
        gain = lane { states[$0].gain }
        loss = lane { states[$0].loss }
        p = lane { Double(periods[$0]) }
        pm1 = p - 1
      }
    }
    guard i < xs.count else { return }
    var gain = self.gain, loss = self.loss, previous = self.previous
    let p = self.p, pm1 = self.pm1
    // Padding lanes repeat their period: they write the same values into its column.
    let c0 = out[0], c1 = out[min(1, lanes - 1)], c2 = out[min(2, lanes - 1)], c3 = out[min(3, lanes - 1)]
    for j in i..<xs.count {
      let x = xs[j], d = x - previous
      previous = x
      gain = (gain * pm1 + SIMD4(repeating: d > 0 ? d : 0.0)) / p
      loss = (loss * pm1 + SIMD4(repeating: d < 0 ? -d : 0.0)) / p
      let total = gain + loss
      let value = (100.0 * (gain / total)).replacing(with: 0, where: total .== 0)
      c3[j] = value[3]; c2[j] = value[2]; c1[j] = value[1]; c0[j] = value[0]
    }
    self.gain = gain
    self.loss = loss
    self.previous = previous
  }
}

/// Average true range with Wilder smoothing (TA-Lib `ATR`): the true range
/// starts at bar 1; the first ATR, at index `period`, is the mean of the
/// first `period` true ranges, then `atr = (atr * (period - 1) + tr) / period`.
public struct StreamingATR: Sendable {
  /// The smoothing period, in bars.
  public let period: Int
  private var seen = 0
  private var previousClose = 0.0
  private var value = 0.0

  /// Creates an empty ATR for `period` (`period` > 0).
  public init(period: Int) {
    precondition(period > 0, "period must be > 0, was \(period)")
    self.period = period
  }

  /// Adds a bar; returns the ATR, or `nan` for the first `period` bars.
  public mutating func update(high: Double, low: Double, close: Double) -> Double {
    defer { previousClose = close; seen += 1 }
    if seen == 0 { return .nan }
    let tr = max(high - low, abs(high - previousClose), abs(low - previousClose))
    let p = Double(period)
    if seen < period {
      value += tr
      return .nan
    }
    value = seen == period ? (value + tr) / p : (value * (p - 1) + tr) / p
    return value
  }
}

/// Returns the ATR of a bar series (TA-Lib `ATR`); `nan` before index `period`.
public func atr(high: ContiguousArray<Double>, low: ContiguousArray<Double>, close: ContiguousArray<Double>,
                period: Int) -> ContiguousArray<Double> {
  var state = StreamingATR(period: period)
  var out = ContiguousArray<Double>()
  out.reserveCapacity(close.count)
  for i in close.indices { out.append(state.update(high: high[i], low: low[i], close: close[i])) }
  return out
}
