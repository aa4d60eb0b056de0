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
