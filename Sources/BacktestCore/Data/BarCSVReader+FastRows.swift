import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// 10^-k for k in 0...7 as a sum high + low: `high` is the double nearest 10^-k cut to its first 29 significant
/// bits, `low` the double nearest the rest. Constant arrays, statically initialized (no lazy-initialization check
/// in the row loop); see `scaledDown`.
private let tenthsHigh: [Double] = [
  0x1.0000000p+0, 0x1.9999999p-4, 0x1.47ae147p-7, 0x1.0624dd2p-10, 0x1.a36e2ebp-14, 0x1.4f8b588p-17, 0x1.0c6f7a0p-20, 0x1.ad7f29ap-24,
]
private let tenthsLow: [Double] = [
  0, 0x1.3333333333333p-33, 0x1.5c28f5c28f5c3p-36, 0x1.e353f7ced9168p-39, 0x1.c432ca57a786cp-46, 0x1.c6d1e108c3f3ep-46,
  0x1.6bdb1a6d698fep-49, 0x1.795e90af0f4cap-53,
]

/// The fast path of `BarCSVReader`: plain rows read in one pass, in parts on several cores, straight into the final columns.
extension BarCSVReader {
  /// Files at least this large are read in parts on several cores.
  static let parallelThreshold = 1 << 20
  /// The bytes in one part of a parallel read: several parts per core, so that cores busy with other work
  /// (hashing the file) do not hold the others up.
  static let partBytes = 1 << 20

  /// Reads every row after the header, which `header` has just read.
  ///
  /// Counts the lines first, so that each column is allocated once at its
  /// final size. Then the plain rows (see `plainBar`) are read in parts, on
  /// several cores when `parallel` and the file is large, each part writing
  /// its bars in place. From the first row a part cannot take (one that is
  /// not plain, a timestamp of another length than the first, a part whose
  /// first row is a wall-clock time in a zone with daylight saving, times not
  /// increasing across parts) the rest is read in one pass by `remainingRows`,
  /// which reports the first error exactly. The bars are the same either way.
  ///
  /// - Complexity: O(bytes), two passes (the first only counts newlines).
  static func rows(_ bytes: UnsafeBufferPointer<UInt8>, after header: CSVScanner, layout: Layout, timeZone: TimeZone,
                   parallel: Bool) throws -> BarSeries {
    var (bars, resume) = partRows(bytes, after: header, layout: layout, timeZone: timeZone, parallel: parallel)
    if resume < bytes.count {
      let firstLine = header.upcomingLine
      var scanner = CSVScanner(bytes: bytes, file: header.file, start: resume, line: firstLine + bars.count)
      let previous = bars.isEmpty ? nil : (instant: bars.time[bars.count - 1], label: bars.timeLabel(bars.count - 1), line: firstLine + bars.count - 1)
      try remainingRows(&scanner, into: &bars, layout: layout, timeZone: timeZone, previous: previous)
    }
    return bars
  }

  /// Reads the plain rows after the header in parts (see `rows`), into columns with room for every line;
  /// returns them and where the rest starts (the end of the bytes when the parts read every row).
  static func partRows(_ bytes: UnsafeBufferPointer<UInt8>, after header: CSVScanner, layout: Layout, timeZone: TimeZone,
                       parallel: Bool) -> (bars: BarSeries, resume: Int) {
    let start = header.offset
    let parts = Parts(bytes, from: start, parallel: parallel && bytes.count - start >= parallelThreshold
                                                  && ProcessInfo.processInfo.activeProcessorCount > 1)
    let labelWidth = layout.fastRows && parts.lineCount > 0 ? Self.labelWidth(bytes, at: start, layout: layout) : nil
    var resume = start
    let bars = BarSeries(source: header.file, capacity: parts.lineCount, labelCapacity: parts.lineCount * (labelWidth ?? 0)) { columns in
      guard let labelWidth else { return (0, 0, true) }
      let zoneShifts = timeZone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: -4e9)) != nil
      let resolver = TimeZoneResolver(timeZone)
      let results = ConcurrentSlots<PartResult>(count: parts.count)
      let shared = SharedBytes(bytes: bytes)
      runJobs(parts.count, workers: parts.count > 1 ? ProcessInfo.processInfo.activeProcessorCount : 1) { k in
        let state = RowState(resolver, wallClockFirst: k == 0 || !zoneShifts)
        results.set(k, fill(shared.bytes, parts.range(k), bars: parts.lines(k), labelWidth: labelWidth, into: columns, layout: layout,
                            state: state))
      }
      // The bars read are those of the complete parts in a row from the first, then the start of the next.
      var count = 0, isDateOnly = true
      for k in 0..<parts.count {
        let part = results.get(k)
        if count > 0 && part.count > 0 && columns.time[count] <= columns.time[count - 1] { break }
        count += part.count
        resume = part.end
        isDateOnly = isDateOnly && part.isDateOnly
        if part.count < parts.lines(k).count { break }
      }
      return (count, count * labelWidth, isDateOnly)
    }
    return (bars, resume)
  }

  /// How the rows after the header split into parts, each a run of whole lines.
  struct Parts {
    /// Where each part starts; the last element is the end of the bytes.
    var bounds: [Int] = []
    /// How many lines come before each part; the last element counts them all (a last line without a newline too).
    var linesBefore: [Int] = [0]

    /// Splits `bytes[start...]` into parts of about `partBytes` when `parallel` and no quote occurs (a quoted field
    /// may hold a newline, so that a line need not start a record), else into one part.
    init(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, parallel: Bool) {
      let n = bytes.count, base = bytes.baseAddress!
      let count = parallel ? max(2, (n - start) / BarCSVReader.partBytes) : 1
      var bounds = [start]
      for k in 1..<count {
        let target = start + (n - start) / count * k
        guard target > bounds.last!, let newline = memchr(base + target, Int32(UInt8(ascii: "\n")), n - target) else { break }
        let next = UnsafeRawPointer(newline) - UnsafeRawPointer(base) + 1
        if next < n { bounds.append(next) }
      }
      bounds.append(n)
      let scans = ConcurrentSlots<(newlines: Int, quote: Bool)>(count: bounds.count - 1)
      let shared = SharedBytes(bytes: bytes), edges = bounds
      runJobs(bounds.count - 1, workers: bounds.count > 2 ? ProcessInfo.processInfo.activeProcessorCount : 1) { k in
        scans.set(k, scanLines(shared.bytes, edges[k]..<edges[k + 1]))
      }
      if bounds.count > 2 && (0..<bounds.count - 1).contains(where: { scans.get($0).quote }) {
        self = Parts(bytes, from: start, parallel: false)
        return
      }
      self.bounds = bounds
      for k in 0..<bounds.count - 1 { linesBefore.append(linesBefore[k] + scans.get(k).newlines) }
      if n > start && bytes[n - 1] != UInt8(ascii: "\n") { linesBefore[linesBefore.count - 1] += 1 }
    }

    var count: Int { bounds.count - 1 }
    var lineCount: Int { linesBefore[count] }
    /// The bytes of part `k`.
    func range(_ k: Int) -> Range<Int> { bounds[k]..<bounds[k + 1] }
    /// The lines of part `k`, numbered from 0 at the first after the header: its bars when every line is one.
    func lines(_ k: Int) -> Range<Int> { linesBefore[k]..<linesBefore[k + 1] }
  }

  /// Counts the newlines in `bytes[range]`, sixteen bytes at a time, and tells whether a quote occurs.
  static func scanLines(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> (newlines: Int, quote: Bool) {
    typealias Bytes = SIMD16<UInt8>
    let base = UnsafeRawPointer(bytes.baseAddress!)
    let newline = Bytes(repeating: UInt8(ascii: "\n")), quote = Bytes(repeating: UInt8(ascii: "\""))
    var p = range.lowerBound
    var newlines = 0, quotes = SIMDMask<Bytes.MaskStorage>()
    while p &+ 16 <= range.upperBound {
      // Up to 255 blocks add 1 per newline into the lanes of `counts` before they are summed. Lane comparisons
      // and a select of 1 compile to a compare and a subtract per block (SSE2), unchecked positions to no overflow test.
      var counts = Bytes()
      let stop = min(range.upperBound, p &+ 16 &* 255)
      while p &+ 16 <= stop {
        let v = base.loadUnaligned(fromByteOffset: p, as: Bytes.self)
        counts &+= Bytes().replacing(with: 1, where: v .== newline)
        quotes = quotes .| (v .== quote)
        p &+= 16
      }
      for k in 0..<16 { newlines &+= Int(counts[k]) }
    }
    var quoted = any(quotes)
    while p < range.upperBound {
      if bytes[p] == UInt8(ascii: "\n") { newlines += 1 }
      if bytes[p] == UInt8(ascii: "\"") { quoted = true }
      p += 1
    }
    return (newlines, quoted)
  }

  /// `0x80` in each byte of `w` that is zero, `0` in the others.
  @inline(__always)
  static func zeroBytes(_ w: UInt64) -> UInt64 {
    ~(((w & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | w | 0x7F7F_7F7F_7F7F_7F7F)
  }

  /// `0x80` in each byte of `w` that is not an ASCII digit, `0` in the others.
  @inline(__always)
  static func nonDigitBytes(_ w: UInt64) -> UInt64 {
    // A digit is 0x30...0x39: high nibble 3, and a low nibble that does not carry when 6 is added.
    let x = ((w & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030) | (((w & 0x0F0F_0F0F_0F0F_0F0F) &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0)
    return (((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | x) & 0x8080_8080_8080_8080
  }

  /// The length of the first row's timestamp, when the row is plain (every label the parts write has it).
  static func labelWidth(_ bytes: UnsafeBufferPointer<UInt8>, at p: Int, layout: Layout) -> Int? {
    var row = PlainRow(), stamps = StampCache()
    return plainRow(bytes, at: p, layout: layout, stamps: &stamps, into: &row) ? row.timeEnd - row.timeStart : nil
  }

  /// What a part read: its bars (written from the first of its bars on) and where it stopped.
  struct PartResult { var count: Int, end: Int, isDateOnly: Bool }

  /// Writes the plain bars of `bytes[range]` as `bars` (one per line, each label `labelWidth` bytes), starting
  /// from `state`, and stops at the first row that is not plain or whose label has another length.
  ///
  /// Never writes beyond `bars`. Never inlined: alone, the loop inlines everything a row needs.
  @inline(never)
  static func fill(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, bars: Range<Int>, labelWidth: Int, into columns: BarColumns,
                   layout: Layout, state: RowState) -> PartResult {
    var state = state
    var row = PlainRow()
    columns.prefault(bars, labelWidth: labelWidth)
    var p = range.lowerBound, i = bars.lowerBound, isDateOnly = true
    let source = bytes.baseAddress!
    while p < range.upperBound && i < bars.upperBound, plainBar(bytes, at: p, layout: layout, state: &state, into: &row),
      row.timeEnd - row.timeStart == labelWidth {
      columns.time[i] = row.instant; columns.day[i] = Int32(row.day)
      columns.open[i] = row.open; columns.high[i] = row.high; columns.low[i] = row.low; columns.close[i] = row.close
      columns.volume[i] = row.volume
      copyLabel(from: source + row.timeStart, to: columns.labelBytes + i * labelWidth, count: labelWidth)
      columns.labelEnds[i] = (i + 1) * labelWidth
      isDateOnly = isDateOnly && row.isDate
      p = row.next
      i += 1
    }
    return PartResult(count: i - bars.lowerBound, end: p, isDateOnly: isDateOnly)
  }

  /// Copies a short label: eight bytes at a time, the last eight overlapping.
  @inline(__always)
  static func copyLabel(from source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int) {
    guard count >= 8 else { target.update(from: source, count: count); return }
    let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(target)
    var k = 0
    while k + 8 < count {
      to.storeBytes(of: from.loadUnaligned(fromByteOffset: k, as: UInt64.self), toByteOffset: k, as: UInt64.self)
      k += 8
    }
    to.storeBytes(of: from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self), toByteOffset: count - 8, as: UInt64.self)
  }

  /// What a run of plain rows carries from one row to the next.
  struct RowState {
    var resolver: TimeZoneResolver
    var stamps = StampCache()
    var previousInstant: Int64?
    /// Whether the first row may be a wall-clock time (whose reading may depend on the row before it).
    let wallClockFirst: Bool

    init(_ resolver: TimeZoneResolver, wallClockFirst: Bool = true, previousInstant: Int64? = nil) {
      self.resolver = resolver
      self.wallClockFirst = wallClockFirst
      self.previousInstant = previousInstant
    }
  }

  /// Reads the plain row at `p` into `row` and checks it as the general path does (timestamp after the
  /// previous one, prices in range, low and high around open and close); `false` when it is not plain
  /// or fails a check (the general path then reads it, or reports what is wrong).
  @inline(__always)
  static func plainBar(_ b: UnsafeBufferPointer<UInt8>, at p: Int, layout: Layout, state: inout RowState, into row: inout PlainRow) -> Bool {
    guard layout.isStandard ? standardRow(b, at: p, hasVolume: layout.volume != nil, stamps: &state.stamps, into: &row)
      : plainRow(b, at: p, layout: layout, stamps: &state.stamps, into: &row) else { return false }
    guard row.isFixedStamp || placeOtherStamp(b, state: &state, into: &row) else { return false }
    guard state.previousInstant.map({ row.instant > $0 }) ?? true,
      priceRange.contains(row.open), priceRange.contains(row.high), priceRange.contains(row.low), priceRange.contains(row.close),
      row.volume >= 0, row.low <= min(row.open, row.close), row.high >= max(row.open, row.close)
    else { return false }
    state.previousInstant = row.instant
    return true
  }

  /// Reads a timestamp `zonedTimestamp` did not (with `parseTimestamp`) and sets the row's instant, day
  /// and whether it is a date; `false` when it is not one, does not exist, or is a wall-clock time that
  /// `state` may not start with.
  static func placeOtherStamp(_ b: UnsafeBufferPointer<UInt8>, state: inout RowState, into row: inout PlainRow) -> Bool {
    guard let written = parseTimestamp(b, row.timeStart, row.timeEnd),
      state.wallClockFirst || state.previousInstant != nil || written.isZoned,
      let (instant, day) = place(written, resolver: &state.resolver, after: state.previousInstant)
    else { return false }
    row.instant = instant
    row.day = day
    if case .date = written { row.isDate = true } else { row.isDate = false }
    return true
  }

  /// The instant and calendar day of a written time; `nil` when the wall clock does not exist in the zone.
  @inline(__always)
  static func place(_ written: WrittenTimestamp, resolver: inout TimeZoneResolver, after previous: Int64?) -> (instant: Int64, day: Int)? {
    switch written {
    case .date(let days):
      return resolver.instant(ofLocal: Int64(days) * 86_400, after: previous).map { ($0, days) }
    case .local(let seconds):
      return resolver.instant(ofLocal: seconds, after: previous).map { ($0, CivilDate.day(ofSeconds: seconds)) }
    case .zoned(let t, let offset):
      return (t, CivilDate.day(ofSeconds: t + Int64(offset)))
    case .epoch(let t):
      return (t, CivilDate.day(ofSeconds: t + Int64(resolver.offset(at: t))))
    }
  }

  /// A row read by the fast path: where its timestamp is, the instant and day when it is in the fixed
  /// layout `zonedTimestamp` reads, its prices, and where the next line starts.
  struct PlainRow {
    var timeStart = 0, timeEnd = 0
    var isFixedStamp = false, isDate = false
    var instant: Int64 = 0, day = 0
    var open = 0.0, high = 0.0, low = 0.0, close = 0.0, volume = 0.0
    var next = 0
  }

  /// Reads the row at `p` in one pass into `row`, or returns `false` when it is not plain:
  /// exactly the layout's field count, no quote, every price and the volume written as digits
  /// with an optional `-` and `.` that `parseDecimal` would compute exactly (`_exactDecimal`, the
  /// same function). Blank lines, spaces, exponents and anything unusual are left to the general path.
  ///
  /// Never inlined, as `standardRow`: each alone inlines what it reads a field with.
  @inline(never)
  static func plainRow(_ b: UnsafeBufferPointer<UInt8>, at p: Int, layout: Layout, stamps: inout StampCache, into row: inout PlainRow) -> Bool {
    let n = b.count
    var i = p
    row.isFixedStamp = false
    for k in 0..<layout.fieldCount {
      let kind = layout.kind(k)
      if kind == .time {
        guard let end = timeField(b, at: i, stamps: &stamps, into: &row) else { return false }
        i = end
      } else if kind == .other {
        guard let end = unquotedField(b, at: i) else { return false }
        i = end
      } else {
        guard let (value, end) = decimal(b, at: i) else { return false }
        i = end
        switch kind {
        case .open: row.open = value
        case .high: row.high = value
        case .low: row.low = value
        case .close: row.close = value
        default: row.volume = value
        }
      }
      if k < layout.fieldCount - 1 {
        guard i < n, b[i] == UInt8(ascii: ",") else { return false }
        i += 1
      } else {
        if i < n && b[i] == UInt8(ascii: "\r") { i += 1 }
        if i < n {
          guard b[i] == UInt8(ascii: "\n") else { return false }
          i += 1
        }
      }
    }
    if layout.volume == nil { row.volume = 0 }
    row.next = i
    return true
  }

  /// `plainRow` for the layout most files have, `time,open,high,low,close` and optionally `,volume`:
  /// the same checks, field after field without looking up what each holds.
  @inline(never)
  static func standardRow(_ b: UnsafeBufferPointer<UInt8>, at p: Int, hasVolume: Bool, stamps: inout StampCache, into row: inout PlainRow) -> Bool {
    let n = b.count
    let comma = UInt8(ascii: ",")
    row.isFixedStamp = false
    // Positions within the bytes cannot overflow: wrapping operators, no overflow tests.
    guard let t = timeField(b, at: p, stamps: &stamps, into: &row), t < n, b[t] == comma,
      let (open, o) = decimal(b, at: t &+ 1), o < n, b[o] == comma,
      let (high, h) = decimal(b, at: o &+ 1), h < n, b[h] == comma,
      let (low, l) = decimal(b, at: h &+ 1), l < n, b[l] == comma,
      let (close, c) = decimal(b, at: l &+ 1)
    else { return false }
    var end = c
    row.volume = 0
    if hasVolume {
      guard c < n, b[c] == comma, let (volume, v) = decimal(b, at: c &+ 1) else { return false }
      row.volume = volume
      end = v
    }
    if end < n && b[end] == UInt8(ascii: "\r") { end += 1 }
    if end < n {
      guard b[end] == UInt8(ascii: "\n") else { return false }
      end += 1
    }
    row.open = open; row.high = high; row.low = low; row.close = close
    row.next = end
    return true
  }

  /// Reads the timestamp field at `p` (the fixed layout `zonedTimestamp` reads, or any text up to the end
  /// of the field) and notes where it is in `row`; returns where it ends, or `nil` at a quote.
  @inline(__always)
  static func timeField(_ b: UnsafeBufferPointer<UInt8>, at p: Int, stamps: inout StampCache, into row: inout PlainRow) -> Int? {
    guard let end = zonedTimestamp(b, at: p, stamps: &stamps, into: &row) ?? unquotedField(b, at: p) else { return nil }
    row.timeStart = p
    row.timeEnd = end
    return end
  }

  /// Where the field at `p` ends (at a comma, a line end or the end of the bytes), or `nil` at a quote.
  @inline(__always)
  static func unquotedField(_ b: UnsafeBufferPointer<UInt8>, at p: Int) -> Int? {
    var i = p
    while i < b.count {
      let c = b[i]
      if c == UInt8(ascii: ",") || c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r") { break }
      if c == UInt8(ascii: "\"") { return nil }
      i += 1
    }
    return i
  }

  /// Reads digits with an optional `-` and `.` at `p`: the value `_exactDecimal` gives them and where they
  /// end, or `nil` when there is no digit or the value is not exact that way.
  ///
  /// Up to seven digits and a point followed by another byte are read eight bytes at once; the end is found
  /// first (the first byte neither a digit nor a point), so that the next field need not wait for the value.
  @inline(__always)
  static func decimal(_ b: UnsafeBufferPointer<UInt8>, at p: Int) -> (Double, end: Int)? {
    if p &+ 8 <= b.count {
      // Digits become their values; a point becomes 0x1E. (Wrapping operators: no value here can overflow.)
      let t = UnsafeRawPointer(b.baseAddress! + p).loadUnaligned(as: UInt64.self) ^ 0x3030_3030_3030_3030
      let nonDigits = (((t & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7676_7676_7676_7676) | t) & 0x8080_8080_8080_8080
      let points = zeroBytes(t ^ 0x1E1E_1E1E_1E1E_1E1E)
      let end = (nonDigits & ~points).trailingZeroBitCount >> 3
      if end < 8 {
        let point = points & ((1 << (end << 3)) &- 1)
        let integerDigits = point == 0 ? end : point.trailingZeroBitCount >> 3
        let digits = point == 0 ? end : end &- 1
        if digits > 0 && point & (point &- 1) == 0 {
          // The digit values with the point taken out, moved to the top (leading zeros below them; what
          // follows the digits moves out).
          let integerMask: UInt64 = (1 << (integerDigits << 3)) &- 1
          var x = ((t & integerMask) | ((t >> 8) & ~integerMask)) << ((8 &- digits) << 3)
          x = (x &* (10 << 8 + 1)) >> 8
          x = ((x & 0x00FF_00FF_00FF_00FF) &* (100 << 16 + 1)) >> 16
          x = ((x & 0x0000_FFFF_0000_FFFF) &* (10_000 << 32 + 1)) >> 32
          // `_exactDecimal(mantissa: x, exponent: integerDigits - digits, negative: false)`: with at most seven
          // digits it is always exact (the correctly rounded quotient by 10^0...10^7), which `scaledDown` gives.
          return (scaledDown(x, by: digits &- integerDigits), p &+ end)
        }
      }
    }
    return longDecimal(b, at: p)
  }

  /// `Double(m) / 10^k`, correctly rounded, for `m < 10^7` and `0 <= k <= 7`: two products and a sum instead
  /// of a division (about a tenth of `standardRow`'s time over the 1M-bar file, in a harness of the row loop).
  ///
  /// `m * tenthsHigh[k]` is exact (24 + 29 bits); the error of `tenthsLow[k]` and the rounding of `m * tenthsLow[k]`
  /// stay below 2^-80 of the result. A quotient `m / 10^k` that is not a double lies more than 2^-78 of itself
  /// away from the midpoint between two doubles (its denominator divides 10^7 < 2^24), and none is a midpoint, so the
  /// one rounding of the sum is the quotient's. `BarCSVReaderTests` checks every `m` and `k` against the division.
  @inline(__always)
  static func scaledDown(_ m: UInt64, by k: Int) -> Double {
    let x = Double(Int64(truncatingIfNeeded: m))
    return x * tenthsHigh[k] + x * tenthsLow[k]
  }

  /// `decimal` for the rest: a sign, eight bytes or more, the end of the bytes.
  static func longDecimal(_ b: UnsafeBufferPointer<UInt8>, at p: Int) -> (Double, end: Int)? {
    let n = b.count
    var i = p
    var negative = false
    if i < n && b[i] == UInt8(ascii: "-") { negative = true; i += 1 }
    var mantissa: UInt64 = 0
    var digits = 0, exponent = 0
    while i < n {
      let d = b[i] &- 0x30
      if d >= 10 { break }
      mantissa = mantissa &* 10 &+ UInt64(d)
      digits += 1
      i += 1
    }
    if i < n && b[i] == UInt8(ascii: ".") {
      i += 1
      while i < n {
        let d = b[i] &- 0x30
        if d >= 10 { break }
        mantissa = mantissa &* 10 &+ UInt64(d)
        digits += 1
        exponent -= 1
        i += 1
      }
    }
    guard digits > 0, digits <= 19, let value = _exactDecimal(mantissa: mantissa, exponent: exponent, negative: negative) else { return nil }
    return (value, i)
  }

  /// The date and offset of the last timestamp `zonedTimestamp` read, as written and as read: bars of one
  /// day share them, so most timestamps only need their clock time read.
  struct StampCache {
    /// Bytes 0..<8 and 8..<11 (`YYYY-MM-` and `DDT`) of the last timestamp; never equal to a field at first.
    var dateHead: UInt64 = 0, dateTail: UInt64 = .max
    var days = 0
    /// Bytes 19..<25 (`±HH:MM`).
    var offsetText: UInt64 = .max
    var offset = 0
  }

  /// Reads the field at `p` when it is exactly `YYYY-MM-DDTHH:MM:SS±HH:MM` (or a space for the `T`)
  /// followed by the end of the field: sets the row's instant and day as `parseTimestamp` and `place` read
  /// them, and returns where the field ends; `nil` for any other field (`parseTimestamp` then reads it, or
  /// rejects it).
  @inline(__always)
  static func zonedTimestamp(_ b: UnsafeBufferPointer<UInt8>, at p: Int, stamps: inout StampCache, into row: inout PlainRow) -> Int? {
    let end = p &+ 25
    guard end <= b.count else { return nil }
    if end < b.count {
      let c = b[end]
      guard c == UInt8(ascii: ",") || c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r") else { return nil }
    }
    let base = UnsafeRawPointer(b.baseAddress! + p)
    let head = base.loadUnaligned(as: UInt64.self)
    let tail = UInt64(base.loadUnaligned(fromByteOffset: 8, as: UInt32.self)) & 0xFF_FFFF
    // `HH:MM:SS` and `SS±HH:MM`, overlapping.
    let clock = base.loadUnaligned(fromByteOffset: 11, as: UInt64.self)
    let zone = base.loadUnaligned(fromByteOffset: 17, as: UInt64.self)
    if head != stamps.dateHead || tail != stamps.dateTail {
      guard let days = fixedDate(b, at: p) else { return nil }
      stamps.dateHead = head; stamps.dateTail = tail; stamps.days = days
    }
    let offsetText = zone >> 16
    if offsetText != stamps.offsetText {
      guard let offset = fixedOffset(b, at: p + 19) else { return nil }
      stamps.offsetText = offsetText; stamps.offset = offset
    }
    // Digits everywhere but the two colons.
    guard nonDigitBytes(clock) == 0x0000_8000_0080_0000, clock & 0x0000_FF00_00FF_0000 == 0x0000_3A00_003A_0000 else { return nil }
    let pairs = (clock & 0x0F0F_0F0F_0F0F_0F0F) &* 10 &+ ((clock & 0x0F0F_0F0F_0F0F_0F0F) >> 8)
    let hour = Int(pairs & 0xFF), minute = Int((pairs >> 24) & 0xFF), second = Int((pairs >> 48) & 0xFF)
    guard TimestampFields.isClock(hour: hour, minute: minute, second: second) else { return nil }
    // A four-digit year's seconds and an offset within 18 hours cannot overflow: wrapping operators, no overflow tests.
    let local = Int64(stamps.days) &* 86_400 &+ Int64(hour &* 3600 &+ minute &* 60 &+ second)
    row.instant = local &- Int64(stamps.offset)
    row.day = stamps.days
    row.isFixedStamp = true
    row.isDate = false
    return end
  }

  /// The day number of `YYYY-MM-DD` followed by `T` or a space at `p`, when it is a date.
  static func fixedDate(_ b: UnsafeBufferPointer<UInt8>, at p: Int) -> Int? {
    guard let year = parseUnsigned(b, p, p + 4), let month = parseUnsigned(b, p + 5, p + 7), let day = parseUnsigned(b, p + 8, p + 10),
      b[p + 4] == UInt8(ascii: "-"), b[p + 7] == UInt8(ascii: "-"), b[p + 10] == UInt8(ascii: "T") || b[p + 10] == UInt8(ascii: " "),
      TimestampFields.isDate(year: year, month: month, day: day)
    else { return nil }
    return CivilDate.days(year: year, month: month, day: day)
  }

  /// The offset in seconds of `±HH:MM` at `p`, when it is one.
  static func fixedOffset(_ b: UnsafeBufferPointer<UInt8>, at p: Int) -> Int? {
    guard b[p] == UInt8(ascii: "+") || b[p] == UInt8(ascii: "-"), let hours = parseUnsigned(b, p + 1, p + 3), b[p + 3] == UInt8(ascii: ":"),
      let minutes = parseUnsigned(b, p + 4, p + 6)
    else { return nil }
    return TimestampFields.offset(negative: b[p] == UInt8(ascii: "-"), hours: hours, minutes: minutes)
  }

  /// Reads `zonedTimestamp`'s fixed layout alone, as `parseTimestamp` would return it (for tests).
  static func zonedTimestamp(_ b: UnsafeBufferPointer<UInt8>, at p: Int) -> WrittenTimestamp? {
    var stamps = StampCache(), row = PlainRow()
    guard zonedTimestamp(b, at: p, stamps: &stamps, into: &row) != nil else { return nil }
    return .zoned(instant: row.instant, offset: stamps.offset)
  }
}
