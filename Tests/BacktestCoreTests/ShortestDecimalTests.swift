import BacktestCore
import Foundation
import Testing

/// `ShortestDecimal` must write exactly `description`'s text, or every committed reference would change.
@Suite struct ShortestDecimalTests {
  static func text(_ x: Double) -> String {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ShortestDecimal.writableLength) { p in
      let n = ShortestDecimal.write(x, to: p.baseAddress!)
      return String(decoding: UnsafeBufferPointer(rebasing: p[..<n]), as: UTF8.self)
    }
  }

  /// Returns the first values (at most five) whose text differs from `description`.
  static func mismatches(_ values: some Sequence<Double>) -> [String] {
    var out: [String] = []
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ShortestDecimal.writableLength) { buffer in
      let p = buffer.baseAddress!
      for x in values {
        let n = ShortestDecimal.write(x, to: p)
        var expected = x.description
        let same = expected.withUTF8 { $0.count == n && memcmp($0.baseAddress!, p, n) == 0 }
        if !same {
          out.append("\(expected) (bits 0x\(String(x.bitPattern, radix: 16))): wrote \(text(x))")
          if out.count == 5 { break }
        }
      }
    }
    return out
  }

  @Test("the layout thresholds, zeros, the extremes and the non-finite values read as description does")
  func edges() {
    let p53 = 9_007_199_254_740_992.0
    let values: [Double] = [
      0, -0.0, 1, -1, 714, 0.1, 0.2, 0.3, 0.1 + 0.2, 100_000, 1e15, 1e16, 1e17, 1e21, 1e22, 1e23, 123_456_789_012_345.6,
      p53, p53.nextUp, p53.nextDown, -p53, -p53.nextUp, 1e16.nextDown, 9.5e15,
      1e-4, 1e-4.nextUp, 1e-4.nextDown, 1e-5, 1.5e-5, 0.00012345, -2.5e-7,
      .leastNonzeroMagnitude, 2 * .leastNonzeroMagnitude, 3 * .leastNonzeroMagnitude, .leastNormalMagnitude,
      Double.leastNormalMagnitude.nextDown, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
      .nan, -.nan, .signalingNaN, .infinity, -.infinity,
    ]
    #expect(Self.mismatches(values) == [])
    #expect(Self.text(.leastNonzeroMagnitude) == "5e-324" && Self.text(1e-5) == "1e-05" && Self.text(1e16) == "1e+16")
    #expect(Self.text(-0.0) == "-0.0" && Self.text(714) == "714.0" && Self.text(p53) == "9007199254740992.0")
  }

  @Test("every power of ten, and small odd multiples of every power of two (where ties between candidates fall)")
  func powers() {
    var values: [Double] = []
    for e in -330...310 { values.append(Double("1e\(e)")!) }
    for e in -1074...1023 {
      for m in stride(from: 1, through: 99, by: 2) { values.append(Double(sign: .plus, exponent: e, significand: Double(m))) }
    }
    #expect(Self.mismatches(values.filter(\.isFinite)) == [])
  }

  @Test("2,000,000 random bit patterns, and prices, fractions and whole numbers, read as description does")
  func randomValues() {
    // Four slices, each its own seed, checked on all cores.
    let found = ConcurrentSlots<[String]>(count: 4)
    DispatchQueue.concurrentPerform(iterations: 4) { slice in
      var rng = SplitMix64(seed: 21 + UInt64(slice))
      found.set(slice, Self.mismatches((0..<500_000).lazy.map { _ in Double(bitPattern: rng.next()) }))
    }
    for slice in 0..<4 { #expect(found.get(slice) == [], "seed \(21 + slice)") }
    var typical = SplitMix64(seed: 25)
    let cents = (0..<100_000).lazy.map { _ in Double(typical.next() % 10_000_000) / 100 }
    let fractions = (0..<100_000).lazy.map { _ in typical.unit() * 2 - 1 }
    let whole = (0..<100_000).lazy.map { _ in Double(typical.next() >> UInt64(typical.next() % 64)) }
    #expect(Self.mismatches(cents) == [], "seed 25")
    #expect(Self.mismatches(fractions) == [], "seed 25")
    #expect(Self.mismatches(whole) == [], "seed 25")
  }

  @Test("prices take a shorter way to the same text: whole cents, and every other number too")
  func prices() {
    var rng = SplitMix64(seed: 26)
    var values: [Double] = [0.01, 0.1, 0.29, 1, 26.13, 26.1, 46.597922000000004, 1e12 + 0.01, 9_999_999_999_999.99, 1e13, 0.001, 0.005,
                            0.125, 0.375, 2.625, 1024.125, 5e-3, 4.5e15, 2.5e15 + 0.5, 1e300, -26.13, 0x1p52, 0x1p53]
    for _ in 0..<200_000 { values.append(Double(rng.next() % 100_000_000) / 100) }
    for _ in 0..<50_000 { values.append(Double(rng.next() % 100_000_000) / 10_000) }
    for _ in 0..<50_000 { values.append(Double(bitPattern: rng.next() & 0x7FFF_FFFF_FFFF_FFFF)) }
    var wrong: [String] = []
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ShortestDecimal.writableLength) { p in
      for x in values where x.isFinite && x != 0 {
        let n = ShortestDecimal.writePrice(x, to: p.baseAddress!)
        let text = String(decoding: UnsafeBufferPointer(rebasing: p[..<n]), as: UTF8.self)
        if text != x.description && wrong.count < 5 { wrong.append("\(x.description): wrote \(text)") }
      }
    }
    #expect(wrong == [], "seed 26")
  }

  @Test("plain decimals of every length and point position, and whole numbers and prices at every power of ten")
  func lengths() {
    // The plain layout counts digits and trailing zeros without branches, and whole
    // numbers and prices take their own ways: every length and place is tried.
    var rng = SplitMix64(seed: 27)
    var values: [Double] = []
    for length in 1...17 {
      for point in -3...16 {
        for _ in 0..<200 {
          var digits = (0..<length).map { _ in String(rng.next() % 10) }
          digits[0] = String(1 + rng.next() % 9)
          digits[length - 1] = String(1 + rng.next() % 9)
          let text = point <= 0
            ? "0." + String(repeating: "0", count: -point) + digits.joined()
            : point >= length ? digits.joined() + String(repeating: "0", count: point - length) : digits[..<point].joined() + "." + digits[point...].joined()
          values.append(Double(text)!)
        }
      }
    }
    for k in 0...16 {
      let power = (0..<k).reduce(1.0) { value, _ in value * 10 }
      values += [power - 1, power, power + 1, (power - 1) / 100, power / 100, (power + 1) / 100, (power + 10) / 100]
    }
    #expect(Self.mismatches(values) == [], "seed 27")
    #expect(Self.mismatches(values.map { -$0 }) == [], "seed 27")
    var wrong: [String] = []
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ShortestDecimal.writableLength) { p in
      for x in values {
        let n = ShortestDecimal.writePrice(x, to: p.baseAddress!)
        let text = String(decoding: UnsafeBufferPointer(rebasing: p[..<n]), as: UTF8.self)
        if text != x.description && wrong.count < 5 { wrong.append("\(x.description): wrote \(text)") }
      }
    }
    #expect(wrong == [], "seed 27")
    #expect(Self.text(60.767735630309275) == "60.767735630309275" && Self.text(61.7739739770658) == "61.7739739770658")
    #expect(Self.text(61.2875) == "61.2875" && Self.text(-0.03304716967283228) == "-0.03304716967283228" && Self.text(121_560) == "121560.0")
  }

  @Test("the single-product digits, and the doubles too close to call for it, which Schubfach's three products settle")
  func nearestAndItsWayOut() {
    // Full-precision values, as indicators make them: the single product decides.
    var rng = SplitMix64(seed: 28)
    var values = (0..<200_000).map { _ in (rng.unit() * 2 - 1) * [1e-3, 0.1, 1, 100, 1e5][Int(rng.next() % 5)] }
    // Too close to call, found by a search over random doubles: an end of the interval on the
    // multiple of ten below (the first four) or above (the next four), and ties between two wholes.
    let close: [UInt64] = [
      0x4352_34AE_65D9_BD9D, 0xC363_223E_A540_43AC, 0x43E8_DD5F_7920_672F, 0x439A_A962_B6FD_B81F,
      0x4354_3975_DDF9_78DA, 0xC368_0B14_F590_2029, 0xC396_DE78_F08B_FFBD, 0xC3C4_EC4B_C3AA_ED45,
      0xC31C_1CB6_08E8_E63F, 0x42D3_EE74_E8D1_FEF8, 0xC2C3_49C7_E7B5_E4A8, 0x4311_B26E_58ED_CA55,
    ]
    values += close.map { Double(bitPattern: $0) }
    // Above 2^54 the ends are often exact, and so are the halves of values with few significant bits.
    for _ in 0..<100_000 { values.append(Double(bitPattern: 0x4350_0000_0000_0000 + rng.next() % 0x0100_0000_0000_0000)) }
    for _ in 0..<100_000 {
      let bits = 1 + Int(rng.next() % 30)
      values.append(Double(sign: .plus, exponent: Int(rng.next() % 200) - 100, significand: Double(rng.next() >> UInt64(64 - bits) | 1)))
    }
    #expect(Self.mismatches(values) == [], "seed 28")
    #expect(Self.mismatches(values.map { -$0 }) == [], "seed 28")
    #expect(Self.text(Double(bitPattern: 0x4352_34AE_65D9_BD9D)) == "2.0497892874057332e+16" && Self.text(Double(bitPattern: 0xC31C_1CB6_08E8_E63F)) == "-1978216876751247.8")
  }

  @Test("write's common cases (2^-11 up to 2^52: whole numbers, and those not a power of two) match its general way")
  func commonCases() {
    // Exponents from just below the common range to just above it, every significand
    // pattern; then the edges: the range's ends, powers of two, whole numbers, 17 digits.
    var rng = SplitMix64(seed: 29)
    var values: [Double] = (0..<100_000).map { _ in
      Double(bitPattern: (1_005 + rng.next() % 75) << 52 | rng.next() & (1 << 52 - 1))
    }
    for _ in 0..<30_000 { values.append(Double(rng.next() >> (11 + rng.next() % 53))) }
    for e in -14...55 {
      let power = Double(sign: .plus, exponent: e, significand: 1)
      values += [power, power.nextUp, power.nextDown, power * 1.5, power + 1, power - 1, power + 0.5]
    }
    values += [1e-4, 1e-4.nextUp, 1e-4.nextDown, 1e15, 1e16, 1e16.nextDown, 4.5e15 + 0.5, 0.1 + 0.2, 60.767735630309275,
               2.2250738585072014e-308, .leastNonzeroMagnitude, 0, 123_456_789_012_345.67, 0.000_488_281_25.nextDown]
    values += values.map { -$0 }
    var wrong: [String] = []
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * ShortestDecimal.writableLength) { buffer in
      let p = buffer.baseAddress!, q = p + ShortestDecimal.writableLength
      for x in values {
        let n = ShortestDecimal.write(x, to: p), m = ShortestDecimal.writeGeneral(x.bitPattern, to: q)
        let text = String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
        let general = String(decoding: UnsafeBufferPointer(start: q, count: m), as: UTF8.self)
        if (text != general || text != x.description) && wrong.count < 5 { wrong.append("\(x.description): wrote \(text), generally \(general)") }
      }
    }
    #expect(wrong == [], "seed 29")
  }

  @Test("four numbers' digits made before any is written give the text of four writes, nan left empty")
  func fourAtOnce() {
    // Every kind of double (random bits: nan, infinities, subnormals, huge and tiny), the common
    // range and just past it, prices and whole numbers, and the edges; each also negative.
    var rng = SplitMix64(seed: 31)
    var values: [Double] = (0..<30_000).map { _ in Double(bitPattern: rng.next()) }
    values += (0..<30_000).map { _ in Double(bitPattern: (1_005 + rng.next() % 75) << 52 | rng.next() & (1 << 52 - 1)) }
    values += (0..<10_000).map { _ in Double(rng.next() % 10_000_000) / 100 }
    values += [.nan, .infinity, 0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 2.2250738585072014e-308, 1e-4, 1e-4.nextDown,
               0x1p-11, 0x1p-11.nextDown, 0x1p-11.nextUp, 0x1p52, 0x1p52.nextDown, 0x1p52.nextUp, 0x1p53, 0.5, 1, 1e16, 47.169000000000004]
    values += values.map { -$0 }
    values.shuffle(using: &rng)
    var wrong: [String] = []
    for k in stride(from: 0, to: values.count - 3, by: 4) {
      let (a, b, c, d) = (values[k], values[k + 1], values[k + 2], values[k + 3])
      var fused = TextBuffer(), single = TextBuffer()
      let room = 4 * (1 + ShortestDecimal.maximumLength) + ShortestDecimal.writableLength
      fused.write(upTo: room) { $0.commaNumbers(a, b, c, d) }
      single.write(upTo: room) { row in for x in [a, b, c, d] { row.byte(44); row.number(x) } }
      if fused.string != single.string && wrong.count < 5 { wrong.append("\(fused.string) for \(single.string)") }
    }
    #expect(wrong == [], "seed 31")
  }

  @Test("a repeated number is copied with the same text, and nan leaves a cell empty")
  func repeated() {
    var buffer = TextBuffer()
    var last = RepeatedNumber()
    for x in [1.5, 1.5, -0.0, -0.0, 0.0, Double.nan, 1e-7, 1e-7, 98_765.432_109_876_54] {
      buffer.append(x, repeating: &last)
      buffer.append(byte: 44)
    }
    #expect(buffer.string == "1.5,1.5,-0.0,-0.0,0.0,,1e-07,1e-07,98765.43210987654,")
  }
}
