import BacktestCore
import Foundation

/// Compares a report file with its committed reference, line by line.
///
/// Numbers compare within a relative `tolerance` (default 1e-9, with 1e-12
/// absolute near zero); everything else, and every line of a Markdown file,
/// must match exactly. The first `limit` differences are described.
package enum ReportComparison {
  package static let defaultTolerance = 1e-9

  /// Returns readable descriptions of the differences (empty when equal).
  package static func differences(file: String, expected: String, actual: String,
                                 tolerance: Double = defaultTolerance, limit: Int = 5) -> [String] {
    let exact = file.hasSuffix(".md")
    func lines(_ text: String) -> [Substring] {
      var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
      if text.hasSuffix("\n") { lines.removeLast() }
      return lines
    }
    let a = lines(expected), b = lines(actual)
    var out: [String] = []
    var count = 0
    for k in 0..<max(a.count, b.count) {
      let x = k < a.count ? a[k] : nil, y = k < b.count ? b[k] : nil
      if let x, let y, x == y || (!exact && linesMatch(x, y, tolerance: tolerance)) { continue }
      count += 1
      if out.count < limit {
        out.append("\(file):\(k + 1):\n    expected: \(x.map { String($0.prefix(160)) } ?? "(no line)")\n    actual:   \(y.map { String($0.prefix(160)) } ?? "(no line)")")
      }
    }
    if count > limit { out.append("\(file): … \(count - limit) more differing lines") }
    return out
  }

  /// Compares a summary.json with its reference: the run manifests by what
  /// the run read (each changed input file named first, since it explains
  /// the rest; the engine's version is not compared), everything else as
  /// `differences` does.
  package static func summaryDifferences(file: String, expected: String, actual: String,
                                         tolerance: Double = defaultTolerance, limit: Int = 5) -> [String] {
    let (expectedRest, expectedManifest) = splitManifest(expected)
    let (actualRest, actualManifest) = splitManifest(actual)
    var out = differences(file: file, expected: expectedRest, actual: actualRest, tolerance: tolerance, limit: limit)
    switch (expectedManifest, actualManifest) {
    case (nil, _?):
      out.insert("\(file): the reference has no run manifest (it was made before manifests were written)", at: 0)
    case (let before?, let now?):
      let changes = now.inputChanges(since: before)
      if !changes.isEmpty {
        out.insert(contentsOf: changes.map { "\(file): made from other inputs than the reference: \($0)" }, at: 0)
      }
      if !out.isEmpty && before.engine != now.engine {
        out.append("\(file): the reference was made by engine \(before.engine), this run by \(now.engine)")
      }
    default: break
    }
    return out
  }

  /// The summary's text without the lines of its `"manifest"` object, and the manifest read from it.
  static func splitManifest(_ text: String) -> (rest: String, manifest: RunManifest?) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0.drop { $0 == " " }.hasPrefix("\"manifest\": {") }) else { return (text, nil) }
    let indent = lines[start].prefix { $0 == " " }
    guard let end = lines[(start + 1)...].firstIndex(where: { $0.hasPrefix(indent + "}") }) else { return (text, nil) }
    let object = "{" + lines[(start + 1)..<end].joined(separator: "\n") + "}"
    let manifest = (try? JSONSerialization.jsonObject(with: Data(object.utf8))).flatMap { RunManifest(json: $0) }
    return ((lines[..<start] + lines[(end + 1)...]).joined(separator: "\n"), manifest)
  }

  /// Whether two lines have the same text around their numbers, and numbers within tolerance.
  static func linesMatch(_ x: Substring, _ y: Substring, tolerance: Double) -> Bool {
    let p = tokens(x), q = tokens(y)
    guard p.count == q.count else { return false }
    for (s, t) in zip(p, q) {
      switch (s, t) {
      case (.text(let u), .text(let v)): if u != v { return false }
      case (.number(let u), .number(let v)):
        // An infinite number (`1e999` reads as one) matches only itself: within any tolerance of infinity is everything.
        guard u.isFinite && v.isFinite else { if u != v { return false }; continue }
        if !(abs(u - v) <= max(1e-12, tolerance * max(abs(u), abs(v)))) { return false }
      default: return false
      }
    }
    return true
  }

  enum Token: Equatable { case text(Substring), number(Double) }

  /// Splits a line into numbers and the text between them.
  static func tokens(_ line: Substring) -> [Token] {
    var out: [Token] = []
    var i = line.startIndex
    var textStart = i
    func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }
    while i < line.endIndex {
      let c = line[i]
      let startsNumber = isDigit(c) || ((c == "-" || c == ".") && line.index(after: i) < line.endIndex && isDigit(line[line.index(after: i)]))
      if startsNumber {
        var j = line.index(after: i)
        while j < line.endIndex, isDigit(line[j]) || ".eE".contains(line[j]) ||
          ((line[j] == "-" || line[j] == "+") && "eE".contains(line[line.index(before: j)])) {
          j = line.index(after: j)
        }
        if let value = Double(line[i..<j]) {
          if textStart < i { out.append(.text(line[textStart..<i])) }
          out.append(.number(value))
          i = j
          textStart = j
          continue
        }
      }
      i = line.index(after: i)
    }
    if textStart < line.endIndex { out.append(.text(line[textStart..<line.endIndex])) }
    return out
  }
}
