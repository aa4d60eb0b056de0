/// A universe strategy: hold the `top` assets by score, re-ranked at the
/// first bar of each period (`strategy.type: rotation`, `Docs/portfolio.md`).
public struct RotationRule: Sendable, Equatable {
  /// How the chosen assets share the account.
  public enum Weighting: String, Sendable, CaseIterable {
    /// `1 / k` each for the `k` chosen.
    case equal
    /// In proportion to their scores (those with a score ≤ 0 get nothing).
    case score
  }
  /// How many assets to hold (fewer when fewer have a score).
  public var top: Int
  /// When to re-rank: `.weekly`, `.monthly`, `.quarterly` or `.annually`.
  public var period: RebalanceRule
  public var weighting: Weighting

  public init(top: Int, period: RebalanceRule, weighting: Weighting = .equal) {
    self.top = top
    self.period = period
    self.weighting = weighting
  }
}

/// One ranking of a rotation: at the close of `bar`, each asset's score (NaN
/// without one), its rank (0 for the best; -1 unranked) and the weight it is
/// given, traded to at the next full bar's open.
public struct RotationDecision: Sendable, Equatable {
  public var bar: Int
  public var scores: [Double]
  public var ranks: [Int]
  public var weights: [Double]
}

/// The rotation as a trader: at the close of the first bar of each period it
/// ranks every asset with a score at that bar (best first, ties by symbol),
/// gives the top `k` their target weights and every other asset 0; the
/// target-weights trader then trades there at the next full bar's open (sales
/// first), and handles deposits, withdrawals and DRIP as for fixed weights.
struct RotationTrader: Trader {
  var trader: TargetWeightsTrader
  let rule: RotationRule
  /// Per asset, its score at each of its own bars.
  let scores: [ContiguousArray<Double>]
  let symbols: [String]
  private(set) var decisions: [RotationDecision] = []
  var firstDecisionBar: Int { 0 }

  init(_ trader: TargetWeightsTrader, rule: RotationRule, scores: [ContiguousArray<Double>], symbols: [String]) {
    self.trader = trader
    self.rule = rule
    self.scores = scores
    self.symbols = symbols
  }

  mutating func open(_ t: Int, account: inout Account) { trader.open(t, account: &account) }

  mutating func close(_ t: Int, account: inout Account) {
    let market = account.market, day = market.timeline.day
    guard t == 0 || rule.period.startsNewPeriod(from: Int(day[t - 1]), to: Int(day[t])) else { return }
    let m = symbols.count
    var score = [Double](repeating: .nan, count: m)
    for a in 0..<m {
      let k = market.bar(of: a, at: t)
      if k >= 0 && k < scores[a].count { score[a] = scores[a][k] }
    }
    let ranked = (0..<m).filter { !score[$0].isNaN }.sorted { score[$0] != score[$1] ? score[$0] > score[$1] : symbols[$0] < symbols[$1] }
    var ranks = [Int](repeating: -1, count: m)
    for (r, a) in ranked.enumerated() { ranks[a] = r }
    let chosen = ranked.prefix(rule.top)
    var weights = [Double](repeating: 0, count: m)
    switch rule.weighting {
    case .equal:
      for a in chosen { weights[a] = 1 / Double(chosen.count) }
    case .score:
      let total = chosen.reduce(0) { $0 + max(0, score[$1]) }
      if total > 0 { for a in chosen { weights[a] = max(0, score[a]) / total } }
    }
    decisions.append(RotationDecision(bar: t, scores: score, ranks: ranks, weights: weights))
    trader.weights = weights
    trader.rebalanceDue = true
  }

  mutating func finish(account: inout Account) { trader.finish(account: &account) }
}
