@testable import BacktestCore
import Foundation
import Testing

@Suite("Reading a large file in two halves")
struct ParallelReadTests {
  /// 40,000 synthetic 30-minute bars (about 2.4 MB, above the two-half threshold) in several spellings.
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

  /// Whether the two-half path itself gives a result (instead of deferring to one pass).
  static func readsInHalves(_ text: String, zone: String = "UTC") -> Bool {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { b in
      var header = CSVScanner(bytes: b, file: "big.csv")
      var fields: [CSVField] = []
      _ = try? header.next(into: &fields)
      let layout = BarCSVReader.Layout(fieldCount: fields.count, time: 0, open: 1, high: 2, low: 3, close: 4, volume: fields.count > 5 ? 5 : nil)
      return (try? BarCSVReader.parallelRows(b, file: "big.csv", after: header, layout: layout, timeZone: TimeZone(identifier: zone)!)) != nil
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
    #expect(Self.readsInHalves(text) || ProcessInfo.processInfo.activeProcessorCount == 1, "the two-half path was not taken")
  }

  @Test("naive times in a zone with daylight saving read the same (the second half falls back to one pass)")
  func daylightSaving() throws {
    let text = Self.offsetCSV.replacingOccurrences(of: "-05:00,", with: ",").replacingOccurrences(of: "-04:00,", with: ",")
    let one = try Self.read(text, zone: "America/New_York", parallel: false).get()
    let two = try Self.read(text, zone: "America/New_York", parallel: true).get()
    #expect(Self.same(one, two) && one.time == Self.bars.time)
    #expect(!Self.readsInHalves(text, zone: "America/New_York"))
  }

  @Test("an error in the second half, or across the halves, is the one-pass error, line and column exact")
  func errors() throws {
    var lines = Self.offsetCSV.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var bad = lines
    bad[25_000] = bad[25_000].replacingOccurrences(of: ",", with: ",x", options: [], range: bad[25_000].range(of: ","))
    let text = bad.joined(separator: "\n")
    guard case .failure(let e1) = Self.read(text, parallel: true), case .failure(let e2) = Self.read(text, parallel: false) else {
      Issue.record("a bad number was accepted"); return
    }
    #expect("\(e1)" == "\(e2)" && "\(e1)".hasPrefix("big.csv:25001:"))
    // Duplicate every line around the middle: whichever line the split falls on, the halves overlap in time.
    let middle = lines.count / 2
    lines.replaceSubrange((middle - 300)..<(middle + 300), with: lines[(middle - 300)..<(middle + 300)].flatMap { [$0, $0] })
    let doubled = lines.joined(separator: "\n")
    guard case .failure(let d1) = Self.read(doubled, parallel: true), case .failure(let d2) = Self.read(doubled, parallel: false) else {
      Issue.record("duplicate timestamps were accepted"); return
    }
    #expect("\(d1)" == "\(d2)" && "\(d1)".contains("duplicate timestamp"))
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
  ]

  @Test("every row alone after a valid one, and all of them in sequence: fast and general paths agree")
  func agreesWithGeneralPath() {
    let header = "timestamp,open,high,low,close,volume\n"
    let first = Self.rows[0] + "\n"
    var texts = Self.rows.dropFirst().map { header + first + $0 + "\n" }
    texts.append(header + Self.rows.joined(separator: "\n") + "\n")
    texts.append(header + Self.rows.filter { !$0.contains("fields") }.joined(separator: "\n"))   // no newline at the end
    texts.append("date,close,open,low,high,note\n2024-01-02,100,100,99,101,x\n2024-01-03,101,100.5,100,101,y\r\n")  // other column order
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
      while let row = BarCSVReader.plainRow(b, at: p, layout: layout), p < b.count { count += 1; p = row.next }
      return count
    }
    #expect(taken == 5_000)
  }
}
