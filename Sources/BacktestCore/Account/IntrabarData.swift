/// Finer bars (for example 1-minute) used to settle exits that OHLC bars leave ambiguous.
public struct IntrabarData: Sendable {
  /// The finer bars, in ascending time order (searched by `time`).
  public let bars: BarSeries

  /// Wraps `bars`, which must be sorted by time.
  public init(bars: BarSeries) { self.bars = bars }

  /// Which level the finer bars in `[start, end)` touch first: the stop or the
  /// target (at its level); `nil` when no finer bar touches either, or the first
  /// one that does touches both (still ambiguous).
  public func firstTouch(from start: Int64, to end: Int64, stop: Double, target: Double) -> (price: Double, reason: ExitReason)? {
    var low = 0, high = bars.count
    while low < high {
      let mid = (low + high) / 2
      if bars.time[mid] < start { low = mid + 1 } else { high = mid }
    }
    var i = low
    while i < bars.count && bars.time[i] < end {
      let stopHit = bars.low[i] <= stop, targetHit = bars.high[i] >= target
      if stopHit && targetHit { return nil }
      if stopHit { return (stop, .stopLoss) }
      if targetHit { return (target, .profitTarget) }
      i += 1
    }
    return nil
  }
}
