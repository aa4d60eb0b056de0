/// A mistake in a rule expression, at a place in its text (characters from
/// the start of the expression); the reader turns it into an `InputError` at
/// the file's line and column.
package struct RuleError: Error, Equatable {
  package var message: String
  package var offset: Int
  package var width: Int

  package init(_ message: String, at offset: Int, width: Int = 1) {
    self.message = message
    self.offset = offset
    self.width = max(1, width)
  }
}

/// A stretch of an expression's text, in characters.
struct TextSpan: Equatable, Sendable {
  var offset: Int
  var length: Int

  /// From the start of `self` to the end of `other`.
  func through(_ other: TextSpan) -> TextSpan {
    TextSpan(offset: offset, length: max(length, other.offset + other.length - offset))
  }
}

/// A word of a rule expression.
struct RuleToken: Equatable {
  enum Kind: Equatable {
    /// A number as written; `2%` is a number then a `%` symbol.
    case number(Double)
    case name(String)
    case keyword(RuleKeyword)
    case symbol(String)
    case end
  }
  var kind: Kind
  var span: TextSpan
  var text: String

  /// The token for messages: `'<'`, `'rsl'`, `the end of the expression`.
  var described: String { kind == .end ? "the end of the expression" : "'\(excerpt(text))'" }
}

enum RuleKeyword: String, CaseIterable {
  case and, or, not
  case crossesAbove = "crosses_above", crossesBelow = "crosses_below"
}

/// Splits an expression into tokens. Whitespace (line breaks included) separates
/// tokens. There are no comments: in a folded block scalar a `#` would run on
/// into the next line's text, so it is refused rather than read.
struct RuleLexer {
  static let symbols = ["<=", ">=", "==", "!=", "<", ">", "+", "-", "*", "/", "%", "(", ")", "[", "]", ","]

  /// Reads `text` byte by byte: every byte before the first non-ASCII one is a
  /// character of its own, and a non-ASCII character is refused where it
  /// stands, so byte offsets are character offsets.
  static func tokens(_ text: String) throws(RuleError) -> [RuleToken] {
    let bytes = Array(text.utf8)
    let n = bytes.count
    var out: [RuleToken] = []
    var i = 0
    func string(_ a: Int, _ b: Int) -> String { String(decoding: bytes[a..<b], as: UTF8.self) }
    // What a message quotes of the text (a long word is cut).
    func quoted(_ a: Int, _ b: Int) -> String { excerpt(string(a, b)) }
    func isDigit(_ i: Int) -> Bool { i < n && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
    func isNameStart(_ i: Int) -> Bool { i < n && ((bytes[i] | 0x20) >= 0x61 && (bytes[i] | 0x20) <= 0x7A || bytes[i] == 0x5F) }
    func isByte(_ i: Int, _ c: Unicode.Scalar) -> Bool { i < n && bytes[i] == UInt8(c.value) }
    while i < n {
      if isByte(i, " ") || isByte(i, "\n") || isByte(i, "\t") || isByte(i, "\r") { i += 1; continue }
      let start = i
      if isDigit(i) || (isByte(i, ".") && isDigit(i + 1)) {
        while isDigit(i) { i += 1 }
        if isByte(i, ".") {
          i += 1
          guard isDigit(i) else {
            throw RuleError("expected a digit after '.' in the number '\(quoted(start, i))'", at: start, width: i - start)
          }
          while isDigit(i) { i += 1 }
        }
        if isByte(i, "e") || isByte(i, "E") {
          var j = i + 1
          if isByte(j, "+") || isByte(j, "-") { j += 1 }
          guard isDigit(j) else {
            throw RuleError("expected digits after '\(string(i, i + 1))' in the number '\(quoted(start, i + 1))'", at: start, width: i + 1 - start)
          }
          i = j
          while isDigit(i) { i += 1 }
        }
        if isNameStart(i) {
          var j = i
          while isNameStart(j) || isDigit(j) { j += 1 }
          throw RuleError("expected an operator or a space after the number '\(quoted(start, i))', found '\(quoted(i, j))'",
                          at: i, width: j - i)
        }
        let text = string(start, i)
        guard let value = Double(text), value.isFinite else {
          throw RuleError("the number '\(excerpt(text))' is out of range; expected a finite number", at: start, width: i - start)
        }
        out.append(RuleToken(kind: .number(value), span: TextSpan(offset: start, length: i - start), text: text))
        continue
      }
      if isNameStart(i) {
        while isNameStart(i) || isDigit(i) { i += 1 }
        let text = string(start, i)
        let kind: RuleToken.Kind = RuleKeyword(rawValue: text).map { .keyword($0) } ?? .name(text)
        out.append(RuleToken(kind: kind, span: TextSpan(offset: start, length: i - start), text: text))
        continue
      }
      if let symbol = symbols.first(where: { s in s.utf8.count <= n - i && s.utf8.elementsEqual(bytes[i..<(i + s.utf8.count)]) }) {
        i += symbol.utf8.count
        out.append(RuleToken(kind: .symbol(symbol), span: TextSpan(offset: start, length: symbol.count), text: symbol))
        continue
      }
      let c = text[text.utf8.index(text.utf8.startIndex, offsetBy: i)]
      let hint: String
      switch c {
      case "&": hint = "; did you mean 'and'?"
      case "|": hint = "; did you mean 'or'?"
      case "!": hint = "; did you mean 'not' or '!='?"
      case "=": hint = "; did you mean '=='?"
      case "#": hint = "; expected no comment inside an expression (in a block scalar '#' is text): write comments on their own lines above the key"
      default: hint = "; expected a number, a name, an operator or a parenthesis"
      }
      throw RuleError("unexpected character '\(c)'\(hint)", at: start)
    }
    out.append(RuleToken(kind: .end, span: TextSpan(offset: n, length: 1), text: ""))
    return out
  }
}
