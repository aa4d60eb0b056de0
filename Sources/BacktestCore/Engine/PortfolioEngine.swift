/// One holding of a multi-asset portfolio: its bars, dividends, costs and target weight.
public struct PortfolioAsset: Sendable {
  /// The asset's ticker, as reports name it.
  public var symbol: String
  /// The asset's price bars.
  public var bars: BarSeries
  /// The asset's dividends (empty for none).
  public var dividends: [Dividend]
  /// Annual expense ratio accrued daily on the holding's value (0 when the prices already net it out).
  public var expenseRatio: Double
  /// The share of the account's value this asset should hold under fixed weights (`PortfolioEngine.run(_:settings:)`;
  /// another allocation strategy sets its own).
  public var weight: Double

  /// Creates an asset; by default without dividends or an expense ratio.
  public init(symbol: String, bars: BarSeries, dividends: [Dividend] = [], expenseRatio: Double = 0, weight: Double) {
    self.symbol = symbol
    self.bars = bars
    self.dividends = dividends
    self.expenseRatio = expenseRatio
    self.weight = weight
  }
}

/// The account rules of a portfolio run.
public struct PortfolioSettings: Sendable, Equatable {
  /// The cash the account starts with, in money (default 100,000).
  public var initialCash = 100_000.0
  /// The commission charged on each fill (default `.none`).
  public var commission: Commission = .none
  /// Buys fill this much above the open, sells below, never outside the bar's range.
  public var slippageBasisPoints = 0.0
  /// For fixed weights (`PortfolioEngine.run(_:settings:)`): when to trade back to them.
  public var rebalance: RebalanceRule = .never
  /// Reinvest each dividend in the asset that paid it, at the first full bar on or after the pay date, after that bar's
  /// other trades (at most the dividend, within the cash left).
  public var drip = false
  /// Allow fractional shares (to a millionth); otherwise only whole shares trade.
  public var fractionalShares = false
  /// External cash after the initial cash: deposits positive, withdrawals negative.
  public var contributions: [DatedAmount] = []

  /// Creates the defaults: 100,000 cash, no commission, no slippage, never rebalanced, no reinvestment, whole shares,
  /// no external cash.
  public init() {}
}

/// The outcome of a portfolio run: the account at every close of the shared timeline.
public struct PortfolioResult: Sendable {
  /// Every instant at which some asset has a bar (labels from the first asset that has it).
  public var timeline: BarSeries
  /// The account's value at each close (cash plus shares at the marked prices), in money; index 0 is timeline bar
  /// `firstBar`.
  public var equity: ContiguousArray<Double>
  /// The cash at each close, in money.
  public var cash: ContiguousArray<Double>
  /// External cash at the bar: deposits credited (the initial cash at bar 0) less withdrawals paid.
  public var flow: ContiguousArray<Double>
  /// Where `flow` is not 0: the account's value at that bar's open before the flow, its holdings at the
  /// prices the flow's orders fill at (buys for a deposit, sales for a withdrawal; the last close for an
  /// asset without a bar there); NaN elsewhere. The time-weighted return splits the bar there.
  public var flowBase: ContiguousArray<Double> = []

  /// The growth of one unit over the run with the flows taken out (`timeWeightedIndex`).
  public var timeWeightedIndex: ContiguousArray<Double> {
    BacktestCore.timeWeightedIndex(equity: equity, flow: flow, base: flowBase)
  }
  /// Dividend cash credited at the bar.
  public var dividends: ContiguousArray<Double>
  /// Per asset (in the order given): the shares held at each close.
  public var shares: [ContiguousArray<Double>]
  /// Per asset: the price marked at each close (the last close carried over; NaN before the asset's first bar).
  public var prices: [ContiguousArray<Double>]
  /// Every fill, in the order it happened (`Fill.bar` a timeline bar, `Fill.asset` an index into the assets).
  public var fills: [Fill]
  /// Per asset: its money bought and sold, fees, dividends and cost basis over the run.
  public var totals: [AssetTotals]
  /// Withdrawals not paid: beyond what the account held when paid, or still waiting for a full bar at the end.
  public var unpaidWithdrawals = 0.0
  /// The allocation strategy's decisions, in order (empty for fixed weights).
  public var decisions: [AllocationDecision] = []
  /// The weights bought at the first bar traded, before any decision (empty for none: a strategy that starts in cash).
  public var initialWeights: [Double] = []
  /// The timeline bar that `equity[0]` (and every other per-bar column) is at: the start of the range traded (0 for a
  /// run over the whole timeline). Fills and decisions carry timeline bars.
  public var firstBar = 0
}

/// A portfolio held at target weights: the portfolio strategy as a trader on the one bar loop.
public enum PortfolioEngine {
  /// Holds `assets` at their fixed weights (`PortfolioAsset.weight`), traded back to them by `settings.rebalance`.
  public static func run(_ assets: [PortfolioAsset], settings: PortfolioSettings) -> PortfolioResult {
    var strategy = FixedWeights(parameters: .init(symbols: assets.map(\.symbol), weights: assets.map(\.weight), rebalance: settings.rebalance),
                                assets: [])
    return run(assets, settings: settings, strategy: &strategy)
  }

  /// Runs the allocation `strategy` over `assets` under `settings`; `Docs/portfolio.md` states every rule with the test
  /// that holds it.
  ///
  /// Per timeline bar `t`: (1) deposits are credited to cash (the initial cash
  /// at the first bar); (2) each asset whose ex-date is this bar earns its
  /// dividend on the shares held at the previous close, and dividends whose pay
  /// date is this bar are credited to cash; (3) the expense-ratio drag since the
  /// previous bar is charged to cash (value at the previous close × rate ×
  /// days / 365); (4) on a full bar (every weighted asset and every holding has
  /// a bar; otherwise everything waits for the next full bar) orders fill at
  /// the open: a withdrawal is paid (idle cash first; at most the cash plus
  /// every holding sold less its commission), then the initial purchase, a
  /// rebalance (the strategy's new targets, the first bar of a new calendar
  /// period, or the bar after a close that drifted) or the waiting deposits net
  /// of the withdrawal bought in target proportions, then the sales the
  /// withdrawal still needs (in proportion to the holdings), then DRIP
  /// purchases with the cash that is left; (5) the account is marked at the
  /// close (an asset without a bar keeps its last close); (6) the strategy
  /// decides at the close. Steps 1-3 and 5 are the account's (`Engine.trade`),
  /// steps 4 and 6 `AllocationTrader`'s.
  ///
  /// With `range`, only the timeline bars in it trade, with a fresh account (the
  /// initial purchase at its first full bar, flows and dividends only inside it);
  /// the strategy was made over every bar given, so the bars before the range
  /// warm what it computes. The result's columns hold the range's bars only.
  public static func run<S: AllocationStrategy>(_ assets: [PortfolioAsset], settings: PortfolioSettings, strategy: inout S,
                                                trading range: Range<Int>? = nil) -> PortfolioResult {
    let market = Market(assets: assets.map(\.bars))
    let timeline = market.timeline, n = timeline.count
    let range = range ?? 0..<n
    precondition(range.lowerBound >= 0 && range.upperBound <= n && !range.isEmpty, "trading range \(range) outside the \(n) bars")
    // External cash after the initial cash, per bar: each flow at the first bar dated on or after it (flows of one bar net),
    // inside the range.
    var flows = ContiguousArray<Double>(repeating: 0, count: n)
    for f in settings.contributions {
      let t = firstBar(onOrAfter: f.day, in: timeline.day)
      if t >= range.lowerBound && t < range.upperBound { flows[t] += f.amount }
    }
    let income = AccountIncome(dividends: assets.map { DividendSchedule($0.dividends, days: timeline.day) },
                               expenseRatios: assets.map(\.expenseRatio), flows: flows, drip: settings.drip)
    var account = Account(market: market, commission: settings.commission, slippageBasisPoints: settings.slippageBasisPoints,
                          range: range, income: income, recordsFlows: true)
    let symbols = assets.map(\.symbol)
    let initial = strategy.initialWeights.isEmpty ? [Double](repeating: 0, count: assets.count) : strategy.initialWeights
    let targets = TargetWeightsTrader(weights: initial, rebalance: strategy.rebalance, fractionalShares: settings.fractionalShares,
                                      drip: settings.drip)
    var trader = AllocationTrader(targets, strategy: strategy, symbols: symbols, first: range.lowerBound)
    Engine.trade(&trader, account: &account, initialCash: settings.initialCash, broker: .conservative, intrabar: nil)
    strategy = trader.strategy
    var totals = account.totals
    for payment in account.owed { totals[payment.asset].dividendsPending += payment.cash }
    let m = range.count
    var result = PortfolioResult(timeline: range == 0..<n ? timeline : timeline.filtered { range.contains($0) },
                                 equity: account.equityColumn, cash: account.cashColumn, flow: account.flowColumn,
                                 dividends: account.dividendColumn.isEmpty ? ContiguousArray(repeating: 0, count: m) : account.dividendColumn,
                                 shares: assets.indices.map(account.sharesColumn), prices: assets.indices.map(account.priceColumn),
                                 fills: account.fills, totals: totals, unpaidWithdrawals: trader.targets.unpaid, decisions: trader.decisions)
    result.initialWeights = strategy.initialWeights
    result.firstBar = range.lowerBound
    result.flowBase = flowBases(result, market: market, slippageBasisPoints: settings.slippageBasisPoints)
    return result
  }

  /// `PortfolioResult.flowBase`: the account's value at the open of each bar with a flow, before it.
  static func flowBases(_ r: PortfolioResult, market: Market, slippageBasisPoints: Double) -> ContiguousArray<Double> {
    let slip = slippageBasisPoints / 10_000
    var base = ContiguousArray<Double>(repeating: .nan, count: r.flow.count)
    for t in r.flow.indices where r.flow[t] != 0 {
      guard t > 0 else { base[t] = 0; continue }
      var value = r.cash[t - 1]
      for a in market.assets.indices where r.shares[a][t - 1] != 0 {
        let k = market.bar(of: a, at: r.firstBar + t), bars = market.assets[a]
        let price = k < 0 ? r.prices[a][t - 1]
          : r.flow[t] > 0 ? BrokerRules.buyPrice(open: bars.open[k], high: bars.high[k], slip: slip)
          : BrokerRules.sellPrice(bars.open[k], low: bars.low[k], slip: slip)
        value += r.shares[a][t - 1] * price
      }
      base[t] = value
    }
    return base
  }
}

/// Target weights as a trader: the initial purchase at the first full bar, a
/// rebalance at the first full bar of a new calendar period or after a close
/// that drifted, deposits bought in target proportions, withdrawals raised by
/// selling in proportion to the holdings, and DRIP.
struct TargetWeightsTrader: Trader {
  /// The target weights (a rotation changes them at each decision, then sets `rebalanceDue`).
  var weights: [Double] { didSet { weighted = weights.indices.filter { weights[$0] > 0 } } }
  /// The assets with a weight above zero.
  private(set) var weighted: [Int]
  let rule: RebalanceRule
  let fractionalShares: Bool
  let drip: Bool
  var invested = false, rebalanceDue = false
  /// Withdrawals not paid: beyond what the account held, or still waiting for a full bar at the end.
  var unpaid = 0.0
  var firstDecisionBar: Int { 0 }

  init(weights: [Double], rebalance: RebalanceRule, fractionalShares: Bool, drip: Bool) {
    self.weights = weights
    weighted = weights.indices.filter { weights[$0] > 0 }
    rule = rebalance
    self.fractionalShares = fractionalShares
    self.drip = drip
  }

  func quantity(_ x: Double) -> Double {
    fractionalShares ? (x * 1e6).rounded(.down) / 1e6 : x.rounded(.down)
  }

  func sharesUp(_ x: Double) -> Double {
    fractionalShares ? (x * 1e6).rounded(.up) / 1e6 : x.rounded(.up)
  }

  /// Buys (`quantity > 0`) or sells asset `a` at the open of bar `t`; nothing for zero or where the asset has no bar.
  func fill(_ t: Int, _ a: Int, _ quantity: Double, _ reason: FillReason, _ account: inout Account) {
    guard quantity != 0, account.market.bar(of: a, at: t) >= 0 else { return }
    if quantity > 0 {
      account.buy(t, a, quantity, at: account.buyPrice(t, a), reason)
    } else {
      account.sell(t, a, -quantity, at: account.sellPrice(t, a), reason)
    }
  }

  /// Shares of asset `a` that `money` buys at this bar (commission included, within the cash).
  func affordable(_ t: Int, _ a: Int, _ money: Double, _ account: Account) -> Double {
    let price = account.buyPrice(t, a)
    let budget = min(money, account.cash)
    guard budget > 0 else { return 0 }
    return max(0, quantity(account.commission.affordableQuantity(cash: budget, price: price)))
  }

  /// The account's value at the open of bar `t` (every holding has a bar there).
  func openValue(_ t: Int, _ account: Account) -> Double {
    var value = account.cash
    for a in account.shares.indices where account.shares[a] != 0 {
      value += account.shares[a] * account.open(a, t)
    }
    return value
  }

  /// Trades every weighted asset to its target weight of the value at this open.
  func rebalance(_ t: Int, _ reason: FillReason, _ account: inout Account) {
    let value = openValue(t, account)
    let m = weights.count
    var target = [Double](repeating: 0, count: m)
    // (An asset without a weight may have no bar here: its target is 0 without a price.)
    // (An account worth nothing or less at the open holds nothing: never a negative target, which would sell short.)
    for a in weighted { target[a] = max(0, quantity(value * weights[a] / account.open(a, t))) }
    for a in 0..<m where account.shares[a] > target[a] { fill(t, a, target[a] - account.shares[a], reason, &account) }
    for a in weighted where account.shares[a] < target[a] {
      fill(t, a, min(target[a] - account.shares[a], affordable(t, a, .infinity, account)), reason, &account)
    }
  }

  /// Pays `amount` out of cash at this open, at most what the account holds there: its cash plus every holding
  /// sold at this open less that sale's commission. A withdrawal that takes all of it sells everything now; a
  /// smaller one may leave cash below zero for `raiseCash` (after the bar's other trades). Returns what was paid.
  func withdraw(_ t: Int, _ amount: Double, _ account: inout Account) -> Double {
    var available = account.cash
    for a in account.shares.indices where account.shares[a] > 0 {
      let price = account.sellPrice(t, a)
      available += account.shares[a] * price - account.commission.fee(shares: account.shares[a], price: price)
    }
    guard amount < available else {
      for a in account.shares.indices where account.shares[a] > 0 { fill(t, a, -account.shares[a], .withdrawal, &account) }
      let paid = min(amount, max(0, account.cash))
      account.cash -= paid
      return paid
    }
    account.cash -= amount
    return amount
  }

  /// Sells to bring cash back to zero or more: in proportion to the holdings'
  /// values at this open, then (for commissions) from the largest holding.
  func raiseCash(_ t: Int, _ account: inout Account) {
    let m = weights.count
    var holdings = 0.0
    for a in 0..<m where account.shares[a] > 0 { holdings += account.shares[a] * account.sellPrice(t, a) }
    guard holdings > 0 else { return }
    let need = -account.cash
    for a in 0..<m where account.shares[a] > 0 {
      fill(t, a, -min(account.shares[a], sharesUp(need * account.shares[a] / holdings)), .withdrawal, &account)
    }
    for _ in 0..<(2 * m) where account.cash < 0 {
      let held = (0..<m).filter { account.shares[$0] > 0 }
      guard let a = held.max(by: { account.shares[$0] * account.sellPrice(t, $0) < account.shares[$1] * account.sellPrice(t, $1) }) else { break }
      let commission = account.commission
      let price = account.sellPrice(t, a), perShare = price - commission.fee(shares: 1, price: price) + commission.fee(shares: 0, price: price)
      let fixed = commission.fee(shares: 0, price: price)
      fill(t, a, -min(account.shares[a], sharesUp((-account.cash + fixed) / max(perShare, 1e-12))), .withdrawal, &account)
    }
  }

  mutating func open(_ t: Int, account: inout Account) {
    let market = account.market
    // A full bar: every weighted asset and every holding with a weight has a bar. Only full bars trade.
    let full = weighted.allSatisfy { market.bar(of: $0, at: t) >= 0 }
      && account.shares.indices.allSatisfy { account.shares[$0] == 0 || weights[$0] == 0 || market.bar(of: $0, at: t) >= 0 }
    if invested, t > 0, rule.startsNewPeriod(from: Int(market.timeline.day[t - 1]), to: Int(market.timeline.day[t])) {
      rebalanceDue = true
    }
    guard full else { return }
    // A holding without a weight (a rotation dropped it) and without a bar here is sold at its last close first:
    // its bars may have ended (delisted), and waiting for its next bar would hold up every other trade.
    for a in account.shares.indices where account.shares[a] > 0 && market.bar(of: a, at: t) < 0 {
      account.sell(t, a, account.shares[a], at: account.lastClose(a), .lastClose)
    }
    // The withdrawal first (from idle cash, deposits waiting included); then the initial purchase, a rebalance
    // (trading what is left to the target weights) or the deposits net of the withdrawal bought in target
    // proportions; then the sales the withdrawal still needs; then DRIP with the cash that is left.
    let owed = account.withdrawalOwed
    var paid = owed > 0 ? withdraw(t, owed, &account) : 0
    if !invested {
      rebalance(t, .initial, &account)
      invested = true
    } else if rebalanceDue {
      rebalance(t, .rebalance, &account)
      rebalanceDue = false
    } else if account.depositWaiting > owed {
      let deposit = account.depositWaiting - owed
      for a in weighted { fill(t, a, affordable(t, a, deposit * weights[a], account), .contribution, &account) }
    }
    if paid > 0 && account.cash < 0 { raiseCash(t, &account) }
    if drip {
      for a in account.dripCash.indices where account.dripCash[a] > 0 && market.bar(of: a, at: t) >= 0 {
        // (An asset a rotation dropped keeps its dividend in cash.)
        if weights[a] > 0 { fill(t, a, affordable(t, a, account.dripCash[a], account), .dividendReinvestment, &account) }
        account.dripCash[a] = 0
      }
    }
    // What the sales could not raise (each fill pays its own commission) is not paid.
    if paid > 0 && account.cash < 0 {
      let shortfall = min(-account.cash, paid)
      paid -= shortfall
      account.cash += shortfall
    }
    unpaid += owed - paid
    account.flowColumn[t - account.first] -= paid
    account.depositWaiting = 0
    account.withdrawalOwed = 0
  }

  mutating func close(_ t: Int, account: inout Account) {
    guard case .drift(let limit) = rule, invested else { return }
    let value = account.markedValue
    guard value > 0 else { return }
    for a in weights.indices {
      let held = account.shares[a] == 0 ? 0 : account.shares[a] * account.lastClose(a) / value
      if abs(held - weights[a]) > limit { rebalanceDue = true }
    }
  }

  mutating func finish(account: inout Account) -> Double {
    unpaid += account.withdrawalOwed  // still waiting for a full bar at the end of the data
    return 0
  }
}
