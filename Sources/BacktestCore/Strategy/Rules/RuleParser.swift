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
