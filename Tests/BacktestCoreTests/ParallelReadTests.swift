@testable import BacktestCore
@testable import BacktestRun
import Foundation
import Testing

@Suite("Reading a large file in parts on several cores")
struct ParallelReadTests {
  /// 40,000 synthetic 30-minute bars (about 2.4 MB, above the parallel threshold) in several spellings.
  static let bars = SyntheticBars.generate(count: 40_000, seed: 5)
  static let offsetCSV = SyntheticBars.csv(bars)

  static func read(_ text: String, zone: String = "UTC", parallel: Bool) -> Result<BarSeries, InputError> {
    var reader = BarCSVReader(timeZone: TimeZone(identifier: zone)!)
    reader.allowsParallelRead = parallel
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { b in
      do { return .success(try reader.read(b, file: "big.csv")) } catch let e as InputError { return .failure(e) } catch {
        fatalError("unexpected \(error)")
      }
    }
  }

  /// Whether the parts, read at once on several cores, read every row (leaving nothing to the one-pass read).
  static func readsInParts(_ text: String, zone: String = "UTC") -> Bool {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { b in
      var header = CSVScanner(bytes: b, file: "big.csv")
      var fields: [CSVField] = []
      _ = try? header.next(into: &fields)
      let layout = BarCSVReader.Layout(fieldCount: fields.count, time: 0, open: 1, high: 2, low: 3, close: 4, volume: fields.count > 5 ? 5 : nil)
      let parts = BarCSVReader.Parts(b, from: header.offset, parallel: true)
      let read = BarCSVReader.partRows(b, after: header, layout: layout, timeZone: TimeZone(identifier: zone)!, parallel: true)
      return parts.count > 1 && read.resume == b.count
    }
  }

  static func same(_ a: BarSeries, _ b: BarSeries) -> Bool {
    a.time == b.time && a.day == b.day && a.open == b.open && a.high == b.high && a.low == b.low && a.close == b.close
      && a.volume == b.volume && a.isDateOnly == b.isDateOnly && a.indices.allSatisfy { a.timeLabel($0) == b.timeLabel($0) }
  }

  @Test("offsets, naive UTC times, dates, epochs, CRLF and blank lines: the same bars as one pass", arguments: ["offset", "naive", "date", "epoch", "crlf"])
  func sameBars(spelling: String) throws {
    var text = Self.offsetCSV
    switch spelling {
    case "naive": text = text.replacingOccurrences(of: "-05:00,", with: ",").replacingOccurrences(of: "-04:00,", with: ",")
    case "date":
      let daily = SyntheticBars.generate(count: 40_000, seed: 6, settings: { var s = SyntheticBars.Settings(); s.barsPerDay = 1; return s }())
      text = SyntheticBars.csv(daily)
    case "epoch":
      text = "time,open,high,low,close\n" + Self.bars.indices.map { "\(Self.bars.time[$0]),\(Self.bars.open[$0]),\(Self.bars.high[$0]),\(Self.bars.low[$0]),\(Self.bars.close[$0])\n" }.joined()
    case "crlf": text = text.replacingOccurrences(of: "\n", with: "\r\n").replacingOccurrences(of: "\r\n2004-06", with: "\r\n\r\n2004-06")
    default: break
    }
    let one = try Self.read(text, parallel: false).get(), two = try Self.read(text, parallel: true).get()
    #expect(text.utf8.count > BarCSVReader.parallelThreshold && one.count > 20_000)
    #expect(Self.same(one, two))
    #expect(Self.readsInParts(text) == (spelling != "crlf") || ProcessInfo.processInfo.activeProcessorCount == 1,
            "the parts read every row only without a blank line")
  }

  @Test("a quote, a timestamp of another length, or a row the fast path leaves: the same bars as one pass, the rest read in one pass",
        arguments: ["quote", "zulu", "spaces", "first-blank", "last-without-newline"])
  func partsStop(change: String) throws {
    var lines = Self.offsetCSV.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    switch change {
    case "quote":
      let line = lines[30_000], comma = line.lastIndex(of: ",")!
      lines[30_000] = line[...comma] + "\"" + line[line.index(after: comma)...] + "\""
    case "zulu": for k in 25_000..<25_010 { lines[k] = Self.zulu(lines[k]) }
    case "spaces": lines[12_345] = lines[12_345].replacingOccurrences(of: ",", with: ", ")
    case "first-blank": lines.insert("", at: 1)
    default: lines.removeLast()
    }
    let text = lines.joined(separator: "\n")
    let one = try Self.read(text, parallel: false).get(), two = try Self.read(text, parallel: true).get()
    #expect(one.count == 40_000 && Self.same(one, two))
    #expect(Self.readsInParts(text) == (change == "last-without-newline") || ProcessInfo.processInfo.activeProcessorCount == 1)
  }

  @Test("newlines and quotes are counted exactly however dense, at any alignment")
  func lineCounts() {
    var random = SplitMix64(seed: 11)
    for density in [0, 1, 30, 90, 100] {
      let bytes = (0..<20_000).map { _ -> UInt8 in
        let r = Int(random.next() % 100)
        return r < density ? UInt8(ascii: "\n") : r == 99 && density == 30 ? UInt8(ascii: "\"") : UInt8(ascii: "7")
      }
      bytes.withUnsafeBufferPointer { b in
        for range in [0..<b.count, 3..<b.count - 5, 17..<17, 9..<14] {
          let counted = BarCSVReader.scanLines(b, range)
          #expect(counted.newlines == b[range].filter { $0 == UInt8(ascii: "\n") }.count, "density \(density), \(range)")
          #expect(counted.quote == b[range].contains(UInt8(ascii: "\"")), "density \(density), \(range)")
        }
      }
    }
  }

  /// The line with its timestamp written in UTC with a `Z` (a shorter label, the same instant).
  static func zulu(_ line: String) -> String {
    let fields = line.split(separator: ",", maxSplits: 1)
    guard let t = WrittenTimestamp(String(fields[0])), case .zoned(let instant, _) = t else { return line }
    return CivilDate.isoDateTime(seconds: instant, offset: 0) + "," + fields[1]
  }

  @Test("naive times in a zone with daylight saving read the same (parts after the first fall back to one pass)")
  func daylightSaving() throws {
    let text = Self.offsetCSV.replacingOccurrences(of: "-05:00,", with: ",").replacingOccurrences(of: "-04:00,", with: ",")
    let one = try Self.read(text, zone: "America/New_York", parallel: false).get()
    let two = try Self.read(text, zone: "America/New_York", parallel: true).get()
    #expect(Self.same(one, two) && one.time == Self.bars.time)
    #expect(!Self.readsInParts(text, zone: "America/New_York"))
  }

  @Test("an error in a later part, or across parts, is the one-pass error, line and column exact")
  func errors() throws {
    var lines = Self.offsetCSV.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var bad = lines
    bad[25_000] = bad[25_000].replacingOccurrences(of: ",", with: ",x", options: [], range: bad[25_000].range(of: ","))
    let text = bad.joined(separator: "\n")
    guard case .failure(let e1) = Self.read(text, parallel: true), case .failure(let e2) = Self.read(text, parallel: false) else {
      Issue.record("a bad number was accepted"); return
    }
    #expect("\(e1)" == "\(e2)" && "\(e1)".hasPrefix("big.csv:25001:"))
    // Duplicate every line around the middle: whichever line a split falls on, the parts overlap in time.
    let middle = lines.count / 2
    lines.replaceSubrange((middle - 300)..<(middle + 300), with: lines[(middle - 300)..<(middle + 300)].flatMap { [$0, $0] })
    let doubled = lines.joined(separator: "\n")
    guard case .failure(let d1) = Self.read(doubled, parallel: true), case .failure(let d2) = Self.read(doubled, parallel: false) else {
      Issue.record("duplicate timestamps were accepted"); return
    }
    #expect("\(d1)" == "\(d2)" && "\(d1)".contains("duplicate timestamp"))
    // A time going back exactly where a part starts: the error names the line of the bar before.
    var back = Self.offsetCSV.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let bytes = Array(Self.offsetCSV.utf8)
    let parts = bytes.withUnsafeBufferPointer { BarCSVReader.Parts($0, from: bytes.firstIndex(of: UInt8(ascii: "\n"))! + 1, parallel: true) }
    let line = parts.lines(1).lowerBound + 1  // the index of part 1's first line, the header being line 0
    // The timestamp of two lines before (the same length, so that the parts split where they did).
    back[line] = String(back[line - 2].prefix(25)) + back[line].dropFirst(25)
    guard case .failure(let b1) = Self.read(back.joined(separator: "\n"), parallel: true),
      case .failure(let b2) = Self.read(back.joined(separator: "\n"), parallel: false) else {
      Issue.record("a time going back was accepted"); return
    }
    #expect("\(b1)" == "\(b2)" && "\(b1)".contains("is earlier than") && "\(b1)".contains("on line \(line)"), "\(b1)")
  }
}

@Suite("The one-pass fast path for plain rows")
struct FastRowTests {
  static func read(_ text: String, zone: String = "UTC", fast: Bool) -> Result<BarSeries, InputError> {
    var reader = BarCSVReader(timeZone: TimeZone(identifier: zone)!)
    reader.allowsParallelRead = false
    reader.allowsFastRows = fast
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { b in
      do { return .success(try reader.read(b, file: "rows.csv")) } catch let e as InputError { return .failure(e) } catch {
        fatalError("unexpected \(error)")
      }
    }
  }

  /// Rows the fast path must read exactly as the general path does, or leave to it (same bars, or the same error).
  static let rows = [
    "2024-01-02T09:30:00-05:00,100.5,101,99.25,100,1200",
    "2024-01-02T10:00:00-05:00,1.,2.5,.5,1,0",                       // "1." and ".5"
    "2024-01-02T10:30:00-05:00,1e2,1.5E2,99,100,3",                  // exponents: general path
    "2024-01-02T11:00:00-05:00, 100 ,101,99,100,3",                  // spaces: general path
    "2024-01-02T11:30:00-05:00,\"100\",101,99,100,3",                // quotes: general path
    "2024-01-02T12:00:00-05:00,100,101,99,100,3\r",                  // CRLF
    "2024-01-02T12:30:00-05:00,0.1000000000000000055511151231257827,1,0.05,0.1,0",  // more than 19 digits: strtod
    "2024-01-02T13:00:00-05:00,123456789.123456789,123456790,123456789,123456789.5,7",  // 18 digits, exact path
    "2024-01-02T13:30:00-05:00,+100,101,99,100,3",                   // plus sign: general path
    "2024-01-02T14:00:00-05:00,100,101,99,100",                      // too few fields: error
    "2024-01-02T14:30:00-05:00,100,101,99,100,3,9",                  // too many fields: error
    "2024-01-02T15:00:00-05:00,100,99,99,100,3",                     // high below close: error
    "2024-01-02T15:00:00-05:00,100,101,99,100,3",                    // duplicate time: error
    "2024-01-02T15:30:00-05:00,-1,101,99,100,3",                     // negative: error
    "2024-01-02T15:30:00-05:00,0,101,99,100,3",                      // zero price: error
    "2024-01-02T16:00:00-05:00,100,101,99,100,-0",                   // volume -0: accepted as 0 by both
    "2024-01-02,100,101,99,100,3",                                   // a date after times
    "",                                                              // blank line
    "1704240000,100,101,99,100,3",                                   // epoch seconds
    "2024-01-03T09:30:00,100,101,99,100,3",                          // wall clock (UTC here)
    "2024-01-03 10:00:00-05:00,100,101,99,100,3",                    // a space for the T
    "2024-01-03T10:30:00-0500,100,101,99,100,3",                     // offset without a colon: general path
    "2024-01-03T11:00:00Z,100,101,99,100,3",                         // Z: general path
    "2024-01-03T11:30:00+14:00,100,101,99,100,3",                    // an instant before the last: error
    "2024-01-03T12:00:00+19:00,100,101,99,100,3",                    // offset beyond 18 hours: error
    "2024-01-03T12:30:00-05:60,100,101,99,100,3",                    // offset minutes 60: error
    "2024-02-30T09:30:00-05:00,100,101,99,100,3",                    // no such day: error
    "2024-01-03T24:00:00-05:00,100,101,99,100,3",                    // hour 24: error
    "2024-01-03T13:00:60-05:00,100,101,99,100,3",                    // second 60: error
    "2024-01-03T13:30:00-05:00x,100,101,99,100,3",                   // more after the offset: error
    "2024-01-03T14:00:00.000-05:00,100,101,99,100,3",                // zero fraction: general path
    "2024-01-03T14:30:00-05:00,2000000000000,2000000000000,2000000000000,2000000000000,3",  // a price above 1e12: error
    "2024-01-03T15:00:00-05:00,0.0000000000001,1,0.0000000000001,1,3",                    // a price below 1e-12: error
    "2024-01-03T15:30:00-05:00,12345.678,12345.6789,12345.5,12345.6,9999999",             // eight bytes and more
    "2024-01-03T15:30:00-05:00,.5,1.,.5,1.,0",                       // a point first or last, repeated time: error
  ]

  @Test("every row alone after a valid one, and all of them in sequence: fast and general paths agree")
  func agreesWithGeneralPath() {
    let header = "timestamp,open,high,low,close,volume\n"
    let first = Self.rows[0] + "\n"
    var texts = Self.rows.dropFirst().map { header + first + $0 + "\n" }
    texts.append(header + Self.rows.joined(separator: "\n") + "\n")
    texts.append(header + Self.rows.filter { !$0.contains("fields") }.joined(separator: "\n"))   // no newline at the end
    texts.append("date,close,open,low,high,note\n2024-01-02,100,100,99,101,x\n2024-01-03,101,100.5,100,101,y\r\n")  // other column order
    // No volume column: every row but its last field.
    let withoutVolume = Self.rows.map { row in row.split(separator: ",", omittingEmptySubsequences: false).dropLast().joined(separator: ",") }
    texts.append("timestamp,open,high,low,close\n" + withoutVolume.joined(separator: "\n") + "\n")
    texts += withoutVolume.dropFirst().map { "timestamp,open,high,low,close\n" + withoutVolume[0] + "\n" + $0 + "\n" }
    for text in texts {
      for zone in ["UTC", "America/New_York"] {
        switch (Self.read(text, zone: zone, fast: true), Self.read(text, zone: zone, fast: false)) {
        case (.success(let a), .success(let b)):
          #expect(ParallelReadTests.same(a, b), "\(text)")
        case (.failure(let a), .failure(let b)):
          #expect(a == b, "\(text)")
        case (let a, let b):
          Issue.record("fast \(a) vs general \(b) for \(text)")
        }
      }
    }
  }

  @Test("the synthetic bench files read the same either way, and the fast path takes their rows")
  func syntheticFiles() throws {
    let text = SyntheticBars.csv(SyntheticBars.generate(count: 5_000, seed: 9))
    let fast = try Self.read(text, zone: "America/New_York", fast: true).get()
    let general = try Self.read(text, zone: "America/New_York", fast: false).get()
    #expect(fast.count == 5_000 && ParallelReadTests.same(fast, general))
    let bytes = Array(text.utf8)
    let taken = bytes.withUnsafeBufferPointer { b -> Int in
      let layout = BarCSVReader.Layout(fieldCount: 6, time: 0, open: 1, high: 2, low: 3, close: 4, volume: 5)
      var p = bytes.firstIndex(of: UInt8(ascii: "\n"))! + 1, count = 0
      var row = BarCSVReader.PlainRow(), stamps = BarCSVReader.StampCache()
      while p < b.count, BarCSVReader.plainRow(b, at: p, layout: layout, stamps: &stamps, into: &row) { count += 1; p = row.next }
      return count
    }
    #expect(taken == 5_000)
  }
}
