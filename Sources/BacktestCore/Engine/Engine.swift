/// The outcome of one backtest: closed trades and the account at every bar close.
public struct BacktestResult: Sendable {
  public var trades: [Trade]
  /// Cash plus shares times close, at each bar's close.
  public var equity: ContiguousArray<Double>
  public var cash: ContiguousArray<Double>
  /// Shares held at each bar's close (before the END_OF_DATA close on the last bar).
  public var shares: ContiguousArray<Double>
  public var initialCash: Double
  /// Buy orders that could not buy a single share.
  public var skippedEntries: Int
  /// Exit bars whose fill order OHLC cannot tell: both levels touched without a
  /// gap (see `BrokerRules.intrabarExit`).
  public var ambiguousBars: Int
  /// Ambiguous bars that finer bars (`data.intrabar`) settled.
  public var resolvedBars: Int
  /// The decision at the close of the last bar, which has no next open to fill at.
  public var finalSignal: Signal
  /// Dividend cash credited at each bar (its pay date); empty when the run has no dividends.
  public var dividendCash: ContiguousArray<Double> = []
  /// Dividends earned by an ex-date inside the data but paid after the last bar (not in the equity).
  public var dividendsPending = 0.0
  /// The expense-ratio drag charged to cash over the run.
  public var expenseDrag = 0.0

  /// Dividend cash received over the run.
  public var dividendIncome: Double { dividendCash.reduce(0, +) }
}

/// Money that reaches a single-asset account from outside the strategy.
public struct AccountEvents: Sendable {
  public var dividends: DividendSchedule
  /// Annual expense ratio (0.0035 = 0.35%), accrued per calendar day on the
  /// position's value at the previous close (`rate × days / 365`) and charged
  /// to cash, as a fund charges its management fee.
  public var expenseRatio: Double

  public init(dividends: DividendSchedule = DividendSchedule(), expenseRatio: Double = 0) {
    self.dividends = dividends
    self.expenseRatio = expenseRatio
  }
}

/// The bar loop: fills, intrabar exits, and decisions, in the spec's order.
public enum Engine {
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
  /// - Complexity: O(bars); allocates only when a trade closes or a dividend is paid.
  public static func run<S: BarDecider>(_ strategy: inout S, bars: BarSeries, broker: BrokerSettings,
                                        intrabar: IntrabarData? = nil, account: AccountEvents? = nil) -> BacktestResult {
    let n = bars.count
    var equityColumn = ContiguousArray<Double>(repeating: 0, count: n)
    var cashColumn = ContiguousArray<Double>(repeating: 0, count: n)
    var sharesColumn = ContiguousArray<Double>(repeating: 0, count: n)
    var trades: [Trade] = []
    trades.reserveCapacity(max(16, n / 64))
    var cash = broker.initialCash
    var shares = 0.0
    var entryPrice = 0.0
    var entryBar = -1
    var entryFee = 0.0
    var stop = -Double.infinity
    var target = Double.infinity
    var pending = Signal.hold
    var skippedEntries = 0
    var ambiguousBars = 0
    var resolvedBars = 0
    var finalSignal = Signal.hold
    let slip = broker.slippageBasisPoints / 10_000
    let commission = broker.commission
    let rule = broker.intrabarRule
    let firstDecision = max(0, strategy.firstDecisionBar)
    // Account events: ex-dates in order, payments owed, the next bar with either.
    let schedule = account?.dividends ?? DividendSchedule()
    var dividendColumn = ContiguousArray<Double>(repeating: 0, count: schedule.isEmpty ? 0 : n)
    var nextEx = 0
    var owed: [(bar: Int, cash: Double)] = []
    var nextEventBar = schedule.isEmpty ? Int.max : schedule.exBar[0]
    var tradeDividends = 0.0
    let expenseRate = account?.expenseRatio ?? 0
    var expenseDrag = 0.0

    bars.open.withUnsafeBufferPointer { open in
    bars.high.withUnsafeBufferPointer { high in
    bars.low.withUnsafeBufferPointer { low in
    bars.close.withUnsafeBufferPointer { close in
      @inline(__always) func exit(_ t: Int, _ price: Double, _ reason: ExitReason, ambiguous: Bool = false) {
        let fee = commission.fee(shares: shares, price: price)
        cash += shares * price - fee
        var trade = Trade(entryBar: entryBar, entryPrice: entryPrice, exitBar: t, exitPrice: price, shares: shares,
                          entryFee: entryFee, exitFee: fee, exitReason: reason)
        trade.ambiguous = ambiguous
        trade.dividends = tradeDividends
        trades.append(trade)
        shares = 0
      }
      @inline(__always) func sellPrice(_ t: Int, _ price: Double) -> Double {
        BrokerRules.sellPrice(price, low: low[t], slip: slip)
      }
      for t in 0..<n {
        // 0. Dividends and the expense drag, before anything trades.
        if t == nextEventBar {
          while nextEx < schedule.exBar.count && schedule.exBar[nextEx] == t {
            let earned = shares * schedule.amount[nextEx]
            if earned > 0 {
              tradeDividends += earned
              owed.append((schedule.payBar[nextEx], earned))
            }
            nextEx += 1
          }
          owed.removeAll { payment in
            guard payment.bar == t else { return false }
            cash += payment.cash
            dividendColumn[t] += payment.cash
            return true
          }
          nextEventBar = min(nextEx < schedule.exBar.count ? schedule.exBar[nextEx] : Int.max, owed.map(\.bar).min() ?? Int.max)
        }
        if expenseRate > 0 && shares > 0 && t > 0 {
          let fee = shares * close[t - 1] * expenseRate * Double(bars.day[t] - bars.day[t - 1]) / 365
          cash -= fee
          expenseDrag += fee
        }

        // 1. Orders decided at the previous close fill at this open.
        switch pending {
        case .enterLong(let stopLoss, let profitTarget):
          let price = BrokerRules.buyPrice(open: open[t], high: high[t], slip: slip)
          let qty = BrokerRules.entryShares(cash: cash, price: price, sizing: broker.sizing, commission: commission)
          if qty > 0 {
            entryFee = commission.fee(shares: qty, price: price)
            cash -= qty * price + entryFee
            shares = qty
            entryPrice = price
            entryBar = t
            tradeDividends = 0
            (stop, target) = BrokerRules.levels(entry: price, stopLoss: stopLoss, profitTarget: profitTarget)
          } else {
            skippedEntries += 1
          }
        case .exitLong(let reason):
          exit(t, sellPrice(t, open[t]), reason)
        case .hold:
          break
        }
        pending = .hold

        // 2. Intrabar stop-loss and profit target; the open is the bar's first price.
        if shares > 0, var e = BrokerRules.intrabarExit(open: open[t], high: high[t], low: low[t], stop: stop, target: target,
                                                          rule: rule) {
          if e.ambiguous {
            ambiguousBars += 1
            // Finer bars settle it when one level is touched first (the entry at the open comes before them all).
            if let intrabar {
              let end = t + 1 < n ? bars.time[t + 1] : Int64.max
              if let touch = intrabar.firstTouch(from: bars.time[t], to: end, stop: stop, target: target) {
                e = (touch.price, touch.reason, false)
                resolvedBars += 1
              }
            }
          }
          exit(t, sellPrice(t, e.price), e.reason, ambiguous: e.ambiguous)
        }

        // 3. Mark to the close.
        equityColumn[t] = cash + shares * close[t]
        cashColumn[t] = cash
        sharesColumn[t] = shares

        // 4. Decide at the close; the order fills at the next open.
        if t >= firstDecision {
          let position = PositionView(shares: shares, entryPrice: entryPrice, entryBar: shares > 0 ? entryBar : -1)
          let signal = strategy.decide(at: t, position: position)
          if t == n - 1 {
            finalSignal = signal
          } else {
            switch signal {
            case .enterLong where shares == 0, .exitLong where shares > 0: pending = signal
            default: break
            }
          }
        }
      }
      if shares > 0 && n > 0 {
        exit(n - 1, close[n - 1], .endOfData)
        // The last mark already holds shares * close; only a closing commission changes it.
        equityColumn[n - 1] -= trades[trades.count - 1].exitFee
      }
    }}}}
    return BacktestResult(trades: trades, equity: equityColumn, cash: cashColumn, shares: sharesColumn,
                          initialCash: broker.initialCash, skippedEntries: skippedEntries, ambiguousBars: ambiguousBars,
                          resolvedBars: resolvedBars, finalSignal: finalSignal, dividendCash: dividendColumn,
                          dividendsPending: owed.reduce(0) { $0 + $1.cash }, expenseDrag: expenseDrag)
  }
}
