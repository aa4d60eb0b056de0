import Foundation

/// Fixed target weights (`strategy.type: portfolio`): bought at the first full
/// bar, then traded back to at each calendar rebalance or after a drift
/// (`rebalance`); the rest of the account stays in cash.
package struct FixedWeights: AllocationStrategy {
  package struct Parameters: StrategyParameters {
    /// One weight per asset, in the run file's order.
    package var weights: [Double] = []
    /// The symbols the weights belong to (for reports).
    package var symbols: [String] = []
    package var rebalance: RebalanceRule = .never
    package init() {}

    package init(symbols: [String], weights: [Double], rebalance: RebalanceRule) {
      self.symbols = symbols
      self.weights = weights
      self.rebalance = rebalance
    }

    /// The weights are read with the assets they name (`PortfolioRunConfig`), not declared one by one.
    package static let declarations: [Parameter<Parameters>] = []

    package var summary: [(name: String, value: String)] {
      [("weights", zip(symbols, weights).map { "\($0) \(formatPercentPlain($1))" }.joined(separator: ", ")),
       ("rebalance", rebalance.description)]
    }
  }

  package static let name = "portfolio"
  package static let summary = "hold each asset at a fixed target weight, traded back to it each period or on drift"

  package let parameters: Parameters

  package init(parameters: Parameters, assets: [AllocationAsset]) {
    self.parameters = parameters
  }

  package var initialWeights: [Double] { parameters.weights }
  package var rebalance: RebalanceRule { parameters.rebalance }
  package mutating func allocate(_ context: AllocationContext) -> Allocation? { nil }
}

/// A universe strategy: hold the `top` assets by score, re-ranked at the
/// first bar of each period (`strategy.type: rotation`, `Docs/portfolio.md`).
package struct RotationRule: Sendable, Equatable {
  /// How the chosen assets share the account.
  package enum Weighting: String, Sendable, CaseIterable {
    /// `1 / k` each for the `k` chosen.
    case equal
    /// In proportion to their scores (those with a score ≤ 0 get nothing).
    case score
  }
  /// How many assets to hold (fewer when fewer have a score).
  package var top: Int
  /// When to re-rank: `.weekly`, `.monthly`, `.quarterly` or `.annually`.
  package var period: RebalanceRule
  package var weighting: Weighting

  package init(top: Int, period: RebalanceRule, weighting: Weighting = .equal) {
    self.top = top
    self.period = period
    self.weighting = weighting
  }
}

/// The score of a rotation (`strategy.score`): an expression of the rule
/// language (`Docs/rules.md`), computed over each asset's own bars.
package struct RotationScore: Sendable, Equatable {
  /// The params the score may use, in the order written.
  package var params: [RulesStrategy.Parameters.Param]
  /// The score as written, on one line.
  package var text: String
  /// The score, checked and with params replaced by their values.
  let expression: RuleExpression

  /// The score at each of `bars` (NaN where undefined: before its warm-up, or where the value is not a number).
  package func values(over bars: BarSeries) -> ContiguousArray<Double> {
    RuleEvaluator(bars: bars).number(expression)
  }
}

/// The rotation as an allocation strategy: at the close of the first bar of
/// each period it ranks every asset with a score at that bar (best first, ties
/// by symbol) and gives the top `k` their weights, every other asset 0.
package struct Rotation: AllocationStrategy {
  package struct Parameters: StrategyParameters {
    package var rule = RotationRule(top: 0, period: .monthly)
    package var score = RotationScore(params: [], text: "", expression: .constant(.nan))
    package init() {}

    package init(rule: RotationRule, score: RotationScore) {
      self.rule = rule
      self.score = score
    }

    /// `params`, `score`, `top`, `rebalance` and `weighting` are read together (`read(from:)`).
    package static let declarations: [Parameter<Parameters>] = []

    static let periods: [String: RebalanceRule] = ["weekly": .weekly, "monthly": .monthly, "quarterly": .quarterly, "annually": .annually]

    /// Reads `params`, `score`, `top`, `rebalance` and `weighting`.
    ///
    /// - Throws: `InputError` at the offending key or token of the score.
    package static func read(from strategy: ConfigTable) throws -> Parameters {
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
      let top = try strategy.int("top", default: nil, in: 1...1_000_000) ?? 0
      let names = ["weekly", "monthly", "quarterly", "annually"]
      let period = try strategy.choice("rebalance", names, default: "monthly")!
      let weighting = try strategy.choice("weighting", RotationRule.Weighting.allCases.map(\.rawValue), default: "equal")!
      let score = RotationScore(params: params, text: RulesStrategy.Parameters.tidy(node), expression: expression)
      return Parameters(rule: RotationRule(top: top, period: periods[period]!, weighting: RotationRule.Weighting(rawValue: weighting)!),
                        score: score)
    }

    package var summary: [(name: String, value: String)] {
      params.map { ("params.\($0.name)", formatPlain($0.value)) }
        + [("score", score.text), ("top", String(rule.top)), ("rebalance", rule.period.description), ("weighting", rule.weighting.rawValue)]
    }

    var params: [RulesStrategy.Parameters.Param] { score.params }

    package static var info: [ParameterInfo] {
      func info(_ path: String, _ doc: String, _ type: ParameterType, _ defaultText: String) -> ParameterInfo {
        ParameterInfo(path: path, alias: path, doc: doc, type: type, defaultText: defaultText)
      }
      return [info("top", "how many assets to hold", .integer(1...1_000_000), ""),
              info("rebalance", "when to re-rank: weekly, monthly, quarterly or annually", .text, "monthly"),
              info("weighting", "equal, or in proportion to the scores: score", .text, "equal"),
              info("score", "the expression that ranks the assets, such as roc(close, 63)", .text, "")]
    }

    /// The rotation's keys and its params by short name, for `--set top=3` and `--set lookback=126`.
    package var parameterInfo: [ParameterInfo] {
      let declared = Self.info, taken = Set(declared.map(\.path))
      return declared + params.filter { !taken.contains($0.name) }.map {
        ParameterInfo(path: "params." + $0.name, alias: $0.name, doc: "a param of the score", type: .number(.any), defaultText: formatPlain($0.value))
      }
    }
  }

  package static let name = "rotation"
  package static let summary = "hold the top assets by a score (an expression of the rule language), re-ranked each period"

  package static func check(_ parameters: Parameters, symbols: [String]) throws(ParameterConflict) {
    let n = symbols.count
    if parameters.rule.top == 0 {
      throw ParameterConflict(path: "", message: "missing 'strategy.top'; expected how many assets to hold, 1 to \(max(1, n))")
    }
    if parameters.rule.top > n {
      throw ParameterConflict(path: "top", message: "'strategy.top' is \(parameters.rule.top) but the universe has \(n) asset\(n == 1 ? "" : "s"); expected 1 to \(n)")
    }
  }

  package let rule: RotationRule
  /// Per asset, its score at each of its own bars.
  package let scores: [ContiguousArray<Double>]
  let symbols: [String]

  /// Scores each asset's bars (the assets on all cores).
  package init(parameters: Parameters, assets: [AllocationAsset]) {
    let columns = ConcurrentSlots<ContiguousArray<Double>>(count: assets.count)
    DispatchQueue.concurrentPerform(iterations: assets.count) { a in columns.set(a, parameters.score.values(over: assets[a].bars)) }
    self.init(rule: parameters.rule, scores: assets.indices.map(columns.get), symbols: assets.map(\.symbol))
  }

  /// A rotation over scores given per asset (one per bar of that asset).
  package init(rule: RotationRule, scores: [ContiguousArray<Double>], symbols: [String]) {
    self.rule = rule
    self.scores = scores
    self.symbols = symbols
  }

  package mutating func allocate(_ context: AllocationContext) -> Allocation? {
    guard context.startsPeriod(rule.period) else { return nil }
    let m = symbols.count
    var score = [Double](repeating: .nan, count: m)
    for a in 0..<m {
      if let k = context.barIndex(of: a), k < scores[a].count { score[a] = scores[a][k] }
    }
    let chosen = AllocationDecision.ranking(score, symbols: symbols).prefix(rule.top)
    var weights = [Double](repeating: 0, count: m)
    switch rule.weighting {
    case .equal:
      for a in chosen { weights[a] = 1 / Double(chosen.count) }
    case .score:
      var total = chosen.reduce(0) { $0 + max(0, score[$1]) }, scale = 1.0
      // Scores near the largest number overflow their sum: weigh them by their share of the largest instead.
      if !total.isFinite, let largest = chosen.map({ score[$0] }).max(), largest > 0 {
        scale = largest
        total = chosen.reduce(0) { $0 + max(0, score[$1] / largest) }
      }
      if total > 0 { for a in chosen { weights[a] = max(0, score[a] / scale) / total } }
    }
    return Allocation(weights: weights, scores: score)
  }
}

/// One decision of an allocation strategy: at the close of timeline bar
/// `bar`, each asset's score (NaN without one), its rank (0 for the best; -1
/// unranked) and its target weight, traded to at the next full bar's open.
public struct AllocationDecision: Sendable, Equatable {
  /// The timeline bar whose close the decision was made at.
  public var bar: Int
  /// Each asset's score, in the run's asset order (NaN without one).
  public var scores: [Double]
  /// Each asset's rank: 0 for the best, -1 unranked.
  public var ranks: [Int]
  /// Each asset's target weight.
  public var weights: [Double]

  /// The assets with a score, best first, ties by symbol.
  public static func ranking(_ scores: [Double], symbols: [String]) -> [Int] {
    scores.indices.filter { !scores[$0].isNaN }
      .sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : symbols[$0] < symbols[$1] }
  }

  /// The decision `allocation` made at `bar`; without scores, every score is NaN and nothing is ranked.
  package init(bar: Int, allocation: Allocation, symbols: [String]) {
    self.bar = bar
    weights = allocation.weights
    scores = allocation.scores.count == symbols.count ? allocation.scores : [Double](repeating: .nan, count: symbols.count)
    ranks = [Int](repeating: -1, count: symbols.count)
    for (r, a) in Self.ranking(scores, symbols: symbols).enumerated() { ranks[a] = r }
  }

  package init(bar: Int, scores: [Double], ranks: [Int], weights: [Double]) {
    self.bar = bar
    self.scores = scores
    self.ranks = ranks
    self.weights = weights
  }
}
