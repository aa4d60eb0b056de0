/// Relative strength index with Wilder smoothing, as TA-Lib's `RSI` computes it.
///
/// With `d = x[i] - x[i-1]`, the first value comes at index `period`: average
/// gain and loss start as the simple means of the first `period` gains and
/// losses, then `avg = (avg * (period - 1) + d⁺) / period`.
/// `rsi = 100 * (gain / (gain + loss))`, and 0 when both are 0.
public struct StreamingRSI: Sendable {
  public let period: Int
  private var seen = 0
  private var previous = 0.0
  private var gain = 0.0
  private var loss = 0.0

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
  return ContiguousArray(unsafeUninitializedCapacity: x.count) { out, count in
    x.withUnsafeBufferPointer { x in
      for i in 0..<x.count { out[i] = state.update(x[i]) }
    }
    count = x.count
  }
}

/// Average true range with Wilder smoothing (TA-Lib `ATR`): the true range
/// starts at bar 1; the first ATR, at index `period`, is the mean of the
/// first `period` true ranges, then `atr = (atr * (period - 1) + tr) / period`.
public struct StreamingATR: Sendable {
  public let period: Int
  private var seen = 0
  private var previousClose = 0.0
  private var value = 0.0

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
