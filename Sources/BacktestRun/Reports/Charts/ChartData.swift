import BacktestCore
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
package struct ChartData {
  /// How finely a column is quantized.
  package enum Precision {
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
  /// Each column's count of values and prediction, for its description.
  private var fields: [(count: Int, prediction: JSONValue?, argument: Int?)] = []
  /// Each column's decimals as added; `nil` for raw Float64. A column of `steps` may yet turn raw when packed.
  private var added: [Int?] = []
  /// Threads that pack the columns (each column on one; the bytes are the same for any number).
  var workers = ProcessInfo.processInfo.activeProcessorCount
  private var packed = Packed()

  /// The packed columns, one after the other.
  var bytes: [UInt8] { pack().bytes }

  /// One entry per column: where it starts, how many values, its decimals (or `f64`), its prediction.
  var descriptors: [JSONValue] {
    let packed = pack()
    return fields.indices.map { k in
      var entry: [(String, JSONValue)] = [("at", .integer(packed.starts[k])), ("n", .integer(fields[k].count))]
      entry.append(packed.decimals[k].map { ("dec", .integer($0)) } ?? ("f64", .bool(true)))
      if let prediction = fields[k].prediction { entry.append(("pred", prediction)) }
      if let argument = fields[k].argument { entry.append(("arg", .integer(argument))) }
      return .object(entry)
    }
  }

  /// Each column's decimals (`decimals[k]`); `nil` for raw Float64.
  var decimals: Decimals { Decimals(data: self) }

  /// Each column's decimals, `nil` for raw Float64. Whether a column of steps
  /// stays within 2^50 steps is found when it is packed: asking for its
  /// decimals packs it (with the other columns not packed yet).
  struct Decimals {
    fileprivate let data: ChartData

    subscript(column: Int) -> Int? {
      switch data.columns[column] {
      case .steps, .predicted: break
      default: return data.added[column]
      }
      return data.pack().decimals[column]
    }
  }

  /// Appends a column and returns its index; it is packed (on `workers` threads, with the others) when the bytes are first asked for.
  ///
  /// - Complexity: O(1) now for `decimals` and `significant`, O(n) for `exact` (to find the decimals); O(n) when packed.
  @discardableResult
  package mutating func add(_ values: ContiguousArray<Double>, precision: Precision) -> Int {
    let decimals: Int?
    switch precision {
    case .decimals(let d):
      decimals = d
    case .significant(let digits, let magnitude):
      decimals = Self.decimals(significant: digits, of: magnitude)
    case .exact(let maxDecimals, let otherwise):
      decimals = values.withUnsafeBufferPointer { v in
        Self.exactDecimals(v, maxDecimals: maxDecimals)?.decimals ?? otherwise.map { Self.decimals(significant: $0, of: Self.largestMagnitude(v)) }
      }
    }
    // Whether the steps stay within 2^50 is found as they are made (`quantize`), in the one pass over the values.
    if let d = decimals, abs(d) <= 22 {
      return append(.steps(values, decimals: d), count: values.count, decimals: d)
    }
    return append(.raw(values), count: values.count, decimals: nil)
  }

  @discardableResult
  package mutating func add(_ values: [Double], precision: Precision) -> Int { add(ContiguousArray(values), precision: precision) }

  private mutating func append(_ column: Column, count: Int, prediction: JSONValue? = nil, argument: Int? = nil, decimals d: Int?) -> Int {
    if !isKnownUniquelyReferenced(&packed) { packed = packed.copy() }
    columns.append(column)
    fields.append((count, prediction, argument))
    added.append(d)
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
    let (maxDecimals, digits) = (8, 7)
    // Each column's decimals, whether all its prices are finite, and from which price each was found within the steps there.
    let scans = columns.map { c in
      c.withUnsafeBufferPointer { v in
        if let exact = Self.exactDecimals(v, maxDecimals: maxDecimals) { return exact }
        let (largest, allFinite) = Self.magnitudes(v)
        return (Self.decimals(significant: digits, of: largest), v.count, allFinite)
      }
    }
    // Predicted only when every price is finite and within the steps at those decimals: the largest magnitude is
    // needed only of the prices not tested at them (most often one, before the decimals were found).
    guard let d = scans.map(\.decimals).max(), zip(columns, scans).allSatisfy({ c, scan in
      scan.allFinite && c.withUnsafeBufferPointer { v in
        Self.fits(largest: Self.largestMagnitude(UnsafeBufferPointer(rebasing: v[..<(scan.decimals == d ? scan.testedFrom : v.count)])), decimals: d)
      }
    }) else {
      return columns.map { add($0, precision: .exact(maxDecimals: maxDecimals, otherwise: digits)) }
    }
    let prices = Prices(open: open, high: high, low: low, close: close, decimals: d)
    let n = close.count
    func column(_ column: Column, _ pred: JSONValue?) -> Int { append(column, count: n, prediction: pred, decimals: d) }
    // The four are packed as one job, in this order: each price is quantized once.
    let closeIndex = column(.prices(prices), nil)
    let openIndex = column(.packedWithPrices, .array([.string("lag"), .integer(closeIndex)]))
    let highIndex = column(.packedWithPrices, .array([.string("max"), .integer(openIndex), .integer(closeIndex)]))
    let lowIndex = column(.packedWithPrices, .array([.string("min"), .integer(openIndex), .integer(closeIndex)]))
    return [openIndex, highIndex, lowIndex, closeIndex]
  }

  // MARK: Predictions

  /// How a column's steps are predicted from those of columns added before it: the column holds its steps less the
  /// prediction, and the descriptor names it (`pred`, with `arg`). Integer arithmetic throughout, rounding halves up
  /// (`floor((2a + b) / 2b)`), every intermediate below 2^53, so that the script finds the same.
  enum Prediction: Sendable, Equatable {
    /// The mean of the last `period` steps of a column with the same decimals (a simple moving average); 0 before
    /// `period` values: `["mean", column]`, `arg` the period.
    case mean(column: Int, period: Int)
    /// `2a − b`: a band from its middle and the other band: `["mirror", a, b]`.
    case mirror(Int, Int)
    /// Another column's steps: `["offset", a]` (a band from its middle).
    case offset(Int)
    /// `a × b / 10^shift`: an equity from its position (a) and the price (b): `["product", a, b]`, `arg` the shift.
    case product(Int, Int, shift: Int)

    var columns: [Int] {
      switch self {
      case .mean(let c, _), .offset(let c): [c]
      case .mirror(let a, let b), .product(let a, let b, _): [a, b]
      }
    }

    var json: (JSONValue, Int?) {
      switch self {
      case .mean(let c, let period): (.array([.string("mean"), .integer(c)]), period)
      case .mirror(let a, let b): (.array([.string("mirror"), .integer(a), .integer(b)]), nil)
      case .offset(let a): (.array([.string("offset"), .integer(a)]), nil)
      case .product(let a, let b, let shift): (.array([.string("product"), .integer(a), .integer(b)]), shift)
      }
    }
  }

  /// The values and decimals of column `k`, for a prediction; `nil` for a column that has no steps of its own to
  /// predict from (raw, or the open, high or low of bars).
  private func reference(_ k: Int) -> (values: ContiguousArray<Double>, decimals: Int)? {
    switch columns[k] {
    case .steps(let v, let d), .predicted(let v, let d, _, _): return (v, d)
    case .prices(let p): return (p.close, p.decimals)
    case .raw, .packedWithPrices: return nil
    }
  }

  /// Column `k`'s decimals as added (`nil` for raw, or not known until packed).
  func addedDecimals(_ k: Int) -> Int? { added[k] }

  /// Appends a column of `decimals` whose steps are predicted by `prediction` from columns added before it, when
  /// each of them has steps to predict from and the prediction's arithmetic stays exact (below 2^53); else a column
  /// of steps. Returns its index.
  @discardableResult
  mutating func add(_ values: ContiguousArray<Double>, decimals d: Int, prediction: Prediction) -> Int {
    guard abs(d) <= 22, prediction.columns.allSatisfy({ $0 < columns.count }) else { return add(values, precision: .decimals(d)) }
    let references = prediction.columns.compactMap(reference)
    guard references.count == prediction.columns.count else { return add(values, precision: .decimals(d)) }
    func largestSteps(_ r: (values: ContiguousArray<Double>, decimals: Int)) -> Double {
      r.values.withUnsafeBufferPointer(Self.largestMagnitude) * Self.powersOfTen[min(22, abs(r.decimals))]
    }
    let exact: Bool
    switch prediction {
    case .mean(_, let period): exact = references[0].decimals == d && period >= 1 && period <= 10_000 && largestSteps(references[0]) * Double(2 * period + 2) < 0x1p52
    case .mirror, .offset: exact = references.allSatisfy { $0.decimals == d }
    case .product(_, _, let shift): exact = shift >= 0 && shift <= 15 && references.allSatisfy { $0.decimals >= 0 }
      && largestSteps(references[0]) * largestSteps(references[1]) * 2 + Self.powersOfTen[shift] < 0x1p52
    }
    guard exact else { return add(values, precision: .decimals(d)) }
    let (json, argument) = prediction.json
    return append(.predicted(values, decimals: d, prediction, references: references), count: values.count, prediction: json, argument: argument, decimals: d)
  }

  /// `floor(a / b)` for b > 0.
  @inline(__always) static func floorDivision(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return a % b != 0 && a < 0 ? q - 1 : q
  }

  /// A column's steps at `d` decimals (a `nan` repeats the step before it; 0 before the first) and its runs of
  /// `nan`; `nil` when a step passes `maxSteps`.
  private static func allSteps(_ values: ContiguousArray<Double>, decimals d: Int) -> (steps: [Int64], runs: [(start: Int, length: Int)])? {
    var steps = [Int64](repeating: 0, count: values.count), previous: Int64 = 0, runs: [(start: Int, length: Int)] = []
    let fits = values.withUnsafeBufferPointer { v in
      steps.withUnsafeMutableBufferPointer { q in
        for start in stride(from: 0, to: v.count, by: chunk) {
          let m = min(chunk, v.count - start)
          if !quantize(v.baseAddress! + start, count: m, at: start, decimals: d, previous: &previous, into: q.baseAddress! + start, runs: &runs) { return false }
        }
        return true
      }
    }
    return fits ? (steps, runs) : nil
  }

  /// The prediction of each step from the references' steps.
  static func predict(_ prediction: Prediction, _ r: [[Int64]], count n: Int) -> [Int64] {
    var out = [Int64](repeating: 0, count: n)
    switch prediction {
    case .mean(_, let period):
      let p = Int64(period), x = r[0]
      var sum: Int64 = 0
      for i in 0..<n {
        sum += x[i]
        if i >= period { sum -= x[i - period] }
        if i >= period - 1 { out[i] = floorDivision(2 * sum + p, 2 * p) }
      }
    case .mirror:
      for i in 0..<n { out[i] = 2 * r[0][i] - r[1][i] }
    case .offset:
      for i in 0..<n { out[i] = r[0][i] }
    case .product(_, _, let shift):
      let scale = Int64(powersOfTen[shift])
      for i in 0..<n { out[i] = floorDivision(2 * r[0][i] * r[1][i] + scale, 2 * scale) }
    }
    return out
  }

  /// The bytes of a predicted column: its runs of `nan`, then its steps less the prediction, packed as a column of
  /// steps; `nil` when a step (its own or a reference's) passes `maxSteps`.
  private static func packPredicted(_ values: ContiguousArray<Double>, decimals d: Int, _ prediction: Prediction,
                                    _ references: [(values: ContiguousArray<Double>, decimals: Int)]) -> [UInt8]? {
    guard let own = allSteps(values, decimals: d) else { return nil }
    var referenceSteps: [[Int64]] = []
    for r in references {
      guard let steps = allSteps(r.values, decimals: r.decimals) else { return nil }
      referenceSteps.append(steps.steps)
    }
    let n = values.count
    var residuals = predict(prediction, referenceSteps, count: n)
    for i in 0..<n { residuals[i] = own.steps[i] &- residuals[i] }
    var packer = StepPacker(count: n)
    defer { packer.deallocate() }
    return residuals.withUnsafeBufferPointer { r in
      for start in stride(from: 0, to: n, by: chunk) {
        let m = min(chunk, n - start)
        packer.q.update(from: r.baseAddress! + start, count: m)
        packer.write(count: m)
      }
      packer.runs = own.runs
      return packer.bytes { start, m, q, _, _ in q.update(from: r.baseAddress! + start, count: m) }
    }
  }

  // MARK: Finding predictions

  /// The period `p` (2 to 400) for which `y` is the `p`-bar mean of `x` (both at `decimals`, `y` undefined before
  /// it), as tested at 64 bars spread over the column; `nil` when there is none.
  static func meanPeriod(of y: ContiguousArray<Double>, over x: ContiguousArray<Double>, decimals d: Int) -> Int? {
    let n = min(x.count, y.count)
    guard n > 500, abs(d) <= 22, let first = y.firstIndex(where: { $0.isFinite }), first >= 1, first < 401, first + 1 < n else { return nil }
    let period = first + 1, scale = powersOfTen[abs(d)]
    func step(_ v: Double) -> Double { (d >= 0 ? v * scale : v / scale).rounded() }
    for k in 0..<64 {
      let i = period - 1 + (n - period) * k / 64
      guard y[i].isFinite else { return nil }
      var sum = 0.0
      for j in (i - period + 1)...i { guard x[j].isFinite else { return nil }; sum += step(x[j]) }
      if abs(sum / Double(period) - step(y[i])) > 1 { return nil }
    }
    return period
  }

  /// Whether `y` is `2a − b` (a band mirrored about the middle `a`) to within 2 steps at `decimals`, at 64 bars.
  static func isMirror(_ y: ContiguousArray<Double>, _ a: ContiguousArray<Double>, _ b: ContiguousArray<Double>, decimals d: Int) -> Bool {
    let n = min(y.count, a.count, b.count)
    guard n > 500, abs(d) <= 22 else { return false }
    let scale = powersOfTen[abs(d)]
    var tested = 0
    for k in 0..<64 {
      let i = (n - 1) * (k + 1) / 64
      guard y[i].isFinite && a[i].isFinite && b[i].isFinite else { continue }
      if abs((y[i] - (2 * a[i] - b[i])) * scale) > 2 { return false }
      tested += 1
    }
    return tested >= 32
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

  /// The fewest decimals, at most `maxDecimals`, that hold every finite value exactly (within `maxSteps` steps
  /// as each is tested); `nil` when there are none. With them, the index from which each finite value was tested
  /// at those decimals (so is within `maxSteps` steps there, as `fits` would tell), and whether every value is finite.
  ///
  /// - Complexity: O(n), one pass.
  static func exactDecimals(_ values: UnsafeBufferPointer<Double>, maxDecimals: Int) -> (decimals: Int, testedFrom: Int, allFinite: Bool)? {
    var d = 0, s = powersOfTen[0], testedFrom = 0, finite: UInt64 = 1
    for start in stride(from: 0, to: values.count, by: chunk) {
      let end = min(start + chunk, values.count)
      // Most values hold at the decimals found so far: tested a chunk at a time, without branches. Rounded halves
      // to even here, which only changes a step 1/2 from v × s, where v cannot hold: at most 2^50 steps, v × s is
      // within 1/4 of the step whose quotient is v. (Flags as wide as the doubles, so that no lanes are narrowed.)
      var misses: UInt64 = 0
      for i in start..<end {
        let v = values[i], q = (v * s + 6_755_399_441_055_744.0) - 6_755_399_441_055_744.0  // 1.5 × 2^52
        let isFinite: UInt64 = abs(v) <= .greatestFiniteMagnitude ? 1 : 0  // one compare (false for nan)
        misses |= isFinite & ((q / s == v ? 0 : 1) | (abs(q) <= maxSteps ? 0 : 1))
        finite &= isFinite
      }
      guard misses != 0 else { continue }
      for i in start..<end where values[i].isFinite {
        let v = values[i]
        var q = rounded(v * s)
        if q / s == v && abs(q) <= maxSteps { continue }
        d += 1
        while d <= maxDecimals {
          s = powersOfTen[d]
          q = rounded(v * s)
          if q / s == v && abs(q) <= maxSteps { break }
          d += 1
        }
        if d > maxDecimals { return nil }
        testedFrom = i
      }
    }
    return (d, testedFrom, finite != 0)
  }

  /// The decimals of `digits` significant digits of `magnitude`.
  static func decimals(significant digits: Int, of magnitude: Double) -> Int {
    guard magnitude.isFinite, magnitude > 0 else { return digits - 1 }
    return digits - 1 - Int(log10(magnitude).rounded(.down))
  }

  /// The largest finite |value|, 0 when there is none.
  static func largestMagnitude(_ values: UnsafeBufferPointer<Double>) -> Double { magnitudes(values).largest }

  /// The largest finite |value| (0 when there is none), and whether every value is finite: kept without
  /// branches, so that the loop vectorizes (the bits of nonnegative doubles order as their magnitudes do).
  static func magnitudes(_ values: UnsafeBufferPointer<Double>) -> (largest: Double, allFinite: Bool) {
    var largestBits: Int64 = 0, nonFinite: UInt8 = 0
    for v in values {
      let bits = Int64(bitPattern: v.bitPattern & 0x7FFF_FFFF_FFFF_FFFF)
      let finite = bits < 0x7FF0_0000_0000_0000
      largestBits = max(largestBits, finite ? bits : 0)
      nonFinite |= finite ? 0 : 1
    }
    return (Double(bitPattern: UInt64(largestBits)), nonFinite == 0)
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
    /// Written raw instead when a step passes `maxSteps`.
    case steps(ContiguousArray<Double>, decimals: Int)
    /// Steps less a prediction from the steps of other columns (`references`: their values and decimals, in the
    /// order the prediction names them); written raw instead when a step passes `maxSteps`.
    case predicted(ContiguousArray<Double>, decimals: Int, Prediction, references: [(values: ContiguousArray<Double>, decimals: Int)])
    /// Bars' close, packed with the open, high and low, the three columns after it.
    case prices(Prices)
    /// The open, high or low of the `prices` before it.
    case packedWithPrices

    /// The values packed with the column: 0 for those packed with another.
    var work: Int {
      switch self {
      case .raw(let v), .steps(let v, _), .predicted(let v, _, _, _): return v.count
      case .prices(let p): return 4 * p.close.count
      case .packedWithPrices: return 0
      }
    }
  }

  /// Bars' prices, packed as four columns of steps (close, open, high, low), three of them predicted.
  private struct Prices: @unchecked Sendable {
    let open, high, low, close: ContiguousArray<Double>
    let decimals: Int
  }

  /// The columns packed so far, one after the other, where each starts and its decimals (`nil` for raw Float64).
  private final class Packed: @unchecked Sendable {
    let lock = NSLock()
    var bytes: [UInt8] = []
    var starts: [Int] = []
    var decimals: [Int?] = []

    func copy() -> Packed {
      lock.lock(); defer { lock.unlock() }
      let other = Packed()
      other.bytes = bytes
      other.starts = starts
      other.decimals = decimals
      return other
    }
  }

  /// Packs the columns not packed yet, each into a buffer of its own on one of
  /// `workers` threads, and appends them in order.
  private func pack() -> (bytes: [UInt8], starts: [Int], decimals: [Int?]) {
    let packed = self.packed
    packed.lock.lock()
    defer { packed.lock.unlock() }
    let done = packed.starts.count
    if done < columns.count {
      let pending = Array(columns[done...])
      // Each column's bytes, and whether a column of steps was written raw instead.
      let slots = ConcurrentSlots<(bytes: [UInt8], raw: Bool)>(count: pending.count)
      // A job per column (the prices' four in one, from the close), longest first, so that the threads finish together.
      let jobs = pending.indices.filter { if case .packedWithPrices = pending[$0] { false } else { true } }
      let order = jobs.sorted { pending[$0].work > pending[$1].work }
      runJobs(order.count, workers: workers) { k in
        for (i, packed) in Self.pack(pending[order[k]]).enumerated() { slots.set(order[k] + i, packed) }
      }
      var total = 0
      for k in pending.indices { total += slots.peek(k)!.bytes.count }
      packed.bytes.reserveCapacity(packed.bytes.count + total)
      for k in pending.indices {
        let (bytes, raw) = slots.take(k)!
        packed.starts.append(packed.bytes.count)
        packed.bytes.append(contentsOf: bytes)
        packed.decimals.append(raw ? nil : added[done + k])
      }
    }
    return (packed.bytes, packed.starts, packed.decimals)
  }

  /// Values per chunk: the steps are made a chunk at a time, never a whole column at once.
  static let chunk = 2048

  /// The bytes of a column, or of the prices' four, and whether each was written as raw Float64.
  private static func pack(_ column: Column) -> [(bytes: [UInt8], raw: Bool)] {
    switch column {
    case .raw(let values):
      return [(raw(values), true)]
    case .steps(let values, let d):
      let steps = values.withUnsafeBufferPointer { v -> [UInt8]? in
        var packer = StepPacker(count: v.count)
        defer { packer.deallocate() }
        for start in stride(from: 0, to: v.count, by: chunk) {
          let m = min(chunk, v.count - start), q = packer.q
          guard quantize(v.baseAddress! + start, count: m, at: start, decimals: d, previous: &packer.previous, into: q, runs: &packer.runs) else {
            return nil
          }
          packer.write(count: m)
        }
        return packer.bytes { start, m, q, previous, runs in
          _ = quantize(v.baseAddress! + start, count: m, at: start, decimals: d, previous: &previous, into: q, runs: &runs)  // within the steps, as above
        }
      }
      return [steps.map { ($0, false) } ?? (raw(values), true)]
    case .predicted(let values, let d, let prediction, let references):
      return [packPredicted(values, decimals: d, prediction, references).map { ($0, false) } ?? (raw(values), true)]
    case .prices(let p):
      return p.open.withUnsafeBufferPointer { o in p.high.withUnsafeBufferPointer { h in p.low.withUnsafeBufferPointer { l in
        p.close.withUnsafeBufferPointer { c in
          let prices = (o.baseAddress!, h.baseAddress!, l.baseAddress!, c.baseAddress!)
          return packPrices(prices, count: c.count, decimals: p.decimals).map { ($0, false) }
        }
      } } }
    case .packedWithPrices:
      return []
    }
  }

  /// The bytes of raw little-endian Float64 values.
  private static func raw(_ values: ContiguousArray<Double>) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: values.count * 8) { out, count in
      values.withUnsafeBufferPointer { v in
        for i in 0..<v.count { UnsafeMutableRawPointer(out.baseAddress! + 8 * i).storeBytes(of: v[i].bitPattern.littleEndian, as: UInt64.self) }
      }
      count = values.count * 8
    }
  }

  /// The bytes of the close, open, high and low of `n` bars (all finite), packed together: each price is quantized
  /// once, where each column alone would quantize the open or close again for its prediction.
  private static func packPrices(_ prices: (open: UnsafePointer<Double>, high: UnsafePointer<Double>, low: UnsafePointer<Double>, close: UnsafePointer<Double>),
                                 count n: Int, decimals d: Int) -> [[UInt8]] {
    let scale = powersOfTen[abs(d)]
    func steps(from start: Int, count m: Int, into q: PriceSteps) {
      if d >= 0 {
        predictedSteps(prices, from: start, count: m, into: q) { roundedToInteger($0 * scale) }
      } else {
        predictedSteps(prices, from: start, count: m, into: q) { roundedToInteger($0 / scale) }
      }
    }
    // In the order the columns were added: close, open, high, low.
    var packers = (0..<4).map { _ in StepPacker(count: n) }
    defer { for packer in packers { packer.deallocate() } }
    for start in stride(from: 0, to: n, by: chunk) {
      let m = min(chunk, n - start)
      steps(from: start, count: m, into: (packers[0].q, packers[1].q, packers[2].q, packers[3].q))
      for i in packers.indices { packers[i].write(count: m) }
    }
    // A column whose order changed after its first chunks has those made again: all four columns'
    // steps as above, into a scratch chunk each (the close's after the close before it), and its own kept.
    let scratch = UnsafeMutablePointer<Int64>.allocate(capacity: 1 + 4 * chunk)
    defer { scratch.deallocate() }
    let close = scratch + 1
    return packers.indices.map { i in
      packers[i].bytes { start, m, q, _, _ in
        if start == 0 { close[-1] = 0 }
        steps(from: start, count: m, into: (close, close + chunk, close + 2 * chunk, close + 3 * chunk))
        q.update(from: close + i * chunk, count: m)
        close[-1] = close[m - 1]
      }
    }
  }

  /// Where a chunk's steps of the four prices go; the close's `[-1]` holds the close before the chunk (0 before the first bar).
  private typealias PriceSteps = (close: UnsafeMutablePointer<Int64>, open: UnsafeMutablePointer<Int64>,
                                  high: UnsafeMutablePointer<Int64>, low: UnsafeMutablePointer<Int64>)

  /// The steps of bars `start..<start + m` less their prediction into `q`, each price quantized once by `step`:
  /// the close itself, the open less the close before, the high less the larger and the low less the smaller of
  /// the open and close.
  @inline(__always)
  private static func predictedSteps(_ prices: (open: UnsafePointer<Double>, high: UnsafePointer<Double>, low: UnsafePointer<Double>, close: UnsafePointer<Double>),
                                     from start: Int, count m: Int, into q: PriceSteps, step: (Double) -> Int64) {
    let o = prices.open + start, h = prices.high + start, l = prices.low + start, c = prices.close + start
    for k in 0..<m { q.close[k] = step(c[k]) }
    for k in 0..<m {
      let open = step(o[k]), close = q.close[k]
      q.open[k] = open &- q.close[k - 1]
      q.high[k] = step(h[k]) &- max(open, close)
      q.low[k] = step(l[k]) &- min(open, close)
    }
  }

  /// Makes the steps of `count` values from `v` (the column's values from index `at`) into `q`, and returns
  /// whether they stay within `maxSteps` (as `fits` tells; else it stops, and the column is written raw):
  /// a non-finite value repeats the step before it (`previous`), and extends or starts a run in `runs`.
  @inline(__always)
  private static func quantize(_ v: UnsafePointer<Double>, count: Int, at: Int, decimals d: Int, previous: inout Int64,
                               into q: UnsafeMutablePointer<Int64>, runs: inout [(start: Int, length: Int)]) -> Bool {
    guard count > 0 else { return true }
    let scale = powersOfTen[abs(d)]
    // Bit 63 stays set while each |v × 10^d| is below `stepLimit` (so neither nan nor infinite): one test for the
    // chunk, no branch per value. (As nonnegative doubles' bits, as integers, order as the doubles do, nan above all.)
    var inRange: Int64 = -1
    if d >= 0 {
      for k in 0..<count {
        let x = v[k] * scale
        q[k] = roundedToInteger(x)  // used only when in range
        inRange &= Int64(bitPattern: abs(x).bitPattern) &- Int64(bitPattern: stepLimit.bitPattern)
      }
    } else {
      for k in 0..<count {
        let x = v[k] / scale
        q[k] = roundedToInteger(x)
        inRange &= Int64(bitPattern: abs(x).bitPattern) &- Int64(bitPattern: stepLimit.bitPattern)
      }
    }
    if inRange < 0 {
      previous = q[count - 1]
      return true
    }
    var last = previous
    for k in 0..<count {
      let x = v[k]
      if x.isFinite {
        let steps = d >= 0 ? x * scale : x / scale
        guard abs(steps) < stepLimit else { return false }
        last = roundedToInteger(steps)
      } else if let run = runs.last, run.start + run.length == at + k {
        runs[runs.count - 1].length += 1
      } else {
        runs.append((at + k, 1))
      }
      q[k] = last
    }
    previous = last
    return true
  }

  /// The magnitude from which a value's steps round past `maxSteps`: 2^50 + 1/2 (`rounded` takes halves away from 0).
  static let stepLimit = 1_125_899_906_842_624.5

  /// The order (0, 1 or 2) whose zigzag codes take fewest bits in all, the lowest on a tie.
  private static func order(bits: (Int, Int, Int)) -> Int { bits.0 <= min(bits.1, bits.2) ? 0 : bits.1 <= bits.2 ? 1 : 2 }

  /// A column of steps packed a chunk at a time: its runs of `nan`, its order
  /// and its blocks, as described in the type's comment.
  ///
  /// One pass: each chunk is written in the order best for the chunks so far,
  /// which after the last is the column's. The chunks before the order last
  /// changed are made and written again at the end (usually none or a few:
  /// the order settles early).
  private struct StepPacker {
    /// A chunk's steps, after the two before it (0 before the column).
    private let steps = UnsafeMutablePointer<Int64>.allocate(capacity: 2 + chunk)
    private var writer = BlockWriter()
    private let blocks: UnsafeMutablePointer<UInt8>
    /// The runs of `nan` so far, and the last step (which a `nan` repeats).
    var runs: [(start: Int, length: Int)] = []
    var previous: Int64 = 0
    private var bits = (0, 0, 0), order = 1, start = 0, rewriteBefore = 0, o = 0

    /// Where the next chunk's steps are made, after the two before it (`q[-2]` and `q[-1]`).
    var q: UnsafeMutablePointer<Int64> { steps + 2 }

    /// A packer for a column of `n` steps.
    init(count n: Int) {
      blocks = .allocate(capacity: Self.capacity(n))
      steps[0] = 0; steps[1] = 0
    }

    func deallocate() { steps.deallocate(); writer.deallocate(); blocks.deallocate() }

    /// A block takes at most a header, a factor, a mask and 16 codes or exceptions of 8 bytes
    /// (and 8 bytes that a block's last whole-word store may pass the end by).
    private static func capacity(_ values: Int) -> Int { (values + blockSize - 1) / blockSize * (11 + 8 * blockSize) + 8 }

    /// Writes the next chunk, of the `m` steps at `q`.
    mutating func write(count m: Int) {
      // The residuals in the order so far are kept while tallied: most chunks are written in it.
      let kept = writer.tally(q, count: m, into: &bits, keeping: order)
      let best = ChartData.order(bits: bits)
      let prepared = kept && best == order
      if start == 0 || best != order { order = best; rewriteBefore = start; o = 0 }
      o += writer.write(q, count: m, order: order, prepared: prepared, into: blocks + o)
      (q[-2], q[-1]) = (q[m - 2], q[m - 1])
      start += m
    }

    /// The column's bytes, once every chunk is written; the chunks before the order last changed are made again
    /// by `fill(start, count, into, previous step, nan runs)`, as they were.
    mutating func bytes(_ fill: (Int, Int, UnsafeMutablePointer<Int64>, inout Int64, inout [(start: Int, length: Int)]) -> Void) -> [UInt8] {
      order = ChartData.order(bits: bits)  // unchanged after a chunk; 0 without one
      var rewritten: UnsafeMutablePointer<UInt8>? = nil, p = 0
      defer { rewritten?.deallocate() }
      if rewriteBefore > 0 {
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.capacity(rewriteBefore))
        rewritten = out
        var none: [(start: Int, length: Int)] = [], filled: Int64 = 0
        q[-2] = 0; q[-1] = 0
        for start in stride(from: 0, to: rewriteBefore, by: chunk) {
          fill(start, chunk, q, &filled, &none)
          p += writer.write(q, count: chunk, order: order, prepared: false, into: out + p)
          (q[-2], q[-1]) = (q[chunk - 2], q[chunk - 1])
        }
      }
      return [UInt8](unsafeUninitializedCapacity: 10 * (1 + 2 * runs.count) + 1 + p + o) { out, count in
        var h = 0
        func varint(_ value: Int) { h += ChartData.varint(UInt64(value), into: out.baseAddress! + h) }
        varint(runs.count)
        var end = 0
        for run in runs {
          varint(run.start - end)
          varint(run.length)
          end = run.start + run.length
        }
        out[h] = UInt8(order); h += 1
        if let rewritten { (out.baseAddress! + h).update(from: rewritten, count: p) }
        (out.baseAddress! + h + p).update(from: blocks, count: o)
        count = h + p + o
      }
    }
  }

  @inline(__always) static func zigzag(_ r: Int64) -> UInt64 { UInt64(bitPattern: (r << 1) ^ (r >> 63)) }
  /// The bits that hold `z` (0 for 0), for `z` below 2^63: the lowest bit set spares bsr a test for 0.
  @inline(__always) static func bitLength(_ z: UInt64) -> Int { 63 - (z &<< 1 | 1).leadingZeroBitCount }
  /// 1022 plus the bit length of `z`, for `z` below 2^52: the exponent of `z + 1/2`, made exactly as
  /// (2^52 + z) - (2^52 - 1/2). Loops of it vectorize, where bsr (`bitLength`) is slow on some processors
  /// (a tally of three orders: 5.1 ns a value with bsr, 1.4 with this, on AMD Zen 3).
  @inline(__always) static func biasedBitLength(_ z: UInt64) -> UInt64 {
    (Double(bitPattern: z | 0x4330_0000_0000_0000) - 4_503_599_627_370_495.5).bitPattern &>> 52
  }

  /// Writes steps as blocks, a chunk at a time.
  struct BlockWriter {
    /// A chunk's residuals, their zigzag codes and the codes' bit lengths (the last two then 0s up to a whole block).
    private let residuals = UnsafeMutablePointer<Int64>.allocate(capacity: chunk)
    private let codes = UnsafeMutablePointer<UInt64>.allocate(capacity: chunk + blockSize)
    private let lengths = UnsafeMutablePointer<UInt8>.allocate(capacity: chunk + blockSize)
    /// A block's codes that are not exceptions, then 0s.
    private let kept = UnsafeMutablePointer<UInt64>.allocate(capacity: blockSize)
    /// A factor of a block before, which the next block tries first.
    private var divisor = Divisor.one
    /// `ChartData.smallGCDs` and `lengthBits`, read once (each read of a global checks that it is initialized).
    private let smallGCDs = ChartData.smallGCDs, lengthBits = ChartData.lengthBits

    func deallocate() { residuals.deallocate(); codes.deallocate(); lengths.deallocate(); kept.deallocate() }

    /// Adds the bit lengths of the zigzag codes of `q` (after `q[-2]` and `q[-1]`) in each order to `bits`,
    /// and keeps the residuals in `order`, their codes and bit lengths for `write`; returns whether it kept them.
    func tally(_ q: UnsafeMutablePointer<Int64>, count m: Int, into bits: inout (Int, Int, Int), keeping order: Int) -> Bool {
      var sums: (UInt64, UInt64, UInt64) = (0, 0, 0), all: UInt64 = 0
      /// The residual of `q[k]` in each order, its code and the code's biased bit length, the latter tallied.
      @inline(__always) func inEachOrder(_ k: Int) -> (r: (Int64, Int64, Int64), z: (UInt64, UInt64, UInt64), e: (UInt64, UInt64, UInt64)) {
        let r1 = q[k] &- q[k - 1], r = (q[k], r1, r1 &- (q[k - 1] &- q[k - 2]))
        let z = (zigzag(r.0), zigzag(r.1), zigzag(r.2))
        let e = (biasedBitLength(z.0), biasedBitLength(z.1), biasedBitLength(z.2))
        all |= z.0 | z.1 | z.2
        sums = (sums.0 &+ e.0, sums.1 &+ e.1, sums.2 &+ e.2)
        return (r, z, e)
      }
      @inline(__always) func keep(_ k: Int, _ r: Int64, _ z: UInt64, _ e: UInt64) {
        residuals[k] = r
        codes[k] = z
        lengths[k] = UInt8(truncatingIfNeeded: e &- 1022)
      }
      switch order {
      case 0: for k in 0..<m { let t = inEachOrder(k); keep(k, t.r.0, t.z.0, t.e.0) }
      case 1: for k in 0..<m { let t = inEachOrder(k); keep(k, t.r.1, t.z.1, t.e.1) }
      default: for k in 0..<m { let t = inEachOrder(k); keep(k, t.r.2, t.z.2, t.e.2) }
      }
      if all < 1 << 52 {
        let bias = UInt64(1022 &* m)
        bits = (bits.0 &+ Int(sums.0 &- bias), bits.1 &+ Int(sums.1 &- bias), bits.2 &+ Int(sums.2 &- bias))
        return true
      }
      for k in 0..<m {
        let d = q[k] &- q[k - 1]
        bits.0 &+= bitLength(zigzag(q[k]))
        bits.1 &+= bitLength(zigzag(d))
        bits.2 &+= bitLength(zigzag(d &- (q[k - 1] &- q[k - 2])))
      }
      return false
    }

    /// Writes the blocks of the `count` steps at `q` (after `q[-2]` and `q[-1]`) in `order` at `out`, and returns the
    /// bytes written; `prepared`: `tally` kept their residuals in that order.
    mutating func write(_ q: UnsafeMutablePointer<Int64>, count n: Int, order: Int, prepared: Bool, into out: UnsafeMutablePointer<UInt8>) -> Int {
      var lengthsFromExponents = true
      if !prepared {
        switch order {
        case 0: lengthsFromExponents = residuals(n) { q[$0] }
        case 1: lengthsFromExponents = residuals(n) { q[$0] &- q[$0 - 1] }
        default: lengthsFromExponents = residuals(n) { (q[$0] &- q[$0 - 1]) &- (q[$0 - 1] &- q[$0 - 2]) }
        }
      }
      for k in n..<(n + blockSize) { codes[k] = 0; lengths[k] = 0 }  // a short last block: 0s, counted as no length, outside the mask
      var o = 0, start = 0
      while start + blockSize <= n {
        o += block(start, count: blockSize, lengthsFromExponents: lengthsFromExponents, into: out + o)
        start += blockSize
      }
      if start < n { o += block(start, count: n - start, lengthsFromExponents: lengthsFromExponents, into: out + o) }
      return o
    }

    /// Makes the residuals `residual(k)` for `k` in `0..<n`, their codes and the codes' bit lengths;
    /// returns whether every code is below 2^52 (so that `biasedBitLength` serves).
    @inline(__always)
    private func residuals(_ n: Int, _ residual: (Int) -> Int64) -> Bool {
      var all: UInt64 = 0
      for k in 0..<n {
        let r = residual(k), code = zigzag(r)
        residuals[k] = r
        codes[k] = code
        lengths[k] = UInt8(truncatingIfNeeded: biasedBitLength(code) &- 1022)
        all |= code
      }
      if all < 1 << 52 { return true }
      for k in 0..<n { lengths[k] = UInt8(truncatingIfNeeded: bitLength(codes[k])) }
      return false
    }

    /// Writes the block of the `m` residuals from `start`; returns the bytes written.
    @inline(__always)
    private mutating func block(_ start: Int, count m: Int, lengthsFromExponents: Bool, into out: UnsafeMutablePointer<UInt8>) -> Int {
      let r = residuals + start, codes = codes + start, lengths = lengths + start
      // Every residual 0 (a flat stretch: most of a position's or a drawdown's blocks): a width of 0, and no
      // factor, which leaves the divisor as it was, as the search below would.
      let words = UnsafeRawPointer(lengths)
      let lows = words.loadUnaligned(as: UInt64.self), highs = words.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
      if lows | highs == 0 { out[0] = 0; return 1 }
      // Which residuals are not 0 (a code of length 0 is a residual of 0), for the factor search to visit only those.
      let nonzero = Self.mask(bytesAbove: 0, in: lows) | Self.mask(bytesAbove: 0, in: highs) &<< 8
      // The factor: the greatest common divisor of the residuals (0 when all are 0). One above 1 often
      // repeats from block to block (a column of multiples): when that of a block before divides every
      // residual, the factor is it times that of the quotients, mostly 1.
      var factor: UInt64, misses: UInt64 = 0
      if divisor.value > 1 {
        for k in 0..<m { misses |= divisor.remainderBits(r[k].magnitude) }
      }
      if divisor.value > 1 && misses == 0 {
        let before = divisor
        factor = before.value &* Self.commonFactor(nonzero, divisor: &divisor, gcds: smallGCDs) { before.exactQuotient(r[$0]).magnitude }
        divisor = before  // a larger factor gets its own below
      } else {
        factor = Self.commonFactor(nonzero, divisor: &divisor, gcds: smallGCDs) { r[$0].magnitude }
        if factor <= 1 { divisor = .one }  // tried again only after a block with a factor
      }
      if factor > 1 {
        var others: UInt64 = 0  // not 0 when a residual is other than 0 and ±factor (no branch per residual)
        for k in 0..<m { others |= min(r[k].magnitude, r[k].magnitude ^ factor) }
        if others == 0 {
          // Quotients of 1, -1 and 0: codes 2, 1 and 0, which are also their bit lengths.
          for k in 0..<m {
            codes[k] = r[k] > 0 ? 2 : r[k] < 0 ? 1 : 0
            lengths[k] = UInt8(truncatingIfNeeded: codes[k])
          }
        } else {
          if divisor.value != factor { divisor = Divisor(factor) }
          for k in 0..<m {
            codes[k] = zigzag(divisor.exactQuotient(r[k]))
            lengths[k] = UInt8(truncatingIfNeeded: lengthsFromExponents ? Int(biasedBitLength(codes[k]) &- 1022) : bitLength(codes[k]))
          }
        }
      }
      // The bit lengths, eight to a word.
      let low = words.loadUnaligned(as: UInt64.self), high = words.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
      var width = Int(words.loadUnaligned(as: SIMD16<UInt8>.self).max())
      // Not 0 here (a block of zeros returned above, and quotients of a factor are not 0); kept as a safeguard.
      guard width != 0 else { out[0] = 0; return 1 }
      var best = (width &* m &+ 7) &>> 3
      // A code takes at least its bit length whether kept (in a width at least that) or an exception (a byte per
      // 7 bits), and exceptions take a mask of 2 bytes: no narrower width costs less when the lengths' sum says so.
      let pairs = low &+ high  // bytes of at most 2 × 54
      let sums = (pairs & 0x00FF_00FF_00FF_00FF) &+ (pairs &>> 8 & 0x00FF_00FF_00FF_00FF)
      let bits = Int(truncatingIfNeeded: (sums &* 0x0001_0001_0001_0001) &>> 48)
      if (bits &+ 7) &>> 3 &+ 2 < best {
        // Which lengths occur: length L at bit 63 - L, so that the longest is the lowest.
        var present: UInt64 = 0
        for k in 0..<blockSize { present |= lengthBits[Int(lengths[k])] }
        var rest = present & ~(1 << 63)  // lengths above 0
        // Candidate widths: each bit length present, the longer codes becoming exceptions
        // (longest first; a width of 0 only when no code is 0, which would take a bit).
        var length = width, taken = 0, exceptionBytes = 0, keptBits = bits
        rest &= rest &- 1
        while true {
          let count = Self.count(bytesEqualTo: UInt64(length), in: low) &+ Self.count(bytesEqualTo: UInt64(length), in: high)
          taken &+= count
          keptBits &-= count &* length
          exceptionBytes &+= count &* (((length &+ 6) &* 37) &>> 8)  // (length + 6) / 7 for lengths below 64
          let next = rest == 0 ? 0 : 63 &- rest.trailingZeroBitCount
          let cost = (next &* (m &- taken) &+ 7) &>> 3 &+ exceptionBytes &+ 2
          if cost < best { best = cost; width = next }
          // A narrower width makes exceptions of these and more, each taking at least its length as above.
          if rest == 0 || (keptBits &+ 7) &>> 3 &+ exceptionBytes &+ 2 >= best { break }
          rest &= rest &- 1
          length = next
        }
      }
      let mask = (Self.mask(bytesAbove: width, in: low) | Self.mask(bytesAbove: width, in: high) &<< 8) & (1 &<< UInt32(m) &- 1)
      var o = 0
      out[o] = UInt8(width) | (factor > 1 ? 64 : 0) | (mask != 0 ? 128 : 0); o += 1
      if factor > 1 { o += varint(factor, into: out + o) }
      if mask == 0 {
        o += Self.pack(codes, count: m, width: width, into: out + o)
        return o
      }
      out[o] = UInt8(mask & 0xFF); out[o + 1] = UInt8(mask >> 8); o += 2
      for k in 0..<blockSize { kept[k] = 0 }
      var n = 0
      for k in 0..<m {
        let keep = Int(lengths[k]) <= width
        kept[n] = keep ? codes[k] : 0
        n &+= keep ? 1 : 0
      }
      o += Self.pack(kept, count: n, width: width, into: out + o)
      var exceptions = mask
      while exceptions != 0 {
        o += varint(codes[exceptions.trailingZeroBitCount], into: out + o)
        exceptions &= exceptions &- 1
      }
      return o
    }

    /// The greatest common divisor of `value(k)` for each `k` in `nonzero` (a mask, not 0; the values at the others
    /// are 0); `divisor` is left for it or for another. Most blocks reach 1 at their second value; a factor still
    /// above 1 mostly divides the rest, which a multiplication tells. Visiting only the values not 0 spares the
    /// loops mispredicted exits after runs of 0s (a time column's differences, a position's).
    @inline(__always)
    private static func commonFactor(_ nonzero: UInt32, divisor: inout Divisor, gcds: UnsafePointer<UInt8>, _ value: (Int) -> UInt64) -> UInt64 {
      var rest = nonzero
      /// The value at the lowest index left, which it removes.
      @inline(__always) func next() -> UInt64 {
        defer { rest &= rest &- 1 }
        return value(rest.trailingZeroBitCount)
      }
      var factor = next()
      if rest != 0 && factor > 1 { factor = gcd(factor, next(), table: gcds) }
      while factor > 1 {
        while rest != 0 && value(rest.trailingZeroBitCount) == factor { rest &= rest &- 1 }  // no inverse needed (blocks of a few steps of one size)
        if rest == 0 { break }
        if divisor.value != factor { divisor = Divisor(factor) }
        while rest != 0 && divisor.remainderBits(value(rest.trailingZeroBitCount)) == 0 { rest &= rest &- 1 }
        if rest == 0 { break }
        factor = gcd(factor, next(), table: gcds)
      }
      return factor
    }

    /// Writes `count` codes of `width` bits each at `out`, least significant bit first, and returns the bytes
    /// written; the codes are read in fours up to a whole block, those after `count` being 0.
    @inline(__always)
    private static func pack(_ codes: UnsafeMutablePointer<UInt64>, count: Int, width w: Int, into out: UnsafeMutablePointer<UInt8>) -> Int {
      var accumulator: UInt64 = 0, filled = 0, o = 0
      /// Adds `bits` bits (57 at most), storing the whole bytes with one 8-byte store (the bytes past them are written over later).
      @inline(__always) func push(_ value: UInt64, _ bits: Int) {
        accumulator |= value &<< UInt64(filled)
        filled &+= bits
        UnsafeMutableRawPointer(out + o).storeBytes(of: accumulator.littleEndian, as: UInt64.self)
        let whole = filled &>> 3
        o &+= whole
        accumulator = accumulator &>> UInt64(8 &* whole)
        filled &= 7
      }
      // Narrow codes are joined in twos or fours first, which shortens the chain through the accumulator.
      let shift = UInt64(truncatingIfNeeded: w)
      if w <= 14 {
        for k in stride(from: 0, to: count, by: 4) {
          push(codes[k] | codes[k + 1] &<< shift | codes[k + 2] &<< (2 &* shift) | codes[k + 3] &<< (3 &* shift), 4 &* w)
        }
      } else if w <= 28 {
        for k in stride(from: 0, to: count, by: 2) { push(codes[k] | codes[k + 1] &<< shift, 2 &* w) }
      } else {
        // At most 54 bits: steps stay within 2^50 (`maxSteps`), so a price's residual within 2^51, its
        // differences of the second order within 2^53, and their zigzag codes below 2^54.
        precondition(w <= 56, "a code of \(w) bits")
        for k in 0..<count { push(codes[k], w) }
      }
      return (count &* w &+ 7) &>> 3
    }

    /// How many of the eight bytes of `word` equal `value`.
    @inline(__always) private static func count(bytesEqualTo value: UInt64, in word: UInt64) -> Int {
      let x = word ^ (value &* 0x0101_0101_0101_0101)
      // A byte's high bit set when it is not 0: from its own high bit, or from the carry out of its low seven.
      let nonzero = ((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | x
      return Int(truncatingIfNeeded: (((~nonzero & 0x8080_8080_8080_8080) &>> 7) &* 0x0101_0101_0101_0101) &>> 56)
    }

    /// Bit k set when byte k of `word` is above `value` (every byte and `value` below 128).
    @inline(__always) private static func mask(bytesAbove value: Int, in word: UInt64) -> UInt32 {
      // A byte plus 128 less (value + 1) keeps its high bit when the byte is above value, with no borrow from the next.
      let above = ((word | 0x8080_8080_8080_8080) &- UInt64(value &+ 1) &* 0x0101_0101_0101_0101) & 0x8080_8080_8080_8080
      // The eight high bits gathered into the top byte of the product.
      return UInt32(truncatingIfNeeded: ((above &>> 7) &* 0x0102_0408_1020_4080) &>> 56)
    }
  }

  /// A divisor as its twos and the inverse of its odd part modulo 2^64: a whole quotient is `n >> twos` times the inverse,
  /// and only a whole quotient times the odd part stays below 2^64.
  struct Divisor {
    static let one = Divisor(1)
    let value: UInt64, twos: UInt64, odd: UInt64, inverse: UInt64

    /// The divisor `value`, above 0.
    init(_ value: UInt64) {
      self.value = value
      twos = UInt64(value.trailingZeroBitCount)
      odd = value &>> twos
      var y = (3 &* odd) ^ 2  // right in the lowest 5 bits; each step of Newton's iteration doubles them
      for _ in 0..<4 { y = y &* (2 &- odd &* y) }
      inverse = y
    }

    /// 0 exactly when the divisor divides `n`.
    @inline(__always) func remainderBits(_ n: UInt64) -> UInt64 {
      n & ((1 &<< twos) &- 1) | ((n &>> twos) &* inverse).multipliedFullWidth(by: odd).high
    }

    /// `n` divided by the divisor, which divides it.
    @inline(__always) func exactQuotient(_ n: Int64) -> Int64 { (n &>> twos) &* Int64(bitPattern: inverse) }
  }

  /// Writes `value` as a varint at `out`; returns its bytes.
  @inline(__always)
  static func varint(_ value: UInt64, into out: UnsafeMutablePointer<UInt8>) -> Int {
    var v = value, o = 0
    while v >= 0x80 { out[o] = UInt8(truncatingIfNeeded: v) | 0x80; o += 1; v >>= 7 }
    out[o] = UInt8(v)
    return o + 1
  }

  /// Bit 63 - L for each bit length L: a block's lengths or-ed together tell which occur, the longest the lowest bit.
  nonisolated(unsafe) static let lengthBits: UnsafePointer<UInt64> = {
    let table = UnsafeMutablePointer<UInt64>.allocate(capacity: 64)
    for length in 0..<64 { table[length] = (1 << 63) >> UInt64(length) }
    return UnsafePointer(table)
  }()

  /// The greatest common divisor, from `table` (`smallGCDs`) when both are below 64.
  @inline(__always) static func gcd(_ a: UInt64, _ b: UInt64, table: UnsafePointer<UInt8>) -> UInt64 {
    (a | b) < 64 ? UInt64(table[Int(truncatingIfNeeded: a &<< 6 | b)]) : gcd(a, b)
  }

  /// The greatest common divisor of each pair below 64 at `a << 6 | b`: most blocks' first two residuals are
  /// that small, and their divisor (mostly 1) is a load, where the binary algorithm's loop takes a few dozen cycles.
  nonisolated(unsafe) static let smallGCDs: UnsafePointer<UInt8> = {
    let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 64 * 64)
    for a in 0..<64 { for b in 0..<64 { table[a << 6 | b] = UInt8(gcd(UInt64(a), UInt64(b))) } }
    return UnsafePointer(table)
  }()

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

  // MARK: Text

  /// The bytes as the text of a JavaScript string in a page (`text(_:)`).
  var text: String { Self.text(bytes) }

  /// The 7-bit groups that cannot stand for themselves in a JavaScript string inside a script element: NUL (the
  /// HTML parser replaces it), LF and CR (line ends; CR is also rewritten), `"` and `\` (the string's own), and `<`
  /// (it could start `</script`).
  static let unsafeGroups: [UInt8] = [0, 10, 13, 34, 92, 60]
  /// For each 7-bit group, its index in `unsafeGroups`, or -1.
  static let unsafeIndex: [Int8] = (0..<128).map { g in Int8(unsafeGroups.firstIndex(of: UInt8(g)) ?? -1) }

  /// Bytes as text for a JavaScript string in a script element of a UTF-8 page, 7 bits a character where base64
  /// has 6: the bits, most significant first, in groups of 7 (the last padded with 0s), each group the ASCII
  /// character of its value, except the six `unsafeGroups`: such a group and the group after it (0 when there is
  /// none) become one character, U+0080 + 128 × (its index in `unsafeGroups`) + the next group's value (U+0080 to
  /// U+037F, two bytes of UTF-8 for the two groups). A byte of text a group: 8/7 of the bytes, against base64's
  /// 4/3. The script reads the groups back (`bytesFromText`); a whole byte the padding makes is past the data.
  /// The other control characters stay as they are: a script string may hold them, and HTML parsers pass them on
  /// (tools such as grep may then call the page binary).
  struct TextEncoder {
    private var accumulator: UInt64 = 0, bits = 0, pending = -1

    /// The most text `count` bytes make at a time: a character per group, two bytes for two groups, a group of padding, and a last escape.
    static func capacity(_ count: Int) -> Int { (8 * count + 6) / 7 + 2 }

    @inline(__always) private mutating func emit(_ group: UInt8, _ unsafe: UnsafePointer<Int8>, _ out: UnsafeMutablePointer<UInt8>, _ o: inout Int) {
      if pending >= 0 {
        let point = 0x80 + pending << 7 + Int(group)
        out[o] = UInt8(truncatingIfNeeded: 0xC0 | point >> 6); out[o + 1] = UInt8(truncatingIfNeeded: 0x80 | point & 63)
        o += 2
        pending = -1
      } else if unsafe[Int(group)] >= 0 {
        pending = Int(unsafe[Int(group)])
      } else {
        out[o] = group
        o += 1
      }
    }

    /// Writes the text of `bytes`, after those encoded before, at `out` (room for `capacity(bytes.count)`); returns its length.
    mutating func encode(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int {
      var o = 0, i = 0
      let n = bytes.count
      ChartData.unsafeIndex.withUnsafeBufferPointer { table in
        let unsafe = table.baseAddress!
        // Seven bytes are eight groups: read as one word while no bits are left over from before.
        if bits == 0, let base = UnsafeRawPointer(bytes.baseAddress) {
          while i + 8 <= n {
            let word = UInt64(bigEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) >> 8
            for k in 0..<8 { emit(UInt8(truncatingIfNeeded: word >> UInt64(49 - 7 * k)) & 127, unsafe, out, &o) }
            i += 7
          }
        }
        while i < n {
          accumulator = accumulator << 8 | UInt64(bytes[i])
          bits += 8
          i += 1
          while bits >= 7 {
            bits -= 7
            emit(UInt8(truncatingIfNeeded: accumulator >> UInt64(bits)) & 127, unsafe, out, &o)
          }
          accumulator &= (1 << UInt64(bits)) - 1
        }
      }
      return o
    }

    /// Writes the end of the text at `out` (room for 3): the last bits, padded to a group, and a last escape's character.
    mutating func finish(into out: UnsafeMutablePointer<UInt8>) -> Int {
      var o = 0
      ChartData.unsafeIndex.withUnsafeBufferPointer { table in
        if bits > 0 { emit(UInt8(truncatingIfNeeded: accumulator << UInt64(7 - bits)) & 127, table.baseAddress!, out, &o) }
        bits = 0
        accumulator = 0
        if pending >= 0 { emit(0, table.baseAddress!, out, &o) }
      }
      return o
    }
  }

  static func text(_ bytes: [UInt8]) -> String {
    String(unsafeUninitializedCapacity: TextEncoder.capacity(bytes.count) + 3) { out in
      var encoder = TextEncoder()
      let n = bytes.withUnsafeBufferPointer { encoder.encode($0, into: out.baseAddress!) }
      return n + encoder.finish(into: out.baseAddress! + n)
    }
  }

  /// The length in bytes of the text of `bytes` (`text(_:)`): a character per group, and one more when the last
  /// groups are an odd run of unsafe ones (the last escape's character then takes a group of padding).
  static func textLength(_ bytes: [UInt8]) -> Int {
    let groups = (8 * bytes.count + 6) / 7
    var unsafeAtEnd = 0
    bytes.withUnsafeBufferPointer { b in
      func group(_ g: Int) -> Int {  // the value of group g, of the bits padded with 0s
        let bit = 7 * g
        var v = 0
        for k in 0..<7 where bit + k < 8 * b.count && b[(bit + k) / 8] & (0x80 >> UInt8((bit + k) % 8)) != 0 { v |= 64 >> k }
        return v
      }
      var g = groups - 1
      while g >= 0 && unsafeIndex[group(g)] >= 0 { unsafeAtEnd += 1; g -= 1 }
    }
    return groups + unsafeAtEnd % 2
  }

  /// Passes the text of `bytes` to `consume` in pieces, each the text of `bytesPerPiece` bytes (a multiple of 7) or
  /// fewer, encoded into one buffer.
  static func text(_ bytes: [UInt8], in bytesPerPiece: Int, _ consume: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
    precondition(bytesPerPiece > 0 && bytesPerPiece % 7 == 0)
    try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: TextEncoder.capacity(bytesPerPiece) + 3) { out in
      try bytes.withUnsafeBufferPointer { b in
        var encoder = TextEncoder(), start = 0
        while start < b.count {
          let piece = UnsafeBufferPointer(rebasing: b[start..<min(b.count, start + bytesPerPiece)])
          try consume(UnsafeBufferPointer(start: out.baseAddress!, count: encoder.encode(piece, into: out.baseAddress!)))
          start += piece.count
        }
        let end = encoder.finish(into: out.baseAddress!)
        if end > 0 { try consume(UnsafeBufferPointer(start: out.baseAddress!, count: end)) }
      }
    }
  }
}
