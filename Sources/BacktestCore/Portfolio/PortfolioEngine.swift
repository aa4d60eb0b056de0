/// One holding of a multi-asset portfolio: its bars, dividends, costs and target weight.
public struct PortfolioAsset: Sendable {
  public var symbol: String
  public var bars: BarSeries
  public var dividends: [Dividend]
  /// Annual expense ratio accrued daily on the holding's value (0 when the prices already net it out).
  public var expenseRatio: Double
  /// The share of the account's value this asset should hold (the rest stays in cash).
  public var weight: Double

  public init(symbol: String, bars: BarSeries, dividends: [Dividend] = [], expenseRatio: Double = 0, weight: Double) {
    self.symbol = symbol
    self.bars = bars
    self.dividends = dividends
    self.expenseRatio = expenseRatio
    self.weight = weight
  }
}

/// When the portfolio trades back to its target weights.
public enum RebalanceRule: Sendable, Equatable, CustomStringConvertible {
  /// Buy once, then hold.
  case never
  /// At the first bar of each new calendar month, quarter or year.
  case monthly, quarterly, annually
  /// At the open after a close where some weight is further than this from its target.
  case drift(Double)

  /// Whether a calendar rebalance falls between the days `a` and `b` (b later).
  func startsNewPeriod(from a: Int, to b: Int) -> Bool {
    let x = CivilDate.components(days: a), y = CivilDate.components(days: b)
    switch self {
    case .monthly: return (x.year, x.month) != (y.year, y.month)
    case .quarterly: return (x.year, (x.month - 1) / 3) != (y.year, (y.month - 1) / 3)
    case .annually: return x.year != y.year
    case .never, .drift: return false
    }
  }

  public var description: String {
    switch self {
    case .never: "never"
    case .monthly: "monthly"
    case .quarterly: "quarterly"
    case .annually: "annually"
    case .drift(let d): "on drift beyond \(formatPercentPlain(d))"
    }
  }
}

/// The account rules of a portfolio run.
public struct PortfolioSettings: Sendable, Equatable {
  public var initialCash = 100_000.0
  public var commission: Commission = .none
  /// Buys fill this much above the open, sells below, never outside the bar's range.
  public var slippageBasisPoints = 0.0
  public var rebalance: RebalanceRule = .never
  /// Reinvest each dividend in the asset that paid it, at the first full bar on or after the pay date, after that bar's
  /// other trades (at most the dividend, within the cash left).
  public var drip = false
  /// Allow fractional shares (to a millionth); otherwise only whole shares trade.
  public var fractionalShares = false
  /// External cash after the initial cash: deposits positive, withdrawals negative.
  public var contributions: [DatedAmount] = []

  public init() {}
}

/// Why the portfolio traded.
public enum PortfolioOrderReason: String, Sendable, CaseIterable {
  case initial = "INITIAL"
  case rebalance = "REBALANCE"
  case contribution = "CONTRIBUTION"
  case withdrawal = "WITHDRAWAL"
  case dividendReinvestment = "DRIP"
}

/// One fill of the portfolio.
public struct PortfolioFill: Sendable, Equatable {
  /// Timeline bar of the fill (at its open).
  public var bar: Int
  public var asset: Int
  /// Positive for a buy, negative for a sale.
  public var shares: Double
  public var price: Double
  public var fee: Double
  public var reason: PortfolioOrderReason
}

/// The outcome of a portfolio run: the account at every close of the shared timeline.
public struct PortfolioResult: Sendable {
  /// Every instant at which some asset has a bar (labels from the first asset that has it).
  public var timeline: BarSeries
  public var equity: ContiguousArray<Double>
  public var cash: ContiguousArray<Double>
  /// External cash at the bar: deposits credited (the initial cash at bar 0) less withdrawals paid.
  public var flow: ContiguousArray<Double>
  /// Dividend cash credited at the bar.
  public var dividends: ContiguousArray<Double>
  /// Per asset: shares held and the price marked at each close (the last close carried over; NaN before the first bar).
  public var shares: [ContiguousArray<Double>]
  public var prices: [ContiguousArray<Double>]
  public var fills: [PortfolioFill]
  public var totals: [AssetTotals]
  /// Withdrawals not paid: beyond what the account held when paid, or still waiting for a full bar at the end.
  public var unpaidWithdrawals = 0.0
}

/// The bar loop of a portfolio: cash flows, dividends, costs, and trades to target weights.
public enum PortfolioEngine {
  /// Runs `assets` under `settings`; `Docs/portfolio.md` states every rule with the test that holds it.
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
  /// rebalance (the first bar of a new calendar period, or the bar after a
  /// close that drifted) or the waiting deposits net of the withdrawal bought
  /// in target proportions, then the sales the withdrawal still needs (in
  /// proportion to the holdings), then DRIP purchases with the cash that is
  /// left; (5) the account is marked at the close (an asset without a bar keeps
  /// its last close).
  public static func run(_ assets: [PortfolioAsset], settings: PortfolioSettings) -> PortfolioResult {
    let timeline = mergedTimeline(assets)
    let n = timeline.count, m = assets.count
    var at = [ContiguousArray<Int>](repeating: ContiguousArray(repeating: -1, count: n), count: m)
    for (a, asset) in assets.enumerated() {
      var k = 0
      for t in 0..<n {
        while k < asset.bars.count && asset.bars.time[k] < timeline.time[t] { k += 1 }
        if k < asset.bars.count && asset.bars.time[k] == timeline.time[t] { at[a][t] = k }
      }
    }
    let schedules = assets.map { DividendSchedule($0.dividends, days: timeline.day) }
    // External cash after the initial cash, per bar: each flow at the first bar dated on or after it (flows of one bar net).
    var flowAt = ContiguousArray<Double>(repeating: 0, count: n)
    for f in settings.contributions {
      let t = firstBar(onOrAfter: f.day, in: timeline.day)
      if t < n { flowAt[t] += f.amount }
    }

    var equity = ContiguousArray<Double>(repeating: 0, count: n)
    var cashColumn = equity, flowColumn = equity, dividendColumn = equity
    var sharesColumns = [ContiguousArray<Double>](repeating: equity, count: m)
    var priceColumns = [ContiguousArray<Double>](repeating: ContiguousArray(repeating: .nan, count: n), count: m)
    var totals = [AssetTotals](repeating: AssetTotals(), count: m)
    var fills: [PortfolioFill] = []
    var shares = [Double](repeating: 0, count: m)
    var lastClose = [Double](repeating: .nan, count: m)
    var nextEx = [Int](repeating: 0, count: m)
    var owed: [(asset: Int, bar: Int, cash: Double)] = []
    var dripCash = [Double](repeating: 0, count: m)
    var cash = 0.0, unpaid = 0.0
    // Deposits credited but not yet invested, and withdrawals not yet paid: both wait for a full bar.
    var depositWaiting = 0.0, withdrawalOwed = 0.0
    var invested = false, rebalanceDue = false
    let slip = settings.slippageBasisPoints / 10_000
    let weighted = assets.indices.filter { assets[$0].weight > 0 }

    func quantity(_ x: Double) -> Double {
      settings.fractionalShares ? (x * 1e6).rounded(.down) / 1e6 : x.rounded(.down)
    }
    /// The price a sale of asset `a` fills at the open of bar `t`.
    func sellPrice(_ t: Int, _ a: Int) -> Double {
      let k = at[a][t]
      return BrokerRules.sellPrice(assets[a].bars.open[k], low: assets[a].bars.low[k], slip: slip)
    }
    func fill(_ t: Int, _ a: Int, _ qty: Double, _ reason: PortfolioOrderReason) {
      guard qty != 0, let k = at[a][t] >= 0 ? at[a][t] : nil else { return }
      let bars = assets[a].bars
      if qty > 0 {
        let price = BrokerRules.buyPrice(open: bars.open[k], high: bars.high[k], slip: slip)
        let fee = settings.commission.fee(shares: qty, price: price)
        cash -= qty * price + fee
        totals[a].bought += qty * price
        totals[a].fees += fee
        totals[a].costBasis += qty * price + fee
        if reason == .initial { totals[a].initialInvestment += qty * price + fee }
        fills.append(PortfolioFill(bar: t, asset: a, shares: qty, price: price, fee: fee, reason: reason))
      } else {
        let price = sellPrice(t, a)
        let fee = settings.commission.fee(shares: -qty, price: price)
        cash += -qty * price - fee
        totals[a].sold += -qty * price
        totals[a].fees += fee
        totals[a].costBasis *= (shares[a] + qty) / shares[a]
        fills.append(PortfolioFill(bar: t, asset: a, shares: qty, price: price, fee: fee, reason: reason))
      }
      shares[a] += qty
      if abs(shares[a]) < 1e-9 { shares[a] = 0; totals[a].costBasis = 0 }
    }
    /// Shares of asset `a` that `money` buys at this bar (commission included, within the cash).
    func affordable(_ t: Int, _ a: Int, _ money: Double) -> Double {
      let k = at[a][t], bars = assets[a].bars
      let price = BrokerRules.buyPrice(open: bars.open[k], high: bars.high[k], slip: slip)
      let budget = min(money, cash)
      guard budget > 0 else { return 0 }
      return max(0, quantity(settings.commission.affordableQuantity(cash: budget, price: price)))
    }
    func openValue(_ t: Int) -> Double {
      var value = cash
      for a in 0..<m where shares[a] != 0 { value += shares[a] * assets[a].bars.open[at[a][t]] }
      return value
    }
    /// Trades every weighted asset to its target weight of the value at this open.
    func rebalance(_ t: Int, _ reason: PortfolioOrderReason) {
      let value = openValue(t)
      var target = [Double](repeating: 0, count: m)
      for a in 0..<m { target[a] = quantity(value * assets[a].weight / assets[a].bars.open[at[a][t]]) }
      for a in 0..<m where shares[a] > target[a] { fill(t, a, target[a] - shares[a], reason) }
      for a in weighted where shares[a] < target[a] {
        fill(t, a, min(target[a] - shares[a], affordable(t, a, .infinity)), reason)
      }
    }

    func sharesUp(_ x: Double) -> Double {
      settings.fractionalShares ? (x * 1e6).rounded(.up) / 1e6 : x.rounded(.up)
    }
    /// Pays `amount` out of cash at this open, at most what the account holds there: its cash plus every holding
    /// sold at this open less that sale's commission. A withdrawal that takes all of it sells everything now; a
    /// smaller one may leave cash below zero for `raiseCash` (after the bar's other trades). Returns what was paid.
    func withdraw(_ t: Int, _ amount: Double) -> Double {
      var available = cash
      for a in 0..<m where shares[a] > 0 {
        let price = sellPrice(t, a)
        available += shares[a] * price - settings.commission.fee(shares: shares[a], price: price)
      }
      guard amount < available else {
        for a in 0..<m where shares[a] > 0 { fill(t, a, -shares[a], .withdrawal) }
        let paid = min(amount, max(0, cash))
        cash -= paid
        return paid
      }
      cash -= amount
      return amount
    }
    /// Sells to bring cash back to zero or more: in proportion to the holdings'
    /// values at this open, then (for commissions) from the largest holding.
    func raiseCash(_ t: Int) {
      var holdings = 0.0
      for a in 0..<m where shares[a] > 0 { holdings += shares[a] * sellPrice(t, a) }
      guard holdings > 0 else { return }
      let need = -cash
      for a in 0..<m where shares[a] > 0 {
        fill(t, a, -min(shares[a], sharesUp(need * shares[a] / holdings)), .withdrawal)
      }
      for _ in 0..<(2 * m) where cash < 0 {
        guard let a = (0..<m).filter({ shares[$0] > 0 }).max(by: { shares[$0] * sellPrice(t, $0) < shares[$1] * sellPrice(t, $1) }) else { break }
        let price = sellPrice(t, a), perShare = price - settings.commission.fee(shares: 1, price: price) + settings.commission.fee(shares: 0, price: price)
        let fixed = settings.commission.fee(shares: 0, price: price)
        fill(t, a, -min(shares[a], sharesUp((-cash + fixed) / max(perShare, 1e-12))), .withdrawal)
      }
    }

    for t in 0..<n {
      // A full bar: every weighted asset and every holding has a bar. Only full bars trade.
      let full = weighted.allSatisfy { at[$0][t] >= 0 } && (0..<m).allSatisfy { shares[$0] == 0 || at[$0][t] >= 0 }
      // 1. External cash: a deposit (and the initial cash) is credited now; a withdrawal is paid at a full bar.
      var flow = t == 0 ? settings.initialCash : 0
      cash += flow
      if flowAt[t] > 0 {
        cash += flowAt[t]
        flow += flowAt[t]
        depositWaiting += flowAt[t]
      } else {
        withdrawalOwed -= flowAt[t]
      }

      // 2. Dividends: earned at the ex-date bar on the shares of the previous close, credited at the pay-date bar.
      for a in 0..<m {
        let s = schedules[a]
        while nextEx[a] < s.exBar.count && s.exBar[nextEx[a]] <= t {
          let earned = shares[a] * s.amount[nextEx[a]]
          if earned > 0 { owed.append((a, s.payBar[nextEx[a]], earned)) }
          nextEx[a] += 1
        }
      }
      owed.removeAll { payment in
        guard payment.bar <= t else { return false }
        cash += payment.cash
        dividendColumn[t] += payment.cash
        totals[payment.asset].dividends += payment.cash
        if settings.drip { dripCash[payment.asset] += payment.cash }
        return true
      }

      // 3. Expense drag since the previous bar.
      if t > 0 {
        let days = Double(timeline.day[t] - timeline.day[t - 1])
        for a in 0..<m where shares[a] > 0 && assets[a].expenseRatio > 0 {
          let fee = shares[a] * lastClose[a] * assets[a].expenseRatio * days / 365
          cash -= fee
          totals[a].expenseDrag += fee
        }
      }

      // 4. Orders at the open.
      if invested, t > 0, settings.rebalance.startsNewPeriod(from: Int(timeline.day[t - 1]), to: Int(timeline.day[t])) {
        rebalanceDue = true
      }
      if full {
        // The withdrawal first (from idle cash, deposits waiting included); then the initial purchase, a rebalance
        // (trading what is left to the target weights) or the deposits net of the withdrawal bought in target
        // proportions; then the sales the withdrawal still needs; then DRIP with the cash that is left.
        var paid = withdrawalOwed > 0 ? withdraw(t, withdrawalOwed) : 0
        if !invested {
          rebalance(t, .initial)
          invested = true
        } else if rebalanceDue {
          rebalance(t, .rebalance)
          rebalanceDue = false
        } else if depositWaiting > withdrawalOwed {
          let deposit = depositWaiting - withdrawalOwed
          for a in weighted { fill(t, a, affordable(t, a, deposit * assets[a].weight), .contribution) }
        }
        if paid > 0 && cash < 0 { raiseCash(t) }
        if settings.drip {
          for a in 0..<m where dripCash[a] > 0 && at[a][t] >= 0 {
            fill(t, a, affordable(t, a, dripCash[a]), .dividendReinvestment)
            dripCash[a] = 0
          }
        }
        // What the sales could not raise (each fill pays its own commission) is not paid.
        if paid > 0 && cash < 0 {
          let shortfall = min(-cash, paid)
          paid -= shortfall
          cash += shortfall
        }
        unpaid += withdrawalOwed - paid
        flow -= paid
        depositWaiting = 0
        withdrawalOwed = 0
      }
      flowColumn[t] = flow

      // 5. Mark at the close.
      var value = cash
      for a in 0..<m {
        if at[a][t] >= 0 { lastClose[a] = assets[a].bars.close[at[a][t]] }
        priceColumns[a][t] = lastClose[a]
        sharesColumns[a][t] = shares[a]
        if shares[a] != 0 { value += shares[a] * lastClose[a] }
      }
      equity[t] = value
      cashColumn[t] = cash
      if case .drift(let limit) = settings.rebalance, invested, value > 0 {
        for a in 0..<m {
          let held = shares[a] == 0 ? 0 : shares[a] * lastClose[a] / value
          if abs(held - assets[a].weight) > limit { rebalanceDue = true }
        }
      }
    }
    unpaid += withdrawalOwed  // still waiting for a full bar at the end of the data
    for payment in owed { totals[payment.asset].dividendsPending += payment.cash }
    return PortfolioResult(timeline: timeline, equity: equity, cash: cashColumn, flow: flowColumn, dividends: dividendColumn,
                           shares: sharesColumns, prices: priceColumns, fills: fills, totals: totals, unpaidWithdrawals: unpaid)
  }

  /// Every instant at which some asset has a bar, in order, labelled as the first asset with that bar writes it.
  static func mergedTimeline(_ assets: [PortfolioAsset]) -> BarSeries {
    var out = BarSeries(source: assets.map(\.bars.source).joined(separator: ", "))
    out.isDateOnly = assets.allSatisfy(\.bars.isDateOnly)
    var next = [Int](repeating: 0, count: assets.count)
    while true {
      var best: (time: Int64, asset: Int)?
      for (a, asset) in assets.enumerated() where next[a] < asset.bars.count {
        let time = asset.bars.time[next[a]]
        if best == nil || time < best!.time { best = (time, a) }
      }
      guard let (time, a) = best else { break }
      let bars = assets[a].bars, k = next[a]
      out.append(time: time, day: bars.day[k], open: 0, high: 0, low: 0, close: 0, volume: 0, label: Array(bars.timeLabel(k).utf8))
      for (b, asset) in assets.enumerated() where next[b] < asset.bars.count && asset.bars.time[next[b]] == time { next[b] += 1 }
    }
    return out
  }
}
