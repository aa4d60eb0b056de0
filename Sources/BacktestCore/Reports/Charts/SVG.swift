import Foundation

/// Writes SVG markup into a string; coordinates are rounded to 0.1 px.
package struct SVGBuilder {
  package private(set) var text = ""

  package init() {}

  package static func coordinate(_ x: Double) -> String {
    let tenths = (x * 10).rounded()
    let r = tenths / 10
    if r == r.rounded() { return String(Int(r)) }
    guard abs(tenths) < 1e15 else { return FixedDecimal.text(r, decimals: 1) }
    // What "%.1f" writes for r (the double nearest tenths / 10): the digits of tenths with a point before the last.
    let k = Int(tenths), m = k.magnitude
    return (k < 0 ? "-" : "") + String(m / 10) + "." + String(m % 10)
  }

  /// `s` with `&`, `<`, `>` and `"` written as entities, in one pass (`s` itself when it has none).
  package static func escape(_ s: String) -> String {
    let special: (UInt8) -> Bool = { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\"") }
    guard s.utf8.contains(where: special) else { return s }
    var out = ""
    out.reserveCapacity(s.utf8.count + 16)
    var start = s.utf8.startIndex
    for i in s.utf8.indices where special(s.utf8[i]) {
      out += s[start..<i]
      switch s.utf8[i] {
      case UInt8(ascii: "&"): out += "&amp;"
      case UInt8(ascii: "<"): out += "&lt;"
      case UInt8(ascii: ">"): out += "&gt;"
      default: out += "&quot;"
      }
      start = s.utf8.index(after: i)
    }
    out += s[start...]
    return out
  }

  package mutating func raw(_ s: String) { text += s }

  package mutating func rect(x: Double, y: Double, width: Double, height: Double, attributes: String) {
    let c = Self.coordinate
    text += "<rect x=\"\(c(x))\" y=\"\(c(y))\" width=\"\(c(max(0, width)))\" height=\"\(c(max(0, height)))\" \(attributes)/>"
  }

  package mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, attributes: String) {
    let c = Self.coordinate
    text += "<line x1=\"\(c(x1))\" y1=\"\(c(y1))\" x2=\"\(c(x2))\" y2=\"\(c(y2))\" \(attributes)/>"
  }

  package mutating func polyline(_ points: [(Double, Double)], attributes: String) {
    guard points.count > 1 else { return }
    text += "<polyline fill=\"none\" points=\""
    for (k, point) in points.enumerated() {
      if k > 0 { text += " " }
      text += Self.coordinate(point.0)
      text += ","
      text += Self.coordinate(point.1)
    }
    text += "\" \(attributes)/>"
  }

  package mutating func label(_ s: String, x: Double, y: Double, attributes: String = "class=\"label\"") {
    text += "<text x=\"\(Self.coordinate(x))\" y=\"\(Self.coordinate(y))\" \(attributes)>\(Self.escape(s))</text>"
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
    if first <= last && !y[first...last].contains(where: \.isNaN) {
      return largestTriangleThreeBuckets(y, count: last - first + 1, threshold: threshold) { first + $0 }
    }
    let defined = y.indices.filter { !y[$0].isNaN }
    return largestTriangleThreeBuckets(y, count: defined.count, threshold: threshold) { defined[$0] }
  }
}

/// The algorithm over the `count` defined values, the `k`-th at index `defined(k)`.
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
    var best = defined(start), bestArea = -1.0
    for k in start..<max(end, start + 1) {
      let i = defined(k)
      let area = abs((Double(a) - avgX) * (y[i] - y[a]) - (Double(a) - Double(i)) * (avgY - y[a]))
      if area > bestArea { bestArea = area; best = i }
    }
    out.append(best)
    a = best
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
