/// Simple moving average over the last `period` values, updated one value at a time.
///
/// Keeps a compensated (Kahan–Babuška) running sum and re-adds the window
/// from scratch every `period` updates, so the error stays within a few ulps
/// of the exact window sum however long the series is.
public struct StreamingSMA: Sendable {
  /// The number of values averaged.
  public let period: Int
  private var window: ContiguousArray<Double>
  private var head = 0
  private var filled = 0
  private var sum = 0.0
  private var compensation = 0.0
  private var sinceRecompute = 0

  /// Creates an empty average over `period` values (`period` > 0).
  public init(period: Int) {
    precondition(period > 0, "period must be > 0, was \(period)")
    self.period = period
    window = ContiguousArray(repeating: 0, count: period)
  }

  /// Adds `x`; returns the mean of the last `period` values, or `nan` before
  /// `period` values have been seen.
  public mutating func update(_ x: Double) -> Double {
    if filled == period {
      add(-window[head])
    } else {
      filled += 1
    }
    window[head] = x
    head = head + 1 == period ? 0 : head + 1
    add(x)
    sinceRecompute += 1
    if sinceRecompute >= period && filled == period {
      sum = 0; compensation = 0
      for v in window { add(v) }
      sinceRecompute = 0
    }
    return filled == period ? (sum + compensation) / Double(period) : .nan
  }

  private mutating func add(_ x: Double) {
    let t = sum + x
    if abs(sum) >= abs(x) { compensation += (sum - t) + x } else { compensation += (x - t) + sum }
    sum = t
  }
}

/// Exponential moving average with TA-Lib's conventions: `k = 2 / (period + 1)`,
/// seeded with the simple mean of the first `period` values (defined from
/// index `period - 1`).
public struct StreamingEMA: Sendable {
  /// The number of values the seed averages; it also sets the smoothing `k = 2 / (period + 1)`.
  public let period: Int
  private let k: Double
  private var seen = 0
  private var seedSum = 0.0
  private var value = Double.nan

  /// Creates an empty average for `period` (`period` > 0).
  public init(period: Int) {
    precondition(period > 0, "period must be > 0, was \(period)")
    self.period = period
    k = 2.0 / Double(period + 1)
  }

  /// Adds `x`; returns the average, or `nan` during the first `period - 1` values.
  public mutating func update(_ x: Double) -> Double {
    seen += 1
    if seen < period {
      seedSum += x
      return .nan
    }
    if seen == period {
      value = (seedSum + x) / Double(period)
    } else {
      value = (x - value) * k + value
    }
    return value
  }
}

/// Returns the simple moving average of `x`; `nan` before index `period - 1`.
///
/// - Complexity: O(n).
public func sma(_ x: ContiguousArray<Double>, period: Int) -> ContiguousArray<Double> {
  var state = StreamingSMA(period: period)
  var out = ContiguousArray<Double>()
  out.reserveCapacity(x.count)
  for v in x { out.append(state.update(v)) }
  return out
}

/// Returns the exponential moving average of `x` (TA-Lib `EMA`); `nan` before
/// index `period - 1`.
public func ema(_ x: ContiguousArray<Double>, period: Int) -> ContiguousArray<Double> {
  var state = StreamingEMA(period: period)
  var out = ContiguousArray<Double>()
  out.reserveCapacity(x.count)
  for v in x { out.append(state.update(v)) }
  return out
}

/// Returns the weighted moving average of `x` (TA-Lib `WMA`): the last
/// `period` values weighted 1 (the oldest) to `period` (the newest), divided
/// by the sum of the weights, `period × (period + 1) / 2`; `nan` before index
/// `period - 1`. With `period` 1 it is `x`.
///
/// Keeps the window's plain and weighted sums, each updated in O(1) per
/// value (the weighted sum loses the plain sum and gains `period` times the
/// new value), and adds both again from the window every `period` values so
/// that rounding cannot accumulate.
///
/// - Complexity: O(n).
public func wma(_ x: ContiguousArray<Double>, period: Int) -> ContiguousArray<Double> {
  precondition(period > 0, "period must be > 0, was \(period)")
  let n = x.count
  guard n >= period else { return ContiguousArray(repeating: .nan, count: n) }
  if period == 1 { return x }
  let p = Double(period)
  let divider = p * (p + 1) / 2
  return ContiguousArray(count: n) { out in
    x.withUnsafeBufferPointer { x in
      var plain = 0.0, weighted = 0.0
      // Both sums of the window that ends at `end`, from its oldest value up.
      func resum(_ end: Int) {
        plain = 0
        weighted = 0
        var weight = 1.0
        for j in (end - period + 1)...end {
          plain += x[j]
          weighted += x[j] * weight
          weight += 1
        }
      }
      for i in 0..<(period - 1) { out[i] = .nan }
      resum(period - 1)
      out[period - 1] = weighted / divider
      var sinceResum = 0
      for i in period..<n {
        sinceResum += 1
        if sinceResum == period {
          resum(i)
          sinceResum = 0
        } else {
          weighted = weighted - plain + p * x[i]
          plain = plain - x[i - period] + x[i]
        }
        out[i] = weighted / divider
      }
    }
  }
}
