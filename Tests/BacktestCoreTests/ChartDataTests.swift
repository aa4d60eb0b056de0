@testable import BacktestCore
@testable import BacktestRun
import Foundation
import Testing

/// Reads columns as `ChartData`'s comment describes them, bit by bit: a
/// second implementation of the format, written from its description.
struct ChartDataReader {
  let bytes: [UInt8]
  var position = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  mutating func byte() -> UInt8 { defer { position += 1 }; return bytes[position] }

  mutating func varint() -> UInt64 {
    var value: UInt64 = 0, shift: UInt64 = 0
    while true {
      let b = byte()
      value |= UInt64(b & 0x7F) << shift
      if b < 0x80 { return value }
      shift += 7
    }
  }

  /// The step counts of a quantized column of `n` values (before any prediction), and its `nan` positions.
  mutating func steps(count n: Int) -> (steps: [Int64], nan: Set<Int>) {
    var nan = Set<Int>(), end = 0
    for _ in 0..<varint() {
      let start = end + Int(varint()), length = Int(varint())
      for i in start..<(start + length) { nan.insert(i) }
      end = start + length
    }
    let order = byte()
    var residuals: [Int64] = []
    while residuals.count < n {
      let m = min(16, n - residuals.count)
      let header = byte()
      let width = Int(header & 63)
      let factor = header & 64 != 0 ? Int64(varint()) : 1
      let mask = header & 128 != 0 ? UInt16(byte()) | UInt16(byte()) << 8 : 0
      var codes = [UInt64](repeating: 0, count: m)
      var bit = 0
      for k in 0..<m where mask & (1 << k) == 0 {
        for b in 0..<width where bytes[position + (bit + b) / 8] & (1 << ((bit + b) % 8)) != 0 { codes[k] |= 1 << UInt64(b) }
        bit += width
      }
      position += (bit + 7) / 8
      for k in 0..<m where mask & (1 << k) != 0 { codes[k] = varint() }
      for code in codes {
        let value = code % 2 == 0 ? Int64(code / 2) : -Int64((code + 1) / 2)
        residuals.append(value * factor)
      }
    }
    var steps: [Int64] = [], q: Int64 = 0, d: Int64 = 0
    for r in residuals {
      switch order {
      case 0: q = r
      case 1: q += r
      default: d += r; q += d
      }
      steps.append(q)
    }
    return (steps, nan)
  }
}

@Suite struct ChartDataTests {
  static func descriptor(_ data: ChartData, _ k: Int) -> [String: JSONValue] {
    guard case .object(let fields) = data.descriptors[k] else { return [:] }
    return Dictionary(uniqueKeysWithValues: fields)
  }

  static func integer(_ v: JSONValue?) -> Int? { if case .integer(let i)? = v { i } else { nil } }

  /// Column `k` of `data` as the reader decodes it (predictions applied).
  static func decode(_ data: ChartData, _ k: Int) -> [Double] {
    let d = descriptor(data, k), n = integer(d["n"])!, at = integer(d["at"])!
    if d["f64"] != nil {
      return (0..<n).map { i in Double(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(data.bytes[at + i * 8 + $1]) << (8 * UInt64($1)) }) }
    }
    var reader = ChartDataReader(data.bytes)
    reader.position = at
    var (steps, nan) = reader.steps(count: n)
    if case .array(let pred)? = d["pred"], case .string(let kind) = pred[0] {
      let x = stepsOf(data, integer(pred[1])!), y = pred.count > 2 ? stepsOf(data, integer(pred[2])!) : []
      /// floor(a / b), b > 0.
      func floorDivided(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
      let argument = integer(d["arg"]).map(Int64.init) ?? 0
      for i in 0..<n {
        switch kind {
        case "lag": steps[i] += i == 0 ? 0 : x[i - 1]
        case "max": steps[i] += max(x[i], y[i])
        case "min": steps[i] += min(x[i], y[i])
        case "mean" where i >= argument - 1:
          let sum = x[(i - Int(argument) + 1)...i].reduce(0, +)
          steps[i] += floorDivided(2 * sum + argument, 2 * argument)
        case "mean": break
        case "mirror": steps[i] += 2 * x[i] - y[i]
        case "offset": steps[i] += x[i]
        case "product":
          let scale = Int64(pow(10, Double(argument)))
          steps[i] += floorDivided(2 * x[i] * y[i] + scale, 2 * scale)
        default: Issue.record("unknown prediction \(kind)")
        }
      }
    }
    let decimals = integer(d["dec"])!
    let scale = pow(10, Double(abs(decimals)))
    return (0..<n).map { nan.contains($0) ? .nan : decimals >= 0 ? Double(steps[$0]) / scale : Double(steps[$0]) * scale }
  }

  static func stepsOf(_ data: ChartData, _ k: Int) -> [Int64] {
    let d = descriptor(data, k)
    // A nan repeats the step before it (0 before the first), as the format has it.
    let values = decode(data, k), scale = pow(10, Double(integer(d["dec"])!))
    var previous: Int64 = 0
    return values.map { v in
      if !v.isNaN { previous = Int64((v * scale).rounded()) }
      return previous
    }
  }

  /// Columns that exercise each part of the format.
  static func columns() -> [(name: String, values: [Double], precision: ChartData.Precision, decimals: Int?)] {
    var rng = SplitMix64(seed: 11)
    let n = 1_000
    var walk: [Double] = [], price = 5_000.0
    for _ in 0..<n { price += Double(Int(rng.next() % 41) - 20); walk.append(price / 100) }
    var jumps = walk
    for i in stride(from: 7, to: n, by: 13) { jumps[i] = Double(Int64(rng.next() % (1 << 49))) / 100 }
    var gaps = walk
    for i in 0..<30 { gaps[i] = .nan }
    for i in 500..<517 { gaps[i] = .nan }
    gaps[n - 1] = .nan
    var multiples: [Double] = [], smooth: [Double] = []
    for i in 0..<n {
      let k = Int(rng.next() % 11) - 5
      multiples.append(Double(2_000 * k + 100_000))
      smooth.append(100 + 30 * sin(Double(i) / 50))
    }
    return [
      ("cents", walk, .exact(maxDecimals: 8, otherwise: 7), 2),
      ("large jumps and exceptions", jumps, .exact(maxDecimals: 8, otherwise: 7), 2),
      ("nan runs", gaps, .exact(maxDecimals: 8, otherwise: 7), 2),
      ("common factors", multiples, .exact(maxDecimals: 8, otherwise: 7), 0),
      ("constant", [Double](repeating: 7.25, count: 37), .exact(maxDecimals: 8, otherwise: 7), 2),
      ("one value", [3], .decimals(2), 2),
      ("none", [], .decimals(2), 2),
      ("rounded to 4 significant digits", smooth, .significant(4, of: 130), 1),
      ("rounded to thousands", smooth.map { $0 * 1_000 }, .significant(3, of: 130_000), -3),
      ("raw when not exact", smooth, .exact(maxDecimals: 8, otherwise: nil), nil),
    ]
  }

  @Test("every column reads back: exact decimals exactly, rounded ones to their step, nan where it was, raw Float64 bit for bit")
  func roundTrip() {
    for column in Self.columns() {
      var data = ChartData()
      let k = data.add(column.values, precision: column.precision)
      #expect(data.decimals[k] == column.decimals, "\(column.name)")
      let decoded = Self.decode(data, k)
      #expect(decoded.count == column.values.count, "\(column.name)")
      for (i, (a, b)) in zip(decoded, column.values).enumerated() {
        if b.isNaN { #expect(a.isNaN, "\(column.name)[\(i)]"); continue }
        guard let d = column.decimals else { #expect(a.bitPattern == b.bitPattern, "\(column.name)[\(i)]"); continue }
        // Exact columns come back equal; rounded ones within half a step.
        let step = pow(10, -Double(d))
        #expect(column.name.hasPrefix("rounded") ? abs(a - b) <= step / 2 * (1 + 1e-12) : a == b, "\(column.name)[\(i)]: \(a) vs \(b)")
      }
    }
  }

  @Test("open, high, low and close read back exactly through their predictions, and take less room than alone")
  func prices() {
    let bars = SyntheticBars.generate(count: 5_000, seed: 4)
    var data = ChartData()
    let k = data.addPrices(open: bars.open, high: bars.high, low: bars.low, close: bars.close)
    for (column, values) in zip(k, [bars.open, bars.high, bars.low, bars.close]) { #expect(Self.decode(data, column) == Array(values)) }
    var separate = ChartData()
    for values in [bars.open, bars.high, bars.low, bars.close] { separate.add(values, precision: .exact(maxDecimals: 8, otherwise: 7)) }
    #expect(Double(data.bytes.count) < 0.85 * Double(separate.bytes.count), "\(data.bytes.count) against \(separate.bytes.count) bytes")
  }

  @Test("moving averages, bands and equity read back exactly through their predictions (mean of the close, mirror and offset about the middle, position × close), in a fraction of the room")
  func predictions() throws {
    let bars = SyntheticBars.generate(count: 20_000, seed: 6)
    let config = try runConfig("name: p\ndata: {bars: ../Data/GOOG.csv}\nstrategy: {type: bollinger_rsi}\n")
    let output = Backtest.execute(config, RunInputs(bars: bars))
    let chart = InteractiveChart.run(output, charts: RunCharts(output))
    let spec = chart.spec
    guard case .object(let fields) = spec, case .array(let columns)? = fields.first(where: { $0.0 == "columns" })?.1 else { Issue.record("no columns"); return }
    var kinds: [String: Int] = [:]
    for column in columns {
      guard case .object(let c) = column, case .array(let pred)? = c.first(where: { $0.0 == "pred" })?.1, case .string(let kind) = pred[0] else { continue }
      kinds[kind, default: 0] += 1
    }
    #expect(kinds == ["lag": 1, "max": 1, "min": 1, "mean": 1, "mirror": 1, "offset": 1, "product": 2], "\(kinds)")
    // Each column reads back as its values at its decimals, and the predicted ones take little room.
    let data = chart.data
    let bands = ["bb_lower", "bb_mid", "bb_upper"].map { name in output.run.indicators.first { $0.name == name }!.values }
    let expected: [(String, ContiguousArray<Double>, Int)] = [("bb_mid", bands[1], 2), ("bb_lower", bands[0], 2), ("bb_upper", bands[2], 2),
                                                              ("equity", output.run.result.equity, 2), ("benchmark", output.benchmark.equity, 2)]
    for (name, values, decimals) in expected {
      let k = try #require(columns.indices.first { k in
        let decoded = Self.decode(data, k)
        return decoded.count == values.count && zip(decoded, values).allSatisfy { a, b in b.isNaN ? a.isNaN : abs(a - b) <= 0.5 * pow(10, -Double(decimals)) + 1e-9 }
      }, "\(name) not found among the columns read back")
      let d = Self.descriptor(data, k)
      #expect(d["pred"] != nil, "\(name) is not predicted")
      var alone = ChartData()
      alone.add(values, precision: .decimals(decimals))
      let size = (k + 1 < columns.count ? Self.integer(Self.descriptor(data, k + 1)["at"])! : data.bytes.count) - Self.integer(d["at"])!
      #expect(Double(size) < (name == "bb_lower" ? 1.0 : 0.6) * Double(alone.bytes.count), "\(name): \(size) bytes, alone \(alone.bytes.count)")
    }
  }

  @Test("prices whose every column changes order after the first chunk read back exactly (the chunks before are made again)")
  func pricesOrderSettlesLate() {
    // The first chunk: each column (less its prediction) a steady ramp, where second differences are smallest;
    // after it noise, where for the close (about a level) first differences are and for the others the values themselves.
    let n = 6 * ChartData.chunk + 37
    var rng = SplitMix64(seed: 5)
    func uniform(_ k: Int) -> Int { Int(rng.next() % UInt64(k)) }
    var open: ContiguousArray<Double> = [], high: ContiguousArray<Double> = [], low: ContiguousArray<Double> = []
    var close: ContiguousArray<Double> = [], c = 100_000
    let level = c + ChartData.chunk
    for i in 0..<n {
      let ramp = i < ChartData.chunk
      let o = c + (ramp ? i : uniform(21) - 10)
      c = ramp ? c + 1 : level + uniform(41) - 20
      open.append(Double(o) / 100); close.append(Double(c) / 100)
      high.append(Double(max(o, c) + (ramp ? i : uniform(20))) / 100)
      low.append(Double(min(o, c) - (ramp ? i : uniform(20))) / 100)
    }
    var data = ChartData()
    let k = data.addPrices(open: open, high: high, low: low, close: close)
    for (column, values) in zip(k, [open, high, low, close]) { #expect(Self.decode(data, column) == Array(values)) }
  }

  /// Columns of several chunks (`ChartData.chunk`), with runs of `nan` across chunk boundaries and at the ends, and bars' prices.
  static func longColumns(_ data: inout ChartData) -> (columns: [(index: Int, values: [Double])], prices: [Int], bars: BarSeries) {
    let n = 3 * ChartData.chunk + 37
    var gaps = columns()[0].values
    while gaps.count < n { gaps += gaps }
    gaps = Array(gaps.prefix(n))
    for i in (ChartData.chunk - 5)..<(ChartData.chunk + 9) { gaps[i] = .nan }
    for i in (2 * ChartData.chunk - 1)..<(2 * ChartData.chunk + 1) { gaps[i] = .infinity }
    for i in 0..<3 { gaps[i] = .nan }
    gaps[n - 1] = .nan
    let bars = SyntheticBars.generate(count: n, seed: 9)
    var columns: [(Int, [Double])] = []
    columns.append((data.add(gaps, precision: .exact(maxDecimals: 8, otherwise: 7)), gaps))
    let prices = data.addPrices(open: bars.open, high: bars.high, low: bars.low, close: bars.close)
    let smooth = (0..<n).map { 100 + 30 * sin(Double($0) / 50) }
    columns.append((data.add(smooth, precision: .exact(maxDecimals: 8, otherwise: nil)), smooth))
    let volume = Array(bars.volume)
    columns.append((data.add(volume, precision: .decimals(0)), volume))
    return (columns, prices, bars)
  }

  @Test("columns of several chunks read back exactly, nan runs across chunk boundaries included")
  func longColumnsRoundTrip() {
    var data = ChartData()
    let (columns, prices, bars) = Self.longColumns(&data)
    for (k, values) in columns {
      let decoded = Self.decode(data, k)
      #expect(decoded.count == values.count)
      for (i, (a, b)) in zip(decoded, values).enumerated() where !(a.isNaN && !b.isFinite) {
        #expect(a.bitPattern == b.bitPattern, "column \(k)[\(i)]: \(a) vs \(b)")
      }
    }
    for (column, values) in zip(prices, [bars.open, bars.high, bars.low, bars.close]) { #expect(Self.decode(data, column) == Array(values)) }
  }

  /// Columns of five chunks and more that take each path of the packer, added to `data` with bars' prices:
  /// an order that changes after the first chunks, a factor that repeats from block to block, blocks of
  /// 0 and ±factor, exceptions, codes of 29 bits and more, codes past 2^52, runs of nan and infinities,
  /// negative decimals, exact decimals that run out. Whether each is rounded, and its values.
  static func packerColumns(_ data: inout ChartData) -> [(index: Int, name: String, rounded: Bool, values: [Double])] {
    let n = 5 * ChartData.chunk + 37
    var rng = SplitMix64(seed: 2024)
    func uniform(_ k: Int) -> Int { Int(rng.next() % UInt64(k)) }
    var columns: [(Int, String, Bool, [Double])] = []
    func add(_ name: String, _ values: [Double], _ precision: ChartData.Precision, rounded: Bool = false) {
      columns.append((data.add(values, precision: precision), name, rounded, values))
    }
    // A steady rise, where second differences are smallest, then noise, where first differences are.
    let late = (0..<n).map { $0 < ChartData.chunk ? Double(1_000 + $0) / 100 : Double(uniform(1_001) + 500) / 100 }
    add("order settles late", late, .decimals(2))
    // Shares times a walk of cents (buy and hold's equity).
    var held: [Double] = [], cents = 500_000
    for _ in 0..<n { cents += (uniform(41) - 20) * (uniform(30) == 0 ? 2 : 1); held.append(Double(cents * 1_500) / 100) }
    add("multiples", held, .decimals(2))
    // Wall-clock seconds of sessions of bars.
    var seconds: [Double] = [], t = 1_700_000_000.0
    for i in 0..<n { t += i % 13 == 0 ? [63_000.0, 235_800, 64_800][uniform(3)] : 1_800; seconds.append(t) }
    add("sessions", seconds, .decimals(0))
    // Blocks of a few steps of one size each, and of several sizes.
    var steps: [Double] = [], s = 0.0
    for i in 0..<n { s += uniform(8) == 0 ? Double([3, -3, 12, 7][i / 16 % 4]) : 0; steps.append(s) }
    add("sparse steps", steps, .decimals(0))
    var wide: [Double] = [], w = 1.0
    for _ in 0..<n { w *= 1 + (Double(uniform(2_001)) - 1_000) * 1e-5; wide.append(w * 10_000) }
    add("wide", wide, .decimals(8), rounded: true)
    var gaps = late
    for i in 0..<n where i < 5 || i >= n - 3 || (i + 9) % ChartData.chunk < 20 || uniform(300) == 0 { gaps[i] = uniform(5) == 0 ? .infinity : .nan }
    add("nan runs", gaps, .exact(maxDecimals: 8, otherwise: 7))
    add("thousands", wide.map { $0 * 1e7 }, .significant(3, of: 2e7), rounded: true)
    add("exact, then rounded", wide, .exact(maxDecimals: 6, otherwise: 9), rounded: true)
    // A walk near 2^50 that at times changes sign.
    var huge: [Double] = [], h = (1 << 50) - 1_000_000
    for i in 0..<n {
      h += uniform(2_001) - 1_000
      huge.append(Double(i % 97 == 0 ? -(1 << 50) : i % 97 == 1 ? 1 << 50 : h))
    }
    add("huge", huge, .decimals(0))
    // Bars' prices in cents, the high and low often the larger and smaller of open and close.
    rng = SplitMix64(seed: 7)
    var open: [Double] = [], high: [Double] = [], low: [Double] = [], close: [Double] = [], c = 10_000
    for _ in 0..<n {
      let o = c + (uniform(4) == 0 ? uniform(21) - 10 : 0)
      c = max(100, o + uniform(61) - 30)
      open.append(Double(o) / 100); close.append(Double(c) / 100)
      high.append(Double(max(o, c) + (uniform(3) == 0 ? 0 : uniform(25))) / 100)
      low.append(Double(min(o, c) - (uniform(3) == 0 ? 0 : uniform(25))) / 100)
    }
    let ohlc = [open, high, low, close]
    let prices = data.addPrices(open: ContiguousArray(open), high: ContiguousArray(high), low: ContiguousArray(low), close: ContiguousArray(close))
    for (k, name) in ["open", "high", "low", "close"].enumerated() { columns.append((prices[k], name, false, ohlc[k])) }
    return columns
  }

  @Test("columns that take each path of the packer read back: exact ones exactly, rounded ones to their step, nan where it was")
  func packerPaths() {
    var data = ChartData()
    for (k, name, rounded, values) in Self.packerColumns(&data) {
      let decoded = Self.decode(data, k), step = pow(10, -Double(data.decimals[k]!))
      #expect(decoded.count == values.count, "\(name)")
      for (i, (a, b)) in zip(decoded, values).enumerated() {
        if !b.isFinite { #expect(a.isNaN, "\(name)[\(i)]"); continue }
        #expect(rounded ? abs(a - b) <= step / 2 * (1 + 1e-12) : a == b, "\(name)[\(i)]: \(a) vs \(b)")
      }
    }
  }

  @Test("those columns pack to the bytes of the first packer (181,493 bytes, FNV-1a 0x61ead829560ccf93)")
  func packerBytes() {
    var data = ChartData()
    _ = Self.packerColumns(&data)
    let fingerprint = data.bytes.reduce(0xCBF2_9CE4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    #expect(data.bytes.count == 181_493 && fingerprint == 0x61EA_D829_560C_CF93, "\(data.bytes.count) bytes, FNV-1a \(String(fingerprint, radix: 16))")
  }

  @Test("the columns packed on several threads are the bytes and descriptions packed on one, also when packed in two rounds")
  func concurrentPacking() {
    var one = ChartData(), several = ChartData(), rounds = ChartData()
    one.workers = 1
    several.workers = 4
    rounds.workers = 2
    _ = Self.longColumns(&one)
    _ = Self.longColumns(&several)
    _ = Self.longColumns(&rounds)
    // Asking for the bytes packs the columns so far; those added after are packed when next asked for.
    #expect(rounds.bytes.count > 0)
    for column in Self.columns() {
      one.add(column.values, precision: column.precision)
      several.add(column.values, precision: column.precision)
      rounds.add(column.values, precision: column.precision)
    }
    #expect(one.bytes.count > 10 * ChartData.chunk)
    #expect(several.bytes == one.bytes && rounds.bytes == one.bytes)
    #expect(several.descriptors == one.descriptors && rounds.descriptors == one.descriptors)
    #expect(several.text == one.text)
  }

  @Test("a copy of the columns packs apart from the original")
  func copies() {
    var data = ChartData()
    data.add([1, 2, 3], precision: .decimals(0))
    _ = data.bytes
    var copy = data
    copy.add([4.5], precision: .decimals(1))
    data.add([7, 8], precision: .decimals(0))
    #expect(Self.decode(copy, 1) == [4.5] && Self.decode(data, 1) == [7, 8])
    #expect(Self.decode(copy, 0) == [1, 2, 3] && Self.decode(data, 0) == [1, 2, 3])
  }

  @Test("a random walk of cents takes about a byte a value")
  func compact() {
    let walk = Self.columns()[0].values
    var data = ChartData()
    data.add(walk, precision: .decimals(2))
    #expect(data.bytes.count < walk.count * 9 / 10, "\(data.bytes.count) bytes for \(walk.count) values")
  }

  /// The bytes of `text` as the page's script reads them (`bytesFromText`), written again from its description:
  /// each character below U+0080 is a group of 7 bits; one from U+0080 is the unsafe group its index names and
  /// the group in its low 7 bits; the groups' bits, most significant first, make the bytes (whole ones only).
  static func readText(_ text: String) -> [UInt8] {
    let unsafe: [UInt8] = [0, 10, 13, 34, 92, 60]
    var groups: [UInt8] = []
    for scalar in text.unicodeScalars {
      let c = Int(scalar.value)
      if c < 128 { groups.append(UInt8(c)) } else { groups.append(unsafe[(c - 128) >> 7]); groups.append(UInt8((c - 128) & 127)) }
    }
    var bits: [Bool] = []
    for g in groups { for k in (0..<7).reversed() { bits.append(g >> UInt8(k) & 1 == 1) } }
    return stride(from: 0, to: bits.count / 8 * 8, by: 8).map { i in (0..<8).reduce(UInt8(0)) { $0 << 1 | (bits[i + $1] ? 1 : 0) } }
  }

  @Test("the chart data's text reads back as its bytes for every length and every group (the unsafe ones escaped, at the end too), holds none of NUL, LF, CR, quote, backslash and <, and takes 8/7 of the bytes (base64: 4/3)")
  func text() {
    var rng = SplitMix64(seed: 2)
    var cases: [[UInt8]] = [0, 1, 2, 6, 7, 8, 9, 13, 14, 15, 100, 1_001].map { n in (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) } }
    // Every group in every position of a 7-byte word, and words ending in runs of unsafe groups (odd and even).
    for g in 0..<128 { for shift in 0..<8 { cases.append(Self.groups([g] + [Int](repeating: 65, count: shift)) ) } }
    for unsafe in [0, 10, 13, 34, 92, 60] { for run in 1...5 { cases.append(Self.groups([65, 66] + [Int](repeating: unsafe, count: run))) } }
    for bytes in cases {
      let text = ChartData.text(bytes)
      let read = Self.readText(text)
      #expect(Array(read.prefix(bytes.count)) == bytes && read.count - bytes.count <= 1 && read.dropFirst(bytes.count).allSatisfy { $0 == 0 }, "\(bytes)")
      #expect(!text.unicodeScalars.contains { [0, 10, 13, 34, 92, 60].contains($0.value) || $0.value > 0x37F }, "\(bytes)")
      #expect(ChartData.textLength(bytes) == text.utf8.count, "\(bytes)")
    }
    let random = (0..<70_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    let length = ChartData.text(random).utf8.count
    #expect(length == (8 * random.count + 6) / 7 || length == (8 * random.count + 6) / 7 + 1, "\(length) for \(random.count) bytes")
  }

  /// Bytes whose 7-bit groups are `groups` (padded with 0s).
  static func groups(_ groups: [Int]) -> [UInt8] {
    var bits: [Bool] = []
    for g in groups { for k in (0..<7).reversed() { bits.append(g >> k & 1 == 1) } }
    while bits.count % 8 != 0 { bits.append(false) }
    return stride(from: 0, to: bits.count, by: 8).map { i in (0..<8).reduce(UInt8(0)) { $0 << 1 | (bits[i + $1] ? 1 : 0) } }
  }

  @Test("the text in pieces, and a page holding it, give the same text as at once")
  func textPieces() {
    var rng = SplitMix64(seed: 3)
    for n in [0, 1, 2, 6, 7, 8, 13, 14, 15, 48, 49, 1_000] {
      let bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) } + (n > 10 ? [0, 0, 0, 0] : [])
      let whole = ChartData.text(bytes)
      for piece in [7, 14, 49] {
        var text: [UInt8] = [], pieces = 0
        ChartData.text(bytes, in: piece) { text += $0; pieces += 1 }
        #expect(String(decoding: text, as: UTF8.self) == whole, "\(n) bytes in pieces of \(piece)")
        #expect(pieces >= (bytes.count + piece - 1) / piece && pieces <= (bytes.count + piece - 1) / piece + 1, "\(n) bytes in pieces of \(piece)")
      }
      var page = PagedText("<p>é</p>\"")
      page.append(packed: bytes)
      page += "\";"
      page.append(packed: bytes)
      let expected = "<p>é</p>\"" + whole + "\";" + whole
      #expect(page.text == expected && page.count == expected.utf8.count, "\(n) bytes")
      var written: [UInt8] = []
      page.write { written += $0 }
      #expect(written == Array(expected.utf8), "\(n) bytes")
    }
  }

  @Test("a column's wall-clock seconds follow the zone's daylight-saving changes")
  func wallClock() {
    // 2024-03-08 15:00 EST, then 2024-03-11 09:30 EDT, 2024-11-04 09:30 EST (instants in UTC).
    let instants: ContiguousArray<Int64> = [1_709_928_000, 1_710_163_800, 1_730_730_600]
    let (local, offsets) = InteractiveChart.wallClock(instants, TimeZone(identifier: "America/New_York")!)
    #expect(Array(local) == [1_709_910_000, 1_710_149_400, 1_730_712_600])
    #expect(offsets.map(\.bar) == [0, 1, 2] && offsets.map(\.seconds) == [-18_000, -14_400, -18_000])
    // No bar, and one stretch of many bars (every one written, the column is made uninitialized).
    let none = InteractiveChart.wallClock([], TimeZone(identifier: "America/New_York")!)
    #expect(none.0.isEmpty && none.1.isEmpty)
    let minutes = ContiguousArray((0..<5_000).map { 1_710_163_800 + Int64($0) * 60 })
    let (summer, one) = InteractiveChart.wallClock(minutes, TimeZone(identifier: "America/New_York")!)
    #expect(Array(summer) == minutes.map { Double($0 - 14_400) } && one.map(\.bar) == [0])
  }
}
