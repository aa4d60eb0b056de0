import Foundation

/// Columns of numbers packed compactly for the interactive charts' script
/// (`ChartScript`), with a description of each (`descriptor`).
///
/// A column is quantized to a decimal step, `value = q / 10^d` (or
/// `q × 10^-d` for `d < 0`): exactly when every value is a decimal of at
/// most `d` places, else to the precision asked for. The integers `q` (less
/// a prediction from other columns, for prices: `pred` in the descriptor) are
/// written as themselves or as differences of the first or the second order,
/// whichever is smallest, zigzag-coded (`0, -1, 1, -2` → `0, 1, 2, 3`), in
/// blocks of 16:
///
///     header byte   bits 0–5: width w; bit 6: a factor g follows (varint) and
///                   divides every difference of the block; bit 7: a 16-bit
///                   little-endian mask of exceptions follows
///     packed        the values not in the mask, w bits each, least significant
///                   bit first, padded to a whole byte
///     exceptions    the values in the mask, as varints, in order
///
/// The column starts with its runs of `nan` (a varint count, then a varint gap
/// from the previous run's end and a varint length for each; the values in a
/// run repeat the one before it) and a byte holding the order. Varints are
/// little-endian base 128. A column whose steps would pass 2^50 is written
/// as raw little-endian Float64 instead.
struct ChartData {
  /// How finely a column is quantized.
  enum Precision {
    /// Exactly, with the fewest decimals (at most `maxDecimals`) that hold
    /// every value; when there are none, to `otherwise` significant digits of
    /// the largest magnitude, or as raw Float64 for `nil`.
    case exact(maxDecimals: Int, otherwise: Int?)
    /// To a fixed number of decimals.
    case decimals(Int)
    /// To `digits` significant digits of `magnitude`.
    case significant(Int, of: Double)
  }

  static let blockSize = 16
  /// The largest step count a column may reach: differences of the second
  /// order stay within 2^52, so zigzag codes stay exact in JavaScript numbers.
  static let maxSteps = 1_125_899_906_842_624.0  // 2^50

  /// The columns as added, each packed when the bytes are first asked for.
  private var columns: [Column] = []
  /// Each column's description after its `at`: how many values, its decimals (or `f64`), its prediction.
  private var fields: [[(String, JSONValue)]] = []
  /// Each column's decimals; `nil` for raw Float64.
  private(set) var decimals: [Int?] = []
  /// Threads that pack the columns (each column on one; the bytes are the same for any number).
  var workers = ProcessInfo.processInfo.activeProcessorCount
  private var packed = Packed()

  /// The packed columns, one after the other.
  var bytes: [UInt8] { pack().bytes }

  /// One entry per column: where it starts, how many values, its decimals (or `f64`), its prediction.
  var descriptors: [JSONValue] {
    let starts = pack().starts
    return fields.indices.map { .object([("at", .integer(starts[$0]))] + fields[$0]) }
  }

  /// Appends a column and returns its index; it is packed (on `workers` threads, with the others) when the bytes are first asked for.
  ///
  /// - Complexity: O(n) now, to find the decimals; O(n) when packed.
  @discardableResult
  mutating func add(_ values: ContiguousArray<Double>, precision: Precision) -> Int {
    let scan = values.withUnsafeBufferPointer { Self.scan($0, precision) }
    if let d = scan.decimals, Self.fits(largest: scan.largest, decimals: d) {
      return append(.steps(values, decimals: d), [("n", .integer(values.count)), ("dec", .integer(d))], decimals: d)
    }
    return append(.raw(values), [("n", .integer(values.count)), ("f64", .bool(true))], decimals: nil)
  }

  @discardableResult
  mutating func add(_ values: [Double], precision: Precision) -> Int { add(ContiguousArray(values), precision: precision) }

  private mutating func append(_ column: Column, _ description: [(String, JSONValue)], decimals d: Int?) -> Int {
    if !isKnownUniquelyReferenced(&packed) { packed = packed.copy() }
    columns.append(column)
    fields.append(description)
    decimals.append(d)
    return columns.count - 1
  }

  /// Adds the open, high, low and close of bars with one number of decimals
  /// (the fewest that hold every price exactly, else 7 significant digits),
  /// each predicted from another: the close from the close before, the open
  /// from the close before, the high from the larger and the low from the
  /// smaller of open and close. Returns their indices in that order (open,
  /// high, low, close).
  mutating func addPrices(open: ContiguousArray<Double>, high: ContiguousArray<Double>, low: ContiguousArray<Double>,
                          close: ContiguousArray<Double>) -> [Int] {
    let columns = [open, high, low, close]
    let precision = Precision.exact(maxDecimals: 8, otherwise: 7)
    let scans = columns.map { $0.withUnsafeBufferPointer { Self.scan($0, precision) } }
    // Predicted only when every price is finite and within the steps at those decimals.
    guard let d = scans.compactMap(\.decimals).max(), scans.allSatisfy({ $0.allFinite && Self.fits(largest: $0.largest, decimals: d) }) else {
      return columns.map { add($0, precision: precision) }
    }
    let prices = Prices(open: open, high: high, low: low, close: close, decimals: d)
    let n = close.count
    func column(_ role: Prices.Role, _ pred: JSONValue?) -> Int {
      var fields: [(String, JSONValue)] = [("n", .integer(n)), ("dec", .integer(d))]
      if let pred { fields.append(("pred", pred)) }
      return append(.price(prices, role), fields, decimals: d)
    }
    let closeIndex = column(.close, nil)
    let openIndex = column(.open, .array([.string("lag"), .integer(closeIndex)]))
    let highIndex = column(.high, .array([.string("max"), .integer(openIndex), .integer(closeIndex)]))
    let lowIndex = column(.low, .array([.string("min"), .integer(openIndex), .integer(closeIndex)]))
    return [openIndex, highIndex, lowIndex, closeIndex]
  }

  /// Powers of ten that are exact doubles.
  static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

  /// `x.rounded()` (to nearest, halves away from zero) without a call into the C library, or a branch.
  @inline(__always) static func rounded(_ x: Double) -> Double {
    let a = abs(x)
    return Double(signOf: x, magnitudeOf: a < twoToThe52 ? roundedMagnitude(a) : a)  // 2^52 and above are whole; nan stays nan
  }

  /// 2^52: added to a magnitude below it, the sum is that magnitude rounded to a whole number (halves to even), in the low bits.
  static let twoToThe52 = 4_503_599_627_370_496.0

  /// `a.rounded()` for 0 ≤ a < 2^52: to nearest through 2^52, then a half that went down to even goes up instead.
  @inline(__always) static func roundedMagnitude(_ a: Double) -> Double {
    let nearest = (a + twoToThe52) - twoToThe52
    return a - nearest == 0.5 ? nearest + 1 : nearest
  }

  /// `Int64(x.rounded())` for |x| < 2^52, without branches or a conversion
  /// instruction (so that loops of it vectorize): the integer is read from the
  /// low bits of |x| + 2^52, a half that went down to even goes up, and the
  /// sign is applied last.
  @inline(__always) static func roundedToInteger(_ x: Double) -> Int64 {
    let a = abs(x), sum = a + twoToThe52
    let magnitude = Int64(bitPattern: sum.bitPattern &- twoToThe52.bitPattern) &+ (a - (sum - twoToThe52) == 0.5 ? 1 : 0)
    let sign = Int64(bitPattern: x.bitPattern) &>> 63  // 0 or -1
    return (magnitude ^ sign) &- sign
  }

  /// The decimals a column is written with (`nil` for raw Float64), its
  /// largest finite magnitude (0 when there is none) and whether every value
  /// is finite.
  ///
  /// - Complexity: O(n), one pass (two when exact decimals run out).
  static func scan(_ values: UnsafeBufferPointer<Double>, _ precision: Precision) -> (decimals: Int?, largest: Double, allFinite: Bool) {
    switch precision {
    case .decimals(let d):
      let (largest, allFinite) = magnitudes(values)
      return (d, largest, allFinite)
    case .significant(let digits, let magnitude):
      let (largest, allFinite) = magnitudes(values)
      return (decimals(significant: digits, of: magnitude), largest, allFinite)
    case .exact(let maxDecimals, let otherwise):
      var d = 0, s = powersOfTen[0], magnitudes = Magnitudes()
      for start in stride(from: 0, to: values.count, by: chunk) {
        let end = min(start + chunk, values.count)
        // Most values hold at the decimals found so far: tested a chunk at a time, without branches. Rounded halves
        // to even here, which only changes a step 1/2 from v × s, where v cannot hold: at most 2^50 steps, v × s is
        // within 1/4 of the step whose quotient is v.
        var misses: UInt8 = 0
        for i in start..<end {
          let v = values[i], q = (v * s + 6_755_399_441_055_744.0) - 6_755_399_441_055_744.0  // 1.5 × 2^52
          misses |= (abs(v) < .infinity ? 1 : 0) & ((q / s == v ? 0 : 1) | (abs(q) <= maxSteps ? 0 : 1))
        }
        for i in start..<end { magnitudes.add(values[i]) }
        guard misses != 0 else { continue }
        for v in values[start..<end] where v.isFinite {
          var q = rounded(v * s)
          if q / s == v && abs(q) <= maxSteps { continue }
          d += 1
          while d <= maxDecimals {
            s = powersOfTen[d]
            q = rounded(v * s)
            if q / s == v && abs(q) <= maxSteps { break }
            d += 1
          }
          if d > maxDecimals {
            let (largest, allFinite) = Self.magnitudes(values)
            return (otherwise.map { decimals(significant: $0, of: largest) }, largest, allFinite)
          }
        }
      }
      return (d, magnitudes.largest, magnitudes.allFinite)
    }
  }

  /// The decimals of `digits` significant digits of `magnitude`.
  static func decimals(significant digits: Int, of magnitude: Double) -> Int {
    guard magnitude.isFinite, magnitude > 0 else { return digits - 1 }
    return digits - 1 - Int(log10(magnitude).rounded(.down))
  }

  /// The largest finite |value|, 0 when there is none.
  static func largestMagnitude(_ values: UnsafeBufferPointer<Double>) -> Double { magnitudes(values).largest }

  /// The largest finite |value| (0 when there is none), and whether every value is finite.
  static func magnitudes(_ values: UnsafeBufferPointer<Double>) -> (largest: Double, allFinite: Bool) {
    var magnitudes = Magnitudes()
    for v in values { magnitudes.add(v) }
    return (magnitudes.largest, magnitudes.allFinite)
  }

  /// The largest finite magnitude of values added, and whether each was finite, kept without branches (so that loops of it vectorize).
  struct Magnitudes {
    /// The bits of the largest finite |value|: as integers, they order as the magnitudes do.
    private var largestBits: Int64 = 0
    private var nonFinite: UInt8 = 0

    var largest: Double { Double(bitPattern: UInt64(largestBits)) }
    var allFinite: Bool { nonFinite == 0 }

    @inline(__always) mutating func add(_ v: Double) {
      let bits = Int64(bitPattern: v.bitPattern & 0x7FFF_FFFF_FFFF_FFFF)
      let finite = bits < 0x7FF0_0000_0000_0000
      largestBits = max(largestBits, finite ? bits : 0)
      nonFinite |= finite ? 0 : 1
    }
  }

  /// Whether every finite value's step count at `d` decimals stays within `maxSteps`, given the largest magnitude
  /// (rounding is monotonic: the largest magnitude has the most steps).
  static func fits(largest m: Double, decimals d: Int) -> Bool {
    guard abs(d) <= 22 else { return false }
    let scale = powersOfTen[abs(d)]
    return rounded(d >= 0 ? m * scale : m / scale) <= maxSteps
  }

  // MARK: Packing

  /// A column as added, packed later.
  private enum Column: @unchecked Sendable {
    case raw(ContiguousArray<Double>)
    case steps(ContiguousArray<Double>, decimals: Int)
    case price(Prices, Prices.Role)

    var count: Int {
      switch self {
      case .raw(let v), .steps(let v, _): return v.count
      case .price(let p, _): return p.close.count
      }
    }
  }

  /// Bars' prices, packed as four columns of steps, three of them predicted.
  private struct Prices: @unchecked Sendable {
    enum Role { case close, open, high, low }
    let open, high, low, close: ContiguousArray<Double>
    let decimals: Int
  }

  /// The columns packed so far, one after the other, and where each starts.
  private final class Packed: @unchecked Sendable {
    let lock = NSLock()
    var bytes: [UInt8] = []
    var starts: [Int] = []

    func copy() -> Packed {
      lock.lock(); defer { lock.unlock() }
      let other = Packed()
      other.bytes = bytes
      other.starts = starts
      return other
    }
  }

  /// Packs the columns not packed yet, each into a buffer of its own on one of
  /// `workers` threads, and appends them in order.
  private func pack() -> (bytes: [UInt8], starts: [Int]) {
    let packed = self.packed
    packed.lock.lock()
    defer { packed.lock.unlock() }
    let done = packed.starts.count
    if done < columns.count {
      let pending = Array(columns[done...])
      let slots = ConcurrentSlots<[UInt8]>(count: pending.count)
      // Longest first, so that the threads finish together.
      let order = pending.indices.sorted { pending[$0].count > pending[$1].count }
      runJobs(pending.count, workers: workers) { k in slots.set(order[k], Self.pack(pending[order[k]])) }
      var total = 0
      for k in pending.indices { total += slots.peek(k)!.count }
      packed.bytes.reserveCapacity(packed.bytes.count + total)
      for k in pending.indices {
        packed.starts.append(packed.bytes.count)
        packed.bytes.append(contentsOf: slots.take(k)!)
      }
    }
    return (packed.bytes, packed.starts)
  }

  /// Values per chunk: the steps are made a chunk at a time (twice: once to
  /// choose the order, once to write), never a whole column at once.
  static let chunk = 2048

  /// One column's bytes.
  private static func pack(_ column: Column) -> [UInt8] {
    switch column {
    case .raw(let values):
      return [UInt8](unsafeUninitializedCapacity: values.count * 8) { out, count in
        values.withUnsafeBufferPointer { v in
          for i in 0..<v.count { UnsafeMutableRawPointer(out.baseAddress! + 8 * i).storeBytes(of: v[i].bitPattern.littleEndian, as: UInt64.self) }
        }
        count = values.count * 8
      }
    case .steps(let values, let d):
      return values.withUnsafeBufferPointer { v in
        packSteps(count: v.count) { start, m, q, previous, runs in quantize(v.baseAddress! + start, count: m, at: start, decimals: d, previous: &previous, into: q, runs: &runs) }
      }
    case .price(let p, let role):
      return p.open.withUnsafeBufferPointer { o in p.high.withUnsafeBufferPointer { h in p.low.withUnsafeBufferPointer { l in
        p.close.withUnsafeBufferPointer { c in
          let scratch = UnsafeMutablePointer<Int64>.allocate(capacity: 3 * chunk + 1)
          defer { scratch.deallocate() }
          let x = scratch, y = x + chunk + 1, open = y + chunk
          return packSteps(count: c.count) { start, m, q, _, _ in
            // The close steps, and those of the other price the role takes, with the close before the chunk in x[-1] for the open.
            var previous: Int64 = 0, none: [(start: Int, length: Int)] = []
            let from = max(0, start - 1)
            quantize(c.baseAddress! + from, count: m + start - from, at: from, decimals: p.decimals, previous: &previous, into: x, runs: &none)
            let close = start == 0 ? x : x + 1  // close[i] at close[k]; close[i - 1] at close[k - 1] when start > 0
            switch role {
            case .close:
              for k in 0..<m { q[k] = close[k] }
            case .open:
              quantize(o.baseAddress! + start, count: m, at: start, decimals: p.decimals, previous: &previous, into: y, runs: &none)
              for k in 0..<m { q[k] = y[k] &- (start + k == 0 ? 0 : close[k - 1]) }
            case .high, .low:
              quantize(o.baseAddress! + start, count: m, at: start, decimals: p.decimals, previous: &previous, into: open, runs: &none)
              quantize((role == .high ? h : l).baseAddress! + start, count: m, at: start, decimals: p.decimals, previous: &previous, into: y, runs: &none)
              if role == .high {
                for k in 0..<m { q[k] = y[k] &- max(open[k], close[k]) }
              } else {
                for k in 0..<m { q[k] = y[k] &- min(open[k], close[k]) }
              }
            }
          }
        }
      } } }
    }
  }

  /// The steps of `count` values from `v` (the column's values from index `at`) into `q`:
  /// a non-finite value repeats the step before it (`previous`), and extends or starts a run in `runs`.
  @inline(__always)
  private static func quantize(_ v: UnsafePointer<Double>, count: Int, at: Int, decimals d: Int, previous: inout Int64,
                               into q: UnsafeMutablePointer<Int64>, runs: inout [(start: Int, length: Int)]) {
    let scale = powersOfTen[abs(d)]
    var last = previous
    for k in 0..<count {
      let x = v[k]
      if x.isFinite {
        last = roundedToInteger(d >= 0 ? x * scale : x / scale)  // within ±2^50 (`fits`)
      } else if let run = runs.last, run.start + run.length == at + k {
        runs[runs.count - 1].length += 1
      } else {
        runs.append((at + k, 1))
      }
      q[k] = last
    }
    previous = last
  }

  /// A column of `n` steps, made a chunk at a time by `fill(start, count, into, previous step, nan runs)`:
  /// its runs of `nan`, its order and its blocks, as described in the type's comment.
  private static func packSteps(count n: Int,
                                fill: (Int, Int, UnsafeMutablePointer<Int64>, inout Int64, inout [(start: Int, length: Int)]) -> Void) -> [UInt8] {
    let q = UnsafeMutablePointer<Int64>.allocate(capacity: chunk)
    defer { q.deallocate() }
    // First pass: the runs of nan, and the order (the values, their differences, or the differences of those) whose zigzag codes have fewest bits.
    var runs: [(start: Int, length: Int)] = []
    var bits = (0, 0, 0)
    var filled: Int64 = 0, previous: Int64 = 0, previousDifference: Int64 = 0
    for start in stride(from: 0, to: n, by: chunk) {
      let m = min(chunk, n - start)
      fill(start, m, q, &filled, &runs)
      for k in 0..<m {
        let d = q[k] &- previous
        bits.0 &+= bitLength(zigzag(q[k]))
        bits.1 &+= bitLength(zigzag(d))
        bits.2 &+= bitLength(zigzag(d &- previousDifference))
        previous = q[k]
        previousDifference = d
      }
    }
    let order = bits.0 <= min(bits.1, bits.2) ? 0 : bits.1 <= bits.2 ? 1 : 2
    // A block takes at most a header, a factor, a mask and 16 codes or exceptions of 8 bytes.
    // (and 8 bytes that a block's last whole-word store may pass the end by).
    let capacity = 10 * (1 + 2 * runs.count) + 1 + (n + blockSize - 1) / blockSize * (11 + 8 * blockSize) + 8
    return [UInt8](unsafeUninitializedCapacity: capacity) { out, count in
      var o = 0
      func varint(_ value: Int) {
        var v = UInt64(value)
        while v >= 0x80 { out[o] = UInt8(truncatingIfNeeded: v) | 0x80; o += 1; v >>= 7 }
        out[o] = UInt8(v); o += 1
      }
      varint(runs.count)
      var end = 0
      for run in runs {
        varint(run.start - end)
        varint(run.length)
        end = run.start + run.length
      }
      out[o] = UInt8(order); o += 1
      // Second pass: the steps again, written as blocks (a chunk is a whole number of blocks).
      var writer = BlockWriter(order: order)
      var none: [(start: Int, length: Int)] = []
      filled = 0
      for start in stride(from: 0, to: n, by: chunk) {
        let m = min(chunk, n - start)
        fill(start, m, q, &filled, &none)
        none.removeAll(keepingCapacity: true)
        o += writer.write(UnsafeBufferPointer(start: q, count: m), into: out.baseAddress! + o)
      }
      count = o
    }
  }

  @inline(__always) static func zigzag(_ r: Int64) -> UInt64 { UInt64(bitPattern: (r << 1) ^ (r >> 63)) }
  @inline(__always) static func bitLength(_ z: UInt64) -> Int { 64 - z.leadingZeroBitCount }

  /// Writes steps as blocks, a whole number of blocks (but for the last) at a time,
  /// carrying the step and difference before each.
  struct BlockWriter {
    let order: Int
    var previous: Int64 = 0, previousDifference: Int64 = 0

    init(order: Int) { self.order = order }

    /// Writes the blocks of `q` at `out`; returns the bytes written.
    mutating func write(_ q: UnsafeBufferPointer<Int64>, into out: UnsafeMutablePointer<UInt8>) -> Int {
      // Four tallies of the codes' bit lengths, each of every fourth code: a run of equal lengths waits on no store before it.
      withUnsafeTemporaryAllocation(of: Int64.self, capacity: 3 * blockSize + 4 * 65) { scratch in
        let residuals = scratch.baseAddress!, codes = residuals + blockSize, lengths = codes + blockSize, counts = lengths + blockSize
        for l in 0..<(4 * 65) { counts[l] = 0 }
        var o = 0
        func varint(_ value: UInt64) {
          var v = value
          while v >= 0x80 { out[o] = UInt8(truncatingIfNeeded: v) | 0x80; o += 1; v >>= 7 }
          out[o] = UInt8(v); o += 1
        }
        // Locals, not the stored properties: the writes through `out` then cannot touch them.
        let order = order
        var previous = previous, previousDifference = previousDifference
        defer { self.previous = previous; self.previousDifference = previousDifference }
        var start = 0
        while start < q.count {
          let m = min(blockSize, q.count - start)
          var factor: UInt64 = 0
          for k in 0..<m {
            let d = q[start + k] &- previous
            residuals[k] = order == 0 ? q[start + k] : order == 1 ? d : d &- previousDifference
            previous = q[start + k]
            previousDifference = d
            if factor != 1 { factor = gcd(factor, residuals[k].magnitude) }  // once 1, always 1: skip the divisions
          }
          if factor <= 1 { factor = 1 }
          // The codes' bit lengths: how many of each, and which occur (bit L - 1 for length L > 0).
          var present: UInt64 = 0
          for k in 0..<m {
            let code = zigzag(factor == 1 ? residuals[k] : residuals[k] / Int64(factor))  // most blocks: no division
            codes[k] = Int64(bitPattern: code)
            let length = bitLength(code)
            lengths[k] = Int64(length)
            counts[65 * (k & 3) + length] &+= 1
            if length > 0 { present |= 1 << UInt64(length - 1) }
          }
          // Candidate widths: each bit length present, the longer codes becoming exceptions
          // (longest first; a width of 0 only when no code is 0, which would take a bit).
          var width = 64 - present.leadingZeroBitCount, best = (width * m + 7) / 8, exceptionBytes = 0, taken = 0
          var rest = present
          while rest != 0 {
            let length = 64 - rest.leadingZeroBitCount
            rest &= ~(1 << UInt64(length - 1))
            let count = Int(counts[length] + counts[65 + length] + counts[130 + length] + counts[195 + length])
            taken += count
            exceptionBytes += count * max(1, (length + 6) / 7)
            let w = taken < m && rest != 0 ? 64 - rest.leadingZeroBitCount : 0
            let cost = (w * (m - taken) + 7) / 8 + exceptionBytes + 2
            if cost < best { best = cost; width = w }
          }
          for k in 0..<m { counts[65 * (k & 3) + Int(lengths[k])] = 0 }
          var mask: UInt16 = 0
          for k in 0..<m { mask |= (lengths[k] > width ? 1 : 0) << UInt16(k) }
          out[o] = UInt8(width) | (factor > 1 ? 64 : 0) | (mask != 0 ? 128 : 0); o += 1
          if factor > 1 { varint(factor) }
          if mask != 0 { out[o] = UInt8(mask & 0xFF); out[o + 1] = UInt8(mask >> 8); o += 2 }
          var accumulator: UInt64 = 0, filled = 0
          if width <= 56 {
            // Whole bytes out with one 8-byte store (the bytes past them are written over later): fewer than 8 bits stay, so a code fits.
            for k in 0..<m where lengths[k] <= width {
              accumulator |= UInt64(bitPattern: codes[k]) &<< UInt64(filled)
              filled += width
              UnsafeMutableRawPointer(out + o).storeBytes(of: accumulator.littleEndian, as: UInt64.self)
              let whole = filled >> 3  // at most 7
              o += whole
              accumulator = accumulator &>> UInt64(8 * whole)
              filled &= 7
            }
          } else {
            for k in 0..<m where lengths[k] <= width {
              accumulator |= UInt64(bitPattern: codes[k]) << UInt64(filled)
              filled += width
              while filled >= 8 { out[o] = UInt8(truncatingIfNeeded: accumulator); o += 1; accumulator >>= 8; filled -= 8 }
            }
          }
          if filled > 0 { out[o] = UInt8(truncatingIfNeeded: accumulator); o += 1 }
          for k in 0..<m where lengths[k] > width { varint(UInt64(bitPattern: codes[k])) }
          start += m
        }
        return o
      }
    }
  }

  /// The greatest common divisor (binary: shifts and subtractions, no division).
  static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 {
    if a == 0 { return b }
    if b == 0 { return a }
    let shift = (a | b).trailingZeroBitCount
    var a = a >> a.trailingZeroBitCount, b = b
    repeat {
      b >>= b.trailingZeroBitCount
      if a > b { swap(&a, &b) }
      b -= a
    } while b != 0
    return a << shift
  }

  /// The bytes as base64 text (RFC 4648, with padding).
  var base64: String { Self.base64(bytes) }

  static func base64(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    let n = bytes.count
    let length = (n + 2) / 3 * 4
    return String(unsafeUninitializedCapacity: length) { out in
      bytes.withUnsafeBufferPointer { b in
        alphabet.withUnsafeBufferPointer { a in
          var i = 0, o = 0
          while i + 3 <= n {
            let v = UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2])
            out[o] = a[Int(v >> 18)]; out[o + 1] = a[Int(v >> 12 & 63)]
            out[o + 2] = a[Int(v >> 6 & 63)]; out[o + 3] = a[Int(v & 63)]
            i += 3; o += 4
          }
          if i < n {
            let second = i + 1 < n ? UInt32(b[i + 1]) : 0
            let v = UInt32(b[i]) << 16 | second << 8
            out[o] = a[Int(v >> 18)]; out[o + 1] = a[Int(v >> 12 & 63)]
            out[o + 2] = i + 1 < n ? a[Int(v >> 6 & 63)] : UInt8(ascii: "=")
            out[o + 3] = UInt8(ascii: "=")
          }
        }
      }
      return length
    }
  }
}
