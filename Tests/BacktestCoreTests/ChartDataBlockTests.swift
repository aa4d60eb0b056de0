@testable import BacktestCore
@testable import BacktestRun
import Foundation
import Testing

/// Packs step counts as `ChartData`'s comment describes and as its packer chooses, written plainly: the
/// whole column at once, each block's factor as the greatest common divisor of its residuals, every
/// candidate width costed. The packer's shortcuts (chunks, a factor carried from block to block, blocks
/// of 0 written at once, a search that stops early) must give these bytes.
enum ReferencePacker {
  static func zigzag(_ r: Int64) -> UInt64 { UInt64(bitPattern: (r << 1) ^ (r >> 63)) }
  static func bitLength(_ z: UInt64) -> Int { 64 - z.leadingZeroBitCount }
  static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 { b == 0 ? a : gcd(b, a % b) }

  static func varint(_ value: UInt64, into out: inout [UInt8]) {
    var v = value
    while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
    out.append(UInt8(v))
  }

  /// Whether every finite value of `values` rounds to at most 2^50 steps at `d` decimals (else the column is raw Float64).
  static func fits(_ values: [Double], decimals d: Int) -> Bool {
    values.allSatisfy { v in !v.isFinite || (d >= 0 ? abs(v) * pow(10, Double(d)) : abs(v) / pow(10, Double(-d))).rounded() <= 0x4_0000_0000_0000 }
  }

  /// The fewest decimals, at most `maxDecimals`, at which each finite value, taken in order, is a whole number
  /// of at most 2^50 steps (the decimals only grow); `nil` past `maxDecimals`.
  static func exactDecimals(_ values: [Double], maxDecimals: Int) -> Int? {
    var d = 0
    for v in values where v.isFinite {
      while d <= maxDecimals {
        let q = (v * pow(10, Double(d))).rounded()
        if q / pow(10, Double(d)) == v && abs(q) <= 0x4_0000_0000_0000 { break }
        d += 1
      }
      if d > maxDecimals { return nil }
    }
    return d
  }

  /// Raw Float64 values, little-endian.
  static func raw(_ values: [Double]) -> [UInt8] { values.flatMap { v in (0..<8).map { UInt8(truncatingIfNeeded: v.bitPattern >> (8 * $0)) } } }

  /// The step counts of `values` at `d` decimals (a non-finite value repeats the step before, 0 at first) and the runs of non-finite values.
  static func steps(_ values: [Double], decimals d: Int) -> (steps: [Int64], runs: [(start: Int, length: Int)]) {
    var steps: [Int64] = [], runs: [(start: Int, length: Int)] = [], last: Int64 = 0
    for (i, v) in values.enumerated() {
      if v.isFinite {
        last = Int64((d >= 0 ? v * pow(10, Double(d)) : v / pow(10, Double(-d))).rounded())
      } else if let run = runs.last, run.start + run.length == i {
        runs[runs.count - 1].length += 1
      } else {
        runs.append((i, 1))
      }
      steps.append(last)
    }
    return (steps, runs)
  }

  /// The bytes of a column of `values` at `d` decimals: its steps', or raw Float64 past 2^50 steps.
  static func column(_ values: [Double], decimals d: Int) -> [UInt8] {
    guard fits(values, decimals: d) else { return raw(values) }
    let (steps, runs) = steps(values, decimals: d)
    return column(steps, runs: runs)
  }

  /// A column's bytes: its runs of `nan`, the order of fewest bits in all (the lowest on a tie), its blocks.
  static func column(_ q: [Int64], runs: [(start: Int, length: Int)] = []) -> [UInt8] {
    var out: [UInt8] = []
    varint(UInt64(runs.count), into: &out)
    var end = 0
    for run in runs {
      varint(UInt64(run.start - end), into: &out)
      varint(UInt64(run.length), into: &out)
      end = run.start + run.length
    }
    func residuals(_ order: Int) -> [Int64] {
      q.indices.map { k in
        let a = q[k], b = k >= 1 ? q[k - 1] : 0, c = k >= 2 ? q[k - 2] : 0
        return order == 0 ? a : order == 1 ? a &- b : (a &- b) &- (b &- c)
      }
    }
    let bits = (0..<3).map { residuals($0).reduce(0) { $0 + bitLength(zigzag($1)) } }
    var order = 0
    for o in 1..<3 where bits[o] < bits[order] { order = o }
    out.append(UInt8(order))
    let r = residuals(order)
    for start in stride(from: 0, to: r.count, by: ChartData.blockSize) {
      block(Array(r[start..<min(start + ChartData.blockSize, r.count)]), into: &out)
    }
    return out
  }

  /// A block: the widest code's width unless a narrower one with exceptions takes fewer bytes (the widest of those on a tie).
  static func block(_ r: [Int64], into out: inout [UInt8]) {
    let m = r.count
    let factor = r.reduce(0) { gcd($0, $1.magnitude) }
    let codes = r.map { zigzag(factor > 1 ? $0 / Int64(factor) : $0) }
    let lengths = codes.map(bitLength)
    let longest = lengths.max()!
    var width = longest, best = (longest * m + 7) / 8
    for w in Set(lengths.filter { $0 > 0 } + [0]).sorted(by: >) where w < longest {
      let exceptions = lengths.filter { $0 > w }
      let cost = (w * (m - exceptions.count) + 7) / 8 + exceptions.reduce(0) { $0 + ($1 + 6) / 7 } + 2
      if cost < best { best = cost; width = w }
    }
    let mask = lengths.indices.reduce(0) { $0 | (lengths[$1] > width ? 1 << $1 : 0) }
    out.append(UInt8(width) | (factor > 1 ? 64 : 0) | (mask != 0 ? 128 : 0))
    if factor > 1 { varint(factor, into: &out) }
    if mask != 0 { out += [UInt8(mask & 0xFF), UInt8(mask >> 8)] }
    var packed: [UInt8] = [], bit = 0
    for k in 0..<m where mask & (1 << k) == 0 {
      for b in 0..<width {
        if bit % 8 == 0 { packed.append(0) }
        if codes[k] >> UInt64(b) & 1 != 0 { packed[bit / 8] |= 1 << UInt8(bit % 8) }
        bit += 1
      }
    }
    out += packed
    for k in 0..<m where mask & (1 << k) != 0 { varint(codes[k], into: &out) }
  }
}

@Suite struct ChartDataBlockTests {
  /// The bytes of column `k` of `data`: from its start to the next column's.
  static func bytes(_ data: ChartData, _ k: Int) -> [UInt8] {
    let starts = data.descriptors.indices.map { ChartDataTests.integer(ChartDataTests.descriptor(data, $0)["at"])! }
    return Array(data.bytes[starts[k]..<(k + 1 < starts.count ? starts[k + 1] : data.bytes.count)])
  }

  /// Where two byte strings first differ, for a failure's message (the columns run to thousands of bytes).
  static func difference(_ a: [UInt8], _ b: [UInt8]) -> String {
    let i = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
    return "\(a.count) bytes against \(b.count), first differing at \(i): \(a[i..<min(a.count, i + 8)]) against \(b[i..<min(b.count, i + 8)])"
  }

  /// A random column of `n` values with `d` decimals: walks with flat stretches (a position, an equity while out),
  /// multiples of a size, sessions of time, sparse steps, values near 2^50, noise; with runs of nan and infinities.
  static func randomColumn(_ rng: inout SplitMix64, count n: Int, decimals d: Int) -> [Double] {
    func uniform(_ k: Int) -> Int { Int(rng.next() % UInt64(k)) }
    let unit = pow(10, Double(d))
    var steps: [Int64] = [], q = Int64(uniform(2_000_001) - 1_000_000)
    let kind = uniform(7), size = Int64([1, 2, 5, 100, 1_500, 1_800, 61_200][uniform(7)])
    var flat = uniform(2) == 0
    for i in 0..<n {
      if uniform(40) == 0 { flat.toggle() }
      switch kind {
      case 0: q += flat ? 0 : Int64(uniform(41) - 20)  // a walk that rests
      case 1: q += flat ? 0 : size * Int64(uniform(21) - 10)  // multiples
      case 2: q += i % 13 == 0 ? [63_000, 235_800, 64_800][uniform(3)] : 1_800  // sessions of half-hour bars
      case 3: q += uniform(8) == 0 ? [3, -3, 12, 7, size][uniform(5)] : 0  // sparse steps
      case 4: q = (1 << 50) - Int64(uniform(1_000_000)) * (uniform(9) == 0 ? -1 : 1)  // near 2^50, either sign
      case 5: q = Int64(uniform(2_001) - 1_000) * (uniform(16) == 0 ? 1 << 30 : 1)  // noise with large exceptions
      default: q += Int64(i % 7 == 0 ? uniform(3) - 1 : 1)  // a steady rise, where second differences are least
      }
      steps.append(q)
    }
    var values = steps.map { Double($0) / unit }
    if uniform(3) == 0 {
      var i = uniform(n + 1)
      while i < n {
        let length = 1 + uniform(uniform(4) == 0 ? 40 : 3)
        for k in i..<min(n, i + length) { values[k] = uniform(6) == 0 ? (uniform(2) == 0 ? .infinity : -.infinity) : .nan }
        i += length + uniform(200)
      }
    }
    return values
  }

  /// Sets a value of `values` (often in a later chunk) to one whose steps at `d` decimals are just past 2^50, just
  /// within it, or far past it, either sign; or leaves them.
  static func edge(_ values: inout [Double], _ rng: inout SplitMix64, decimals d: Int) {
    guard !values.isEmpty else { return }
    let unit = pow(10, Double(d)), i = Int(rng.next() % UInt64(values.count))
    let steps: Double = [0x4_0000_0000_0000 + 1, 0x4_0000_0000_0000, 0x4_0000_0000_0000 - 1, 1e300][Int(rng.next() % 4)]
    values[i] = (rng.next() % 2 == 0 ? 1 : -1) * (d >= 0 ? steps / unit : steps * pow(10, Double(-d)))
  }

  @Test("random columns pack to the bytes of a plain packer written from the format's description, or raw past 2^50 steps")
  func randomColumns() {
    var rng = SplitMix64(seed: 91)
    var raw = 0
    for round in 0..<40 {
      var data = ChartData()
      var columns: [(index: Int, values: [Double], decimals: Int)] = []
      for _ in 0..<8 {
        let n = [1, 15, 16, 17, 100, ChartData.chunk - 1, ChartData.chunk + 33, 2 * ChartData.chunk + 5][Int(rng.next() % 8)]
        let d = Int(rng.next() % 7) - 2
        var values = Self.randomColumn(&rng, count: n, decimals: d)
        if rng.next() % 4 == 0 { Self.edge(&values, &rng, decimals: d) }
        // The same decimals asked for directly or as significant digits of a magnitude.
        let precision = rng.next() % 2 == 0 ? ChartData.Precision.decimals(d) : .significant(4, of: pow(10, Double(3 - d)))
        columns.append((data.add(values, precision: precision), values, d))
      }
      for (index, values, d) in columns {
        let fits = ReferencePacker.fits(values, decimals: d)
        #expect(data.decimals[index] == (fits ? d : nil), "round \(round), column \(index)")
        if !fits { raw += 1 }
        let (packed, expected) = (Self.bytes(data, index), ReferencePacker.column(values, decimals: d))
        let same = packed == expected  // not in #expect, which would print both in full
        #expect(same, "round \(round), column \(index) of \(values.count): \(Self.difference(packed, expected))")
      }
    }
    #expect(raw > 20, "\(raw) raw columns")
  }

  @Test("a column is written raw when a value past 2^50 steps comes late, among nan and infinities, and not when at 2^50")
  func stepsPastTheLimit() {
    let n = 3 * ChartData.chunk + 5
    var base = (0..<n).map { Double($0 % 50) / 100 }
    for i in stride(from: 3, to: n, by: 101) { base[i] = i % 2 == 0 ? .nan : -.infinity }
    for (position, steps, fits) in [(n - 1, 0x4_0000_0000_0000 + 1.0, false), (2 * ChartData.chunk + 7, -1e300, false),
                                    (ChartData.chunk, 0x4_0000_0000_0000, true), (5, -0x4_0000_0000_0000, true)] {
      var values = base
      values[position] = steps / 100
      var data = ChartData()
      let k = data.add(values, precision: .decimals(2)), after = data.add(base, precision: .decimals(2))
      #expect(ReferencePacker.fits(values, decimals: 2) == fits)
      #expect(data.decimals[k] == (fits ? 2 : nil) && data.decimals[after] == 2, "\(steps) steps at \(position)")
      #expect(Self.bytes(data, k) == ReferencePacker.column(values, decimals: 2), "\(steps) steps at \(position)")
      let description = ChartDataTests.descriptor(data, k)
      #expect(fits ? ChartDataTests.integer(description["dec"]) == 2 : description["f64"] == .bool(true), "\(steps) steps at \(position)")
    }
  }

  @Test("random bars' prices pack to the plain packer's bytes of their predicted steps")
  func randomPrices() {
    var rng = SplitMix64(seed: 92)
    func uniform(_ k: Int) -> Int { Int(rng.next() % UInt64(k)) }
    for round in 0..<12 {
      let n = [17, 700, ChartData.chunk + 100, 3 * ChartData.chunk][round % 4]
      var open: [Int64] = [], high: [Int64] = [], low: [Int64] = [], close: [Int64] = [], c: Int64 = 50_000
      let tick = Int64([1, 5, 25][uniform(3)]), quiet = uniform(2) == 0
      for _ in 0..<n {
        let o = c + (uniform(4) == 0 ? tick * Int64(uniform(21) - 10) : 0)
        c = max(100, o + (quiet && uniform(3) > 0 ? 0 : tick * Int64(uniform(61) - 30)))
        open.append(o); close.append(c)
        high.append(max(o, c) + (uniform(3) == 0 ? 0 : tick * Int64(uniform(25))))
        low.append(min(o, c) - (uniform(3) == 0 ? 0 : tick * Int64(uniform(25))))
      }
      func prices(_ cents: [Int64]) -> ContiguousArray<Double> { ContiguousArray(cents.map { Double($0) / 100 }) }
      var data = ChartData()
      let index = data.addPrices(open: prices(open), high: prices(high), low: prices(low), close: prices(close))
      // The steps at the decimals found (fewer than 2 when every price is a multiple of 10 cents).
      let d = data.decimals[index[3]]!
      func steps(_ cents: [Int64]) -> [Int64] { ReferencePacker.steps(Array(prices(cents)), decimals: d).steps }
      (open, high, low, close) = (steps(open), steps(high), steps(low), steps(close))
      let lastClose = [0] + close.dropLast()
      let predicted = [
        zip(open, lastClose).map { $0 &- $1 },
        high.indices.map { high[$0] &- max(open[$0], close[$0]) },
        low.indices.map { low[$0] &- min(open[$0], close[$0]) },
        close,
      ]
      for k in 0..<4 {
        let (packed, expected) = (Self.bytes(data, index[k]), ReferencePacker.column(predicted[k]))
        let same = packed == expected  // not in #expect, which would print both in full
        #expect(same, "round \(round), price \(k) of \(n): \(Self.difference(packed, expected))")
      }
    }
  }

  @Test("bars' prices are predicted when every one is finite and within 2^50 steps at the most decimals of the four, else apart")
  func pricesPredictedOrApart() {
    var rng = SplitMix64(seed: 93)
    func uniform(_ k: Int) -> Int { Int(rng.next() % UInt64(k)) }
    let n = 2 * ChartData.chunk + 9
    var ohlc: [[Double]] = [[], [], [], []], c = 50_000
    for _ in 0..<n {
      let o = c + uniform(21) - 10
      c = max(100, o + uniform(61) - 30)
      for (k, cents) in [o, max(o, c) + uniform(25), min(o, c) - uniform(25), c].enumerated() { ohlc[k].append(Double(cents) / 100) }
    }
    // A price changed: (column, index, value). A first close of 1e13 is tested at 0 decimals, before the cents
    // raise them to 2: 10^15 steps there, within 2^50; 2e13 is not.
    let changes: [(Int, Int, Double)] = [(0, 0, ohlc[0][0]), (0, n - 3, 123.456), (3, 0, 1e13), (3, 0, 2e13), (1, n - 1, 1.5e13),
                                         (2, ChartData.chunk + 1, .nan), (1, 5, -.infinity)]
    var predictions = 0
    for (column, index, value) in changes {
      var prices = ohlc
      prices[column][index] = value
      let found = prices.map { ReferencePacker.exactDecimals($0, maxDecimals: 8) }
      var predicted = false
      if found.allSatisfy({ $0 != nil }), let d = found.compactMap({ $0 }).max() {
        predicted = prices.allSatisfy { $0.allSatisfy(\.isFinite) && ReferencePacker.fits($0, decimals: d) }
        if predicted { predictions += 1 }
      }
      var data = ChartData()
      let k = data.addPrices(open: ContiguousArray(prices[0]), high: ContiguousArray(prices[1]), low: ContiguousArray(prices[2]),
                             close: ContiguousArray(prices[3]))
      let label = "\(value) at \(index) of column \(column)"
      #expect((ChartDataTests.descriptor(data, k[0])["pred"] != nil) == predicted, "\(label)")
      if predicted {
        #expect(k.allSatisfy { data.decimals[$0] == found.compactMap { $0 }.max() }, "\(label)")
        #expect(zip(k, prices).allSatisfy { ChartDataTests.decode(data, $0) == $1 }, "\(label)")
      } else {
        // As four columns added apart.
        var apart = ChartData()
        for values in prices { apart.add(values, precision: .exact(maxDecimals: 8, otherwise: 7)) }
        #expect(data.bytes == apart.bytes && data.descriptors == apart.descriptors, "\(label)")
      }
    }
    #expect(predictions == 3)
  }
}
