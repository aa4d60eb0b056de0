/// Money that reaches a single-asset account from outside the strategy.
public struct AccountEvents: Sendable {
  /// The dividends the position earns, by bar.
  public var dividends: DividendSchedule
  /// Annual expense ratio (0.0035 = 0.35%), accrued per calendar day on the
  /// position's value at the previous close (`rate × days / 365`) and charged
  /// to cash, as a fund charges its management fee.
  public var expenseRatio: Double

  /// Dividends and an annual expense ratio (a fraction); none by default.
  public init(dividends: DividendSchedule = DividendSchedule(), expenseRatio: Double = 0) {
    self.dividends = dividends
    self.expenseRatio = expenseRatio
  }
}

/// Turns a strategy's decisions into orders on the account: the part of a
/// run that differs between a signal strategy and target-weight trading. The
/// one bar loop (`Engine.trade`) calls it at each bar's open and close.
@usableFromInline
protocol Trader {
  /// The first bar at which `close` may place an order.
  var firstDecisionBar: Int { get }
  /// At the open of bar `t`, after the money from outside the trades has arrived: fills.
  mutating func open(_ t: Int, account: inout Account)
  /// At the close of bar `t`, after the account is marked: decisions for the next open.
  mutating func close(_ t: Int, account: inout Account)
  /// After the last bar; returns what it took from the last bar's marked equity (the commission of a closing fill at
  /// the last close), else 0.
  mutating func finish(account: inout Account) -> Double
}

/// The bar loop: fills, intrabar exits, and decisions, in the spec's order.
public enum Engine {
  /// The one bar loop, for any trader over any market.
  ///
  /// Per bar `t` of `range`: (1) money from outside the trades (deposits,
  /// dividends at their ex- and pay-date bars, the expense drag since the
  /// previous bar); (2) the trader's orders fill at the open; (3) open
  /// positions exit at their stop or target (`Account.settleLevels`); (4) the
  /// account is marked at the close and `record` keeps the bar; (5) the trader
  /// decides at the close.
  @inlinable
  static func trade<T: Trader, R: BarRecord>(_ trader: inout T, account: inout Account, record: inout R, initialCash: Double,
                                            broker rule: IntrabarRule, intrabar: IntrabarData?) {
    account.cash = initialCash
    if !account.flowColumn.isEmpty && account.end > account.first { account.flowColumn[0] = initialCash }
    // The bars' prices and the last closes are lent to the account for the whole loop.
    var lastClose = [Double](repeating: .nan, count: account.shares.count)
    withPrices(of: account.market.assets[...], lent: []) { bars in
    lastClose.withUnsafeMutableBufferPointer { lastClose in
      account.lent = Account.Lent()
      (account.lent.bars, account.lent.lastClose) = (bars, lastClose)
      for t in account.first..<account.end {
        account.receive(t)
        trader.open(t, account: &account)
        account.settleLevels(t, rule: rule, intrabar: intrabar)
        account.mark(t)
        record.record(t, &account)
        trader.close(t, account: &account)
      }
      let fee = trader.finish(account: &account)
      if account.end > account.first { record.finish(lastBarLess: fee) }
      account.lent = Account.Lent()
    }}
  }

  /// `trade`, keeping every bar in the account's columns (`ColumnRecord`).
  @inlinable
  static func trade<T: Trader>(_ trader: inout T, account: inout Account, initialCash: Double, broker rule: IntrabarRule,
                               intrabar: IntrabarData?) {
    ColumnRecord.recording(&account) { account, record in
      trade(&trader, account: &account, record: &record, initialCash: initialCash, broker: rule, intrabar: intrabar)
    }
  }

  /// Calls `body` with each asset's prices as buffers (one level of closures per asset).
  @inlinable
  static func withPrices<R>(of assets: ArraySlice<BarSeries>, lent: [Account.Prices],
                            _ body: (UnsafeBufferPointer<Account.Prices>) -> R) -> R {
    guard let bars = assets.first else { return lent.withUnsafeBufferPointer(body) }
    return bars.open.withUnsafeBufferPointer { open in
      bars.high.withUnsafeBufferPointer { high in
        bars.low.withUnsafeBufferPointer { low in
          bars.close.withUnsafeBufferPointer { close in
            withPrices(of: assets.dropFirst(), lent: lent + [Account.Prices(open: open, high: high, low: low, close: close)], body)
          }
        }
      }
    }
  }

  /// Runs `strategy` over `bars`.
  ///
  /// Per bar `t`: (1) the order decided at the close of `t - 1` fills at
  /// `open[t]`; (2) an open position (also one entered at this open) exits at
  /// its stop or target — at the open when the open gaps through a level, else
  /// at the level, the stop winning when both are touched; (3) the account is
  /// marked at `close[t]`; (4) the strategy decides at the close, from
  /// `firstDecisionBar` on. A decision on the last bar is not filled; an open
  /// position is closed at the last close (`END_OF_DATA`).
  ///
  /// With `account`, before step 1: a dividend whose ex-date is this bar's is
  /// earned by the shares held at the previous close (and counted in the
  /// open trade's `dividends`); dividend cash arrives at its pay-date bar; the
  /// expense-ratio drag since the previous bar is charged to cash.
  ///
  /// With `range`, only the bars in it trade: the account starts fresh at its
  /// first bar (no order from a decision before it, dividends only from
  /// ex-dates inside it), the strategy decides from its first bar on (its
  /// indicators are still computed over all of `bars`, so the bars before
  /// the range warm them), and its last bar is the last bar (END_OF_DATA).
  /// The result's columns then hold the range's bars only (`firstBar`).
  ///
  /// With `probe`, the strategy also decides at the last close as if it held
  /// that position (a copy of it, so the run is unchanged): `lastClose.probeSignal`.
  ///
  /// - Complexity: O(bars in the range); allocates only when a trade closes or a dividend is paid.
  @inlinable
  public static func run<S: BarDecider>(_ strategy: inout S, bars: BarSeries, broker: BrokerSettings,
                                        intrabar: IntrabarData? = nil, account events: AccountEvents? = nil,
                                        trading range: Range<Int>? = nil, probe: PositionView? = nil) -> BacktestResult {
    let range = range ?? 0..<bars.count
    var (account, trader) = start(strategy, bars: bars, broker: broker, events: events, range: range, probe: probe)
    trade(&trader, account: &account, initialCash: broker.initialCash, broker: broker.intrabarRule, intrabar: intrabar)
    strategy = trader.strategy
    let fills = BacktestResult.FillCounts(skippedEntries: trader.skippedEntries, expiredOrders: trader.expiredOrders,
                                          unpricedOrders: trader.unpricedOrders, ambiguousBars: account.ambiguousBars,
                                          resolvedBars: account.resolvedBars)
    let carry = BacktestResult.Carry(dividendCash: account.dividendColumn, dividendsPending: account.dividendsPending,
                                     expenseDrag: account.expenseDrag, borrowFees: account.borrowFees)
    let lastClose = BacktestResult.LastClose(signal: trader.finalSignal, position: trader.finalPosition, probeSignal: trader.probeSignal)
    return BacktestResult(trades: account.trades, equity: account.equityColumn, cash: account.cashColumn, shares: account.sharesColumn(0),
                          initialCash: broker.initialCash, firstBar: range.lowerBound, fills: fills, carry: carry, lastClose: lastClose)
  }

  /// Runs `strategy` over `bars` as `run` does, keeping only what the statistics read: every close goes into `marks`
  /// and `dayEnds` (both emptied first) as `SummaryAccumulator.add(_:bars:)` would take them from `run`'s columns,
  /// and no column is made. A sweep's combinations run this way (`SummaryAccumulator.summarize`).
  ///
  /// - Returns: the closed trades, the dividend income and the expense drag.
  /// - Complexity: O(bars in the range); allocates only when a trade closes, a day ends past `dayEnds`'s capacity or a
  ///   dividend is paid.
  @inlinable
  package static func summarize<S: BarDecider>(_ strategy: inout S, bars: BarSeries, broker: BrokerSettings, account events: AccountEvents? = nil,
                                       trading range: Range<Int>? = nil, marks: inout EquityMarks,
                                       dayEnds: inout [Double]) -> SummarizedRun {
    let range = range ?? 0..<bars.count
    var (account, trader) = start(strategy, bars: bars, broker: broker, events: events, range: range, probe: nil)
    bars.day.withUnsafeBufferPointer { day in
      // The day-end storage moves into the record for the loop and back (kept, never copied).
      var record = SummaryRecord(day: day, last: range.upperBound - 1)
      swap(&record.dayEnds, &dayEnds)
      record.dayEnds.removeAll(keepingCapacity: true)
      trade(&trader, account: &account, record: &record, initialCash: broker.initialCash, broker: broker.intrabarRule, intrabar: nil)
      swap(&record.dayEnds, &dayEnds)
      marks = record.marks
    }
    strategy = trader.strategy
    return SummarizedRun(trades: account.trades, range: range, dividendIncome: account.dividendColumn.reduce(0, +),
                         expenseDrag: account.expenseDrag)
  }

  /// The account and the trader of a run of `strategy` over `range`, ready to trade.
  @inlinable
  static func start<S: BarDecider>(_ strategy: S, bars: BarSeries, broker: BrokerSettings, events: AccountEvents?, range: Range<Int>,
                                   probe: PositionView?) -> (Account, SignalTrader<S>) {
    precondition(range.lowerBound >= 0 && range.upperBound <= bars.count, "trading range \(range) outside the \(bars.count) bars")
    let income = AccountIncome(dividends: [events?.dividends ?? DividendSchedule()], expenseRatios: [events?.expenseRatio ?? 0],
                               borrowRate: broker.borrowRate)
    let account = Account(market: Market(bars: bars), commission: broker.commission, slippageBasisPoints: broker.slippageBasisPoints,
                          range: range, income: income, recordsFlows: false)
    var trader = SignalTrader(strategy, sizing: broker.sizing, range: range, probe: probe)
    if case .volatilityTarget(let target, let lookback) = broker.sizing {
      trader.exposures = BrokerRules.volatilityFractions(bars, target: target, lookback: lookback)
    }
    return (account, trader)
  }
}

/// What a statistics-only run (`Engine.summarize`) gives besides its marks: the closed trades (bar indices into the
/// bars), the range it traded, and the money from outside the trades.
@usableFromInline
package struct SummarizedRun {
  @usableFromInline var trades: [Trade]
  @usableFromInline var range: Range<Int>
  @usableFromInline var dividendIncome: Double, expenseDrag: Double

  @inlinable
  init(trades: [Trade], range: Range<Int>, dividendIncome: Double, expenseDrag: Double) {
    (self.trades, self.range, self.dividendIncome, self.expenseDrag) = (trades, range, dividendIncome, expenseDrag)
  }
}

/// A strategy that decides per bar (`Signal`) on one asset, as a trader: an
/// entry order fills at the next open (a limit or stop order when the bar
/// reaches its price, waiting up to its `validBars` bars; no new entry is
/// decided meanwhile) with the sizing's shares, an exit at the next open, a
/// position held `maxBarsHeld` bars at the open after; the position left at
/// the end closes at the last close (`END_OF_DATA`). `Docs/orders.md`.
@usableFromInline
struct SignalTrader<S: BarDecider>: Trader {
  /// What fills at the next open.
  @usableFromInline
  enum Pending {
    case none
    case exit(ExitReason)
    /// An entry order and how many more bars it may wait.
    case entry(EntryOrder, barsLeft: Int)
  }

  @usableFromInline var strategy: S
  @usableFromInline let sizing: Sizing
  /// With a volatility target: the fraction of the equity an entry decided at each bar's close may take.
  @usableFromInline var exposures: ContiguousArray<Double> = []
  @usableFromInline let end: Int
  @usableFromInline let firstDecisionBar: Int
  @usableFromInline let probe: PositionView?
  @usableFromInline var pending = Pending.none
  /// Entries that could not buy (or sell short) a single share, limit or stop orders that expired unfilled, and
  /// limit or stop orders not placed because their price was not a number.
  @usableFromInline var skippedEntries = 0, expiredOrders = 0, unpricedOrders = 0
  @usableFromInline var finalSignal = Signal.hold
  @usableFromInline var finalPosition = PositionView.flat
  @usableFromInline var probeSignal = Signal.hold

  @inlinable
  init(_ strategy: S, sizing: Sizing, range: Range<Int>, probe: PositionView?) {
    self.strategy = strategy
    self.sizing = sizing
    end = range.upperBound
    firstDecisionBar = max(range.lowerBound, strategy.firstDecisionBar)
    self.probe = probe
  }

  @inlinable @inline(__always)
  mutating func open(_ t: Int, account: inout Account) {
    switch pending {
    case .none:
      return
    case .exit(let reason):
      let open = account.open(0, t)
      account.exit(t, 0, at: account.shares[0] > 0 ? account.sellPrice(t, 0) : account.buyPrice(t, 0, at: open), reason)
      pending = .none
    case .entry(let order, let barsLeft):
      let k = account.market.bar(of: 0, at: t), bars = account.lent.bars[0]
      guard let fill = BrokerRules.entryFill(order.kind, side: order.side, open: bars.open[k], high: bars.high[k], low: bars.low[k],
                                             slip: account.slip) else {
        if barsLeft > 1 { pending = .entry(order, barsLeft: barsLeft - 1) } else { expiredOrders += 1; pending = .none }
        return
      }
      // Flat, the account's equity is its cash; the decision was taken at the previous close.
      let quantity = BrokerRules.entryShares(cash: account.cash, price: fill.price, sizing: sizing, commission: account.commission,
                                             stopLoss: order.stopLoss, exposure: exposures.isEmpty || t == 0 ? 1 : exposures[t - 1])
      if quantity > 0 {
        account.enter(t, 0, quantity, at: fill.price, order, inside: fill.inside)
      } else {
        skippedEntries += 1
      }
      pending = .none
    }
  }

  @inlinable @inline(__always)
  mutating func close(_ t: Int, account: inout Account) {
    guard t >= firstDecisionBar else { return }
    let shares = account.shares[0], entryBar = account.positions[0].entryBar
    let position = PositionView(shares: shares, entryPrice: account.positions[0].entryPrice, entryBar: shares != 0 ? entryBar : -1)
    if t == end - 1, let probe {
      var copy = strategy
      probeSignal = copy.decide(at: t, position: probe)
    }
    let signal = strategy.decide(at: t, position: position)
    if t == end - 1 {
      finalSignal = signal
      finalPosition = position
      return
    }
    guard case .none = pending else { return }  // an entry order is waiting: no new decision fills
    switch signal {
    case .enterLong(let stopLoss, let profitTarget) where shares == 0:
      pending = .entry(EntryOrder(side: .long, stopLoss: stopLoss, profitTarget: profitTarget), barsLeft: 1)
    case .enterShort(let stopLoss, let profitTarget) where shares == 0:
      pending = .entry(EntryOrder(side: .short, stopLoss: stopLoss, profitTarget: profitTarget), barsLeft: 1)
    case .enter(let order) where shares == 0:
      if order.kind.price?.isNaN == true { unpricedOrders += 1; return }
      pending = .entry(order, barsLeft: order.validBars)
    case .exitLong(let reason) where shares > 0, .exitShort(let reason) where shares < 0:
      pending = .exit(reason)
    default:
      // A position held its maximum number of bars (the entry bar counts 1) closes at the next open.
      if shares != 0, let limit = account.positions[0].maxBarsHeld, t - entryBar + 1 >= limit { pending = .exit(.time) }
    }
  }

  @inlinable
  mutating func finish(account: inout Account) -> Double {
    guard account.shares[0] != 0 && account.end > account.first else { return 0 }
    let last = account.end - 1
    // The last mark already holds shares * close; only a closing commission changes it.
    return account.exit(last, 0, at: account.lent.bars[0].close[last], .endOfData)
  }
}
