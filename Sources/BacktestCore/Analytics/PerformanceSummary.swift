/// The statistics of one backtest, as `summary.json` holds them.
///
/// Fractions throughout (0.0123, never 1.23%). An undefined statistic (no
/// trades, no losses, zero deviation, fewer than two days) is `nil`, written
/// `null`. Definitions follow `shared/spec/bb-rsi-swing.md`.
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

  public init() {}

  /// Computes the statistics of `result` over `bars`.
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
     ("expense_drag", expenseDrag)]
  }

  /// Keys whose values are counts (written without a fraction).
  public static let integerKeys: Set<String> = ["total_trades", "wins", "losses", "longest_drawdown_bars", "bars", "days"]
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
