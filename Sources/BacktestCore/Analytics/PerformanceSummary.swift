/// The statistics of one backtest, as `summary.json` holds them.
///
/// Fractions throughout (0.0123, never 1.23%). An undefined statistic (no
/// trades, no losses, zero deviation, fewer than two days) is `nil`, written
/// `null`. Definitions follow `Docs/spec/bb-rsi-swing.md`.
public struct PerformanceSummary: Sendable, Equatable {
  /// Closed trades, the one closed at the end of the data included.
  public var totalTrades = 0
  /// Trades with pnl > 0; a trade with pnl = 0 is neither a win nor a loss.
  public var wins = 0
  /// Trades with pnl < 0.
  public var losses = 0
  /// `wins / totalTrades`; `nil` without trades.
  public var winRate: Double?
  /// Mean `Trade.returnFraction` of the wins; `nil` without wins.
  public var avgWin: Double?
  /// Mean `Trade.returnFraction` of the losses (negative); `nil` without losses.
  public var avgLoss: Double?
  /// The highest `Trade.returnFraction`; `nil` without trades.
  public var bestTrade: Double?
  /// The lowest `Trade.returnFraction`; `nil` without trades.
  public var worstTrade: Double?
  /// The sum of the trades' `pnl`, in money (their commissions and dividends included).
  public var totalPnl = 0.0
  /// `final_equity / initial_cash - 1`.
  public var totalReturn = 0.0
  /// Equity at the last bar's close, in money; 0 when no bar was marked.
  public var finalEquity = 0.0
  /// `(final / initial)^(365 / calendar days from the first to the last bar's date) - 1`.
  public var cagr: Double?
  /// Minimum over bars of `equity / running max - 1` (<= 0).
  public var maxDrawdown = 0.0
  /// `mean(r) / stdev(r) * √252` of the simple returns of day-end equity, risk-free 0, sample deviation (n - 1);
  /// `nil` for fewer than two returns or zero deviation.
  public var sharpe: Double?
  /// `mean(r) / sqrt(mean(min(r, 0)^2)) * √252` of the same daily returns; `nil` for fewer than two returns or no
  /// losing day.
  public var sortino: Double?
  /// Gross profit over gross loss, in money.
  public var profitFactor: Double?
  /// Share of bars with a position open at the close.
  public var exposure = 0.0
  /// Commission and expense-ratio drag paid.
  public var fees = 0.0
  /// Mean `Trade.barsHeld` (entry and exit bars both counted); `nil` without trades.
  public var averageBarsHeld: Double?
  /// The longest stretch below a previous equity high, in bars.
  public var longestDrawdownBars = 0
  /// Bars marked: the bars of the run.
  public var bars = 0
  /// Calendar days with at least one bar (the day-end equities the daily returns come from).
  public var days = 0
  /// Time-weighted return: `total_return` with external cash flows taken out
  /// (equal to it when the only flow is the initial cash).
  public var twr = 0.0
  /// Money-weighted annual return (XIRR) of the flows and the final equity;
  /// the CAGR when the only flow is the initial cash.
  public var xirr: Double?
  /// Dividend cash received.
  public var dividendIncome = 0.0
  /// Expense-ratio drag charged (included in `fees`).
  public var expenseDrag = 0.0
  /// The sample standard deviation of the daily returns the Sharpe ratio uses, × √252.
  public var volatility: Double?
  /// `cagr / |max_drawdown|`; `nil` without a drawdown.
  public var calmar: Double?
  /// The mean trade P&L, in money.
  public var expectancy: Double?
  /// System quality number: `√N × mean(trade P&L) / sample standard deviation(trade P&L)` over the `N` trades.
  public var sqn: Double?
  /// The most bars a trade was held (`exit - entry + 1`, as `avg_bars_held`).
  public var longestBarsHeld: Int?
  /// Mean calendar days from a trade's entry bar's date to its exit bar's; `nil` without trades.
  public var averageTradeDays: Double?
  /// Most calendar days from a trade's entry bar's date to its exit bar's; `nil` without trades.
  public var longestTradeDays: Int?
  /// The mean length in bars of the stretches below a previous equity high (the last one included when it has not
  /// recovered).
  public var averageDrawdownBars: Double?
  /// The most calendar days a stretch below an equity high lasted, from the high's date to the date of the bar back at
  /// or above it (the last bar's when it has not recovered); `nil` without a drawdown.
  public var longestDrawdownDays: Int?
  /// The mean calendar days of those stretches, measured as for `longestDrawdownDays`; `nil` without a drawdown.
  public var averageDrawdownDays: Double?

  /// Creates an empty summary: counts and amounts 0, every optional statistic `nil`.
  public init() {}

  /// Computes the statistics of `result` over `bars`, the bars it traded.
  public init(result: BacktestResult, bars: BarSeries) {
    var accumulator = SummaryAccumulator(expectedDays: bars.count)
    accumulator.add(result, bars: bars)
    self.init(&accumulator, bars: bars, initialCash: result.initialCash, dividendIncome: result.carry.dividendIncome, expenseDrag: result.carry.expenseDrag)
  }

  /// The statistics `accumulator` holds of a run over `bars` from `initialCash`, with the run's dividend income and
  /// expense drag (counted among the fees); the accumulator keeps the daily returns it computes.
  package init(_ accumulator: inout SummaryAccumulator, bars: BarSeries, initialCash: Double, dividendIncome: Double, expenseDrag: Double) {
    let calendarDays = bars.isEmpty ? 0 : Int(bars.day[bars.count - 1]) - Int(bars.day[0])
    self = accumulator.summary(initialCash: initialCash, calendarDays: calendarDays)
    self.dividendIncome = dividendIncome
    self.expenseDrag = expenseDrag
    fees += expenseDrag
  }

  /// The statistics as ordered (key, value) pairs, the keys as in `summary.json`.
  public var fields: [(key: String, value: Double?)] {
    [("total_trades", Double(totalTrades)), ("wins", Double(wins)), ("losses", Double(losses)),
     ("win_rate", winRate), ("avg_win", avgWin), ("avg_loss", avgLoss), ("best_trade", bestTrade),
     ("worst_trade", worstTrade), ("total_pnl", totalPnl), ("total_return", totalReturn),
     ("final_equity", finalEquity), ("cagr", cagr), ("max_drawdown", maxDrawdown), ("sharpe", sharpe),
     ("sortino", sortino), ("profit_factor", profitFactor), ("exposure", exposure), ("fees", fees),
     ("avg_bars_held", averageBarsHeld), ("longest_drawdown_bars", Double(longestDrawdownBars)),
     ("bars", Double(bars)), ("days", Double(days)), ("twr", twr), ("xirr", xirr), ("dividend_income", dividendIncome),
     ("expense_drag", expenseDrag), ("volatility", volatility), ("calmar", calmar), ("expectancy", expectancy), ("sqn", sqn),
     ("longest_bars_held", longestBarsHeld.map(Double.init)), ("avg_trade_days", averageTradeDays),
     ("longest_trade_days", longestTradeDays.map(Double.init)), ("avg_drawdown_bars", averageDrawdownBars),
     ("longest_drawdown_days", longestDrawdownDays.map(Double.init)), ("avg_drawdown_days", averageDrawdownDays)]
  }

  /// Keys whose values are counts (written without a fraction).
  public static let integerKeys: Set<String> = ["total_trades", "wins", "losses", "longest_drawdown_bars", "bars", "days",
                                                "longest_bars_held", "longest_trade_days", "longest_drawdown_days"]
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
