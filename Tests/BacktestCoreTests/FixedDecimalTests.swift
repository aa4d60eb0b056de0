@testable import BacktestCore
import Foundation
import Testing

/// `FixedDecimal` must write exactly `String(format: "%.Nf")`'s text: the reports' money, percentages and prices use it.
@Suite struct FixedDecimalTests {
  /// Returns the first cases (at most five) whose text differs from `String(format:)`'s.
  static func mismatches(_ values: some Sequence<Double>, decimals: ClosedRange<Int> = 0...9) -> [String] {
    var out: [String] = []
    for x in values {
      for d in decimals {
        let ours = FixedDecimal.text(x, decimals: d), expected = String(format: "%.\(d)f", x)
        if ours != expected {
          out.append("\(x) with \(d) decimals: \(ours), expected \(expected)")
          if out.count == 5 { return out }
        }
      }
    }
    return out
  }

  @Test("ties round to the even digit, a negative value rounding to zero keeps its sign, and the edges of the fast range")
  func edges() {
    #expect(FixedDecimal.text(0.125, decimals: 2) == "0.12" && FixedDecimal.text(0.375, decimals: 2) == "0.38")
    #expect(FixedDecimal.text(2.5, decimals: 0) == "2" && FixedDecimal.text(3.5, decimals: 0) == "4")
    #expect(FixedDecimal.text(-0.001, decimals: 2) == "-0.00" && FixedDecimal.text(-0.0, decimals: 1) == "-0.0")
    // 2.675, 1.005 and 0.015 are each stored just below themselves; 0.035 just above.
    #expect(FixedDecimal.text(2.675, decimals: 2) == "2.67" && FixedDecimal.text(1.005, decimals: 2) == "1.00")
    #expect(FixedDecimal.text(0.015, decimals: 2) == "0.01" && FixedDecimal.text(0.035, decimals: 2) == "0.04")
    let limit = 0x1p62 / 100
    let values: [Double] = [
      0, -0.0, 0.5, 1.5, -2.5, 0.005, 0.015, 0.025, 0.0049999999999999, 99.995, 0.995, 1234567.125, 123456789012.345,
      1e-300, -1e-300, .leastNonzeroMagnitude, .leastNormalMagnitude, 0x1p-64, 0x1p-65, 0x1p-63, 3 * 0x1p-66,
      limit, limit.nextDown, limit.nextUp, 0x1p62 / 1e9, 4.5e16, 1e20, .greatestFiniteMagnitude, .infinity, -.infinity, .nan,
    ]
    #expect(Self.mismatches(values + values.map { -$0 }) == [])
  }

  @Test("exact ties k / 2^j, cents, and random values and bit patterns, with 0 to 9 decimals")
  func randomValues() {
    var generator = SplitMix64(seed: 21)
    var values: [Double] = []
    for _ in 0..<40_000 {
      values.append(Double(Int64(generator.next() % 2_000_001) - 1_000_000) / Double(1 << (1 + generator.next() % 12)))
      values.append(Double(Int64(generator.next() % 20_000_001) - 10_000_000) / 100)
      values.append((Double(generator.next() >> 11) * 0x1p-53 - 0.5) * 2e6)
      values.append(Double(bitPattern: generator.next()))
    }
    #expect(Self.mismatches(values) == [])
  }

  @Test("formatPlain writes \"%.10g\"'s text: edges of the plain range, zeros, short and long decimals, random bit patterns")
  func plainNumbers() {
    var values: [Double] = [
      0, -0.0, 1, 2, 30, 0.02, 1.5, 0.1, 0.3, 714, 1e-4, 9.999e-5, 1e-5, 1.5e-5, 0.00012345, 9_999_999_999, 1e10, 1e9, 123_456_789.5,
      1_234_567_890, 12_345_678_901, 1e100, 1e-100, 1.25e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1 + 0.2, 1.0 / 3, 2.0 / 3,
      49.123456789012345, 0.123456789, 0.1234567891, 0.12345678915, 99_999.999995, 9.9999999995, .infinity, -.infinity, .nan,
    ]
    var generator = SplitMix64(seed: 10)
    for _ in 0..<20_000 {
      let digits = Double(generator.next() % 10_000_000_000), scale = Int(generator.next() % 30) - 15
      values.append(digits * pow(10, Double(scale)))
      values.append(Double(bitPattern: generator.next()))
    }
    var differing: [String] = []
    for x in values + values.map({ -$0 }) where formatPlain(x) != String(format: "%.10g", x) {
      differing.append("\(x): \(formatPlain(x)), expected \(String(format: "%.10g", x))")
    }
    #expect(differing.prefix(5) == [])
  }
}
