/// The outcome of one backtest: closed trades and the account at every bar
/// close, with three small facets: what the broker could not fill (`fills`),
/// the money the position earned or paid besides its trades (`carry`), and
/// the decision at the last close (`lastClose`).
public struct BacktestResult: Sendable {
  /// The closed trades, in the order they closed.
  public var trades: [Trade]
  /// Cash plus shares times close, at each bar's close.
  public var equity: ContiguousArray<Double>
  /// Cash at each bar's close.
  public var cash: ContiguousArray<Double>
  /// Shares held at each bar's close (before the END_OF_DATA close on the last bar).
  public var shares: ContiguousArray<Double>
  /// The cash the run started with.
  public var initialCash: Double
  /// The bar of `bars` that `equity[0]` (and every other per-bar column) is
  /// at: the start of the range traded (0 for a run over all bars). Trades
  /// carry bar indices into `bars`.
  public var firstBar: Int
  /// Orders the broker could not fill, and exit bars whose fill order it could not tell.
  public var fills: FillCounts
  /// Dividends, the expense-ratio drag and borrow fees.
  public var carry: Carry
  /// The decision at the last close, which has no next open to fill at.
  public var lastClose: LastClose

  /// Orders the broker could not fill, and exit bars whose fill order it could not tell (`Docs/orders.md`).
  public struct FillCounts: Sendable, Equatable {
    /// Entries that could not buy (or sell short) a single share.
    public var skippedEntries: Int
    /// Limit and stop entry orders that expired before their price was reached.
    public var expiredOrders: Int
    /// Limit and stop entry orders not placed because their price was undefined (not a number) at the decision.
    public var unpricedOrders: Int
    /// Exit bars whose fill order OHLC cannot tell: both levels touched without a
    /// gap (see `BrokerRules.intrabarExit`).
    public var ambiguousBars: Int
    /// Ambiguous bars that finer bars (`data.intrabar`) settled.
    public var resolvedBars: Int

    @usableFromInline
    init(skippedEntries: Int, expiredOrders: Int, unpricedOrders: Int, ambiguousBars: Int, resolvedBars: Int) {
      self.skippedEntries = skippedEntries
      self.expiredOrders = expiredOrders
      self.unpricedOrders = unpricedOrders
      self.ambiguousBars = ambiguousBars
      self.resolvedBars = resolvedBars
    }
  }

  /// The money the position earned or paid besides its trades.
  public struct Carry: Sendable, Equatable {
    /// Dividend cash credited at each bar (its pay date); empty when the run has no dividends.
    public var dividendCash: ContiguousArray<Double>
    /// Dividends earned by an ex-date inside the data but paid after the last bar (not in the equity).
    public var dividendsPending: Double
    /// The expense-ratio drag charged to cash over the run.
    public var expenseDrag: Double
    /// What short positions paid to borrow their shares (`BrokerSettings.borrowRate`).
    public var borrowFees: Double

    /// Dividend cash received over the run.
    public var dividendIncome: Double { dividendCash.reduce(0, +) }

    @usableFromInline
    init(dividendCash: ContiguousArray<Double>, dividendsPending: Double, expenseDrag: Double, borrowFees: Double) {
      self.dividendCash = dividendCash
      self.dividendsPending = dividendsPending
      self.expenseDrag = expenseDrag
      self.borrowFees = borrowFees
    }
  }

  /// The decision at the last close, which has no next open to fill at.
  public struct LastClose: Sendable {
    /// The strategy's decision at the last close.
    public var signal: Signal
    /// The position that decision was taken with (before the END_OF_DATA close).
    public var position: PositionView
    /// The decision at the last close for the `probe` position given to `Engine.run` (else `.hold`).
    public var probeSignal: Signal

    @usableFromInline
    init(signal: Signal, position: PositionView, probeSignal: Signal) {
      self.signal = signal
      self.position = position
      self.probeSignal = probeSignal
    }
  }

  @usableFromInline
  init(trades: [Trade], equity: ContiguousArray<Double>, cash: ContiguousArray<Double>, shares: ContiguousArray<Double>,
       initialCash: Double, firstBar: Int, fills: FillCounts, carry: Carry, lastClose: LastClose) {
    self.trades = trades
    self.equity = equity
    self.cash = cash
    self.shares = shares
    self.initialCash = initialCash
    self.firstBar = firstBar
    self.fills = fills
    self.carry = carry
    self.lastClose = lastClose
  }
}
