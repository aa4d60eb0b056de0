import BacktestCore
import Foundation

/// Writes SVG markup into a byte buffer; coordinates are rounded to 0.1 px.
package struct SVGBuilder {
  /// The markup so far.
  private(set) var bytes = TextBuffer(capacity: 1 << 14)

  package init() {}

  /// The markup so far, as text.
  package var text: String { bytes.string }

  /// `x` rounded to 0.1: whole numbers without a point (`12`, `-3`), others as `"%.1f"` writes them (`12.3`).
  package static func coordinate(_ x: Double) -> String {
    String(unsafeUninitializedCapacity: maximumCoordinateLength) { write(coordinate: x, to: $0.baseAddress!) }
  }

  /// Room for the text `write(coordinate:to:)` writes (at most 20 bytes, `-9223372036854775808`).
  static let maximumCoordinateLength = 24

  /// Writes `coordinate(x)`'s text at `p` and returns its length (at most `maximumCoordinateLength`).
  @inline(__always)
  static func write(coordinate x: Double, to p: UnsafeMutablePointer<UInt8>) -> Int {
    let tenths = (x * 10).rounded()
    let r = tenths / 10
    if r == r.rounded() { return write(Int64(r), to: p) }
    // Not whole, so below 2^52 (about 4.5e15): the "%.1f" text has at most 19 bytes.
    guard abs(tenths) < 1e15 else {
      var text = FixedDecimal.text(r, decimals: 1)
      return text.withUTF8 { p.update(from: $0.baseAddress!, count: $0.count); return $0.count }
    }
    // What "%.1f" writes for r (the double nearest tenths / 10): the digits of tenths with a point before the last.
    let k = Int64(tenths)
    var n = 0
    if k < 0 { p[0] = UInt8(ascii: "-"); n = 1 }
    n += write(digits: k.magnitude / 10, to: p + n)
    p[n] = UInt8(ascii: ".")
    p[n + 1] = UInt8(ascii: "0") + UInt8(k.magnitude % 10)
    return n + 2
  }

  /// Writes the decimal digits of `v` at `p` (`-` first when negative) and returns their count.
  @inline(__always)
  private static func write(_ v: Int64, to p: UnsafeMutablePointer<UInt8>) -> Int {
    if v < 0 { p[0] = UInt8(ascii: "-"); return 1 + write(digits: v.magnitude, to: p + 1) }
    return write(digits: UInt64(v), to: p)
  }

  @inline(__always)
  private static func write(digits v: UInt64, to p: UnsafeMutablePointer<UInt8>) -> Int {
    var length = 1, rest = v / 10
    while rest > 0 { length += 1; rest /= 10 }
    var q = p + length, v = v
    repeat {
      q -= 1
      q.pointee = UInt8(ascii: "0") + UInt8(v % 10)
      v /= 10
    } while v > 0
    return length
  }

  /// `s` with `&`, `<`, `>` and `"` written as entities, in one pass (`s` itself when it has none).
  package static func escape(_ s: String) -> String {
    guard s.utf8.contains(where: { entity($0) != nil }) else { return s }
    var out = TextBuffer(capacity: s.utf8.count + 64)
    out.append(escaping: s)
    return out.string
  }

  /// The entity `b` is written as in markup, if it needs one.
  @inline(__always)
  static func entity(_ b: UInt8) -> StaticString? {
    switch b {
    case UInt8(ascii: "&"): "&amp;"
    case UInt8(ascii: "<"): "&lt;"
    case UInt8(ascii: ">"): "&gt;"
    case UInt8(ascii: "\""): "&quot;"
    default: nil
    }
  }

  package mutating func raw(_ s: String) { bytes.append(s) }

  /// Appends the markup in `other`.
  mutating func raw(_ other: TextBuffer) { other.withBytes { bytes.append(bytes: $0) } }

  /// Appends `coordinate(x)`.
  mutating func coordinate(_ x: Double) { bytes.append(coordinate: x) }

  /// Appends ` name="coordinate(x)"`.
  private mutating func attribute(_ name: StaticString, _ x: Double) {
    bytes.append(byte: UInt8(ascii: " "))
    bytes.append(name)
    bytes.append(byte: UInt8(ascii: "="))
    bytes.append(byte: UInt8(ascii: "\""))
    bytes.append(coordinate: x)
    bytes.append(byte: UInt8(ascii: "\""))
  }

  /// Appends ` attributes/>`, the end of an element.
  private mutating func close(_ attributes: String) {
    bytes.append(byte: UInt8(ascii: " "))
    bytes.append(attributes)
    bytes.append("/>" as StaticString)
  }

  package mutating func rect(x: Double, y: Double, width: Double, height: Double, attributes: String) {
    bytes.append("<rect" as StaticString)
    attribute("x", x); attribute("y", y); attribute("width", max(0, width)); attribute("height", max(0, height))
    close(attributes)
  }

  package mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, attributes: String) {
    bytes.append("<line" as StaticString)
    attribute("x1", x1); attribute("y1", y1); attribute("x2", x2); attribute("y2", y2)
    close(attributes)
  }

  package mutating func polyline(_ points: [(Double, Double)], attributes: String) {
    guard points.count > 1 else { return }
    bytes.append("<polyline fill=\"none\" points=\"" as StaticString)
    self.points(points)
    bytes.append(byte: UInt8(ascii: "\""))
    close(attributes)
  }

  /// Appends `x,y` for each point, separated by spaces (a `points` attribute's value).
  mutating func points(_ points: [(Double, Double)]) {
    for (k, point) in points.enumerated() {
      bytes.append(upTo: 1 + 2 * Self.maximumCoordinateLength) { p in
        var n = 0
        if k > 0 { p[0] = UInt8(ascii: " "); n = 1 }
        n += Self.write(coordinate: point.0, to: p + n)
        p[n] = UInt8(ascii: ",")
        return n + 1 + Self.write(coordinate: point.1, to: p + n + 1)
      }
    }
  }

  package mutating func label(_ s: String, x: Double, y: Double, attributes: String = "class=\"label\"") {
    bytes.append("<text" as StaticString)
    attribute("x", x); attribute("y", y)
    bytes.append(byte: UInt8(ascii: " "))
    bytes.append(attributes)
    bytes.append(byte: UInt8(ascii: ">"))
    bytes.append(escaping: s)
    bytes.append("</text>" as StaticString)
  }
}

extension TextBuffer {
  /// Appends `SVGBuilder.coordinate(x)`.
  @inline(__always)
  mutating func append(coordinate x: Double) {
    append(upTo: SVGBuilder.maximumCoordinateLength) { SVGBuilder.write(coordinate: x, to: $0) }
  }

  mutating func append(_ text: StaticString) {
    append(bytes: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// Appends a path command and its point (`M12 3.5`, `h1M7 8`).
  mutating func append(path command: StaticString, _ x: Double, _ y: Double) {
    append(command)
    append(coordinate: x)
    append(byte: UInt8(ascii: " "))
    append(coordinate: y)
  }

  /// Appends a path command and its one coordinate (`V40`).
  mutating func append(path command: StaticString, _ v: Double) {
    append(command)
    append(coordinate: v)
  }

  /// Appends `s` as `SVGBuilder.escape(s)`.
  mutating func append(escaping s: String) {
    var s = s
    s.withUTF8 { append(escaping: $0) }
  }

  /// Appends `bytes` with `&`, `<`, `>` and `"` written as entities.
  mutating func append(escaping bytes: UnsafeBufferPointer<UInt8>) {
    var start = 0
    for (i, b) in bytes.enumerated() {
      guard let entity = SVGBuilder.entity(b) else { continue }
      append(bytes: UnsafeBufferPointer(rebasing: bytes[start..<i]))
      append(entity)
      start = i + 1
    }
    append(bytes: UnsafeBufferPointer(rebasing: bytes[start...]))
  }
}

/// Reduces a line to about `threshold` points that keep its shape: the
/// largest-triangle-three-buckets algorithm (Steinarsson 2013). Returns indices
/// into `y`, always including the first and the last; `nan` values are skipped.
package func largestTriangleThreeBuckets(_ y: ContiguousArray<Double>, threshold: Int) -> [Int] {
  y.withUnsafeBufferPointer { y in
    // Usually only a warm-up at the start is undefined: then the defined
    // indices are a range, and need no array of their own.
    let first = y.firstIndex { !$0.isNaN } ?? y.count
    let last = y.lastIndex { !$0.isNaN } ?? -1
    if first <= last, let kept = largestTriangleThreeBuckets(y, range: first...last, threshold: threshold) { return kept }
    return generalLargestTriangleThreeBuckets(y, threshold: threshold)
  }
}

/// `largestTriangleThreeBuckets` by its general form alone (the fast path for
/// lines without gaps must give the same indices: `LineReductionTests`).
package func generalLargestTriangleThreeBuckets(_ y: ContiguousArray<Double>, threshold: Int) -> [Int] {
  y.withUnsafeBufferPointer { generalLargestTriangleThreeBuckets($0, threshold: threshold) }
}

private func generalLargestTriangleThreeBuckets(_ y: UnsafeBufferPointer<Double>, threshold: Int) -> [Int] {
  let defined = y.indices.filter { !y[$0].isNaN }
  return largestTriangleThreeBuckets(y, count: defined.count, threshold: threshold) { defined[$0] }
}

/// The algorithm over `y[range]`, the same indices as the general form below,
/// or `nil` when a value in the range is `nan` (found in passing, no pass of its own).
///
/// Each bucket's mean is a sum in index order, whose additions wait for one another:
/// four buckets' sums run side by side, then each bucket's largest triangle is
/// searched four values at a time. Every area is computed as in the general form.
/// - Complexity: O(`range.count`), reading each value about twice.
private func largestTriangleThreeBuckets(_ y: UnsafeBufferPointer<Double>, range: ClosedRange<Int>,
                                         threshold: Int) -> [Int]? {
  let first = range.lowerBound, count = range.count
  let p = y.baseAddress! + first  // p[k]: the k-th value, at index first + k
  guard count > threshold, threshold >= 3 else { return (0..<count).contains { p[$0].isNaN } ? nil : Array(range) }
  let buckets = threshold - 2, width = Double(count - 2) / Double(buckets)
  func bound(_ b: Int) -> Int { Int(Double(b) * width) + 1 }
  // The means' sums see every value but the first bucket's and the ends (defined).
  if (1..<min(bound(1), count - 1)).contains(where: { p[$0].isNaN }) { return nil }
  // Below 2^26 a sum of indices is an integer below 2^52 at every step, so summed
  // in order in Doubles it is exact: the closed form gives the same bits.
  let exactIndexSums = y.count <= 1 << 26
  var out = [first]
  out.reserveCapacity(threshold)
  var a = 0  // the last point kept, as k
  for group in stride(from: 0, to: buckets, by: 4) {
    let lanes = min(4, buckets &- group)
    // Lane j: the bucket after bucket group + j. Lanes past the last bucket add up values never used.
    var from = SIMD4<Int>(repeating: 0), length = SIMD4<Int>(repeating: 0)
    for j in 0..<lanes {
      let end = min(bound(group &+ j &+ 1), count - 1), nextEnd = min(bound(group &+ j &+ 2), count)
      from[j] = end
      length[j] = max(1, nextEnd &- end)
    }
    var shared = count
    for j in 0..<lanes { shared = min(shared, length[j]) }
    var sumY = SIMD4<Double>.zero, sumX = SIMD4<Double>.zero, n = SIMD4<Double>(repeating: 1)
    let p0 = p + from[0], p1 = p + from[1], p2 = p + from[2], p3 = p + from[3]
    for t in 0..<shared { sumY += SIMD4(p0[t], p1[t], p2[t], p3[t]) }
    for j in 0..<lanes {
      var sum = sumY[j]
      for k in (from[j] &+ shared)..<(from[j] &+ length[j]) { sum += p[k] }
      sumY[j] = sum
      let x = first &+ from[j], l = length[j]
      if exactIndexSums {
        sumX[j] = Double(l &* (2 &* x &+ l &- 1) / 2)
      } else {
        sum = 0
        for i in x..<(x &+ l) { sum += Double(i) }
        sumX[j] = sum
      }
      n[j] = Double(l)
    }
    // A nan value makes its sum nan (so do infinities of both signs: the general form decides).
    if any(sumY .!= sumY) { return nil }
    let meanX = sumX / n, meanY = sumY / n
    for j in 0..<lanes {
      let start = bound(group &+ j), end = min(bound(group &+ j &+ 1), count - 1)
      a = largestTriangle(p, in: start..<max(end, start &+ 1), after: a, at: Double(first &+ a),
                          meanX: meanX[j], meanY: meanY[j])
      out.append(first &+ a)
    }
  }
  out.append(first &+ count &- 1)
  return out
}

/// Returns the first `k` in `range` with the largest area
/// `abs((xa - meanX) * (p[k] - p[a]) - (xa - xk) * (meanY - p[a]))`, xk the index of `p[k]`;
/// a `nan` area never wins, `range.lowerBound` if all are `nan`.
@inline(__always)
private func largestTriangle(_ p: UnsafePointer<Double>, in range: Range<Int>, after a: Int, at xa: Double,
                             meanX: Double, meanY: Double) -> Int {
  let ya = p[a], dx = xa - meanX, dy = meanY - ya
  // xa - xk is a - k, exact in a Double like both indices; the lanes count it down.
  var d = Double(a &- range.lowerBound) - SIMD4<Double>(0, 1, 2, 3)
  var best = SIMD4<Double>(repeating: -1), bestD = d  // each lane's first largest area
  var k = range.lowerBound
  while k &+ 4 <= range.upperBound {
    let v = UnsafeRawPointer(p + k).loadUnaligned(as: SIMD4<Double>.self)
    let area = magnitude(dx * (v - ya) - d * dy)
    let larger = area .> best
    best.replace(with: area, where: larger)
    bestD.replace(with: d, where: larger)
    d -= 4
    k &+= 4
  }
  var kept = (k: range.lowerBound, area: -1.0)
  for j in 0..<4 where best[j] > kept.area || (best[j] == kept.area && a &- Int(bestD[j]) < kept.k) {
    kept = (a &- Int(bestD[j]), best[j])
  }
  while k < range.upperBound {  // after every lane's values: only a larger area wins
    let area = abs(dx * (p[k] - ya) - Double(a &- k) * dy)
    if area > kept.area { kept = (k, area) }
    k &+= 1
  }
  return kept.k
}

/// `abs` of each lane: the sign bit cleared.
@inline(__always)
private func magnitude(_ v: SIMD4<Double>) -> SIMD4<Double> {
  unsafeBitCast(unsafeBitCast(v, to: SIMD4<UInt64>.self) & SIMD4(repeating: 0x7FFF_FFFF_FFFF_FFFF), to: SIMD4<Double>.self)
}

/// The algorithm over the `count` defined values, the `k`-th at index `defined(k)`: the general
/// form, for lines with gaps.
@inline(__always)
private func largestTriangleThreeBuckets(_ y: UnsafeBufferPointer<Double>, count: Int, threshold: Int,
                                         _ defined: (Int) -> Int) -> [Int] {
  guard count > threshold, threshold >= 3 else { return (0..<count).map(defined) }
  var out = [defined(0)]
  out.reserveCapacity(threshold)
  let bucket = Double(count - 2) / Double(threshold - 2)
  var a = defined(0)
  for b in 0..<(threshold - 2) {
    let start = Int(Double(b) * bucket) + 1, end = min(Int(Double(b + 1) * bucket) + 1, count - 1)
    let nextStart = end, nextEnd = min(Int(Double(b + 2) * bucket) + 1, count)
    var avgX = 0.0, avgY = 0.0
    for k in nextStart..<max(nextEnd, nextStart + 1) where k < count { avgX += Double(defined(k)); avgY += y[defined(k)] }
    let n = Double(max(1, min(nextEnd, count) - nextStart))
    avgX /= n; avgY /= n
    func area(_ i: Int) -> Double { abs((Double(a) - avgX) * (y[i] - y[a]) - (Double(a) - Double(i)) * (avgY - y[a])) }
    // The first index of the largest area (a `nan` area never wins), searched in two interleaved halves
    // so that each comparison need not wait for the one before.
    var best = (defined(start), -1.0), other = (Int.max, -1.0)
    var k = start
    let stop = max(end, start + 1)
    while k + 1 < stop {
      let i = defined(k), j = defined(k + 1)
      let areaI = area(i), areaJ = area(j)
      if areaI > best.1 { best = (i, areaI) }
      if areaJ > other.1 { other = (j, areaJ) }
      k += 2
    }
    if k < stop && area(defined(k)) > best.1 { best = (defined(k), area(defined(k))) }
    if other.1 > best.1 || (other.1 == best.1 && other.0 < best.0) { best = other }
    out.append(best.0)
    a = best.0
  }
  out.append(defined(count - 1))
  return out
}

/// "Nice" tick values covering [low, high]: about `count` steps of 1, 2 or 5 × 10^k.
package func niceTicks(low: Double, high: Double, count: Int = 5) -> [Double] {
  guard high > low, low.isFinite, high.isFinite else { return [low] }
  let raw = (high - low) / Double(count)
  let magnitude = pow(10, (log10(raw)).rounded(.down))
  let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? 10 * magnitude
  var ticks: [Double] = []
  var v = (low / step).rounded(.up) * step
  while v <= high + step * 1e-9 { ticks.append(abs(v) < step * 1e-9 ? 0 : v); v += step }
  return ticks
}
