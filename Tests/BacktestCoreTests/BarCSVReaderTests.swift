@testable import BacktestCore
import Foundation
import Testing

func readBars(_ text: String, zone: String = "UTC") throws -> BarSeries {
  let bytes = Array(text.utf8)
  return try bytes.withUnsafeBufferPointer {
    try BarCSVReader(timeZone: TimeZone(identifier: zone)!).read($0, file: "t.csv")
  }
}

func readError(_ text: String, zone: String = "UTC") -> String? {
  do {
    _ = try readBars(text, zone: zone)
    return nil
  } catch let e as InputError {
    return e.description
  } catch {
    return "unexpected \(error)"
  }
}

/// A bad bar file and the exact message it must produce.
struct BadBarCase: CustomTestStringConvertible, Sendable {
  var name: String
  var text: String
  var message: String
  var testDescription: String { name }

  static let header = "timestamp,open,high,low,close,volume\n"
  static let all: [BadBarCase] = [
    BadBarCase(name: "empty file", text: "",
               message: "t.csv:1:1: error: empty file; expected a header such as 'timestamp,open,high,low,close,volume'"),
    BadBarCase(name: "header only", text: header,
               message: "t.csv:2:1: error: no bars after the header; expected at least one row of data"),
    BadBarCase(name: "missing close column", text: "time,open,high,low\n2024-01-02,1,1,1\n",
               message: "t.csv:1:1: error: missing column close; expected a header such as 'timestamp,open,high,low,close,volume'"),
    BadBarCase(name: "short row", text: header + "2024-01-02,1,2,1,1.5\n",
               message: "t.csv:2:21: error: expected 6 fields as in the header, found 5"),
    BadBarCase(name: "extra column", text: header + "2024-01-02,1,2,1,1.5,100,7\n",
               message: "t.csv:2:26: error: expected 6 fields as in the header, found 7"),
    BadBarCase(name: "not a number", text: header + "2024-01-02,1,2,1,abc,100\n",
               message: "t.csv:2:18: error: expected a number for 'close', found 'abc'"),
    BadBarCase(name: "NaN", text: header + "2024-01-02,1,2,1,NaN,100\n",
               message: "t.csv:2:18: error: expected a number for 'close', found 'NaN'"),
    BadBarCase(name: "inf", text: header + "2024-01-02,inf,2,1,1,100\n",
               message: "t.csv:2:12: error: expected a number for 'open', found 'inf'"),
    BadBarCase(name: "1e400 overflows", text: header + "2024-01-02,1,1e400,1,1,100\n",
               message: "t.csv:2:14: error: expected a finite number for 'high', found '1e400'"),
    BadBarCase(name: "negative price", text: header + "2024-01-02,1,2,-3.1,1,100\n",
               message: "t.csv:2:16: error: expected a positive number for 'low', found '-3.1'"),
    BadBarCase(name: "zero price", text: header + "2024-01-02,0,2,1,1,100\n",
               message: "t.csv:2:12: error: expected a positive number for 'open', found '0'"),
    BadBarCase(name: "high below low", text: header + "2024-01-02,1.5,1,2,1.5,100\n",
               message: "t.csv:2:18: error: expected 'low' <= min(open, close) = 1.5, found 2.0"),
    BadBarCase(name: "high below the close", text: header + "2024-01-02,1,1.5,0.5,2,100\n",
               message: "t.csv:2:14: error: expected 'high' >= max(open, close) = 2.0, found 1.5"),
    BadBarCase(name: "negative volume", text: header + "2024-01-02,1,2,1,1,-5\n",
               message: "t.csv:2:20: error: expected a non-negative number for 'volume', found '-5'"),
    BadBarCase(name: "duplicate timestamp", text: header + "2024-01-02,1,2,1,1,5\n2024-01-02,1,2,1,1,5\n",
               message: "t.csv:3:1: error: duplicate timestamp '2024-01-02' (line 2 has the same instant); expected strictly increasing timestamps"),
    BadBarCase(name: "unsorted timestamps", text: header + "2024-01-03,1,2,1,1,5\n2024-01-02,1,2,1,1,5\n",
               message: "t.csv:3:1: error: timestamp '2024-01-02' is earlier than '2024-01-03' on line 2; expected strictly increasing timestamps"),
    BadBarCase(name: "same instant written with two offsets",
               text: header + "2024-01-02T10:00:00-05:00,1,2,1,1,5\n2024-01-02T15:00:00Z,1,2,1,1,5\n",
               message: "t.csv:3:1: error: duplicate timestamp '2024-01-02T15:00:00Z' (line 2 has the same instant); expected strictly increasing timestamps"),
    BadBarCase(name: "timestamp in no known format", text: header + "02/01/2024,1,2,1,1,5\n",
               message: "t.csv:2:1: error: expected a timestamp (2024-01-02T09:30:00-05:00, 2024-01-02 09:30:00, 2024-01-02 or epoch seconds), found '02/01/2024'"),
    BadBarCase(name: "impossible date", text: header + "2023-02-29,1,2,1,1,5\n",
               message: "t.csv:2:1: error: expected a timestamp (2024-01-02T09:30:00-05:00, 2024-01-02 09:30:00, 2024-01-02 or epoch seconds), found '2023-02-29'"),
    BadBarCase(name: "no time column", text: "when,open,high,low,close\nx,1,1,1,1\n",
               message: "t.csv:1:1: error: expected a time column named timestamp, time, date or datetime (or an unnamed first column), found 'when,open,high,low,close'"),
    BadBarCase(name: "unclosed quote", text: header + "\"2024-01-02,1,2,1,1,5\n",
               message: "t.csv:2:1: error: unclosed quote; expected a closing '\"' before the end of the file"),
    BadBarCase(name: "an 18-digit epoch beyond the year 9999 is refused (it used to trap on Int32 overflow)",
               text: header + "999999999999999999,1,2,1,1,5\n",
               message: "t.csv:2:1: error: expected a timestamp (2024-01-02T09:30:00-05:00, 2024-01-02 09:30:00, 2024-01-02 or epoch seconds), found '999999999999999999'"),
    BadBarCase(name: "empty field", text: header + "2024-01-02,1,2,,1,5\n",
               message: "t.csv:2:16: error: expected a number for 'low', found an empty field"),
  ]
}

@Suite struct BarCSVReaderTests {
  @Test("each bad file gives one precise message naming line and column", arguments: BadBarCase.all)
  func badInput(_ c: BadBarCase) {
    #expect(readError(c.text) == c.message)
  }

  @Test("non-UTF-8 bytes in a timestamp are an error, not a crash")
  func nonUTF8() {
    var bytes = Array("timestamp,open,high,low,close\n".utf8)
    bytes += [0xFF, 0xFE, 0x2C] + Array("1,1,1,1\n".utf8)
    let message = bytes.withUnsafeBufferPointer { b -> String? in
      do { _ = try BarCSVReader().read(b, file: "t.csv"); return nil } catch { return "\(error)" }
    }
    #expect(message?.hasPrefix("t.csv:2:1: error: expected a timestamp") == true)
  }

  @Test("a 10 MB single line is reported with a short excerpt")
  func hugeLine() {
    let text = "timestamp,open,high,low,close\n" + String(repeating: "9", count: 10_000_000) + "x,1,1,1,1\n"
    let message = readError(text)!
    #expect(message.hasPrefix("t.csv:2:1: error: expected a timestamp"))
    #expect(message.count < 300)
  }

  @Test("BOM, CRLF, quoted fields, pandas' unnamed index column and a missing final newline are accepted")
  func lenientForms() throws {
    let text = "\u{FEFF},Open,High,Low,Close,Volume,Note\r\n\"2024-01-02\",1,2,0.5,1.5,10,\"a, \"\"quoted\"\" note\"\r\n2024-01-03,1.5,2,1,1.8,11,x"
    let bars = try readBars(text)
    #expect(bars.count == 2)
    #expect(bars.timeLabel(0) == "2024-01-02" && bars.close[1] == 1.8 && bars.volume[1] == 11)
  }

  @Test("header names are read without the tabs and Unicode spaces around them, and only those")
  func headerBlanks() throws {
    let bars = try readBars(" time\t,\u{00A0}open , high\u{2003},low,\tclose\u{3000}\n2024-01-02,1,2,0.5,1.5\n")
    #expect(bars.count == 1 && bars.close[0] == 1.5 && bars.high[0] == 2)
    #expect(BarCSVReader.trimmingBlanks(" \t\u{00A0}") == "" && BarCSVReader.trimmingBlanks("\u{2009}a b\u{202F}\u{200B}") == "a b")
    // A line break is not a blank: the name keeps it, and the column is not found.
    #expect(BarCSVReader.trimmingBlanks("\u{2028}close\u{0085}") == "\u{2028}close\u{0085}")
  }

  @Test("volume is optional and columns may come in any order and case")
  func optionalVolume() throws {
    let bars = try readBars("CLOSE,Date,low,HIGH,open\n1.5,2024-01-02,1,2,1.2\n")
    let row = [bars.open[0], bars.high[0], bars.low[0], bars.close[0], bars.volume[0]]
    #expect(row == [1.2, 2, 1, 1.5, 0])
  }

  @Test("ISO 8601 with offsets and Z, naive times in the configured zone, dates, epoch seconds and milliseconds")
  func timestampForms() throws {
    let bars = try readBars("""
      time,open,high,low,close
      2024-01-02T09:30:00-05:00,1,1,1,1
      2024-01-02T14:31:00Z,1,1,1,1
      2024-01-02 09:32:00,1,1,1,1
      2024-01-02T09:33:00.000,1,1,1,1
      1704206040,1,1,1,1
      1704206100000,1,1,1,1
      """, zone: "America/New_York")
    let expected: [Int64] = [1_704_205_800, 1_704_205_860, 1_704_205_920, 1_704_205_980, 1_704_206_040, 1_704_206_100]
    #expect(Array(bars.time) == expected)
    #expect(bars.timeLabel(4) == "1704206040")
    // Every bar belongs to 2024-01-02 as written (local date for epoch stamps).
    #expect(Set(bars.day).count == 1)
  }

  @Test("naive times follow daylight saving: offsets change inside one file, the repeated hour resolves in order")
  func daylightSaving() throws {
    // New York: clocks go back at 02:00 EDT on 2024-11-03 (01:00–02:00 happens twice).
    let bars = try readBars("""
      timestamp,open,high,low,close
      2024-11-03 00:00:00,1,1,1,1
      2024-11-03 01:00:00,1,1,1,1
      2024-11-03 01:00:00,1,1,1,1
      2024-11-03 02:00:00,1,1,1,1
      """, zone: "America/New_York")
    let expected: [Int64] = [1_730_606_400, 1_730_610_000, 1_730_613_600, 1_730_617_200]
    #expect(Array(bars.time) == expected)
    // Offsets written in the file change with daylight saving too.
    let zoned = try readBars("""
      timestamp,open,high,low,close
      2024-03-08T15:30:00-05:00,1,1,1,1
      2024-03-11T09:30:00-04:00,1,1,1,1
      """)
    let gap: Int64 = 2 * 86_400 + 17 * 3600
    #expect(zoned.time[1] - zoned.time[0] == gap)
  }

  @Test("a wall-clock time skipped by daylight saving is an error")
  func skippedHour() {
    let message = readError("timestamp,open,high,low,close\n2024-03-10 02:30:00,1,1,1,1\n", zone: "America/New_York")
    #expect(message == "t.csv:2:1: error: '2024-03-10 02:30:00' does not exist in America/New_York (clocks skip it for daylight saving); write the offset or fix the time zone")
  }

  @Test("the shipped reference files load with their documented shapes")
  func shippedData() throws {
    let goog = try BarCSVReader().read(file: Repo.path("Data/GOOG.csv"))
    #expect(goog.count == 2148 && goog.isDateOnly && goog.timeLabel(0) == "2004-08-19")
    let eurusd = try BarCSVReader().read(file: Repo.path("Data/EURUSD.csv"))
    #expect(eurusd.count == 5000 && !eurusd.isDateOnly)
    let gpix = try BarCSVReader(timeZone: TimeZone(identifier: "America/New_York")!)
      .read(file: Repo.path("Data/synthetic_gpix_30min.csv"))
    #expect(gpix.count == 13104)
  }

  @Test("missing, directory and unreadable paths are missing-input errors")
  func missingFiles() {
    #expect(throws: InputError("no such file", file: "/nonexistent/bars.csv", kind: .missingInput)) {
      try BarCSVReader().read(file: "/nonexistent/bars.csv")
    }
    #expect(throws: InputError("is a directory; expected a file", file: Repo.path("Data"), kind: .missingInput)) {
      try BarCSVReader().read(file: Repo.path("Data"))
    }
  }

  @Test("input files are read byte for byte, large (1 MB and more) or small, and the parse is the same")
  func largeAndSmallReads() throws {
    let folder = NSTemporaryDirectory() + "bars-read-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    var text = "timestamp,open,high,low,close,volume\n"
    for k in 0..<30_000 {
      text += "\(1_700_000_000 + k * 1800),\(100 + k % 7).25,\(102 + k % 7).5,\(99 + k % 7).125,\(101 + k % 7),\(1000 + k)\n"
    }
    let big = folder + "/big.csv", small = folder + "/small.csv"
    try text.write(toFile: big, atomically: false, encoding: .utf8)
    try String(text.prefix(2_000)).write(toFile: small, atomically: false, encoding: .utf8)
    #expect(text.utf8.count >= 1 << 20)
    for path in [big, small] {
      #expect(try readInputFile(path) == FileManager.default.contents(atPath: path)!)
    }
    let bars = try BarCSVReader().read(file: big)
    #expect(bars.count == 30_000 && bars.close[29_999] == Double(101 + 29_999 % 7) && bars.volume[12_345] == 13_345)
    try Data().write(to: URL(fileURLWithPath: folder + "/empty.csv"))
    #expect(try readInputFile(folder + "/empty.csv").isEmpty)
  }

  @Test("an input file is copied, not mapped: cut short or emptied after the read, the bytes read stay (a mapping would crash with SIGBUS)")
  func truncatedAfterRead() throws {
    let folder = NSTemporaryDirectory() + "bars-truncated-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/bars.csv"
    var text = "timestamp,open,high,low,close,volume\n"
    for k in 0..<60_000 { text += "\(1_700_000_000 + k * 1800),100.25,102.5,99.125,101,\(1000 + k)\n" }
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    let expected = Data(text.utf8)
    #expect(expected.count >= 2 << 20)
    let data = try readInputFile(path)
    // No mapping of the file is left in this process (checked first: touching a mapped page after the cut would
    // kill the test run).
    let maps = (try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8)) ?? ""
    try #require(!maps.contains(path), "the file is mapped")
    #expect(truncate(path, 0) == 0)
    #expect(data == expected)
    #expect(data.last == UInt8(ascii: "\n"))
    // Read again: what the file holds now.
    #expect(try readInputFile(path).isEmpty)
  }
}

@Suite struct NumberParsingTests {
  func parse(_ s: String) -> Double? {
    let b = Array(s.utf8)
    return b.withUnsafeBufferPointer { parseDecimal($0, 0, b.count) }
  }

  @Test("decimal texts parse to the correctly rounded double, like Swift's own parser")
  func correctlyRounded() {
    var rng = SplitMix64(seed: 5)
    for _ in 0..<100_000 {
      let x = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF)
      let texts = [x.description, String(format: "%.4f", rng.unit() * 1000), String(format: "%.17g", rng.unit()),
                   String(Int(rng.next() % 1_000_000_000)) + "." + String(Int(rng.next() % 100_000))]
      for t in texts {
        #expect(parse(t) == Double(t), "\(t)")
      }
    }
    let pairs: [(String, Double)] = [("1.0716", 1.0716), ("-0.5", -0.5), ("+2", 2), ("3.", 3), (".5", 0.5)]
    for (text, value) in pairs { #expect(parse(text) == value) }
    #expect(parse("12345678901234567890123") == 12345678901234567890123.0)
    #expect(parse("1e400") == .infinity)
  }

  @Test("every mantissa below 10^7 scaled down by 10^k with two products is the division's double", arguments: 0...7)
  func scaledDownIsTheQuotient(k: Int) {
    let divisor = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7][k]
    var wrong = 0, first = -1
    for m in 0..<10_000_000 where BarCSVReader.scaledDown(UInt64(m), by: k).bitPattern != (Double(m) / divisor).bitPattern {
      wrong += 1
      if first < 0 { first = m }
    }
    #expect(wrong == 0, "\(wrong) mantissas differ for k = \(k), the first \(first)")
  }

  @Test("the row reader's short decimals are parseDecimal's values, at every length and point position")
  func shortDecimalsAsParsed() {
    var rng = SplitMix64(seed: 11)
    var wrong = 0, first = ""
    for _ in 0..<200_000 {
      let digits = Int(rng.next() % 7) + 1
      var text = String(rng.next() % 10_000_000).suffix(digits).description
      while text.count < digits { text = "0" + text }
      let point = Int(rng.next() % UInt64(digits + 2))  // digits + 1: no point
      if point <= digits { text.insert(".", at: text.index(text.startIndex, offsetBy: point)) }
      let bytes = Array((text + ",1234567,").utf8)  // room for the eight-byte read
      let same = bytes.withUnsafeBufferPointer { b in
        let fast = BarCSVReader.decimal(b, at: 0)
        return fast != nil && fast?.0.bitPattern == parseDecimal(b, 0, text.utf8.count)?.bitPattern && fast?.end == text.utf8.count
      }
      if !same {
        wrong += 1
        if first.isEmpty { first = text }
      }
    }
    #expect(wrong == 0, "\(wrong) texts read otherwise, the first '\(first)'")
  }

  @Test("anything but a plain decimal is refused")
  func refused() {
    for t in ["", "nan", "NaN", "inf", "-inf", "0x10", "1,000", "1.2.3", "e5", "1e", "--1", "1 2", "."] {
      #expect(parse(t) == nil, "\(t)")
    }
  }
}

