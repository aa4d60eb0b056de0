/// Why a fill happened. The raw value is the spelling in `orders.csv`.
public enum FillReason: String, Sendable, CaseIterable {
  /// The purchases that set up a portfolio at its first full bar.
  case initial = "INITIAL"
  /// A trade back to the target weights (or to an allocation strategy's new targets).
  case rebalance = "REBALANCE"
  /// A purchase with a deposit: what `deposit × weight` buys of each asset.
  case contribution = "CONTRIBUTION"
  /// A sale that pays a withdrawal.
  case withdrawal = "WITHDRAWAL"
  /// A purchase with a dividend paid on the asset (dividend reinvestment).
  case dividendReinvestment = "DRIP"
  /// A holding a rotation dropped, without a bar where the ranking trades, sold at its last close
  /// (`Docs/portfolio.md`, "Rotation").
  case lastClose = "LAST_CLOSE"
  /// A strategy's entry (`enterLong`).
  case entry = "ENTRY"
  /// The close of a strategy's position (its exit reason is in the trade).
  case exit = "EXIT"
}

/// One fill of the account.
public struct Fill: Sendable, Equatable {
  /// Timeline bar of the fill.
  public var bar: Int
  /// The asset, as its index in the run's assets.
  public var asset: Int
  /// Positive for a buy, negative for a sale.
  public var shares: Double
  /// The fill price, slippage included.
  public var price: Double
  /// The commission paid on the fill.
  public var fee: Double
  /// Why the fill happened.
  public var reason: FillReason

  /// A fill of `shares` (negative for a sale) of `asset` at `price` on timeline bar `bar`.
  @inlinable
  public init(bar: Int, asset: Int, shares: Double, price: Double, fee: Double, reason: FillReason) {
    self.bar = bar
    self.asset = asset
    self.shares = shares
    self.price = price
    self.fee = fee
    self.reason = reason
  }
}

/// Money in and out of one asset over a run.
public struct AssetTotals: Sendable, Equatable {
  /// Spent on buys and received from sales (fees not included).
  public var bought = 0.0
  /// Received from sales (fees not included).
  public var sold = 0.0
  /// Commission paid on this asset's fills.
  public var fees = 0.0
  /// The expense ratio charged on this asset's holdings.
  public var expenseDrag = 0.0
  /// Dividend cash received.
  public var dividends = 0.0
  /// Earned by an ex-date in the data but paid after the last bar.
  public var dividendsPending = 0.0
  /// Spent by the first (INITIAL) buy.
  public var initialInvestment = 0.0
  /// What the shares now held cost (average cost, buy fees included).
  public var costBasis = 0.0

  /// Totals of zero.
  @inlinable public init() {}
}

/// The money that reaches an account from outside its trades, by asset.
@usableFromInline
struct AccountIncome: Sendable {
  /// Each asset's dividends on the market's timeline.
  @usableFromInline var dividends: [DividendSchedule]
  /// Each asset's annual expense ratio, accrued per calendar day on the value at the previous close.
  @usableFromInline var expenseRatios: [Double]
  /// Deposits (positive) and withdrawals (negative) after the initial cash, by timeline bar; empty for none.
  @usableFromInline var flows: ContiguousArray<Double> = []
  /// Whether dividend cash is set aside per asset for reinvestment (`dripCash`).
  @usableFromInline var drip = false
  /// The yearly rate a short position pays on its value, accrued per calendar day like the expense ratio.
  @usableFromInline var borrowRate = 0.0

  @usableFromInline
  init(dividends: [DividendSchedule], expenseRatios: [Double], flows: ContiguousArray<Double> = [], drip: Bool = false,
       borrowRate: Double = 0) {
    self.dividends = dividends
    self.expenseRatios = expenseRatios
    self.flows = flows
    self.drip = drip
    self.borrowRate = borrowRate
  }
}

/// The one account every run trades through: cash, the shares of each asset,
/// fills and closed trades, the money that reaches it from outside its trades
/// (deposits, withdrawals, dividends, expense drag), and the record of every
/// bar. Traders buy and sell through it at a bar's open; every fill follows
/// `BrokerRules` (`Docs/spec/bb-rsi-swing.md`, `Docs/portfolio.md`).
@usableFromInline
struct Account {
  /// A position a strategy opened (`Signal.enterLong`, `.enterShort`, `.enter`): its entry fill and its exits.
  @usableFromInline
  struct Position {
    @usableFromInline var side = EntryOrder.Side.long
    @usableFromInline var entryPrice = 0.0
    /// `-1` when the asset's shares were not bought by an entry (a rebalance) or are none.
    @usableFromInline var entryBar = -1
    @usableFromInline var entryFee = 0.0
    /// The fixed stop and target levels (`±inf` when off).
    @usableFromInline var stop = -Double.infinity
    @usableFromInline var target = Double.infinity
    /// The trailing stop's distance (`nil`: none), the best close since the entry, and the level it gives.
    @usableFromInline var trailing: Double?
    @usableFromInline var bestClose = 0.0
    @usableFromInline var trail = -Double.infinity
    /// Closes at the next open after this many bars held.
    @usableFromInline var maxBarsHeld: Int?
    /// Whether the entry filled after its bar's open (a limit or stop reached inside the bar).
    @usableFromInline var filledInside = false
    /// Dividends earned by the shares of this position (ex-dates held through; paid, negative, by a short).
    @usableFromInline var dividends = 0.0

    @inlinable
    init(side: EntryOrder.Side = .long, entryPrice: Double = 0, entryBar: Int = -1, entryFee: Double = 0,
         stop: Double = -.infinity, target: Double = .infinity) {
      self.side = side
      self.entryPrice = entryPrice
      self.entryBar = entryBar
      self.entryFee = entryFee
      self.stop = stop
      self.target = target
    }

    /// The stop that binds now: the fixed stop or the trailing one, whichever is nearer the price.
    @inlinable var effectiveStop: Double { side == .long ? max(stop, trail) : min(stop, trail) }
    /// The reason a stop exit has: the trailing stop's when it is the nearer one.
    @inlinable var stopReason: ExitReason {
      (side == .long ? trail > stop : trail < stop) ? .trailingStop : .stopLoss
    }
  }

  @usableFromInline let market: Market
  @usableFromInline let commission: Commission
  /// Slippage as a fraction (basis points / 10,000).
  @usableFromInline let slip: Double
  /// The bars `first..<end` of the timeline trade; record column `k` is bar `first + k`.
  @usableFromInline let first: Int, end: Int
  @usableFromInline let income: AccountIncome

  @usableFromInline var cash = 0.0
  @usableFromInline var shares: [Double]
  /// What the bar loop lends the account while it runs (`Engine.trade`): the
  /// bars' prices and the last closes, as buffers (no uniqueness check or
  /// nested lookup per bar). Empty outside the loop.
  @usableFromInline var lent = Lent()
  @usableFromInline var positions: [Position]
  @usableFromInline var trades: [Trade] = []
  @usableFromInline var fills: [Fill] = []
  @usableFromInline var totals: [AssetTotals]
  /// Exits whose order of events OHLC cannot tell, and those finer bars settled.
  @usableFromInline var ambiguousBars = 0, resolvedBars = 0
  @usableFromInline var expenseDrag = 0.0

  // Money from outside: the next ex-date of each asset, payments owed, the next bar with either.
  @usableFromInline var nextEx: [Int]
  @usableFromInline var owed: [(asset: Int, bar: Int, cash: Double)] = []
  @usableFromInline var nextEventBar = Int.max
  /// Dividend cash of each asset waiting to be reinvested (with `income.drip`).
  @usableFromInline var dripCash: [Double]
  /// Deposits credited but not yet invested, and withdrawals not yet paid (target-weight trading).
  @usableFromInline var depositWaiting = 0.0, withdrawalOwed = 0.0

  // The record of every bar of the range, when the loop keeps columns (`Engine.trade`, `ColumnRecord`); empty before it.
  @usableFromInline var equityColumn: ContiguousArray<Double>
  @usableFromInline var cashColumn: ContiguousArray<Double>
  /// Each asset's shares per bar, asset after asset (`sharesColumn(a)`).
  @usableFromInline var sharesRecord: ContiguousArray<Double>
  /// Each asset's marked price per bar, asset after asset (several assets only; `priceColumn(a)`).
  @usableFromInline var priceRecord: ContiguousArray<Double>
  /// Whether anything is charged per calendar day (an expense ratio, or borrowing for shorts), whether there
  /// are deposits or withdrawals, and how many positions have exit levels to watch.
  @usableFromInline let chargesDaily: Bool, hasFlows: Bool
  @usableFromInline var watchedPositions = 0, trailingPositions = 0
  /// Borrow fees paid by short positions over the run.
  @usableFromInline var borrowFees = 0.0
  /// The value at the last mark.
  @usableFromInline var markedValue = 0.0
  /// External cash per bar (the initial cash at the first bar), when flows are recorded.
  @usableFromInline var flowColumn: ContiguousArray<Double>
  /// Dividend cash credited per bar; empty when there are no dividends.
  @usableFromInline var dividendColumn: ContiguousArray<Double>

  @inlinable
  init(market: Market, commission: Commission, slippageBasisPoints: Double, range: Range<Int>, income: AccountIncome,
       recordsFlows: Bool) {
    self.market = market
    self.commission = commission
    slip = slippageBasisPoints / 10_000
    first = range.lowerBound
    end = range.upperBound
    self.income = income
    let m = market.assets.count, n = range.count
    shares = [Double](repeating: 0, count: m)
    positions = [Position](repeating: Position(), count: m)
    totals = [AssetTotals](repeating: AssetTotals(), count: m)
    dripCash = [Double](repeating: 0, count: m)
    nextEx = income.dividends.map { s in s.exBar.firstIndex { $0 >= range.lowerBound } ?? s.exBar.count }
    // The bar loop makes the record's columns (`Engine.trade`); flows and dividends are added to, so they start at 0.
    (equityColumn, cashColumn, sharesRecord, priceRecord) = ([], [], [], [])
    chargesDaily = income.expenseRatios.contains { $0 > 0 } || income.borrowRate > 0
    hasFlows = !income.flows.isEmpty
    flowColumn = recordsFlows ? ContiguousArray(repeating: 0, count: n) : []
    dividendColumn = income.dividends.allSatisfy(\.isEmpty) ? [] : ContiguousArray(repeating: 0, count: n)
    nextEventBar = nextEventAfterPayments()
  }

  // MARK: Money from outside the trades

  /// Deposits credited (a withdrawal is owed until a trader pays it), dividends
  /// earned at their ex-date bar on the shares of the previous close and
  /// credited at their pay-date bar, and the expense drag since the previous bar.
  @inlinable @inline(__always)
  mutating func receive(_ t: Int) {
    if hasFlows {
      let amount = income.flows[t]
      if amount > 0 {
        cash += amount
        flowColumn[t - first] += amount
        depositWaiting += amount
      } else {
        withdrawalOwed -= amount
      }
    }
    if t == nextEventBar { dividends(t) }
    if chargesDaily && t > 0 { chargeDaily(t) }
  }

  /// The expense drag of held funds and the borrow fee of shorts since the previous bar.
  @inlinable
  mutating func chargeDaily(_ t: Int) {
    for a in income.expenseRatios.indices where income.expenseRatios[a] > 0 && shares[a] > 0 {
      let fee = shares[a] * lent.lastClose[a] * income.expenseRatios[a] * Double(market.timeline.day[t] - market.timeline.day[t - 1]) / 365
      cash -= fee
      totals[a].expenseDrag += fee
      expenseDrag += fee
    }
    if income.borrowRate > 0 {
      for a in shares.indices where shares[a] < 0 {
        let fee = -shares[a] * lent.lastClose[a] * income.borrowRate * Double(market.timeline.day[t] - market.timeline.day[t - 1]) / 365
        cash -= fee
        totals[a].fees += fee
        borrowFees += fee
      }
    }
  }

  @inlinable
  mutating func dividends(_ t: Int) {
    for a in income.dividends.indices {
      let s = income.dividends[a]
      while nextEx[a] < s.exBar.count && s.exBar[nextEx[a]] <= t {
        let earned = shares[a] * s.amount[nextEx[a]]
        if earned != 0 {
          positions[a].dividends += earned
          owed.append((a, s.payBar[nextEx[a]], earned))
        }
        nextEx[a] += 1
      }
    }
    owed.removeAll { payment in
      guard payment.bar <= t else { return false }
      cash += payment.cash
      dividendColumn[t - first] += payment.cash
      totals[payment.asset].dividends += payment.cash
      if income.drip { dripCash[payment.asset] += payment.cash }
      return true
    }
    nextEventBar = nextEventAfterPayments()
  }

  @inlinable
  func nextEventAfterPayments() -> Int {
    var next = owed.map(\.bar).min() ?? Int.max
    for a in income.dividends.indices where nextEx[a] < income.dividends[a].exBar.count {
      next = min(next, income.dividends[a].exBar[nextEx[a]])
    }
    return next
  }

  /// Dividends earned by the data's ex-dates but paid after the range.
  @usableFromInline var dividendsPending: Double { owed.reduce(0) { $0 + $1.cash } }

  // MARK: Fills at the open

  /// Asset `a`'s open at bar `t` of the timeline (it must have a bar there).
  @inlinable @inline(__always)
  func open(_ a: Int, _ t: Int) -> Double { lent.bars[a].open[market.bar(of: a, at: t)] }

  /// Asset `a`'s last close at the close of the bar last marked (NaN before its first bar).
  @inlinable @inline(__always)
  func lastClose(_ a: Int) -> Double { lent.lastClose[a] }

  /// The price a buy of asset `a` fills at, at the open of bar `t`.
  @inlinable @inline(__always)
  func buyPrice(_ t: Int, _ a: Int) -> Double {
    let k = market.bar(of: a, at: t), bars = lent.bars[a]
    return BrokerRules.buyPrice(open: bars.open[k], high: bars.high[k], slip: slip)
  }

  /// The price a sale of asset `a` fills at for an order at `price` (the open, or a level) during bar `t`.
  @inlinable @inline(__always)
  func sellPrice(_ t: Int, _ a: Int, at price: Double) -> Double {
    BrokerRules.sellPrice(price, low: lent.bars[a].low[market.bar(of: a, at: t)], slip: slip)
  }

  /// The price a sale of asset `a` fills at, at the open of bar `t`.
  @inlinable @inline(__always)
  func sellPrice(_ t: Int, _ a: Int) -> Double {
    sellPrice(t, a, at: open(a, t))
  }

  /// Buys `quantity` shares of asset `a` at `price` during bar `t`, paying the commission; returns the commission.
  @inlinable @discardableResult
  mutating func buy(_ t: Int, _ a: Int, _ quantity: Double, at price: Double, _ reason: FillReason) -> Double {
    let fee = commission.fee(shares: quantity, price: price)
    cash -= quantity * price + fee
    totals[a].bought += quantity * price
    totals[a].fees += fee
    totals[a].costBasis += quantity * price + fee
    if reason == .initial { totals[a].initialInvestment += quantity * price + fee }
    fills.append(Fill(bar: t, asset: a, shares: quantity, price: price, fee: fee, reason: reason))
    shares[a] += quantity
    return fee
  }

  /// Sells `quantity` shares of asset `a` at `price` during bar `t`, paying the commission; returns the commission.
  @inlinable @discardableResult
  mutating func sell(_ t: Int, _ a: Int, _ quantity: Double, at price: Double, _ reason: FillReason) -> Double {
    let fee = commission.fee(shares: quantity, price: price)
    cash += quantity * price - fee
    totals[a].sold += quantity * price
    totals[a].fees += fee
    totals[a].costBasis *= (shares[a] - quantity) / shares[a]
    fills.append(Fill(bar: t, asset: a, shares: -quantity, price: price, fee: fee, reason: reason))
    shares[a] -= quantity
    if abs(shares[a]) < 1e-9 {
      shares[a] = 0
      totals[a].costBasis = 0
    }
    return fee
  }

  // MARK: A strategy's positions

  /// Opens a strategy's position in asset `a` during bar `t`: buys (a long)
  /// or sells short `quantity` at `price`, with the exits of `order`
  /// (levels from the fill price); `inside`: the fill came after the bar's open.
  @inlinable
  mutating func enter(_ t: Int, _ a: Int, _ quantity: Double, at price: Double, _ order: EntryOrder, inside: Bool = false) {
    var p: Position
    if order.side == .long {
      let fee = buy(t, a, quantity, at: price, .entry)
      let (stop, target) = BrokerRules.levels(entry: price, stopLoss: order.stopLoss, profitTarget: order.profitTarget)
      p = Position(side: .long, entryPrice: price, entryBar: t, entryFee: fee, stop: stop, target: target)
    } else {
      let fee = commission.fee(shares: quantity, price: price)
      cash += quantity * price - fee
      totals[a].sold += quantity * price
      totals[a].fees += fee
      fills.append(Fill(bar: t, asset: a, shares: -quantity, price: price, fee: fee, reason: .entry))
      shares[a] -= quantity
      let (stop, target) = BrokerRules.shortLevels(entry: price, stopLoss: order.stopLoss, profitTarget: order.profitTarget)
      p = Position(side: .short, entryPrice: price, entryBar: t, entryFee: fee, stop: stop, target: target)
    }
    if let distance = order.trailingStop {
      p.trailing = distance
      p.bestClose = price
      p.trail = order.side == .long ? price * (1 - distance) : price * (1 + distance)
      trailingPositions += 1
    } else {
      p.trail = order.side == .long ? -.infinity : .infinity
    }
    p.maxBarsHeld = order.maxBarsHeld
    p.filledInside = inside
    positions[a] = p
    watchedPositions += 1
  }

  /// Closes the strategy's position in asset `a` at `price` during bar `t` (a
  /// sale for a long, a purchase for a short) and records the trade; returns its exit commission.
  @inlinable @discardableResult
  mutating func exit(_ t: Int, _ a: Int, at price: Double, _ reason: ExitReason, ambiguous: Bool = false) -> Double {
    let p = positions[a], quantity = abs(shares[a])
    let fee: Double
    if p.side == .long {
      fee = sell(t, a, quantity, at: price, .exit)
    } else {
      fee = commission.fee(shares: quantity, price: price)
      cash -= quantity * price + fee
      totals[a].bought += quantity * price
      totals[a].fees += fee
      fills.append(Fill(bar: t, asset: a, shares: quantity, price: price, fee: fee, reason: .exit))
      shares[a] = 0
    }
    var trade = Trade(entryBar: p.entryBar, entryPrice: p.entryPrice, exitBar: t, exitPrice: price, shares: quantity,
                      entryFee: p.entryFee, exitFee: fee, exitReason: reason)
    trade.side = p.side
    trade.ambiguous = ambiguous
    trade.dividends = p.dividends
    trades.append(trade)
    if p.trailing != nil { trailingPositions -= 1 }
    positions[a] = Position()
    watchedPositions -= 1
    return fee
  }

  /// The price a purchase closing a short in asset `a` fills at for an order at `price` during bar `t`.
  @inlinable @inline(__always)
  func buyPrice(_ t: Int, _ a: Int, at price: Double) -> Double {
    BrokerRules.buyPrice(open: price, high: lent.bars[a].high[market.bar(of: a, at: t)], slip: slip)
  }

  /// Raises (a long) or lowers (a short) each trailing stop to the close of bar `t` (`Docs/orders.md`).
  @inlinable @inline(__always)
  mutating func trailStops(_ t: Int) {
    guard trailingPositions > 0 else { return }
    for a in positions.indices {
      guard let distance = positions[a].trailing, market.bar(of: a, at: t) >= 0 else { continue }
      let close = lent.lastClose[a]
      if positions[a].side == .long {
        positions[a].bestClose = max(positions[a].bestClose, close)
        positions[a].trail = positions[a].bestClose * (1 - distance)
      } else {
        positions[a].bestClose = min(positions[a].bestClose, close)
        positions[a].trail = positions[a].bestClose * (1 + distance)
      }
    }
  }

  /// Exits at the stop or target of every open position whose bar `t` reaches
  /// a level (the open is the bar's first price; a gap exits at the open);
  /// finer bars settle a bar that OHLC leaves ambiguous.
  @inlinable @inline(__always)
  mutating func settleLevels(_ t: Int, rule: IntrabarRule, intrabar: IntrabarData?) {
    guard watchedPositions > 0 else { return }
    for a in positions.indices where shares[a] != 0 && positions[a].entryBar >= 0 {
      let k = market.bar(of: a, at: t)
      guard k >= 0 else { continue }
      let bars = lent.bars[a], stop = positions[a].effectiveStop, target = positions[a].target
      let long = positions[a].side == .long
      if positions[a].filledInside && positions[a].entryBar == t {
        // The entry filled inside this bar: what the bar did after the fill is unknown, so a stop it reached
        // counts as hit (conservative, ambiguous); a target does not.
        if long ? bars.low[k] <= stop : bars.high[k] >= stop {
          ambiguousBars += 1
          exit(t, a, at: long ? sellPrice(t, a, at: stop) : buyPrice(t, a, at: stop), positions[a].stopReason, ambiguous: true)
        }
        continue
      }
      let level = long
        ? BrokerRules.intrabarExit(open: bars.open[k], high: bars.high[k], low: bars.low[k], stop: stop, target: target, rule: rule)
        : BrokerRules.shortIntrabarExit(open: bars.open[k], high: bars.high[k], low: bars.low[k], stop: stop, target: target, rule: rule)
      guard var e = level else { continue }
      if e.reason == .stopLoss { e.reason = positions[a].stopReason }
      if e.ambiguous && long {
        ambiguousBars += 1
        // Finer bars settle it when one level is touched first (the entry at the open comes before them all).
        if let intrabar {
          let time = market.assets[a].time
          let barEnd = k + 1 < time.count ? time[k + 1] : Int64.max
          if let touch = intrabar.firstTouch(from: time[k], to: barEnd, stop: stop, target: target) {
            e = (touch.price, touch.reason == .stopLoss ? positions[a].stopReason : touch.reason, false)
            resolvedBars += 1
          }
        }
      } else if e.ambiguous {
        ambiguousBars += 1
      }
      exit(t, a, at: long ? sellPrice(t, a, at: e.price) : buyPrice(t, a, at: e.price), e.reason, ambiguous: e.ambiguous)
    }
  }

  // MARK: The record

  /// One asset's prices, as buffers lent for the bar loop.
  @usableFromInline
  struct Prices {
    @usableFromInline let open, high, low, close: UnsafeBufferPointer<Double>
    @inlinable
    init(open: UnsafeBufferPointer<Double>, high: UnsafeBufferPointer<Double>, low: UnsafeBufferPointer<Double>,
         close: UnsafeBufferPointer<Double>) {
      self.open = open
      self.high = high
      self.low = low
      self.close = close
    }
  }

  /// What the bar loop lends: each asset's prices and last closes.
  @usableFromInline
  struct Lent {
    @usableFromInline var bars = UnsafeBufferPointer<Prices>(start: nil, count: 0)
    /// Each asset's last close (carried over bars where it has none; NaN before its first).
    @usableFromInline var lastClose = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
    @inlinable init() {}
  }

  /// Marks the account at the close of bar `t` (an asset without a bar keeps
  /// its last close): `markedValue`, which the loop's record then keeps.
  @inlinable @inline(__always)
  mutating func mark(_ t: Int) {
    var value = cash
    for a in shares.indices {
      let k = market.bar(of: a, at: t)
      if k >= 0 { lent.lastClose[a] = lent.bars[a].close[k] }
      if shares[a] != 0 { value += shares[a] * lent.lastClose[a] }
    }
    markedValue = value
    trailStops(t)
  }

  /// Asset `a`'s shares at each bar's close.
  @inlinable
  func sharesColumn(_ a: Int) -> ContiguousArray<Double> {
    let n = end - first
    return shares.count == 1 ? sharesRecord : ContiguousArray(sharesRecord[(a * n)..<((a + 1) * n)])
  }

  /// Asset `a`'s marked price at each bar's close (the last close carried over; NaN before its first bar).
  @inlinable
  func priceColumn(_ a: Int) -> ContiguousArray<Double> {
    let n = end - first
    guard !priceRecord.isEmpty else { return ContiguousArray(market.assets[a].close[first..<end]) }
    return ContiguousArray(priceRecord[(a * n)..<((a + 1) * n)])
  }


}
