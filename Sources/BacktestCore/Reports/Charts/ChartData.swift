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

  private(set) var bytes: [UInt8] = []
  /// One entry per column: where it starts, how many values, its decimals (or `f64`).
  private(set) var descriptors: [JSONValue] = []
  /// Each column's decimals; `nil` for raw Float64.
  private(set) var decimals: [Int?] = []

  /// Appends a column and returns its index.
  ///
  /// - Complexity: O(n), one pass to find the decimals, one to quantize, one to write.
  @discardableResult
  mutating func add(_ values: ContiguousArray<Double>, precision: Precision) -> Int {
    values.withUnsafeBufferPointer { add($0, precision: precision) }
  }

  @discardableResult
  mutating func add(_ values: [Double], precision: Precision) -> Int {
    values.withUnsafeBufferPointer { add($0, precision: precision) }
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
    let decimals = columns.compactMap { $0.withUnsafeBufferPointer { Self.decimals($0, precision) } }.max()
    let steps = decimals.map { d in columns.compactMap { $0.withUnsafeBufferPointer { Self.quantize($0, decimals: d) } } } ?? []
    guard let d = decimals, steps.count == 4, steps.allSatisfy(\.nanRuns.isEmpty) else {
      return columns.map { add($0, precision: precision) }
    }
    let (o, h, l, c) = (steps[0].q, steps[1].q, steps[2].q, steps[3].q)
    let n = c.count
    var openResiduals = [Int64](repeating: 0, count: n), highResiduals = openResiduals, lowResiduals = openResiduals
    o.withUnsafeBufferPointer { o in h.withUnsafeBufferPointer { h in l.withUnsafeBufferPointer { l in c.withUnsafeBufferPointer { c in
      openResiduals.withUnsafeMutableBufferPointer { ro in highResiduals.withUnsafeMutableBufferPointer { rh in
        lowResiduals.withUnsafeMutableBufferPointer { rl in
          for i in 0..<n {
            ro[i] = o[i] &- (i == 0 ? 0 : c[i - 1])
            rh[i] = h[i] &- max(o[i], c[i])
            rl[i] = l[i] &- min(o[i], c[i])
          }
        }
      } }
    } } } }
    func column(_ residuals: [Int64], _ pred: JSONValue?) -> Int {
      let start = bytes.count
      write(residuals, nanRuns: [])
      var fields: [(String, JSONValue)] = [("at", .integer(start)), ("n", .integer(n)), ("dec", .integer(d))]
      if let pred { fields.append(("pred", pred)) }
      descriptors.append(.object(fields))
      self.decimals.append(d)
      return descriptors.count - 1
    }
    let closeIndex = column(c, nil)
    let openIndex = column(openResiduals, .array([.string("lag"), .integer(closeIndex)]))
    let highIndex = column(highResiduals, .array([.string("max"), .integer(openIndex), .integer(closeIndex)]))
    let lowIndex = column(lowResiduals, .array([.string("min"), .integer(openIndex), .integer(closeIndex)]))
    return [openIndex, highIndex, lowIndex, closeIndex]
  }

  @discardableResult
  mutating func add(_ values: UnsafeBufferPointer<Double>, precision: Precision) -> Int {
    let start = bytes.count
    if let decimals = Self.decimals(values, precision), let steps = Self.quantize(values, decimals: decimals) {
      write(steps.q, nanRuns: steps.nanRuns)
      descriptors.append(.object([("at", .integer(start)), ("n", .integer(values.count)), ("dec", .integer(decimals))]))
      self.decimals.append(decimals)
    } else {
      bytes.reserveCapacity(bytes.count + values.count * 8)
      for v in values { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
      descriptors.append(.object([("at", .integer(start)), ("n", .integer(values.count)), ("f64", .bool(true))]))
      self.decimals.append(nil)
    }
    return descriptors.count - 1
  }

  /// Powers of ten that are exact doubles.
  static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

  /// The decimals a column is written with; `nil` for raw Float64.
  static func decimals(_ values: UnsafeBufferPointer<Double>, _ precision: Precision) -> Int? {
    switch precision {
    case .decimals(let d): return d
    case .significant(let digits, let magnitude):
      guard magnitude.isFinite, magnitude > 0 else { return digits - 1 }
      return digits - 1 - Int(log10(magnitude).rounded(.down))
    case .exact(let maxDecimals, let otherwise):
      var d = 0
      for v in values where v.isFinite {
        while d <= maxDecimals {
          let s = powersOfTen[d], q = (v * s).rounded()
          if q / s == v && abs(q) <= maxSteps { break }
          d += 1
        }
        if d > maxDecimals {
          guard let otherwise else { return nil }
          return decimals(values, .significant(otherwise, of: largestMagnitude(values)))
        }
      }
      return d
    }
  }

  /// The largest finite |value|, 0 when there is none.
  static func largestMagnitude(_ values: UnsafeBufferPointer<Double>) -> Double {
    var m = 0.0
    for v in values where v.isFinite { m = max(m, abs(v)) }
    return m
  }

  /// The column's steps (`nan` repeating the step before) and its runs of `nan`;
  /// `nil` when a step count passes `maxSteps` or the decimals are out of range.
  static func quantize(_ values: UnsafeBufferPointer<Double>, decimals d: Int) -> (q: [Int64], nanRuns: [(start: Int, length: Int)])? {
    guard abs(d) <= 22 else { return nil }
    let scale = powersOfTen[abs(d)]
    var q = [Int64](repeating: 0, count: values.count)
    var runs: [(start: Int, length: Int)] = []
    let ok = q.withUnsafeMutableBufferPointer { q -> Bool in
      var previous: Int64 = 0
      var runStart = -1
      for i in 0..<values.count {
        let v = values[i]
        if !v.isFinite {
          if runStart < 0 { runStart = i }
          q[i] = previous
          continue
        }
        if runStart >= 0 { runs.append((runStart, i - runStart)); runStart = -1 }
        let steps = (d >= 0 ? v * scale : v / scale).rounded()
        guard abs(steps) <= maxSteps else { return false }
        previous = Int64(steps)
        q[i] = previous
      }
      if runStart >= 0 { runs.append((runStart, values.count - runStart)) }
      return true
    }
    return ok ? (q, runs) : nil
  }

  mutating func writeVarint(_ value: UInt64) {
    var v = value
    while v >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
      v >>= 7
    }
    bytes.append(UInt8(v))
  }

  @inline(__always) static func zigzag(_ r: Int64) -> UInt64 { UInt64(bitPattern: (r << 1) ^ (r >> 63)) }
  @inline(__always) static func bitLength(_ z: UInt64) -> Int { 64 - z.leadingZeroBitCount }

  /// Writes the steps `q` as described in the type's comment.
  ///
  /// - Complexity: O(n); the blocks are written through raw pointers into one buffer (fast in debug builds too).
  mutating func write(_ q: [Int64], nanRuns: [(start: Int, length: Int)]) {
    writeVarint(UInt64(nanRuns.count))
    var end = 0
    for run in nanRuns {
      writeVarint(UInt64(run.start - end))
      writeVarint(UInt64(run.length))
      end = run.start + run.length
    }
    let n = q.count
    q.withUnsafeBufferPointer { q in
      // The order (the values, their differences, or the differences of those) whose zigzag codes have fewest bits.
      var bits = (0, 0, 0)
      var previous: Int64 = 0, previousDifference: Int64 = 0
      for i in 0..<n {
        let d = q[i] &- previous
        bits.0 &+= Self.bitLength(Self.zigzag(q[i]))
        bits.1 &+= Self.bitLength(Self.zigzag(d))
        bits.2 &+= Self.bitLength(Self.zigzag(d &- previousDifference))
        previous = q[i]
        previousDifference = d
      }
      let order = bits.0 <= min(bits.1, bits.2) ? 0 : bits.1 <= bits.2 ? 1 : 2
      bytes.append(UInt8(order))
      // A block takes at most a header, a factor, a mask and 16 codes or exceptions of 8 bytes.
      var blocks = [UInt8](repeating: 0, count: (n + Self.blockSize - 1) / Self.blockSize * (11 + 8 * Self.blockSize))
      blocks.withUnsafeMutableBufferPointer { out in
        let used = Self.writeBlocks(q, order: order, into: out.baseAddress!)
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: out[..<used]))
      }
    }
  }

  /// Writes the blocks of `q` in `order` at `out`; returns the bytes written.
  static func writeBlocks(_ q: UnsafeBufferPointer<Int64>, order: Int, into out: UnsafeMutablePointer<UInt8>) -> Int {
    withUnsafeTemporaryAllocation(of: Int64.self, capacity: 3 * blockSize + 65) { scratch in
      let residuals = scratch.baseAddress!, codes = residuals + blockSize, lengths = codes + blockSize, counts = lengths + blockSize
      for l in 0...64 { counts[l] = 0 }
      var o = 0
      func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 { out[o] = UInt8(truncatingIfNeeded: v) | 0x80; o += 1; v >>= 7 }
        out[o] = UInt8(v); o += 1
      }
      var previous: Int64 = 0, previousDifference: Int64 = 0
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
          counts[length] += 1
          if length > 0 { present |= 1 << UInt64(length - 1) }
        }
        // Candidate widths: each bit length present, the longer codes becoming exceptions
        // (longest first; a width of 0 only when no code is 0, which would take a bit).
        var width = 64 - present.leadingZeroBitCount, best = (width * m + 7) / 8, exceptionBytes = 0, taken = 0
        var rest = present
        while rest != 0 {
          let length = 64 - rest.leadingZeroBitCount
          rest &= ~(1 << UInt64(length - 1))
          let count = Int(counts[length])
          taken += count
          exceptionBytes += count * max(1, (length + 6) / 7)
          let w = taken < m && rest != 0 ? 64 - rest.leadingZeroBitCount : 0
          let cost = (w * (m - taken) + 7) / 8 + exceptionBytes + 2
          if cost < best { best = cost; width = w }
        }
        for k in 0..<m { counts[Int(lengths[k])] = 0 }
        var mask: UInt16 = 0
        for k in 0..<m where lengths[k] > width { mask |= 1 << UInt16(k) }
        out[o] = UInt8(width) | (factor > 1 ? 64 : 0) | (mask != 0 ? 128 : 0); o += 1
        if factor > 1 { varint(factor) }
        if mask != 0 { out[o] = UInt8(mask & 0xFF); out[o + 1] = UInt8(mask >> 8); o += 2 }
        var accumulator: UInt64 = 0, filled = 0
        for k in 0..<m where lengths[k] <= width {
          accumulator |= UInt64(bitPattern: codes[k]) << UInt64(filled)
          filled += width
          while filled >= 8 { out[o] = UInt8(truncatingIfNeeded: accumulator); o += 1; accumulator >>= 8; filled -= 8 }
        }
        if filled > 0 { out[o] = UInt8(truncatingIfNeeded: accumulator); o += 1 }
        for k in 0..<m where lengths[k] > width { varint(UInt64(bitPattern: codes[k])) }
        start += m
      }
      return o
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
