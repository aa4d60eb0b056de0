/// Rolling mean and population standard deviation (divide by N) of the last
/// `period` values, O(1) per update.
///
/// Sums are kept of `x - shift`, where `shift` is moved to the window mean
/// each time the window is re-summed from scratch (every `period` updates):
/// this avoids both the cancellation of `E[x²] - E[x]²` on prices far from
/// zero and the slow drift of running sums. Where every value of the window
/// is equal the result is exactly that value and a deviation of exactly 0.
public struct StreamingMeanDeviation: Sendable {
  /// The number of values in the window.
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

  /// Creates an empty window of `period` values (`period` > 0).
  public init(period: Int) {
    precondition(period > 0, "period must be > 0, was \(period)")
    self.period = period
    window = ContiguousArray(repeating: 0, count: period)
  }

  /// Adds `x`; returns the window's mean and deviation, `nan` for both before
  /// `period` values have been seen.
  public mutating func update(_ x: Double) -> (mean: Double, deviation: Double) {
    var mean = 0.0, deviation = 0.0
    withUnsafePointer(to: x) { update(UnsafeBufferPointer(start: $0, count: 1), mean: &mean, deviation: &deviation) }
    return (mean, deviation)
  }

  /// Adds every value of `xs` in order, writing what `update(_:)` would return
  /// for each to `mean[i]` and `deviation[i]`: the same arithmetic, in one loop
  /// over raw memory (no call, check or copy per value).
  public mutating func update(_ xs: UnsafeBufferPointer<Double>, mean: UnsafeMutablePointer<Double>,
                              deviation: UnsafeMutablePointer<Double>) {
    let period = self.period, n = Double(period)
    var head = self.head, filled = self.filled, shift = self.shift, sum = self.sum, sumSquares = self.sumSquares
    var sinceRecompute = self.sinceRecompute, equalRun = self.equalRun, previous = self.previous
    var storage = ContiguousArray<Double>()
    swap(&storage, &self.window)
    defer { swap(&storage, &self.window) }
    storage.withUnsafeMutableBufferPointer { buffer in
      let window = buffer.baseAddress!
      for i in 0..<xs.count {
        let x = xs[i]
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
        guard filled == period else { mean[i] = .nan; deviation[i] = .nan; continue }
        if equalRun >= period { mean[i] = x; deviation[i] = 0; continue }
        if sinceRecompute >= period {
          // Re-sum the window from scratch around its mean.
          var total = 0.0
          for k in 0..<period { total += window[k] }
          shift = total / n
          sum = 0
          sumSquares = 0
          for k in 0..<period {
            let e = window[k] - shift
            sum += e
            sumSquares += e * e
          }
          sinceRecompute = 0
        }
        let meanShifted = sum / n
        let variance = sumSquares / n - meanShifted * meanShifted
        mean[i] = shift + meanShifted
        deviation[i] = variance > 0 ? variance.squareRoot() : 0
      }
    }
    self.head = head; self.filled = filled; self.shift = shift; self.sum = sum; self.sumSquares = sumSquares
    self.sinceRecompute = sinceRecompute; self.equalRun = equalRun; self.previous = previous
  }
}

/// The rolling mean and population deviation of every window of `x`
/// (`StreamingMeanDeviation` over the whole series); `nan` before index `period - 1`.
public func rollingMeanDeviation(_ x: ContiguousArray<Double>, period: Int)
  -> (mean: ContiguousArray<Double>, deviation: ContiguousArray<Double>) {
  var state = StreamingMeanDeviation(period: period)
  var deviation = ContiguousArray<Double>()
  let mean = ContiguousArray<Double>(count: x.count) { means in
    deviation = ContiguousArray<Double>(count: x.count) { deviations in
      x.withUnsafeBufferPointer { state.update($0, mean: means.baseAddress!, deviation: deviations.baseAddress!) }
    }
  }
  return (mean, deviation)
}

/// Bollinger Bands over a whole series (TA-Lib `BBANDS`, `matype = 0`).
public struct BollingerBands: Sendable {
  /// The lower band: `middle` less `deviations` population standard deviations of the window; `nan` before index
  /// `period - 1`.
  public var lower: ContiguousArray<Double>
  /// The middle band, the mean of the last `period` closes; `nan` before index `period - 1`.
  public var middle: ContiguousArray<Double>
  /// The upper band: `middle` plus `deviations` population standard deviations of the window; `nan` before index
  /// `period - 1`.
  public var upper: ContiguousArray<Double>

  /// Computes the bands of `close`: middle = mean of the last `period` closes,
  /// upper/lower = middle ± `deviations` × population deviation; `nan` before
  /// index `period - 1`. In a window of equal closes all three equal the close.
  ///
  /// - Complexity: O(n).
  public init(close: ContiguousArray<Double>, period: Int, deviations: Double) {
    var state = StreamingMeanDeviation(period: period)
    let n = close.count
    var upper = ContiguousArray<Double>(), lower = ContiguousArray<Double>()
    middle = ContiguousArray(count: n) { mean in
      upper = ContiguousArray(count: n) { up in
        // The deviations are made where the upper band goes (no column of their own):
        // each is read just before its band is written over it.
        close.withUnsafeBufferPointer { state.update($0, mean: mean.baseAddress!, deviation: up.baseAddress!) }
        lower = ContiguousArray(count: n) { low in
          for i in 0..<n {
            let d = up[i]
            up[i] = mean[i] + deviations * d
            low[i] = mean[i] - deviations * d
          }
        }
      }
    }
    self.upper = upper
    self.lower = lower
  }
}

/// Returns the rolling population standard deviation of `x` (TA-Lib `STDDEV`
/// with `nbdev = 1`); `nan` before index `period - 1`.
public func rollingDeviation(_ x: ContiguousArray<Double>, period: Int) -> ContiguousArray<Double> {
  rollingMeanDeviation(x, period: period).deviation
}
