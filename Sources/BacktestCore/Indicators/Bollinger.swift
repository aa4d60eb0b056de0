/// Rolling mean and population standard deviation (divide by N) of the last
/// `period` values, O(1) per update.
///
/// Sums are kept of `x - shift`, where `shift` is moved to the window mean
/// each time the window is re-summed from scratch (every `period` updates):
/// this avoids both the cancellation of `E[x²] - E[x]²` on prices far from
/// zero and the slow drift of running sums. Where every value of the window
/// is equal the result is exactly that value and a deviation of exactly 0.
public struct StreamingMeanDeviation: Sendable {
  public let period: Int
  private var window: ContiguousArray<Double>
  private var head = 0
  private var filled = 0
  private var shift = 0.0
  private var sum = 0.0         // of (x - shift)
  private var sumSquares = 0.0  // of (x - shift)^2
  private var sinceRecompute = 0
  private var equalRun = 0
  private var previous = Double.nan

  public init(period: Int) {
    precondition(period > 0, "period must be > 0, was \(period)")
    self.period = period
    window = ContiguousArray(repeating: 0, count: period)
  }

  /// Adds `x`; returns the window's mean and deviation, `nan` for both before
  /// `period` values have been seen.
  public mutating func update(_ x: Double) -> (mean: Double, deviation: Double) {
    equalRun = x == previous ? equalRun + 1 : 1
    previous = x
    if filled == period {
      let old = window[head] - shift
      sum -= old
      sumSquares -= old * old
    } else {
      filled += 1
    }
    window[head] = x
    head = head + 1 == period ? 0 : head + 1
    let d = x - shift
    sum += d
    sumSquares += d * d
    sinceRecompute += 1
    guard filled == period else { return (.nan, .nan) }
    if equalRun >= period { return (x, 0) }
    if sinceRecompute >= period { recompute() }
    let n = Double(period)
    let meanShifted = sum / n
    let variance = sumSquares / n - meanShifted * meanShifted
    return (shift + meanShifted, variance > 0 ? variance.squareRoot() : 0)
  }

  private mutating func recompute() {
    var total = 0.0
    for v in window { total += v }
    shift = total / Double(period)
    sum = 0
    sumSquares = 0
    for v in window {
      let d = v - shift
      sum += d
      sumSquares += d * d
    }
    sinceRecompute = 0
  }
}

/// Bollinger Bands over a whole series (TA-Lib `BBANDS`, `matype = 0`).
public struct BollingerBands: Sendable {
  public var lower: ContiguousArray<Double>
  public var middle: ContiguousArray<Double>
  public var upper: ContiguousArray<Double>

  /// Computes the bands of `close`: middle = mean of the last `period` closes,
  /// upper/lower = middle ± `deviations` × population deviation; `nan` before
  /// index `period - 1`. In a window of equal closes all three equal the close.
  ///
  /// - Complexity: O(n).
  public init(close: ContiguousArray<Double>, period: Int, deviations: Double) {
    var state = StreamingMeanDeviation(period: period)
    let n = close.count
    lower = ContiguousArray(repeating: .nan, count: n)
    middle = ContiguousArray(repeating: .nan, count: n)
    upper = ContiguousArray(repeating: .nan, count: n)
    for i in 0..<n {
      let (mean, deviation) = state.update(close[i])
      middle[i] = mean
      upper[i] = mean + deviations * deviation
      lower[i] = mean - deviations * deviation
    }
  }
}

/// Returns the rolling population standard deviation of `x` (TA-Lib `STDDEV`
/// with `nbdev = 1`); `nan` before index `period - 1`.
public func rollingDeviation(_ x: ContiguousArray<Double>, period: Int) -> ContiguousArray<Double> {
  var state = StreamingMeanDeviation(period: period)
  var out = ContiguousArray<Double>()
  out.reserveCapacity(x.count)
  for v in x { out.append(state.update(v).deviation) }
  return out
}
