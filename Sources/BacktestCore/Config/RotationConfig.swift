import Foundation

extension PortfolioRunConfig {
  /// A rotation run file's keys by short name, for `--set top=3` and `--set lookback=126`: `top`,
  /// `rebalance`, `weighting`, `score` and each of `params`; empty for any other document.
  static func rotationParameters(_ root: YAMLNode) -> [ParameterInfo] {
    guard strategyType(root) == "rotation", case .mapping(let entries) = root.kind,
          case .mapping(let keys)? = entries.first(where: { $0.key == "strategy" })?.value.kind else { return [] }
    func info(_ path: String, _ alias: String, _ doc: String, _ type: ParameterType) -> ParameterInfo {
      ParameterInfo(path: path, alias: alias, doc: doc, type: type, defaultText: "")
    }
    var out = [info("top", "top", "how many assets to hold", .integer(1...1_000_000)),
               info("rebalance", "rebalance", "weekly, monthly, quarterly or annually", .number(.any)),
               info("weighting", "weighting", "equal or score", .number(.any)),
               info("score", "score", "the expression that ranks the assets", .number(.any))]
    if let params = keys.first(where: { $0.key == "params" })?.value, case .mapping(let named) = params.kind {
      let taken = Set(out.map(\.path))
      for p in named where !taken.contains(p.key) {
        out.append(info("params." + p.key, p.key, "a param of the score", .number(.any)))
      }
    }
    return out
  }


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
    let named = Dictionary(params.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    let expression = try RulesStrategy.Parameters.expression(node, key: "strategy.score", expected: "an expression") { (text: String) throws(RuleError) in
      try RuleChecker.number(text, params: named, key: "strategy.score", example: "a score such as 'roc(close, 63)'")
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
