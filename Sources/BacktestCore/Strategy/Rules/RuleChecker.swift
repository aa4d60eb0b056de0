/// Resolves the names of a parsed expression, checks its types and integer
/// arguments, and replaces params by their values.
package struct RuleChecker {
  /// The params a rule may use, by name.
  let params: [String: Double]
  /// Whether `entry_price` and `bars_held` may be read (in `exit`).
  let positionAllowed: Bool
  /// The key the expression is written under (`strategy.entry`), for messages.
  let key: String
  private let text: String

  /// The largest period or lag accepted (a longer one than the data is simply never defined).
  static let maximumReach = 1_000_000_000
  static let positionNames = ["entry_price", "bars_held"]
  /// Names a param may not take.
  static let reserved: Set<String> = Set(BarField.allCases.map(\.rawValue) + positionNames
    + RuleFunction.allCases.map(\.rawValue) + RuleKeyword.allCases.map(\.rawValue))

  init(text: String, params: [String: Double], positionAllowed: Bool, key: String) {
    self.text = text
    self.params = params
    self.positionAllowed = positionAllowed
    self.key = key
  }

  /// Parses and checks `text` as a condition.
  ///
  /// - Throws: `RuleError` at the offending token.
  package static func condition(_ text: String, params: [String: Double], positionAllowed: Bool, key: String) throws(RuleError) -> RuleExpression {
    let syntax = try RuleParser.parse(text)
    let checker = RuleChecker(text: text, params: params, positionAllowed: positionAllowed, key: key)
    let expression = try checker.check(syntax)
    guard expression.isCondition else {
      throw RuleError("expected a condition (true or false) for '\(key)', found a number", at: syntax.span.offset, width: syntax.span.length)
    }
    return expression
  }

  /// Parses and checks `text` as a number (a price for `entry_order.price`, a rotation's score); the position may not be read.
  ///
  /// - Throws: `RuleError` at the offending token.
  static func number(_ text: String, params: [String: Double], key: String,
                     example: String = "a price such as 'close * 0.99'") throws(RuleError) -> RuleExpression {
    let syntax = try RuleParser.parse(text)
    let expression = try RuleChecker(text: text, params: params, positionAllowed: false, key: key).check(syntax)
    guard !expression.isCondition else {
      throw RuleError("expected a number (\(example)) for '\(key)', found a condition",
                      at: syntax.span.offset, width: syntax.span.length)
    }
    return expression
  }

  /// The text of `span` (the lexer made sure every character before an error is one byte).
  private func source(_ span: TextSpan) -> String {
    let utf8 = Array(text.utf8)
    return String(decoding: utf8[min(span.offset, utf8.count)..<min(span.offset + span.length, utf8.count)], as: UTF8.self)
  }

  private func error(_ message: String, _ span: TextSpan) -> RuleError {
    RuleError(message, at: span.offset, width: span.length)
  }

  /// The type of `e` for messages.
  private static func typeName(_ e: RuleExpression) -> String { e.isCondition ? "a condition" : "a number" }

  func check(_ s: RuleSyntax) throws(RuleError) -> RuleExpression {
    switch s.kind {
    case .number(let v), .percent(let v):
      return .constant(v)
    case .name(let name):
      return try value(named: name, s.span)
    case .negate(let x):
      let operand = try number(x, "after '-'")
      if case .constant(let v) = operand { return .constant(-v) }
      return .negate(operand)
    case .not(let x):
      let operand = try check(x)
      guard operand.isCondition else { throw error("expected a condition after 'not', found a number", x.span) }
      return .not(operand)
    case .binary(let op, let a, let b, _):
      switch op {
      case .and, .or:
        let (left, right) = (try check(a), try check(b))
        if !left.isCondition { throw error("expected a condition on the left of '\(op.rawValue)', found a number", a.span) }
        if !right.isCondition { throw error("expected a condition on the right of '\(op.rawValue)', found a number", b.span) }
        return op == .and ? .and(left, right) : .or(left, right)
      case .add, .subtract, .multiply, .divide:
        let (left, right) = (try number(a, "on the left of '\(op.rawValue)'"), try number(b, "on the right of '\(op.rawValue)'"))
        if case .constant(let x) = left, case .constant(let y) = right {
          let folded = RuleArithmetic.apply(op, x, y)
          if !folded.isNaN { return .constant(folded) }
        }
        return .arithmetic(op, left, right)
      case .crossesAbove, .crossesBelow:
        let (left, right) = (try number(a, "on the left of '\(op.rawValue)'"), try number(b, "on the right of '\(op.rawValue)'"))
        try refusePosition(in: a, "used in a crossing (it compares the previous bar too)")
        try refusePosition(in: b, "used in a crossing (it compares the previous bar too)")
        return .crosses(above: op == .crossesAbove, left, right)
      default:
        let (left, right) = (try number(a, "on the left of '\(op.rawValue)'"), try number(b, "on the right of '\(op.rawValue)'"))
        return .compare(op, left, right)
      }
    case .lag(let x, let k):
      let operand = try check(x)
      try refusePosition(in: x, "lagged")
      let lag = try integer(k, 0...Self.maximumReach, what: "a lag", hint: " (a negative lag would read a later bar)")
      if lag == 0 { return operand }
      // `x[1][2]` is `x[3]`: one lag, so that both spellings share one series.
      if case .lag(let inner, let earlier) = operand { return .lag(inner, earlier + lag) }
      return .lag(operand, lag)
    case .call(let name, let nameSpan, let arguments):
      return try call(name, nameSpan, arguments, s.span)
    }
  }

  /// Checks that `s` is a number.
  private func number(_ s: RuleSyntax, _ place: String) throws(RuleError) -> RuleExpression {
    let e = try check(s)
    if e.isCondition { throw error("expected a number \(place), found a condition", s.span) }
    return e
  }

  private func value(named name: String, _ span: TextSpan) throws(RuleError) -> RuleExpression {
    if let field = BarField(rawValue: name) { return .bar(field) }
    if let v = params[name] { return .constant(v) }
    if Self.positionNames.contains(name) {
      guard positionAllowed else {
        throw error("'\(name)' is known only while a position is open; use it in 'strategy.exit', not in '\(key)'", span)
      }
      return name == "entry_price" ? .entryPrice : .barsHeld
    }
    if let f = RuleFunction(rawValue: name) {
      throw error("'\(name)' is a function; expected \(name)(\(f.parameterList))", span)
    }
    let known = BarField.allCases.map(\.rawValue) + (positionAllowed ? Self.positionNames : []) + params.keys.sorted()
      + RuleFunction.allCases.map(\.rawValue)
    if let guess = closestMatch(to: name, in: known) {
      throw error("unknown name '\(excerpt(name))'; did you mean '\(guess)'?", span)
    }
    let paramText = params.isEmpty ? "" : ", a param (\(params.keys.sorted().joined(separator: ", ")))"
    throw error("unknown name '\(excerpt(name))'; expected a series (open, high, low, close, volume)\(paramText) or a function call", span)
  }

  private func call(_ name: String, _ nameSpan: TextSpan, _ arguments: [RuleSyntax], _ whole: TextSpan) throws(RuleError) -> RuleExpression {
    guard let f = RuleFunction(rawValue: name) else {
      if BarField(rawValue: name) != nil { throw error("'\(name)' is a series, not a function", nameSpan) }
      if params[name] != nil { throw error("'\(name)' is a param, not a function", nameSpan) }
      if Self.positionNames.contains(name) { throw error("'\(name)' is a value of the position, not a function", nameSpan) }
      let names = RuleFunction.allCases.map(\.rawValue)
      let hint = closestMatch(to: name, in: names).map { "; did you mean '\($0)'?" }
        ?? "; expected one of \(names.sorted().joined(separator: ", "))"
      throw error("unknown function '\(excerpt(name))'\(hint)", nameSpan)
    }
    guard arguments.count == f.arity else {
      let takes = f.arity == 0 ? "no arguments" : "\(f.arity) argument\(f.arity == 1 ? "" : "s") (\(f.parameterList))"
      throw error("'\(name)' takes \(takes), found \(arguments.count)", whole)
    }
    var numbers: [RuleExpression] = []
    var periods: [Int] = []
    let periodArguments = f.periodArguments
    for (k, a) in arguments.enumerated() {
      if periodArguments.contains(k) {
        // A function of several periods names the one at fault.
        let what = periodArguments.count == 1 ? "the period of '\(name)'" : "the period '\(f.parameters[k])' of '\(name)'"
        periods.append(try integer(a, 1...Self.maximumReach, what: what, hint: ""))
        continue
      }
      let e = try number(a, "for argument \(k + 1) of '\(name)'")
      if !f.isPointwise { try refusePosition(in: a, "passed to \(name)()") }
      numbers.append(e)
    }
    if f.isPointwise, case .constant(let x) = numbers[0], case .constant(let y) = numbers.count > 1 ? numbers[1] : numbers[0] {
      return .constant(RuleArithmetic.pointwise(f, x, y))
    }
    return .function(f, numbers, periods: periods)
  }

  /// Reads a period or lag: a whole-number literal or param within `range`.
  private func integer(_ s: RuleSyntax, _ range: ClosedRange<Int>, what: String, hint: String) throws(RuleError) -> Int {
    let expected = "\(what) to be an integer from \(range.lowerBound) to \(range.upperBound)"
    func whole(_ v: Double) -> Int? {
      v == v.rounded() && v >= Double(range.lowerBound) && v <= Double(range.upperBound) ? Int(v) : nil
    }
    switch s.kind {
    case .number(let v):
      guard let n = whole(v) else { throw error("expected \(expected), found \(excerpt(source(s.span)))", s.span) }
      return n
    case .negate(let inner):
      if case .number = inner.kind { throw error("expected \(expected), found \(excerpt(source(s.span)))\(hint)", s.span) }
    case .name(let name):
      if let v = params[name] {
        guard let n = whole(v) else {
          throw error("param '\(name)' is \(formatPlain(v)); expected \(expected)\(v < 0 ? hint : "")", s.span)
        }
        return n
      }
      if BarField(rawValue: name) == nil && !Self.positionNames.contains(name) && RuleFunction(rawValue: name) == nil {
        _ = try value(named: name, s.span)  // reports the unknown name
      }
    default:
      break
    }
    throw error("expected \(expected) (a number or a param), found '\(excerpt(source(s.span)))'",
                s.span)
  }

  /// Refuses `entry_price` and `bars_held` inside `s`: their value exists at the current bar only.
  private func refusePosition(in s: RuleSyntax, _ use: String) throws(RuleError) {
    func find(_ s: RuleSyntax) -> (String, TextSpan)? {
      switch s.kind {
      case .name(let n) where Self.positionNames.contains(n): return (n, s.span)
      case .number, .percent, .name: return nil
      case .negate(let x), .not(let x): return find(x)
      case .lag(let x, _): return find(x)
      case .binary(_, let a, let b, _): return find(a) ?? find(b)
      case .call(_, _, let xs):
        for x in xs { if let found = find(x) { return found } }
        return nil
      }
    }
    if let (name, span) = find(s) {
      throw error("'\(name)' is known only at the current bar; it cannot be \(use)", span)
    }
  }
}
