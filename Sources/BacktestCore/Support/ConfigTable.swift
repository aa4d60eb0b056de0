import Foundation

/// A mapping from a run file, read through typed getters.
///
/// Each getter records the key it was asked for, so that `finish()` can
/// report any key nobody asked for as unknown, with a "did you mean"
/// suggestion drawn from the keys that were asked for.
public final class ConfigTable {
  /// Dotted path of this table in the document (`strategy.rsi`), empty at the root.
  public let path: String
  /// Where this table's mapping starts in the file; errors about the table as a whole point here.
  public let location: SourceLocation
  package private(set) var entries: [YAMLEntry]
  /// Where each key is first written in `entries`: a lookup does not scan them (100,000 params were quadratic).
  private var entryIndex: [String: Int] = [:]
  /// The keys asked for, in the order asked (for suggestions), and as a set (to ask whether one was).
  private var known: [String] = []
  private var knownSet: Set<String> = []
  /// The run's `data.timezone`, for settings that name times (a signals file's);
  /// set by the run-file reader, inherited by sub-tables, UTC by default.
  public var dataTimeZone = TimeZone(identifier: "UTC")!

  /// Wraps a mapping node; `null` reads as an empty table.
  package init(_ node: YAMLNode, path: String) throws {
    self.path = path
    self.location = node.location
    switch node.kind {
    case .mapping(let entries): self.entries = entries
    case .null: self.entries = []
    default:
      throw InputError("expected a mapping for '\(path)', found \(node.typeDescription)", at: node.location)
    }
    entryIndex.reserveCapacity(entries.count)
    for (k, entry) in entries.enumerated() where entryIndex[entry.key] == nil { entryIndex[entry.key] = k }
  }

  func keyPath(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

  /// Returns the node for `key`, or `nil` when absent or `null`.
  package func node(_ key: String) -> YAMLNode? {
    allow(key)
    guard let node = entryIndex[key].map({ entries[$0].value }) else { return nil }
    if case .null = node.kind { return nil }
    return node
  }

  /// Whether `key` is written (even as `null`).
  public func contains(_ key: String) -> Bool { entryIndex[key] != nil }

  private func scalar(_ key: String, _ node: YAMLNode, expected: String) throws -> String {
    guard case .scalar(let text, _) = node.kind else {
      throw InputError("expected \(expected) for '\(keyPath(key))', found \(node.typeDescription)", at: node.location)
    }
    return text
  }

  /// The largest magnitude a number in a run file may have. Amounts, prices
  /// and levels stay far below it, and so every result computed from them
  /// stays finite (a cash of 1.7e308 would make the equity infinite).
  public static let largestNumber = 1e15

  /// Reads a number written in decimal (`12`, `-0.5`, `1e6`; not `0x10`, `inf`
  /// or `nan`) of magnitude at most `largestNumber`; `nil` when absent and no default.
  public func double(_ key: String, default fallback: Double? = nil, where valid: (Double) -> Bool = { _ in true },
                     expected: String = "a number") throws -> Double? {
    guard let node = node(key) else { return fallback }
    let text = try scalar(key, node, expected: expected)
    guard let value = parseDecimal(text), !text.hasSuffix("%") else {
      let hint = text.hasSuffix("%") ? " (a percentage is not allowed here)" : ""
      throw InputError("expected \(expected) for '\(keyPath(key))', found '\(excerpt(text))'\(hint)", at: node.location)
    }
    guard abs(value) <= Self.largestNumber else {
      throw InputError("expected \(expected) (at most 1e15 in magnitude) for '\(keyPath(key))', found \(excerpt(text))", at: node.location)
    }
    guard valid(value) else {
      throw InputError("expected \(expected) for '\(keyPath(key))', found \(excerpt(text))", at: node.location)
    }
    return value
  }

  /// Reads a whole number within `range`.
  public func int(_ key: String, default fallback: Int? = nil, in range: ClosedRange<Int>) throws -> Int? {
    guard let node = node(key) else { return fallback }
    let text = try scalar(key, node, expected: "an integer")
    let expected = range.upperBound == .max ? "an integer >= \(range.lowerBound)"
      : "an integer from \(range.lowerBound) to \(range.upperBound)"
    guard let value = Int(text) else {
      throw InputError("expected \(expected) for '\(keyPath(key))', found '\(excerpt(text))'", at: node.location)
    }
    guard range.contains(value) else {
      throw InputError("expected \(expected) for '\(keyPath(key))', found \(value)", at: node.location)
    }
    return value
  }

  /// The largest expense ratio or yield written as a bare number (`0.2` = 20%): above it, `0.35` could mean 35% or 0.35%.
  package static let bareRateLimit = 0.2

  /// Reads a fraction written `0.02` or `2%`. `null`, `none` and `off` read as `nil`.
  ///
  /// A bare number above 1 is refused with a hint (`2` is not 2%), as is a
  /// value outside `valid`. With `bareAtMost`, a bare number above it is
  /// refused too, with both readings shown: for rates that are small (an
  /// expense ratio, a yield), `0.35` is far more often a mistyped 0.35% than 35%.
  public func fraction(_ key: String, default fallback: Double?, expected: String = "a fraction",
                       bareAtMost: Double? = nil, where valid: (Double) -> Bool = { _ in true }) throws -> Double? {
    guard contains(key) else { _ = node(key); return fallback }
    guard let node = node(key) else { return nil }
    let text = try scalar(key, node, expected: "\(expected) like 0.02 or 2%")
    if ["none", "off"].contains(text.lowercased()) { return nil }
    let value: Double?
    if text.hasSuffix("%") {
      value = percentValue(String(text.dropLast()).trimmingSpaces())
    } else {
      value = parseDecimal(text)
      if let v = value, let limit = bareAtMost, v > limit, v <= Self.largestNumber, text.utf8.count <= 40 {
        throw InputError(
          "expected \(expected) for '\(keyPath(key))', found \(text), "
            + "which reads as \(formatPercentPlain(v)) as a fraction or as \(text)% (= \(formatPlain(v / 100))) as a percentage; "
            + "a bare number above \(formatPlain(limit)) is ambiguous here: write \(text)% or \(formatPercentPlain(v))",
          at: node.location)
      }
      if let v = value, v > 1, v <= Self.largestNumber, text.utf8.count <= 40 {
        throw InputError(
          "expected \(expected) like 0.02 or 2% for '\(keyPath(key))', found \(excerpt(text)); did you mean \(text)%?",
          at: node.location)
      }
    }
    guard let value, abs(value) <= Self.largestNumber else {
      throw InputError("expected \(expected) like 0.02 or 2% for '\(keyPath(key))', found '\(excerpt(text))'", at: node.location)
    }
    guard valid(value) else {
      throw InputError("expected \(expected) for '\(keyPath(key))', found \(excerpt(text))", at: node.location)
    }
    return value
  }

  /// Reads a path, resolved against the folder of the file it is written in,
  /// or the current folder when it was given on the command line.
  public func path(_ key: String) throws -> String? {
    guard let text = try string(key) else { return nil }
    return resolvePath(text, relativeTo: node(key)!.location.pathBase)
  }

  /// Reads a string.
  public func string(_ key: String, default fallback: String? = nil) throws -> String? {
    guard let node = node(key) else { return fallback }
    return try scalar(key, node, expected: "a string")
  }

  /// Reads a string that must be one of `choices`.
  public func choice(_ key: String, _ choices: [String], default fallback: String? = nil) throws -> String? {
    guard let node = node(key) else { return fallback }
    let text = try scalar(key, node, expected: "one of \(choices.joined(separator: ", "))")
    guard choices.contains(text) else {
      let hint = closestMatch(to: text, in: choices).map { "; did you mean '\($0)'?" } ?? ""
      throw InputError("expected one of \(choices.joined(separator: ", ")) for '\(keyPath(key))', found '\(excerpt(text))'\(hint)",
                       at: node.location)
    }
    return text
  }

  /// Reads a list of strings (a single string reads as a one-element list).
  public func stringList(_ key: String, default fallback: [String]) throws -> [String] {
    guard let node = node(key) else { return fallback }
    switch node.kind {
    case .scalar(let text, _): return [text]
    case .sequence(let items):
      return try items.map { item in
        guard case .scalar(let text, _) = item.kind else {
          throw InputError("expected a list of strings for '\(keyPath(key))', found \(item.typeDescription)", at: item.location)
        }
        return text
      }
    default:
      throw InputError("expected a list for '\(keyPath(key))', found \(node.typeDescription)", at: node.location)
    }
  }

  /// Reads a date `YYYY-MM-DD` as days since 1970-01-01.
  public func date(_ key: String) throws -> Int? {
    guard let text = try string(key) else { return nil }
    guard let day = parseDate(text) else {
      throw InputError("expected a date YYYY-MM-DD for '\(keyPath(key))', found '\(excerpt(text))'", at: node(key)!.location)
    }
    return day
  }

  /// Reads an IANA time-zone name.
  public func timeZone(_ key: String, default fallback: String) throws -> TimeZone {
    let name = try string(key, default: fallback)!
    guard let zone = TimeZone(identifier: name) else {
      throw InputError("expected an IANA time zone such as America/New_York or UTC for '\(keyPath(key))', found '\(excerpt(name))'",
                       at: node(key)!.location)
    }
    return zone
  }

  /// Returns the sub-table at `key` (empty when absent).
  public func table(_ key: String) throws -> ConfigTable {
    let table = try ConfigTable(node(key) ?? YAMLNode(.null, at: location), path: keyPath(key))
    table.dataTimeZone = dataTimeZone
    return table
  }

  /// Marks `key` as known without reading it.
  public func allow(_ key: String) { if knownSet.insert(key).inserted { known.append(key) } }

  /// Throws for the first key that no getter asked for.
  public func finish() throws {
    for entry in entries where !knownSet.contains(entry.key) {
      let hint = closestMatch(to: entry.key, in: known).map { "; did you mean '\($0)'?" }
        ?? (known.isEmpty ? "" : "; expected one of \(known.joined(separator: ", "))")
      throw InputError("unknown key '\(excerpt(entry.key))'\(path.isEmpty ? "" : " in '\(path)'")\(hint)", at: entry.keyLocation)
    }
  }
}

/// Returns the fraction a percentage's number means (`0.35` → `0.0035`): the
/// double nearest the decimal shifted two places, so `0.35%` and `0.0035`
/// read as the same double (`0.35 / 100` is one unit in the last place off).
func percentValue(_ number: String) -> Double? {
  guard let value = parseDecimal(number) else { return nil }
  guard !number.contains(where: { $0 == "e" || $0 == "E" }), value.isFinite else { return value / 100 }
  return parseDecimal(number + "e-2")
}

/// Returns the day (since 1970-01-01) of a `YYYY-MM-DD` text, or `nil`.
public func parseDate(_ text: String) -> Int? {
  let bytes = Array(text.utf8)
  guard case .date(let d)? = bytes.withUnsafeBufferPointer({ parseTimestamp($0, 0, bytes.count) }) else { return nil }
  return d
}
