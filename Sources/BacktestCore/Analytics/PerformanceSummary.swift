/// The statistics of one backtest, as `summary.json` holds them.
///
/// Fractions throughout (0.0123, never 1.23%). An undefined statistic (no
/// trades, no losses, zero deviation, fewer than two days) is `nil`, written
/// `null`. Definitions follow `Docs/spec/bb-rsi-swing.md`.
public struct PerformanceSummary: Sendable, Equatable {
  public var totalTrades = 0
  /// Trades with pnl > 0 / < 0; a trade with pnl = 0 is neither.
  public var wins = 0
  public var losses = 0
  public var winRate: Double?
  /// Mean trade return of the wins / of the losses (negative).
  public var avgWin: Double?
  public var avgLoss: Double?
  public var bestTrade: Double?
  public var worstTrade: Double?
  public var totalPnl = 0.0
  /// `final_equity / initial_cash - 1`.
  public var totalReturn = 0.0
  public var finalEquity = 0.0
  /// `(final / initial)^(365 / calendar days from the first to the last bar's date) - 1`.
  public var cagr: Double?
  /// Minimum over bars of `equity / running max - 1` (<= 0).
  public var maxDrawdown = 0.0
  public var sharpe: Double?
  public var sortino: Double?
  /// Gross profit over gross loss, in money.
  public var profitFactor: Double?
  /// Share of bars with a position open at the close.
  public var exposure = 0.0
  /// Commission and expense-ratio drag paid.
  public var fees = 0.0
  public var averageBarsHeld: Double?
  /// The longest stretch below a previous equity high, in bars.
  public var longestDrawdownBars = 0
  public var bars = 0
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
  /// Calendar days from a trade's entry bar's date to its exit bar's: the mean and the most.
  public var averageTradeDays: Double?
  public var longestTradeDays: Int?
  /// The mean length in bars of the stretches below a previous equity high (the last one included when it has not
  /// recovered).
  public var averageDrawdownBars: Double?
  /// Calendar days from the date of the equity high a stretch below it starts from to the date of the bar back at or
  /// above it (the last bar's when it has not recovered): the most and the mean over those stretches.
  public var longestDrawdownDays: Int?
  public var averageDrawdownDays: Double?

  public init() {}

  /// Computes the statistics of `result` over `bars`, the bars it traded.
  public init(result: BacktestResult, bars: BarSeries) {
    var accumulator = SummaryAccumulator(expectedDays: bars.count)
    accumulator.add(result, bars: bars)
    let calendarDays = bars.isEmpty ? 0 : Int(bars.day[bars.count - 1]) - Int(bars.day[0])
    self = accumulator.summary(initialCash: result.initialCash, calendarDays: calendarDays)
    dividendIncome = result.dividendIncome
    expenseDrag = result.expenseDrag
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
