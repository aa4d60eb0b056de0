/// Helpers every reader of text input shares: lines ending in LF or CRLF alike,
/// short excerpts of what was found, and a check for control characters.

extension StringProtocol {
  /// The lines of the text, split at LF with a CR before it removed, so files
  /// written on Windows (CRLF) read as their LF twins. A final line break
  /// does not start another line.
  ///
  /// (`split(separator: "\n")` does not do this: Swift reads CR LF as one
  /// character, which is not `"\n"`.)
  package var textLines: [SubSequence] {
    var lines: [SubSequence] = []
    var start = startIndex
    // Where a CR that may end the line was seen.
    var carriageReturn: Index?
    let utf8 = self.utf8
    var u = utf8.startIndex
    while u != utf8.endIndex {
      switch utf8[u] {
      case 0x0D: carriageReturn = u
      case 0x0A:
        lines.append(self[start..<(carriageReturn ?? u)])
        start = utf8.index(after: u)
        carriageReturn = nil
      default: carriageReturn = nil
      }
      u = utf8.index(after: u)
    }
    if start != endIndex { lines.append(self[start..<(carriageReturn ?? endIndex)]) }
    return lines
  }
}

extension Substring {
  /// The text without the spaces (and, with `tabs`, the tabs) at its end.
  ///
  /// Linear in what is removed: `while s.last == " " { s = s.dropLast() }`
  /// is quadratic, as `dropLast()` on a `Substring` resolves to the
  /// `Collection` form, which counts the whole text each time (40,000
  /// spaces after a value took 23.6 s).
  package func droppingTrailingSpaces(tabs: Bool = false) -> Substring {
    let bytes = utf8
    var end = bytes.endIndex
    while end > bytes.startIndex {
      let before = bytes.index(before: end)
      let b = bytes[before]
      guard b == 0x20 || (tabs && b == 0x09) else { break }
      end = before
    }
    return self[..<end]
  }

  /// The text without the spaces at its start.
  package func droppingLeadingSpaces() -> Substring {
    let bytes = utf8
    var start = bytes.startIndex
    while start < bytes.endIndex && bytes[start] == 0x20 { start = bytes.index(after: start) }
    return self[start...]
  }
}

/// Returns `text` cut to `limit` characters with `…` after it, for quoting
/// what was found in a message (a 2 MB line is not echoed).
package func excerpt<S: StringProtocol>(_ text: S, limit: Int = 40) -> String {
  var count = 0
  var end = text.startIndex
  while end != text.endIndex && count < limit {
    end = text.index(after: end)
    count += 1
  }
  return end == text.endIndex ? String(text) : String(text[..<end]) + "…"
}

/// Whether `scalar` is a control character a terminal may act on: C0 (other
/// than tab and line feed), DEL and C1.
package func isControlCharacter(_ scalar: Unicode.Scalar) -> Bool {
  let v = scalar.value
  return (v < 0x20 && v != 0x09 && v != 0x0A) || (v >= 0x7F && v <= 0x9F)
}

/// `U+001B`: how a message names a character that cannot be shown.
package func codePoint(_ scalar: Unicode.Scalar) -> String {
  let hex = String(scalar.value, radix: 16, uppercase: true)
  return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
}

/// Returns `text` with each control character written as `\u{1B}`, so what an
/// input holds cannot move the cursor or change colours when printed.
package func escapingControlCharacters(_ text: String) -> String {
  guard text.unicodeScalars.contains(where: isControlCharacter) else { return text }
  var out = String.UnicodeScalarView()
  for scalar in text.unicodeScalars {
    if isControlCharacter(scalar) {
      out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
    } else {
      out.append(scalar)
    }
  }
  return String(out)
}

/// Returns text from a data file as it may be printed: cut to `limit`
/// characters (with `…`) and with its control characters escaped, so that a
/// category or a name cannot move the cursor, change colours or fill a screen.
package func printable<S: StringProtocol>(_ text: S, limit: Int = 80) -> String {
  escapingControlCharacters(excerpt(text, limit: limit))
}

/// Returns `text` with the value of each key-like `NAME=value` pair written
/// `NAME=***`: those whose name holds KEY, TOKEN, SECRET or PASSWORD (in any
/// case), as an environment (`/proc/self/environ`), a `.env` file or a URL's
/// query writes them. What an error quotes from a file the user did not mean
/// as data is then no secret on a terminal or in a log.
///
/// A name is letters, digits, `_` and `-` (so `key.path=value`, a dotted
/// path, is no such pair); a value runs to a space, a control character, a
/// quote or one of `&;,)]}<>…`. A placeholder (`KEY=VALUE` in a usage line) stays.
package func redactingSecrets(_ text: String) -> String {
  guard text.utf8.contains(UInt8(ascii: "=")) else { return text }
  let scalars = Array(text.unicodeScalars)
  func isNameCharacter(_ c: Unicode.Scalar) -> Bool {
    c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "-")
  }
  func endsValue(_ c: Unicode.Scalar) -> Bool {
    c.value <= 0x20 || isControlCharacter(c) || c.properties.isWhitespace || "'\"`&;,)]}<>…".unicodeScalars.contains(c)
  }
  var out = String.UnicodeScalarView()
  var k = 0, copied = 0
  var nameStart = 0  // where the run of name characters before `k` starts
  while k < scalars.count {
    let c = scalars[k]
    if c == "=" && nameStart < k {
      let name = String(String.UnicodeScalarView(scalars[nameStart..<k])).uppercased()
      if ["KEY", "TOKEN", "SECRET", "PASSWORD"].contains(where: { name.contains($0) }) {
        var end = k + 1
        while end < scalars.count && !endsValue(scalars[end]) { end += 1 }
        let value = String(String.UnicodeScalarView(scalars[(k + 1)..<end]))
        if end > k + 1 && !["VALUE", "value", "***"].contains(value) {
          out.append(contentsOf: scalars[copied...k])
          out.append(contentsOf: "***".unicodeScalars)
          copied = end
          k = end
          nameStart = end
          continue
        }
      }
    }
    k += 1
    if !isNameCharacter(c) { nameStart = k }
  }
  guard copied > 0 else { return text }
  out.append(contentsOf: scalars[copied...])
  return String(out)
}

/// Parses a decimal number written as in a data file (`-12.5`, `3`, `1.2e-3`,
/// spaces around allowed); `nil` for anything else: `0x10`, `nan`, `inf`,
/// `1_000`. An overflow (`1e400`) reads as infinite.
package func parseDecimal<S: StringProtocol>(_ text: S) -> Double? {
  var text = String(text)
  return text.withUTF8 { parseDecimal($0, 0, $0.count) }
}

extension UInt8 {
  /// A space, tab, line break, or a byte of the UTF-8 byte-order mark: what may come before the first character of a
  /// JSON document.
  package var isWhitespace: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 || self == 0xEF || self == 0xBB || self == 0xBF }
}
