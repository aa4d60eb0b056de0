import Foundation

/// Price bars as columns (struct of arrays), indexed by bar number.
///
/// `time` holds instants (seconds since 1970-01-01 UTC); `day` holds the
/// calendar day the bar belongs to as written in the file (its local date),
/// which daily statistics group by. The timestamp text of every bar is kept
/// exactly as written, so reports can quote it.
public struct BarSeries: Sendable {
  /// The file the bars came from, for messages and reports.
  public var source: String
  /// Each bar's instant, in seconds since 1970-01-01 UTC.
  public var time: ContiguousArray<Int64> = []
  /// Each bar's calendar date as written in the file (its local date), in days since 1970-01-01.
  public var day: ContiguousArray<Int32> = []
  /// Each bar's opening price.
  public var open: ContiguousArray<Double> = []
  /// Each bar's highest price.
  public var high: ContiguousArray<Double> = []
  /// Each bar's lowest price.
  public var low: ContiguousArray<Double> = []
  /// Each bar's closing price.
  public var close: ContiguousArray<Double> = []
  /// Each bar's traded volume; 0 when the file has no `volume` column.
  public var volume: ContiguousArray<Double> = []
  /// Whether every timestamp was a bare date (daily bars).
  public var isDateOnly = true
  /// The header's columns the reader did not use (as written), for a notice.
  public var unusedColumns: [String] = []
  private var labelBytes: ContiguousArray<UInt8> = []
  private var labelEnds: ContiguousArray<Int> = []

  /// Creates an empty series read from `source`, with room for `capacity` bars.
  public init(source: String, capacity: Int = 0) {
    self.source = source
    reserveCapacity(capacity)
  }

  /// Makes bars that `fill` writes in place, with room for `capacity` bars
  /// and `labelCapacity` bytes of timestamp text: no array grows or is copied.
  ///
  /// `fill` writes bars `0..<count` (label `i` ending at `labelEnds[i]`) and
  /// returns their count, the label bytes used and whether all were dates.
  package init(source: String, capacity: Int, labelCapacity: Int,
               fill: (BarColumns) throws -> (count: Int, labelBytes: Int, isDateOnly: Bool)) rethrows {
    self.source = source
    var written = (count: 0, labelBytes: 0, isDateOnly: true)
    /// An array whose first `count()` elements `body` initialized.
    func column<T>(_ capacity: Int, _ count: () -> Int, _ body: (UnsafeMutablePointer<T>) throws -> Void) rethrows -> ContiguousArray<T> {
      try ContiguousArray(unsafeUninitializedCapacity: max(1, capacity)) { buffer, initialized in
        try body(buffer.baseAddress!)
        initialized = count()
      }
    }
    let rows = { written.count }
    time = try column(capacity, rows) { t in
      day = try column(capacity, rows) { d in
        open = try column(capacity, rows) { o in
          high = try column(capacity, rows) { h in
            low = try column(capacity, rows) { l in
              close = try column(capacity, rows) { c in
                volume = try column(capacity, rows) { v in
                  labelEnds = try column(capacity, rows) { e in
                    labelBytes = try column(labelCapacity, { written.labelBytes }) { b in
                      written = try fill(BarColumns(time: t, day: d, open: o, high: h, low: l, close: c, volume: v, labelEnds: e, labelBytes: b))
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
    isDateOnly = written.isDateOnly
  }

  /// The number of bars.
  public var count: Int { close.count }
  /// Whether there are no bars.
  public var isEmpty: Bool { close.isEmpty }
  /// The bar indices, `0..<count`.
  public var indices: Range<Int> { 0..<count }

  /// The number of calendar days with bars: each run of bars with one `day` counts once.
  public var dayCount: Int {
    day.withUnsafeBufferPointer { day in
      var days = day.isEmpty ? 0 : 1
      for i in day.indices.dropFirst() where day[i] != day[i - 1] { days += 1 }
      return days
    }
  }

  /// The first bar of each day whose close is at most 0.55 or at least 1.8 times the previous day's last close: a
  /// jump as a 2:1 split (or a reverse one) makes in prices that are not adjusted for it.
  public var splitLikeJumps: [Int] {
    indices.dropFirst().filter { i in
      guard day[i] != day[i - 1], close[i - 1] > 0 else { return false }
      let ratio = close[i] / close[i - 1]
      return ratio <= 0.55 || ratio >= 1.8
    }
  }

  /// Reserves room for `n` bars in every column (and 25 bytes of timestamp text per bar).
  public mutating func reserveCapacity(_ n: Int) {
    time.reserveCapacity(n); day.reserveCapacity(n)
    open.reserveCapacity(n); high.reserveCapacity(n); low.reserveCapacity(n)
    close.reserveCapacity(n); volume.reserveCapacity(n)
    labelEnds.reserveCapacity(n); labelBytes.reserveCapacity(n * 25)
  }

  /// Appends a bar whose timestamp text is `label`.
  public mutating func append<Label: Collection>(
    time: Int64, day: Int32, open: Double, high: Double, low: Double, close: Double, volume: Double,
    label: Label
  ) where Label.Element == UInt8 {
    self.time.append(time); self.day.append(day)
    self.open.append(open); self.high.append(high); self.low.append(low)
    self.close.append(close); self.volume.append(volume)
    labelBytes.append(contentsOf: label)
    labelEnds.append(labelBytes.count)
  }

  /// Appends every bar of `other` (whose times must come after this series' last).
  public mutating func append(contentsOf other: BarSeries) {
    appendTimes(of: other)
    appendPrices(of: other)
  }

  private mutating func appendTimes(of other: BarSeries) {
    time.append(contentsOf: other.time); day.append(contentsOf: other.day)
    let shift = labelBytes.count
    labelBytes.append(contentsOf: other.labelBytes)
    let start = labelEnds.count
    labelEnds.append(contentsOf: other.labelEnds)
    labelEnds.withUnsafeMutableBufferPointer { ends in
      for i in start..<ends.count { ends[i] += shift }
    }
    isDateOnly = isDateOnly && other.isDateOnly
  }

  private mutating func appendPrices(of other: BarSeries) {
    open.append(contentsOf: other.open); high.append(contentsOf: other.high); low.append(contentsOf: other.low)
    close.append(contentsOf: other.close); volume.append(contentsOf: other.volume)
  }

  /// Returns the timestamp of bar `i` exactly as the file wrote it.
  public func timeLabel(_ i: Int) -> String {
    let start = i == 0 ? 0 : labelEnds[i - 1]
    return labelBytes.withUnsafeBufferPointer {
      String(decoding: UnsafeBufferPointer(rebasing: $0[start..<labelEnds[i]]), as: UTF8.self)
    }
  }

  /// Returns the bars whose indices satisfy `keep`, in order (the series
  /// itself, uncopied, when every bar is kept).
  public func filtered(_ keep: (Int) -> Bool) -> BarSeries {
    var mask = [Bool](repeating: false, count: count)
    var kept = 0
    for i in indices where keep(i) { mask[i] = true; kept += 1 }
    if kept == count { return self }
    var out = BarSeries(source: source, capacity: kept)
    out.isDateOnly = isDateOnly
    labelBytes.withUnsafeBufferPointer { labels in
      for i in indices where mask[i] {
        let start = i == 0 ? 0 : labelEnds[i - 1]
        out.append(time: time[i], day: day[i], open: open[i], high: high[i], low: low[i], close: close[i],
                   volume: volume[i], label: UnsafeBufferPointer(rebasing: labels[start..<labelEnds[i]]))
      }
    }
    return out
  }

  /// Appends bar `i`'s timestamp text to `buffer`, without making a `String`.
  package func appendLabel(_ i: Int, to buffer: inout TextBuffer) {
    let start = i == 0 ? 0 : labelEnds[i - 1]
    labelBytes.withUnsafeBufferPointer { buffer.append(bytes: UnsafeBufferPointer(rebasing: $0[start..<labelEnds[i]])) }
  }

  /// Calls `body` with every timestamp's text, end to end, and where each
  /// ends: bar `i`'s text is `bytes[(i == 0 ? 0 : ends[i - 1])..<ends[i]]`.
  package func withLabels<R>(_ body: (_ bytes: UnsafeBufferPointer<UInt8>, _ ends: UnsafeBufferPointer<Int>) throws -> R) rethrows -> R {
    try labelBytes.withUnsafeBufferPointer { bytes in try labelEnds.withUnsafeBufferPointer { try body(bytes, $0) } }
  }

  /// Returns the first `n` bars.
  public func prefix(_ n: Int) -> BarSeries { filtered { $0 < n } }
}

/// The columns of a `BarSeries` being filled in place (see `BarSeries.init(source:capacity:labelCapacity:fill:)`).
///
/// Threads may write disjoint bars at once.
package struct BarColumns: @unchecked Sendable {
  package let time: UnsafeMutablePointer<Int64>, day: UnsafeMutablePointer<Int32>
  package let open: UnsafeMutablePointer<Double>, high: UnsafeMutablePointer<Double>, low: UnsafeMutablePointer<Double>
  package let close: UnsafeMutablePointer<Double>, volume: UnsafeMutablePointer<Double>
  package let labelEnds: UnsafeMutablePointer<Int>, labelBytes: UnsafeMutablePointer<UInt8>
}

extension BarColumns {
  /// Maps the memory of bars `bars` (labels `labelWidth` bytes each) before they are written: on Linux one
  /// call per column instead of a page fault per page (the kernel's `MADV_POPULATE_WRITE`, 5.14 and later),
  /// unless the memory is mapped already (reused by `malloc`, where the call would only cost); elsewhere, or
  /// when the kernel refuses, the pages fault in as they are written.
  package func prefault(_ bars: Range<Int>, labelWidth: Int) {
    #if os(Linux)
    func populate<T>(_ base: UnsafeMutablePointer<T>, _ count: Int) {
      // Whole pages only: a page shared with the bars before or after is left to fault in.
      let page = Int(getpagesize()), start = Int(bitPattern: base + bars.lowerBound * count)
      let lower = (start + page - 1) & -page, upper = (start + bars.count * count * MemoryLayout<T>.stride) & -page
      guard upper > lower, let first = UnsafeMutableRawPointer(bitPattern: lower) else { return }
      var resident: UInt8 = 0
      guard mincore(first, page, &resident) == 0, resident & 1 == 0 else { return }
      _ = madvise(first, upper - lower, 23 /* MADV_POPULATE_WRITE */)
    }
    populate(time, 1); populate(day, 1); populate(open, 1); populate(high, 1); populate(low, 1); populate(close, 1)
    populate(volume, 1); populate(labelEnds, 1); populate(labelBytes, labelWidth)
    #endif
  }
}

#if canImport(Glibc)
import Glibc
#endif
