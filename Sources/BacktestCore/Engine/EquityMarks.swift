/// The running marks of an account: its peak, deepest drawdown, stretches
/// below the peak, and how many bars were marked and held. A sweep's bar loop
/// keeps them as it goes (`SummaryRecord`), the sweep kernel in registers;
/// `SummaryAccumulator` makes the statistics of them.
@usableFromInline
package struct EquityMarks: Sendable {
  @usableFromInline var peak = -Double.infinity, worstDrawdown = 0.0
  /// The last bar at a peak (-1 before any) and its date; the last bar's date.
  @usableFromInline var peakBar = -1, peakDay: Int32 = 0, lastDay: Int32 = 0
  /// The stretches below a peak that have ended: how many, their bars and calendar days, the longest in each.
  @usableFromInline var endedRuns = 0, endedRunBars = 0, endedRunDays = 0, longestEndedRun = 0, longestEndedRunDays = 0
  @usableFromInline package var barsMarked = 0, barsHeld = 0
  @usableFromInline var lastEquity = 0.0

  @inlinable package init() {}

  /// The most consecutive bars below the running peak.
  var longestRun: Int { max(longestEndedRun, barsMarked - 1 - peakBar) }

  /// The stretches below the running peak, the last one included when it has not ended (its days then run to the last
  /// bar's date): how many, their bars and days in all, the most days; `nil` without any.
  var stretches: (count: Int, bars: Int, days: Int, longestDays: Int)? {
    let open = barsMarked - 1 - peakBar
    guard open > 0 else { return endedRuns > 0 ? (endedRuns, endedRunBars, endedRunDays, longestEndedRunDays) : nil }
    let openDays = Int(lastDay) - Int(peakDay)
    return (endedRuns + 1, endedRunBars + open, endedRunDays + openDays, max(longestEndedRunDays, openDays))
  }

  /// A new peak at bar `i` on `day`: the stretch below the previous one, if any, has ended.
  @inlinable @inline(__always)
  mutating func newPeak(_ e: Double, bar i: Int, day: Int32, after run: Int, endedOn recovery: Int32) {
    if run > 0 {
      let days = Int(recovery) - Int(peakDay)
      endedRuns += 1
      endedRunBars += run
      endedRunDays += days
      longestEndedRun = max(longestEndedRun, run)
      longestEndedRunDays = max(longestEndedRunDays, days)
    }
    peak = e; peakBar = i; peakDay = day
  }

  /// Marks the next bar at equity `e` on `day` (who counts held bars does so itself).
  @inlinable @inline(__always)
  mutating func mark(_ e: Double, day: Int32) {
    mark(e, bar: barsMarked, day: day)
    barsMarked += 1
  }

  /// Marks the next bar at equity `e` on `day`, `held` when a position is open, and appends `e` to `dayEnds` when
  /// `dayEnd` (the last bar of its calendar day).
  @inlinable @inline(__always)
  mutating func mark(_ e: Double, held: Bool, day: Int32, dayEnd: Bool, dayEnds: inout [Double]) {
    mark(e, day: day)
    if held { barsHeld += 1 }
    if dayEnd { dayEnds.append(e) }
  }

  /// Marks bar `i` at equity `e` on `day`; bars are marked in order, each once, and `barsMarked` is left to the caller.
  @inlinable @inline(__always)
  package mutating func mark(_ e: Double, bar i: Int, day: Int32) {
    if e >= peak {
      // At a peak the drawdown is 0 (or nan: 0 or an infinite equity), never below the deepest.
      newPeak(e, bar: i, day: day, after: i - 1 - peakBar, endedOn: day)
    } else if e != lastEquity {
      // The same equity as the last bar's, below the same peak, is the same drawdown, counted already: a flat account
      // skips the division.
      let dd = e / peak - 1
      if dd < worstDrawdown { worstDrawdown = dd }
    }
    lastEquity = e
    lastDay = day
  }

  /// Marks `bars` at equity `e`, the first on `days.first`, the last on `days.last`: what `mark(e, bar:day:)` on each
  /// does.
  @inline(__always)
  package mutating func markFlat(_ e: Double, bars: Range<Int>, days: (first: Int32, last: Int32)) {
    guard !bars.isEmpty else { return }
    if e >= peak { newPeak(e, bar: bars.upperBound - 1, day: days.last, after: bars.lowerBound - 1 - peakBar, endedOn: days.first) }
    let dd = e / peak - 1
    if dd < worstDrawdown { worstDrawdown = dd }
    lastEquity = e
    lastDay = days.last
  }
}
