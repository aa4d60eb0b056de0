import Foundation

extension PortfolioRunConfig {
  /// The rebalance periods a rotation may rank at.
  static let rotationPeriods: [String: RebalanceRule] = ["weekly": .weekly, "monthly": .monthly, "quarterly": .quarterly, "annually": .annually]

  /// Reads a rotation's `params`, `score`, `top`, `rebalance` and `weighting` from the `strategy:` section.
  ///
  /// - Throws: `InputError` at the offending key or token of the score.
  static func readRotation(_ strategy: ConfigTable, assets: [AssetSettings]) throws -> (RotationRule, RotationScore) {
    if let key = ["weights", "entry", "exit"].first(where: strategy.contains) {
      throw InputError("'strategy.\(key)' is not a key of a rotation (it holds the top assets by 'score'); expected params, score, top, rebalance, weighting",
                       at: strategy.entries.first { $0.key == key }!.keyLocation)
    }
    let params = try RulesStrategy.Parameters.readParams(strategy)
    guard let node = strategy.node("score") else {
      throw InputError("missing 'strategy.score'; expected the expression that ranks the assets, such as 'roc(close, 63)'", at: strategy.location)
    }
    guard case .scalar(let text, _) = node.kind else {
      throw InputError("expected an expression for 'strategy.score', found \(node.typeDescription)", at: node.location)
    }
    let expression: RuleExpression
    do {
      expression = try RuleChecker.number(text, params: Dictionary(params.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }),
                                          key: "strategy.score", example: "a score such as 'roc(close, 63)'")
    } catch {
      throw InputError(error.message, at: node.location(ofCharacter: error.offset), excerpt: node.markedLine(atCharacter: error.offset, width: error.width))
    }
    guard let top = try strategy.int("top", default: nil, in: 1...1_000_000) else {
      throw InputError("missing 'strategy.top'; expected how many assets to hold, 1 to \(max(1, assets.count))", at: strategy.location)
    }
    if top > assets.count {
      throw InputError("'strategy.top' is \(top) but the universe has \(assets.count) asset\(assets.count == 1 ? "" : "s"); expected 1 to \(assets.count)",
                       at: strategy.node("top")!.location)
    }
    let names = ["weekly", "monthly", "quarterly", "annually"]
    let period = try strategy.choice("rebalance", names, default: "monthly")!
    let weighting = try strategy.choice("weighting", RotationRule.Weighting.allCases.map(\.rawValue), default: "equal")!
    let score = RotationScore(params: params, text: RulesStrategy.Parameters.tidy(node), expression: expression)
    return (RotationRule(top: top, period: rotationPeriods[period]!, weighting: RotationRule.Weighting(rawValue: weighting)!), score)
  }
}
