import Foundation

/// Reads price bars from CSV bytes into a `BarSeries`, validating as it goes.
///
/// The header names a time column (`timestamp`, `time`, `date` or `datetime`,
/// any case, or an unnamed first column as pandas writes it) and
/// `open,high,low,close`, optionally `volume`; other columns are ignored.
/// Every row must have as many fields as the header. Prices must be finite and
/// positive with `low <= min(open, close)` and `high >= max(open, close)`;
/// timestamps must increase strictly as instants. The first violation stops
/// the read with an `InputError` naming the line and column. Nothing is
/// dropped silently.
public struct BarCSVReader {
  /// Wall-clock timestamps without an offset are read in this zone.
  public var timeZone: TimeZone
  /// Prices from Yahoo's `Adj Close` (`data.price: adjusted`): each bar's
  /// open, high, low and close scaled by adjusted close / close.
  public var adjusted = false
  /// Whether a large file may be read in parts on several cores (the result is the same either way).
  public var allowsParallelRead = true
  /// Whether plain rows take the one-pass fast path (tests turn it off to compare).
  var allowsFastRows = true

  /// Creates a reader that reads timestamps without an offset in `timeZone` (UTC by default).
  public init(timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
    self.timeZone = timeZone
  }

  static let timeNames: Set<String> = ["timestamp", "time", "date", "datetime"]
  package static let adjustedNames: Set<String> = ["adj close", "adj_close", "adjclose", "adjusted close", "adjusted_close"]

  /// `text` without the tabs, Unicode spaces (category Zs) and zero-width
  /// spaces at either end, as Foundation's `trimmingCharacters(in:
  /// .whitespaces)` (checked over every scalar), whose first use sets up
  /// string bridging: a quarter of a millisecond of every run.
  static func trimmingBlanks(_ text: String) -> String {
    func blank(_ c: Unicode.Scalar) -> Bool { c == "\t" || c == "\u{200B}" || c.properties.generalCategory == .spaceSeparator }
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { !blank($0) }), let last = scalars.lastIndex(where: { !blank($0) }) else { return "" }
    return String(scalars[first...last])
  }

  /// Parses `bytes`; `file` names the source in errors.
  ///
  /// - Throws: `InputError` at the first invalid header, row, price or timestamp.
  /// - Complexity: O(bytes), one pass.
  public func read(_ bytes: UnsafeBufferPointer<UInt8>, file: String) throws -> BarSeries {
    var scanner = CSVScanner(bytes: bytes, file: file)
    var fields: [CSVField] = []
    fields.reserveCapacity(16)
    guard try scanner.next(into: &fields) else {
      throw InputError(
        "empty file; expected a header such as 'timestamp,open,high,low,close,volume'",
        at: SourceLocation(file: file, line: 1, column: 1))
    }
    let headerLine = scanner.line
    let names = fields.map { Self.trimmingBlanks(scanner.text($0)).lowercased() }
    let headerFields = fields
    var timeColumn: Int?
    var columns: [String: Int] = [:]
    for (k, name) in names.enumerated() {
      if Self.timeNames.contains(name) || (k == 0 && name.isEmpty) {
        if timeColumn != nil {
          throw InputError("a second time column '\(name)'; expected exactly one of timestamp, time, date, datetime",
                           at: SourceLocation(file: file, line: headerLine, column: headerFields[k].column))
        }
        timeColumn = k
      } else if ["open", "high", "low", "close", "volume"].contains(name) {
        if columns[name] != nil {
          throw InputError("column '\(name)' appears twice in the header",
                           at: SourceLocation(file: file, line: headerLine, column: headerFields[k].column))
        }
        columns[name] = k
      }
    }
    guard let timeColumn else {
      throw InputError(
        "expected a time column named timestamp, time, date or datetime (or an unnamed first column), found '\(names.joined(separator: ","))'",
        at: SourceLocation(file: file, line: headerLine, column: 1))
    }
    let missing = ["open", "high", "low", "close"].filter { columns[$0] == nil }
    if !missing.isEmpty {
      throw InputError(
        "missing column\(missing.count > 1 ? "s" : "") \(missing.joined(separator: ", ")); expected a header such as 'timestamp,open,high,low,close,volume'",
        at: SourceLocation(file: file, line: headerLine, column: 1))
    }
    let adjustedColumn = names.firstIndex { Self.adjustedNames.contains($0) }
    if adjusted && adjustedColumn == nil {
      throw InputError("data.price: adjusted needs an adjusted close column ('Adj Close' as Yahoo writes it), found '\(names.joined(separator: ","))'",
                       at: SourceLocation(file: file, line: headerLine, column: 1))
    }
    let layout = Layout(fieldCount: names.count, time: timeColumn, open: columns["open"]!, high: columns["high"]!,
                        low: columns["low"]!, close: columns["close"]!, volume: columns["volume"], fastRows: allowsFastRows)
    var bars = try Self.rows(bytes, after: scanner, layout: layout, timeZone: timeZone, parallel: allowsParallelRead)
    if adjusted, let adjustedColumn, !bars.isEmpty { try Self.adjust(&bars, column: adjustedColumn, bytes, file: file, after: headerLine) }
    let used = [timeColumn, layout.open, layout.high, layout.low, layout.close] + [layout.volume, adjusted ? adjustedColumn : nil].compactMap { $0 }
    bars.unusedColumns = headerFields.indices.filter { !used.contains($0) }.map { scanner.text(headerFields[$0]).trimmingSpaces() }
    if bars.isEmpty {
      throw InputError("no bars after the header; expected at least one row of data",
                       at: SourceLocation(file: file, line: headerLine + 1, column: 1))
    }
    return bars
  }

  /// Scales each bar's prices by its adjusted close over its close (column
  /// `column` of the rows after the header line, in the bars' order).
  static func adjust(_ bars: inout BarSeries, column: Int, _ bytes: UnsafeBufferPointer<UInt8>, file: String, after headerLine: Int) throws {
    var scanner = CSVScanner(bytes: bytes, file: file)
    var fields: [CSVField] = []
    _ = try scanner.next(into: &fields)
    var i = 0
    while i < bars.count, try scanner.next(into: &fields) {
      let f = fields[column]
      guard let adjustedClose = parseDecimal(bytes, f.start, f.end), priceRange.contains(adjustedClose) else {
        throw InputError("expected a positive adjusted close up to 1e12, found '\(scanner.shown(f))'", at: scanner.location(f))
      }
      let factor = adjustedClose / bars.close[i]
      bars.open[i] *= factor; bars.high[i] *= factor; bars.low[i] *= factor
      bars.close[i] = adjustedClose
      i += 1
    }
  }

  /// Where the fields of a bar are in each row.
  struct Layout {
    /// What a field holds.
    enum Kind: UInt64 { case other, time, open, high, low, close, volume }

    let fieldCount: Int, time: Int, open: Int, high: Int, low: Int, close: Int, volume: Int?
    /// Whether plain rows take the fast path; not when a field it reads is beyond the first `kindedFields`.
    private(set) var fastRows: Bool
    /// Whether the fields are `time,open,high,low,close` and optionally `volume`, nothing else (`standardRow` reads them).
    let isStandard: Bool
    /// The `Kind` of each of the first `kindedFields` fields, three bits each (a table without an array to retain).
    private var kinds: UInt64 = 0
    private static let kindedFields = 21

    init(fieldCount: Int, time: Int, open: Int, high: Int, low: Int, close: Int, volume: Int?, fastRows: Bool = true) {
      (self.fieldCount, self.time, self.open, self.high, self.low, self.close, self.volume) = (fieldCount, time, open, high, low, close, volume)
      self.fastRows = fastRows
      isStandard = (time, open, high, low, close) == (0, 1, 2, 3, 4) && fieldCount == (volume == nil ? 5 : 6) && (volume ?? 5) == 5
      let used: [(Int?, Kind)] = [(time, .time), (open, .open), (high, .high), (low, .low), (close, .close), (volume, .volume)]
      for case let (column?, kind) in used {
        if column < Self.kindedFields { kinds |= kind.rawValue << (3 * column) } else { self.fastRows = false }
      }
    }

    /// What field `k` holds.
    @inline(__always)
    func kind(_ k: Int) -> Kind { k < Self.kindedFields ? Kind(rawValue: (kinds >> (3 * k)) & 7)! : .other }
  }

  /// Reads the rows from `scanner`'s position to the end, appending them to
  /// `bars`; `previous` is the bar before them, if any.
  ///
  /// Each row is first tried on the fast path (`plainBar`); a row it does not
  /// take is read again by the general path, which accepts it or reports
  /// exactly what is wrong. Both paths give the same bars.
  static func remainingRows(_ scanner: inout CSVScanner, into bars: inout BarSeries, layout: Layout, timeZone: TimeZone,
                            previous: (instant: Int64, label: String, line: Int)?) throws {
    let bytes = scanner.bytes, file = scanner.file
    let fieldCount = layout.fieldCount, timeColumn = layout.time
    let o = layout.open, h = layout.high, l = layout.low, c = layout.close, v = layout.volume
    var fields: [CSVField] = []
    fields.reserveCapacity(16)
    var state = RowState(TimeZoneResolver(timeZone), previousInstant: previous?.instant)
    var row = PlainRow()
    // The previous bar's timestamp in `bytes`, once this pass has read one (`previous.label` before).
    var previousLabel = (start: 0, end: -1, line: previous?.line ?? 0)

    while true {
      if layout.fastRows, plainBar(bytes, at: scanner.offset, layout: layout, state: &state, into: &row) {
        if !row.isDate { bars.isDateOnly = false }
        bars.append(time: row.instant, day: Int32(row.day), open: row.open, high: row.high, low: row.low, close: row.close,
                    volume: row.volume, label: UnsafeBufferPointer(rebasing: bytes[row.timeStart..<row.timeEnd]))
        scanner.skipRecord(to: row.next)
        previousLabel = (row.timeStart, row.timeEnd, scanner.line)
        continue
      }
      guard try scanner.next(into: &fields) else { break }
      if fields.count != fieldCount {
        let column = fields.count > fieldCount ? fields[fieldCount].column : (fields.last.map { $0.end - $0.start + $0.column } ?? 1)
        throw InputError("expected \(fieldCount) fields as in the header, found \(fields.count)",
                         at: SourceLocation(file: file, line: scanner.line, column: column))
      }
      let tf = fields[timeColumn]
      guard let written = parseTimestamp(bytes, tf.start, tf.end) else {
        throw InputError(
          "expected a timestamp (2024-01-02T09:30:00-05:00, 2024-01-02 09:30:00, 2024-01-02 or epoch seconds), found '\(scanner.shown(tf))'",
          at: scanner.location(tf))
      }
      guard let (instant, day) = place(written, resolver: &state.resolver, after: state.previousInstant) else {
        if case .date = written {
          throw InputError("midnight of '\(scanner.shown(tf))' does not exist in \(timeZone.identifier)", at: scanner.location(tf))
        }
        throw InputError(
          "'\(scanner.shown(tf))' does not exist in \(timeZone.identifier) (clocks skip it for daylight saving); write the offset or fix the time zone",
          at: scanner.location(tf))
      }
      if case .date = written {} else { bars.isDateOnly = false }
      if let previousInstant = state.previousInstant, instant <= previousInstant {
        let before = previousLabel.end < 0 ? previous?.label ?? ""
          : String(decoding: UnsafeBufferPointer(rebasing: bytes[previousLabel.start..<previousLabel.end]), as: UTF8.self)
        throw InputError(
          instant == previousInstant
            ? "duplicate timestamp '\(scanner.shown(tf))' (line \(previousLabel.line) has the same instant); expected strictly increasing timestamps"
            : "timestamp '\(scanner.shown(tf))' is earlier than '\(before)' on line \(previousLabel.line); expected strictly increasing timestamps",
          at: scanner.location(tf))
      }
      let open = try Self.number(fields[o], "open", positive: true, bytes, scanner)
      let high = try Self.number(fields[h], "high", positive: true, bytes, scanner)
      let low = try Self.number(fields[l], "low", positive: true, bytes, scanner)
      let close = try Self.number(fields[c], "close", positive: true, bytes, scanner)
      let volume = try v.map { try Self.number(fields[$0], "volume", positive: false, bytes, scanner) } ?? 0
      if low > min(open, close) {
        throw InputError("expected 'low' <= min(open, close) = \(min(open, close)), found \(low)", at: scanner.location(fields[l]))
      }
      if high < max(open, close) {
        throw InputError("expected 'high' >= max(open, close) = \(max(open, close)), found \(high)", at: scanner.location(fields[h]))
      }
      bars.append(time: instant, day: Int32(day), open: open, high: high, low: low, close: close, volume: volume,
                  label: UnsafeBufferPointer(rebasing: bytes[tf.start..<tf.end]))
      state.previousInstant = instant
      previousLabel = (tf.start, tf.end, scanner.line)
    }
  }

  /// Bytes the parts of a parallel read only read, for the duration of the read.
  struct SharedBytes: @unchecked Sendable { let bytes: UnsafeBufferPointer<UInt8> }

  /// The range of a price: every amount, share count and statistic computed
  /// from prices in it (and cash up to 1e15) stays finite.
  public static let priceRange = 1e-12...1e12
  /// The largest volume.
  public static let largestVolume = 1e18

  /// Parses one price or volume field; a static function, so the hot loop
  /// captures no mutable state (no dynamic exclusivity checks).
  @inline(__always)
  static func number(_ f: CSVField, _ name: String, positive: Bool, _ bytes: UnsafeBufferPointer<UInt8>,
                     _ scanner: CSVScanner) throws -> Double {
    if let x = parseDecimal(bytes, f.start, f.end), positive ? priceRange.contains(x) : x >= 0 && x <= largestVolume { return x }
    throw numberError(f, name, positive: positive, bytes, scanner)
  }

  static func numberError(_ f: CSVField, _ name: String, positive: Bool, _ bytes: UnsafeBufferPointer<UInt8>,
                          _ scanner: CSVScanner) -> InputError {
    let found = scanner.shown(f)
    guard let x = parseDecimal(bytes, f.start, f.end) else {
      return InputError(found.isEmpty ? "expected a number for '\(name)', found an empty field"
                                      : "expected a number for '\(name)', found '\(found)'", at: scanner.location(f))
    }
    if !x.isFinite { return InputError("expected a finite number for '\(name)', found '\(found)'", at: scanner.location(f)) }
    if positive ? x > 0 : x >= 0 {
      return InputError(positive ? "expected a price from 1e-12 to 1e12 for '\(name)', found '\(found)'"
                                 : "expected a volume up to 1e18 for '\(name)', found '\(found)'", at: scanner.location(f))
    }
    return InputError("expected a \(positive ? "positive" : "non-negative") number for '\(name)', found '\(found)'",
                      at: scanner.location(f))
  }

  /// Reads a bar file from disk.
  ///
  /// - Throws: `InputError` of kind `.missingInput` when the file cannot be
  ///   read, `.badInput` when its content is wrong.
  public func read(file path: String) throws -> BarSeries {
    let data = try readInputFile(path)
    return try data.withUnsafeBytes { raw in
      try read(raw.bindMemory(to: UInt8.self), file: path)
    }
  }
}

/// The largest input file read: 4 GiB. A reader holds at most the file's
/// bytes (copied into memory) and the values parsed from them.
package let maximumInputBytes = 4 << 30

/// Reads a whole input file, turning a missing, unreadable or directory path
/// into an `InputError` of kind `.missingInput`.
///
/// Only regular files are read: a device (`/dev/zero`), a pipe or a socket
/// never ends or may never start, so each is refused with a message, as is a
/// file over `maximumInputBytes`.
///
/// The bytes are copied into memory, never mapped: a mapped file that another
/// program truncates while it is read kills the reader (SIGBUS) when it
/// touches a page that is gone. A copy holds what the file held while it was
/// read, and a file cut short meanwhile reads as its shorter self. Files of a
/// megabyte or more go into memory of their own (`InputBuffer`), on Linux in
/// huge pages, read in pieces on several threads: on the 56.6 MB bench file
/// the copy costs ~20 ms of processor time more than the mapping did (a run
/// that stops after the load: 0.28 s against 0.26 s, medians of 9 on a busy
/// 2-core machine).
package func readInputFile(_ path: String, limit: Int = maximumInputBytes) throws -> Data {
  // Non-blocking, so that opening a pipe nobody writes to returns at once (and is then refused).
  let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
  guard fd >= 0 else { throw InputError(openFailure(errno), file: path, kind: .missingInput) }
  defer { close(fd) }
  var info = stat()
  guard fstat(fd, &info) == 0 else { throw InputError("cannot read the file (\(String(cString: strerror(errno))))", file: path, kind: .missingInput) }
  switch Int(info.st_mode) & Int(S_IFMT) {
  case Int(S_IFREG): break
  case Int(S_IFDIR): throw InputError("is a directory; expected a file", file: path, kind: .missingInput)
  case Int(S_IFIFO), Int(S_IFSOCK):
    throw InputError("is a pipe or a socket; expected a regular file (save the data to a file first)", file: path, kind: .missingInput)
  default: throw InputError("is a device; expected a regular file", file: path, kind: .missingInput)
  }
  if let area = systemArea(info, path) {
    throw InputError("is a system file (under \(area)); expected a data file", file: path, kind: .missingInput)
  }
  let size = Int(info.st_size)
  func tooLarge(_ bytes: Int) -> InputError {
    InputError("is larger than \(limit >> 20) MiB (\(bytes >> 20) MiB or more); expected a smaller file", file: path, kind: .missingInput)
  }
  func failure(_ error: Int32) -> InputError {
    InputError("cannot read the file (\(String(cString: strerror(error))))", file: path, kind: .missingInput)
  }
  if size > limit { throw tooLarge(size) }
  if size >= 1 << 20, let buffer = InputBuffer(capacity: size + 1) {
    // The size known: in pieces read at once by several threads (page faults on fresh memory are most of a copy's
    // cost, and they are paid in parallel), then on from there: a file that grew meanwhile is read to its end.
    let count: Int
    do {
      count = try buffer.readPieces(fd, size: size)
    } catch {
      buffer.free()
      throw failure(error.code)
    }
    guard count == size else { return buffer.data(count: count) }
    var tail = size
    while tail < buffer.capacity {
      let n = pread(fd, buffer.base + tail, buffer.capacity - tail, off_t(tail))
      if n > 0 { tail += n; continue }
      if n == 0 { return buffer.data(count: tail) }
      if errno == EINTR { continue }
      let error = errno
      buffer.free()
      throw failure(error)
    }
    var data = buffer.data(count: tail)
    guard lseek(fd, off_t(tail), SEEK_SET) >= 0 else { throw failure(errno) }
    try readRest(fd, into: &data, limit: limit, tooLarge: tooLarge, failure: failure)
    return data
  }
  // Small files, files whose size the system does not know (/proc): read to the end, or to
  // the limit (a file growing as it is read).
  var data = Data()
  data.reserveCapacity(max(size, 0) + 1)
  try readRest(fd, into: &data, limit: limit, tooLarge: tooLarge, failure: failure)
  return data
}

/// Where the system keeps the file `info` describes (`/proc`, `/sys` or `/dev`), or `nil` for a file of a user's own.
///
/// What such a file holds is never data (`/proc/self/environ` holds the environment, API keys
/// and all), and an error would quote it: it is refused before a byte is read. Told by where
/// the path leads once its links are followed, and by the file system it is on (the one of
/// `/proc` or `/sys`, wherever it is mounted too). `/dev/shm`, memory in which programs
/// share files of their own, is not refused.
private func systemArea(_ info: stat, _ path: String) -> String? {
  if let resolved = realpath(path, nil) {
    defer { free(resolved) }
    let real = String(cString: resolved)
    if real.hasPrefix("/dev/shm/") { return nil }
    if let area = ["/proc", "/sys", "/dev"].first(where: { real.hasPrefix($0 + "/") }) { return area }
  }
  for area in ["/proc", "/sys"] {
    var system = stat()
    if stat(area, &system) == 0 && system.st_dev == info.st_dev { return area }
  }
  return nil
}

/// Appends what is left of `fd` to `data`, in chunks, up to `limit` bytes in all.
private func readRest(_ fd: Int32, into data: inout Data, limit: Int, tooLarge: (Int) -> InputError,
                      failure: (Int32) -> InputError) throws {
  let chunk = UnsafeMutableRawPointer.allocate(byteCount: 1 << 16, alignment: 1)
  defer { chunk.deallocate() }
  while true {
    let n = read(fd, chunk, 1 << 16)
    if n > 0 {
      if data.count + n > limit { throw tooLarge(data.count + n) }
      data.append(chunk.assumingMemoryBound(to: UInt8.self), count: n)
      continue
    }
    if n == 0 { return }
    if errno == EINTR { continue }
    throw failure(errno)
  }
}

/// Memory for one large input file's bytes: an anonymous mapping of its own
/// (no file behind it, so nothing another program does to the file can take
/// a page away), given back when the `Data` made of it is freed.
///
/// On Linux the kernel is asked for huge pages for it (`MADV_HUGEPAGE`): a
/// fresh 4 KiB page per 4 KiB of the file made the copy of the 56.6 MB bench
/// file cost ~35 ms, most of it page faults, against ~15 ms in huge pages.
private struct InputBuffer {
  let base: UnsafeMutableRawPointer
  let capacity: Int

  init?(capacity: Int) {
    guard let region = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), region != MAP_FAILED else {
      return nil
    }
    #if os(Linux)
    _ = madvise(region, capacity, 14 /* MADV_HUGEPAGE */)
    #endif
    base = region
    self.capacity = capacity
  }

  /// The first `count` bytes as `Data`, which unmaps the whole buffer when freed.
  func data(count: Int) -> Data {
    guard count > 0 else { free(); return Data() }
    let capacity = self.capacity
    return Data(bytesNoCopy: base, count: count, deallocator: .custom { pointer, _ in munmap(pointer, capacity) })
  }

  func free() { munmap(base, capacity) }

  /// The bytes of a piece of the file, 8 MiB.
  static let pieceBytes = 8 << 20

  /// Reads the first `size` bytes of `fd` into the buffer, piece by piece on up to as many threads as
  /// there are processors; returns how many were read: `size`, or fewer when the file was cut short meanwhile
  /// (then the bytes up to the first piece that came short, which the file held).
  func readPieces(_ fd: Int32, size: Int) throws(ReadFailure) -> Int {
    let pieces = (size + Self.pieceBytes - 1) / Self.pieceBytes
    let results = PieceResults(count: pieces, base: base)
    runJobs(pieces, workers: ProcessInfo.processInfo.activeProcessorCount) { k in
      let start = k * InputBuffer.pieceBytes, length = min(InputBuffer.pieceBytes, size - start)
      var done = 0
      while done < length {
        let n = pread(fd, results.base + start + done, length - done, off_t(start + done))
        if n > 0 { done += n; continue }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { results.errors[k] = errno }
        break
      }
      results.counts[k] = done
    }
    defer { results.deallocate() }
    var count = 0
    for k in 0..<pieces {
      if results.errors[k] != 0 { throw ReadFailure(code: results.errors[k]) }
      count += results.counts[k]
      if results.counts[k] < min(Self.pieceBytes, size - k * Self.pieceBytes) { break }
    }
    return count
  }
}

/// What the threads of `InputBuffer.readPieces` write, each its own piece's slots.
private struct PieceResults: @unchecked Sendable {
  let base: UnsafeMutableRawPointer
  let counts: UnsafeMutablePointer<Int>, errors: UnsafeMutablePointer<Int32>

  init(count: Int, base: UnsafeMutableRawPointer) {
    self.base = base
    counts = .allocate(capacity: count)
    counts.initialize(repeating: 0, count: count)
    errors = .allocate(capacity: count)
    errors.initialize(repeating: 0, count: count)
  }

  func deallocate() {
    counts.deallocate()
    errors.deallocate()
  }
}

/// A failed read's `errno`.
private struct ReadFailure: Error { let code: Int32 }

/// Why `open` failed, for a message: `no such file`, `cannot read the file (permission denied)`, ….
package func openFailure(_ error: Int32) -> String {
  switch error {
  case ENOENT, ENOTDIR: return "no such file"
  case EACCES, EPERM: return "cannot read the file (permission denied)"
  case ELOOP: return "cannot read the file (a loop of symbolic links)"
  case ENAMETOOLONG: return "cannot read the file (the path is too long)"
  default: return "cannot read the file (\(String(cString: strerror(error))))"
  }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
