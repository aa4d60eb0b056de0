@testable import BacktestCore
import Testing

@Suite struct TimestampTests {
  static func parse(_ text: String) -> WrittenTimestamp? {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { parseTimestamp($0, 0, $0.count) }
  }

  static func fixed(_ text: String) -> WrittenTimestamp? {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { BarCSVReader.zonedTimestamp($0, at: 0) }
  }

  @Test("fields out of range are refused, by parseTimestamp and by the reader's fixed-layout path alike", arguments: [
    "2024-13-02T09:30:00-05:00", "2024-00-02T09:30:00-05:00", "2023-02-29T09:30:00-05:00", "2024-04-31T09:30:00-05:00",
    "2024-01-02T24:00:00-05:00", "2024-01-02T09:60:00-05:00", "2024-01-02T09:30:60-05:00",
    "2024-01-02T09:30:00+19:00", "2024-01-02T09:30:00-05:60",
  ])
  func refused(text: String) {
    #expect(Self.parse(text) == nil, "\(text)")
    #expect(Self.fixed(text) == nil, "\(text)")
  }

  @Test("the edges of each range are accepted, and both paths read them to the same instant", arguments: [
    "2024-02-29T23:59:59+18:00", "2024-12-31 00:00:00-18:59", "2000-02-29T12:00:00+00:00", "1999-01-01T00:00:00-05:30",
  ])
  func accepted(text: String) throws {
    let written = try #require(Self.parse(text), "\(text)")
    #expect(Self.fixed(text) == written)
  }

  @Test("a known instant")
  func knownInstant() {
    // 2024-01-02T09:30:00-05:00 is 14:30 UTC: 1704205800.
    #expect(Self.fixed("2024-01-02T09:30:00-05:00") == .zoned(instant: 1_704_205_800, offset: -18_000))
    #expect(Self.parse("2024-01-02T09:30:00-05:00") == .zoned(instant: 1_704_205_800, offset: -18_000))
  }
}
