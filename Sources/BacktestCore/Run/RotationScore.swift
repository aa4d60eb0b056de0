/// The score of a rotation (`strategy.score`): an expression of the rule
/// language (`Docs/rules.md`), computed over each asset's own bars.
public struct RotationScore: Sendable {
  /// The params the score may use, in the order written.
  public var params: [RulesStrategy.Parameters.Param]
  /// The score as written, on one line.
  public var text: String
  /// The score, checked and with params replaced by their values.
  let expression: RuleExpression

  /// The score at each of `bars` (NaN where undefined: before its warm-up, or where the value is not a number).
  public func values(over bars: BarSeries) -> ContiguousArray<Double> {
    RuleEvaluator(bars: bars).number(expression)
  }
}
