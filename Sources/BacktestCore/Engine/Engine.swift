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
  /// gap, or the stop touched on the entry bar (see `IntrabarRule`).
  public var ambiguousBars: Int
  /// Ambiguous bars that finer bars (`data.intrabar`) settled.
  public var resolvedBars: Int
  /// The decision at the close of the last bar, which has no next open to fill at.
  public var finalSignal: Signal
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
  /// - Complexity: O(bars); allocates only when a trade closes.
  public static func run<S: BarDecider>(_ strategy: inout S, bars: BarSeries, broker: BrokerSettings,
                                        intrabar: IntrabarData? = nil) -> BacktestResult {
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
        trades.append(trade)
        shares = 0
      }
      @inline(__always) func sellPrice(_ t: Int, _ price: Double) -> Double {
        BrokerRules.sellPrice(price, low: low[t], slip: slip)
      }
      for t in 0..<n {
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
                                                          entryBar: t == entryBar, rule: rule) {
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
                          resolvedBars: resolvedBars,
                          finalSignal: finalSignal)
  }
}
