/// An allocation strategy as a trader: at each close it may set new target
/// weights (recorded as a decision), which the target-weights trader trades to
/// at the next full bar's open (sales first); deposits, withdrawals, DRIP and
/// the strategy's own rebalance rule are the target-weights trader's.
struct AllocationTrader<S: AllocationStrategy>: Trader {
  var targets: TargetWeightsTrader
  var strategy: S
  let symbols: [String]
  /// The first bar traded: the strategy's first close has no previous day.
  let first: Int
  private(set) var decisions: [AllocationDecision] = []
  /// Each asset's own bar at the current close, made once and reused.
  private var barIndices: [Int]
  var firstDecisionBar: Int { first }

  init(_ targets: TargetWeightsTrader, strategy: S, symbols: [String], first: Int) {
    self.targets = targets
    self.strategy = strategy
    self.symbols = symbols
    self.first = first
    barIndices = [Int](repeating: -1, count: symbols.count)
  }

  mutating func open(_ t: Int, account: inout Account) { targets.open(t, account: &account) }

  mutating func close(_ t: Int, account: inout Account) {
    targets.close(t, account: &account)
    let market = account.market, day = market.timeline.day
    for a in barIndices.indices { barIndices[a] = market.bar(of: a, at: t) }
    let context = AllocationContext(symbols: symbols, bar: t, day: Int(day[t]), previousDay: t > first ? Int(day[t - 1]) : nil,
                                    weights: targets.weights, bars: barIndices)
    guard let allocation = strategy.allocate(context) else { return }
    let weights = allocation.weights
    precondition(weights.count == symbols.count && weights.allSatisfy { $0 >= 0 && $0.isFinite }
                 && weights.reduce(0, +) <= 1 + 1e-9,
                 "\(S.name) returned the weights \(weights) for \(symbols.count) assets; expected one weight >= 0 per asset, adding up to at most 1")
    decisions.append(AllocationDecision(bar: t, allocation: allocation, symbols: symbols))
    targets.weights = weights
    targets.rebalanceDue = true
  }

  mutating func finish(account: inout Account) -> Double { targets.finish(account: &account) }
}
