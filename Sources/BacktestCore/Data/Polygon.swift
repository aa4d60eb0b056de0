import Foundation

/// Polygon.io aggregate bars: `{"results": [{"t": ms, "o", "h", "l", "c", "v"}], "next_url": …}`.
package enum PolygonAggregates {
  /// One page of a response.
  package struct Page: Sendable {
    package var bars: [(time: Int64, open: Double, high: Double, low: Double, close: Double, volume: Double)]
    /// The next page's URL, without the API key (it must be added back).
    package var nextURL: String?
  }

  /// Parses one response body.
  ///
  /// - Throws: `InputError` naming `file` when it is not aggregates JSON or a bar lacks a field.
  package static func parse(_ data: Data, file: String) throws -> Page {
    let parsed: Any
    do { parsed = try JSONSerialization.jsonObject(with: data) } catch {
      let place = JSONPlace.ofParseError(error, in: data, file: file)
      let message = "expected a JSON object with 'results' (Polygon aggregates); the JSON is malformed"
      throw place.map { InputError(message, at: $0) } ?? InputError(message, file: file)
    }
    guard let object = parsed as? [String: Any] else {
      throw InputError("expected a JSON object with 'results' (Polygon aggregates)", file: file)
    }
    let results = object["results"] as? [[String: Any]] ?? []
    var bars: [(Int64, Double, Double, Double, Double, Double)] = []
    for (k, r) in results.enumerated() {
      func number(_ key: String) throws -> Double {
        guard let v = (r[key] as? NSNumber)?.doubleValue, v.isFinite else {
          throw resultError(k, "expected a number for '\(key)'", in: data, file: file)
        }
        return v
      }
      let t = try number("t")
      // Epoch milliseconds up to the year 9999, like every other timestamp here.
      guard t >= 0, t <= 253_402_300_799_000 else {
        throw resultError(k, "expected 't' in epoch milliseconds, found \(t)", in: data, file: file)
      }
      bars.append((Int64(t / 1000), try number("o"), try number("h"), try number("l"), try number("c"),
                   (r["v"] as? NSNumber)?.doubleValue ?? 0))
    }
    return Page(bars: bars.map { (time: $0.0, open: $0.1, high: $0.2, low: $0.3, close: $0.4, volume: $0.5) },
                nextURL: object["next_url"] as? String)
  }

  /// Checks each bar of a page against the rules the bar CSV reader applies, so that a fetch never
  /// writes a file every later run refuses: prices positive and within `BarCSVReader.priceRange`,
  /// `high >= max(open, close)`, `low <= min(open, close)`, volume from 0 to `BarCSVReader.largestVolume`.
  ///
  /// - Throws: `InputError` at the offending result in `data` (of `file`): "result 2: expected …".
  package static func validate(_ page: Page, data: Data, file: String) throws {
    for (k, b) in page.bars.enumerated() {
      func fail(_ message: String) -> InputError { resultError(k, message, in: data, file: file) }
      for (x, key, name) in [(b.open, "o", "open"), (b.high, "h", "high"), (b.low, "l", "low"), (b.close, "c", "close")] {
        guard x > 0 else { throw fail("expected a positive number for '\(key)' (\(name)), found \(formatNumber(x))") }
        guard BarCSVReader.priceRange.contains(x) else {
          throw fail("expected a price from 1e-12 to 1e12 for '\(key)' (\(name)), found \(formatNumber(x))")
        }
      }
      guard b.volume >= 0 else { throw fail("expected a non-negative number for 'v' (volume), found \(formatNumber(b.volume))") }
      guard b.volume <= BarCSVReader.largestVolume else { throw fail("expected a volume up to 1e18 for 'v' (volume), found \(formatNumber(b.volume))") }
      if b.low > min(b.open, b.close) {
        throw fail("expected 'l' (low) <= min(open, close) = \(formatNumber(min(b.open, b.close))), found \(formatNumber(b.low))")
      }
      if b.high < max(b.open, b.close) {
        throw fail("expected 'h' (high) >= max(open, close) = \(formatNumber(max(b.open, b.close))), found \(formatNumber(b.high))")
      }
    }
  }

  /// An error about the `k`-th result (0-based), at its place in the JSON when found.
  package static func resultError(_ k: Int, _ message: String, in data: Data, file: String) -> InputError {
    let text = "result \(k + 1): " + message
    return JSONPlace.ofElement(k, ofArray: "results", in: data, file: file).map { InputError(text, at: $0) } ?? InputError(text, file: file)
  }

  /// The first request's URL (without the key): `/v2/aggs/ticker/{symbol}/range/{n}/{unit}/{from}/{to}`.
  package static func url(base: String, symbol: String, interval: ResampleInterval, from: String, to: String) -> String {
    let (multiplier, timespan): (Int, String)
    switch interval {
    case .daily: (multiplier, timespan) = (1, "day")
    case .minutes(let m): (multiplier, timespan) = m % 60 == 0 ? (m / 60, "hour") : (m, "minute")
    }
    let symbol = symbol.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? symbol
    return "\(base)/v2/aggs/ticker/\(symbol)/range/\(multiplier)/\(timespan)/\(from)/\(to)?adjusted=true&sort=asc&limit=50000"
  }

  /// Bars as the standard CSV, stamped in `timeZone` with their offset (dates only for daily bars).
  package static func csv(_ bars: [(time: Int64, open: Double, high: Double, low: Double, close: Double, volume: Double)],
                         timeZone: TimeZone, daily: Bool, header: Bool = true) -> String {
    var resolver = TimeZoneResolver(timeZone)
    var out = header ? "timestamp,open,high,low,close,volume\n" : ""
    for b in bars {
      let offset = resolver.offset(at: b.time)
      let stamp = daily ? CivilDate.isoDate(days: CivilDate.day(ofSeconds: b.time + Int64(offset)))
                        : CivilDate.isoDateTime(seconds: b.time, offset: offset)
      out += "\(stamp),\(b.open),\(b.high),\(b.low),\(b.close),\(formatNumber(b.volume))\n"
    }
    return out
  }
}

/// FRED series observations: `{"observations": [{"date": "2024-01-01", "value": "3.7"}], "count": N, "offset": K}`.
package enum FREDObservations {
  /// Parses one response body: its observations and the `count` of the whole series.
  ///
  /// - Throws: `InputError` naming `file` (at the observation when found) when it is not FRED JSON, or an
  ///   observation's date is not `YYYY-MM-DD` or its value neither a number (at most 1e15 in size, as the macro
  ///   reader takes) nor `.` (missing): what the CSV holds must read back as the same rows.
  package static func parse(_ data: Data, file: String) throws -> (rows: [(date: String, value: String)], count: Int) {
    guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let observations = object["observations"] as? [[String: Any]]
    else { throw InputError("expected a JSON object with 'observations' (FRED)", file: file) }
    let rows = try observations.enumerated().map { k, o -> (String, String) in
      func fail(_ message: String) -> InputError {
        let text = "observation \(k + 1): " + message
        return JSONPlace.ofElement(k, ofArray: "observations", in: data, file: file).map { InputError(text, at: $0) } ?? InputError(text, file: file)
      }
      guard let date = o["date"] as? String, let value = o["value"] as? String else { throw fail("expected 'date' and 'value' strings") }
      guard isDate(date) else { throw fail("expected 'date' as YYYY-MM-DD, found '\(shown(date))'") }
      guard value.isEmpty || value == "." || parseDecimal(value).map({ abs($0) <= ConfigTable.largestNumber }) == true else {
        throw fail("expected 'value' as a number (at most 1e15 in size) or '.', found '\(shown(value))'")
      }
      return (date, value)
    }
    return (rows.map { (date: $0.0, value: $0.1) }, (object["count"] as? NSNumber)?.intValue ?? rows.count)
  }

  /// Whether `text` is exactly a valid `YYYY-MM-DD`.
  static func isDate(_ text: String) -> Bool {
    var text = text
    guard text.utf8.count == 10 else { return false }
    return text.withUTF8 { if case .date? = parseTimestamp($0, 0, $0.count) { true } else { false } }
  }

  /// `text` for a message: cut, with line breaks and other control characters written as `\u{A}`.
  static func shown(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    for scalar in excerpt(text).unicodeScalars {
      if scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value <= 0x9F) {
        out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
      } else {
        out.append(scalar)
      }
    }
    return String(out)
  }

  package static func url(base: String, series: String, from: String, to: String, offset: Int) -> String {
    "\(base)/fred/series/observations?series_id=\(series)&file_type=json&observation_start=\(from)&observation_end=\(to)&offset=\(offset)&limit=100000"
  }

  /// A FRED-style CSV (`observation_date,SERIES`, `.` for missing), which the macro reader reads.
  package static func csv(series: String, rows: [(date: String, value: String)]) -> String {
    "observation_date,\(series)\n" + rows.map { "\($0.date),\($0.value.isEmpty ? "." : $0.value)" }.joined(separator: "\n") + (rows.isEmpty ? "" : "\n")
  }
}

/// Places in a JSON text, for messages (the parser gives values, not places).
enum JSONPlace {
  /// Where the `k`-th element (0-based) of the top-level object's array `key` starts.
  static func ofElement(_ k: Int, ofArray key: String, in data: Data, file: String) -> SourceLocation? {
    let bytes = [UInt8](data)
    let quotedKey = Array(("\"" + key + "\"").utf8)
    var depth = 0, line = 1, lineStart = 0, i = 0
    var inArray = false, element = -1
    var lastKeyEnd = -1  // just after a string at depth 1 that equals the key
    while i < bytes.count {
      let b = bytes[i]
      switch b {
      case UInt8(ascii: "\n"): line += 1; lineStart = i + 1
      case UInt8(ascii: "\""):
        let start = i
        i += 1
        while i < bytes.count && bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
        if depth == 1 && !inArray && bytes[start..<min(i + 1, bytes.count)].elementsEqual(quotedKey) { lastKeyEnd = i + 1 }
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        if inArray && depth == 2 {
          element += 1
          if element == k { return SourceLocation(file: file, line: line, column: i - lineStart + 1) }
        }
        if depth == 1 && b == UInt8(ascii: "[") && lastKeyEnd >= 0
          && bytes[lastKeyEnd..<i].allSatisfy({ $0 == UInt8(ascii: ":") || $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
          inArray = true
        }
        depth += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        depth -= 1
        if inArray && depth == 1 { return nil }
      default: break
      }
      i += 1
    }
    return nil
  }

  /// Where a parse error of `JSONSerialization` is, from its description ("around line 3, column 5" or "around character 31").
  static func ofParseError(_ error: Error, in data: Data, file: String) -> SourceLocation? {
    let text = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? ""
    func number(after word: String) -> Int? {
      guard let r = text.range(of: word + " ") else { return nil }
      return Int(text[r.upperBound...].prefix { $0.isNumber })
    }
    if let line = number(after: "line"), let column = number(after: "column") {
      return SourceLocation(file: file, line: line, column: column)
    }
    guard let offset = number(after: "character"), offset <= data.count else { return nil }
    var line = 1, lineStart = 0
    for (i, b) in data.prefix(offset).enumerated() where b == 0x0A { line += 1; lineStart = i + 1 }
    return SourceLocation(file: file, line: line, column: offset - lineStart + 1)
  }
}

/// Hides API keys in anything that might be shown: the value after `apiKey=`, `api_key=` or
/// `api-key:`, in any case (a server may echo the URL lower-cased) and with JSON's quotes
/// (`"apikey": "…"`), becomes `***`.
package func redactingKeys(_ text: String) -> String {
  let s = Array(text.unicodeScalars)
  func lower(_ k: Int) -> Unicode.Scalar? {
    guard k < s.count else { return nil }
    return s[k].value >= 0x41 && s[k].value <= 0x5A ? Unicode.Scalar(s[k].value + 0x20) : s[k]
  }
  func matches(_ word: String, at k: Int) -> Bool { word.unicodeScalars.enumerated().allSatisfy { lower(k + $0.offset) == $0.element } }
  func skipQuotesAndSpaces(_ k: inout Int) { while k < s.count && (s[k] == " " || s[k] == "\"" || s[k] == "'") { k += 1 } }
  let ends: Set<Unicode.Scalar> = ["&", " ", "\"", "'", "\n", "\r", "\t", ")", ",", ";", "<", ">", "#", "}", "]"]
  var out = String.UnicodeScalarView()
  var i = 0
  while i < s.count {
    if matches("api", at: i) {
      var j = i + 3
      if lower(j) == "_" || lower(j) == "-" { j += 1 }
      if matches("key", at: j) {
        j += 3
        skipQuotesAndSpaces(&j)
        if j < s.count && (s[j] == "=" || s[j] == ":") {
          j += 1
          skipQuotesAndSpaces(&j)
          out.append(contentsOf: s[i..<j])
          out.append(contentsOf: "***".unicodeScalars)
          while j < s.count && !ends.contains(s[j]) { j += 1 }
          i = j
          continue
        }
      }
    }
    out.append(s[i])
    i += 1
  }
  return String(out)
}
