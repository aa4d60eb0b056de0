/// Moving average convergence/divergence of a series, as TA-Lib's `MACD`
/// computes it.
///
/// With `fast <= slow` (TA-Lib swaps them otherwise, and so does this):
/// the line is `fast EMA - slow EMA` from index `slow - 1`. Both EMAs are
/// TA-Lib's (`k = 2 / (period + 1)`, seeded with a simple mean), and both
/// seeds end at index `slow - 1`: the slow EMA starts from the mean of
/// `x[0..<slow]`, the fast one from the mean of `x[slow - fast..<slow]`. So
/// until the fast EMA forgets its seed the line differs from
/// `ema(x, fast) - ema(x, slow)`, whose fast average starts earlier. The
/// signal is TA-Lib's EMA of the line (the line itself for a signal period
/// of 1), the histogram `line - signal`.
///
/// TA-Lib's `MACD` withholds the line until the signal is defined too; here
/// the line is defined from its own warm-up, with the same values (TA-Lib's
/// line with `signalperiod = 1`).
public struct MACD: Sendable {
  /// The MACD line; `nan` before index `max(fast, slow) - 1`.
  public var line: ContiguousArray<Double>
  /// The signal line; `nan` before index `max(fast, slow) + signal - 2`.
  public var signal: ContiguousArray<Double>
  /// `line - signal`; `nan` before index `max(fast, slow) + signal - 2`.
  public var histogram: ContiguousArray<Double>

  /// Computes the three lines of `x` (whose values are all defined).
  ///
  /// - Complexity: O(n).
  public init(_ x: ContiguousArray<Double>, fast: Int, slow: Int, signal: Int) {
    line = macd(x, fast: fast, slow: slow)
    self.signal = Self.signalLine(line, from: max(fast, slow) - 1, period: signal)
    histogram = Self.histogram(line, self.signal)
  }

  /// TA-Lib's EMA of `line[start...]` (all defined): seeded with the mean of
  /// its first `period` values; for a period of 1 the line itself. `nan`
  /// before index `start + period - 1`.
  static func signalLine(_ line: ContiguousArray<Double>, from start: Int, period: Int) -> ContiguousArray<Double> {
    precondition(period > 0, "signal must be > 0, was \(period)")
    let n = line.count
    guard start >= 0, n - start >= period else { return ContiguousArray(repeating: .nan, count: n) }
    var state = StreamingEMA(period: period)
    return ContiguousArray(count: n) { out in
      for i in 0..<start { out[i] = .nan }
      for i in start..<n { out[i] = period == 1 ? line[i] : state.update(line[i]) }
    }
  }

  /// `line - signal`, `nan` where either is.
  static func histogram(_ line: ContiguousArray<Double>, _ signal: ContiguousArray<Double>) -> ContiguousArray<Double> {
    ContiguousArray(count: line.count) { out in
      for i in 0..<line.count { out[i] = line[i] - signal[i] }
    }
  }
}

/// Returns the MACD line of `x` (TA-Lib `MACD`'s first output: `MACD`);
/// `nan` before index `max(fast, slow) - 1`.
///
/// - Complexity: O(n).
public func macd(_ x: ContiguousArray<Double>, fast: Int, slow: Int) -> ContiguousArray<Double> {
  precondition(fast > 0 && slow > 0, "periods must be > 0, were \(fast) and \(slow)")
  let (fast, slow) = fast <= slow ? (fast, slow) : (slow, fast)
  let n = x.count
  guard n >= slow else { return ContiguousArray(repeating: .nan, count: n) }
  var fastEMA = StreamingEMA(period: fast), slowEMA = StreamingEMA(period: slow)
  return ContiguousArray(count: n) { out in
    x.withUnsafeBufferPointer { x in
      for i in 0..<n {
        let s = slowEMA.update(x[i])
        let f = i >= slow - fast ? fastEMA.update(x[i]) : .nan
        out[i] = i >= slow - 1 ? f - s : .nan
      }
    }
  }
}

/// Returns the MACD signal line of `x` (TA-Lib `MACD`'s second output:
/// `MACD`); `nan` before index `max(fast, slow) + signal - 2`.
public func macdSignal(_ x: ContiguousArray<Double>, fast: Int, slow: Int, signal: Int) -> ContiguousArray<Double> {
  MACD(x, fast: fast, slow: slow, signal: signal).signal
}

/// Returns the MACD histogram of `x` (TA-Lib `MACD`'s third output: `MACD`);
/// `nan` before index `max(fast, slow) + signal - 2`.
public func macdHistogram(_ x: ContiguousArray<Double>, fast: Int, slow: Int, signal: Int) -> ContiguousArray<Double> {
  MACD(x, fast: fast, slow: slow, signal: signal).histogram
}
