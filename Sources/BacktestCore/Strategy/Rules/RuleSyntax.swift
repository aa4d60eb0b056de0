/// The operators between two operands, loosest first.
package enum BinaryOperator: String, Sendable, Hashable {
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
