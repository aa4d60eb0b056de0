/// A mistake in a rule expression, at a place in its text (characters from
/// the start of the expression); the reader turns it into an `InputError` at
/// the file's line and column.
struct RuleError: Error, Equatable {
  var message: String
  var offset: Int
  var width: Int

  init(_ message: String, at offset: Int, width: Int = 1) {
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

/// The operators between two operands, loosest first.
enum BinaryOperator: String, Sendable, Hashable {
  case or, and
  case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=", equal = "==", notEqual = "!="
  case crossesAbove = "crosses_above", crossesBelow = "crosses_below"
  case add = "+", subtract = "-", multiply = "*", divide = "/"
}

/// An expression as written, before names and types are checked.
struct RuleSyntax {
  indirect enum Kind {
    case number(Double)
    /// `2%`: the number already divided by 100.
    case percent(Double)
    case name(String)
    case call(String, name: TextSpan, [RuleSyntax])
    case negate(RuleSyntax)
    case not(RuleSyntax)
    case binary(BinaryOperator, RuleSyntax, RuleSyntax, operator: TextSpan)
    /// `x[k]`; `k` is a number or a name.
    case lag(RuleSyntax, RuleSyntax)
  }
  var kind: Kind
  /// The whole node as written.
  var span: TextSpan
  /// Levels of nodes down to the deepest leaf (1 for a leaf).
  var height: Int
}

/// Reads a rule expression by the grammar of `Docs/spec/rules.md`.
struct RuleParser {
  /// The deepest nesting accepted (parentheses, operands, arguments), so that
  /// no expression can exhaust the stack of the thread that reads or evaluates it.
  static let maximumDepth = 64

  private let tokens: [RuleToken]
  private var index = 0

  /// Parses `text`.
  /// - Throws: `RuleError` for any text the grammar does not produce.
  static func parse(_ text: String) throws(RuleError) -> RuleSyntax {
    var parser = RuleParser(tokens: try RuleLexer.tokens(text))
    if parser.current.kind == .end {
      throw RuleError("expected an expression, found nothing", at: 0)
    }
    let expression = try parser.parseOr(depth: 0)
    if parser.current.kind != .end {
      if case .symbol(let s) = parser.current.kind, ["<", "<=", ">", ">=", "==", "!="].contains(s) {
        throw parser.error("expected 'and' or 'or' between two comparisons, found \(parser.current.described)")
      }
      if case .keyword(let k) = parser.current.kind, k == .crossesAbove || k == .crossesBelow {
        throw parser.error("expected 'and' or 'or' between two comparisons, found \(parser.current.described)")
      }
      throw parser.error("expected an operator, 'and', 'or' or the end of the expression, found \(parser.current.described)")
    }
    return expression
  }

  private init(tokens: [RuleToken]) { self.tokens = tokens }

  private var current: RuleToken { tokens[index] }
  private mutating func advance() -> RuleToken {
    defer { if index < tokens.count - 1 { index += 1 } }
    return tokens[index]
  }
  private func error(_ message: String) -> RuleError {
    RuleError(message, at: current.span.offset, width: current.kind == .end ? 1 : current.span.length)
  }
  private func isSymbol(_ s: String) -> Bool { current.kind == .symbol(s) }
  private func isKeyword(_ k: RuleKeyword) -> Bool { current.kind == .keyword(k) }

  private func checkDepth(_ depth: Int) throws(RuleError) {
    if depth > Self.maximumDepth {
      throw error("the expression nests deeper than \(Self.maximumDepth) levels; expected a simpler expression")
    }
  }

  private func node(_ kind: RuleSyntax.Kind, _ span: TextSpan, children: [RuleSyntax], at offset: Int) throws(RuleError) -> RuleSyntax {
    let height = 1 + (children.map(\.height).max() ?? 0)
    if height > Self.maximumDepth {
      throw RuleError("the expression nests deeper than \(Self.maximumDepth) levels; expected a simpler expression", at: offset)
    }
    return RuleSyntax(kind: kind, span: span, height: height)
  }

  private mutating func binary(_ op: BinaryOperator, _ left: RuleSyntax, _ right: RuleSyntax, _ token: RuleToken) throws(RuleError) -> RuleSyntax {
    try node(.binary(op, left, right, operator: token.span), left.span.through(right.span), children: [left, right], at: token.span.offset)
  }

  private mutating func parseOr(depth: Int) throws(RuleError) -> RuleSyntax {
    try checkDepth(depth)
    var left = try parseAnd(depth: depth)
    while isKeyword(.or) {
      let token = advance()
      left = try binary(.or, left, try parseAnd(depth: depth), token)
    }
    return left
  }

  private mutating func parseAnd(depth: Int) throws(RuleError) -> RuleSyntax {
    var left = try parseNot(depth: depth)
    while isKeyword(.and) {
      let token = advance()
      left = try binary(.and, left, try parseNot(depth: depth), token)
    }
    return left
  }

  private mutating func parseNot(depth: Int) throws(RuleError) -> RuleSyntax {
    guard isKeyword(.not) else { return try parseCompare(depth: depth) }
    let token = advance()
    try checkDepth(depth + 1)
    let operand = try parseNot(depth: depth + 1)
    return try node(.not(operand), token.span.through(operand.span), children: [operand], at: token.span.offset)
  }

  private static let comparisons: [String: BinaryOperator] = ["<": .less, "<=": .lessOrEqual, ">": .greater,
                                                               ">=": .greaterOrEqual, "==": .equal, "!=": .notEqual]

  private var comparison: BinaryOperator? {
    switch current.kind {
    case .symbol(let s): return Self.comparisons[s]
    case .keyword(.crossesAbove): return .crossesAbove
    case .keyword(.crossesBelow): return .crossesBelow
    default: return nil
    }
  }

  private mutating func parseCompare(depth: Int) throws(RuleError) -> RuleSyntax {
    let left = try parseSum(depth: depth)
    guard let op = comparison else { return left }
    let token = advance()
    let right = try parseSum(depth: depth)
    if comparison != nil {
      throw error("expected 'and' or 'or' between two comparisons, found \(current.described)")
    }
    return try binary(op, left, right, token)
  }

  private mutating func parseSum(depth: Int) throws(RuleError) -> RuleSyntax {
    var left = try parseProduct(depth: depth)
    while isSymbol("+") || isSymbol("-") {
      let token = advance()
      left = try binary(token.text == "+" ? .add : .subtract, left, try parseProduct(depth: depth), token)
    }
    return left
  }

  private mutating func parseProduct(depth: Int) throws(RuleError) -> RuleSyntax {
    var left = try parseUnary(depth: depth)
    while isSymbol("*") || isSymbol("/") {
      let token = advance()
      left = try binary(token.text == "*" ? .multiply : .divide, left, try parseUnary(depth: depth), token)
    }
    return left
  }

  private mutating func parseUnary(depth: Int) throws(RuleError) -> RuleSyntax {
    guard isSymbol("-") else { return try parsePostfix(depth: depth) }
    let token = advance()
    try checkDepth(depth + 1)
    let operand = try parseUnary(depth: depth + 1)
    return try node(.negate(operand), token.span.through(operand.span), children: [operand], at: token.span.offset)
  }

  private mutating func parsePostfix(depth: Int) throws(RuleError) -> RuleSyntax {
    let primary = try parsePrimary(depth: depth)
    guard isSymbol("[") else { return primary }
    let open = advance()
    if isSymbol("-") {
      let minus = advance()
      throw RuleError("a negative lag would read a later bar, and rules cannot look ahead; expected a lag >= 0",
                      at: minus.span.offset, width: current.span.offset + current.span.length - minus.span.offset)
    }
    let lag: RuleSyntax
    switch current.kind {
    case .number(let v): lag = RuleSyntax(kind: .number(v), span: current.span, height: 1)
    case .name(let n): lag = RuleSyntax(kind: .name(n), span: current.span, height: 1)
    default:
      throw error("expected a lag after '[' (an integer >= 0 or an integer param), found \(current.described)")
    }
    _ = advance()
    guard isSymbol("]") else {
      throw error("expected ']' after the lag, found \(current.described)")
    }
    let close = advance()
    return try node(.lag(primary, lag), primary.span.through(close.span), children: [primary], at: open.span.offset)
  }

  private mutating func parsePrimary(depth: Int) throws(RuleError) -> RuleSyntax {
    let token = current
    switch token.kind {
    case .number(let v):
      _ = advance()
      if isSymbol("%") {
        let percent = advance()
        // As the run file reads a percentage, so that `2%` here and in `stop_loss: 2%` are the same number.
        return RuleSyntax(kind: .percent(percentValue(token.text) ?? v / 100), span: token.span.through(percent.span), height: 1)
      }
      return RuleSyntax(kind: .number(v), span: token.span, height: 1)
    case .name(let name):
      _ = advance()
      guard isSymbol("(") else { return RuleSyntax(kind: .name(name), span: token.span, height: 1) }
      _ = advance()
      try checkDepth(depth + 1)
      var arguments: [RuleSyntax] = []
      if !isSymbol(")") {
        while true {
          arguments.append(try parseOr(depth: depth + 1))
          if isSymbol(",") { _ = advance(); continue }
          guard isSymbol(")") else {
            throw error("expected ',' or ')' after argument \(arguments.count) of '\(excerpt(name))', found \(current.described)")
          }
          break
        }
      }
      let close = advance()
      return try node(.call(name, name: token.span, arguments), token.span.through(close.span), children: arguments,
                      at: token.span.offset)
    case .symbol("("):
      _ = advance()
      try checkDepth(depth + 1)
      let inner = try parseOr(depth: depth + 1)
      guard isSymbol(")") else {
        throw error("expected ')' to close the '(', found \(current.described)")
      }
      let close = advance()
      var node = inner
      node.span = token.span.through(close.span)
      return node
    default:
      throw error("expected a number, a name or '(', found \(token.described)")
    }
  }
}
