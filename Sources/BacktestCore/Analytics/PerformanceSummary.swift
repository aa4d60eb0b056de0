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
  /// Commission paid.
  public var fees = 0.0
  public var averageBarsHeld: Double?
  /// The longest stretch below a previous equity high, in bars.
  public var longestDrawdownBars = 0
  public var bars = 0
  public var days = 0

  public init() {}

  /// Computes the statistics of `result` over `bars`.
  public init(result: BacktestResult, bars: BarSeries) {
    let trades = result.trades
    totalTrades = trades.count
    var returnsOfWins: [Double] = [], returnsOfLosses: [Double] = []
    var grossProfit = 0.0, grossLoss = 0.0, heldBars = 0
    for trade in trades {
      let pnl = trade.pnl
      totalPnl += pnl
      fees += trade.fees
      heldBars += trade.barsHeld
      if pnl > 0 { wins += 1; returnsOfWins.append(trade.returnFraction); grossProfit += pnl }
      if pnl < 0 { losses += 1; returnsOfLosses.append(trade.returnFraction); grossLoss -= pnl }
      bestTrade = max(bestTrade ?? -.infinity, trade.returnFraction)
      worstTrade = min(worstTrade ?? .infinity, trade.returnFraction)
    }
    if totalTrades > 0 {
      winRate = Double(wins) / Double(totalTrades)
      averageBarsHeld = Double(heldBars) / Double(totalTrades)
    }
    avgWin = mean(returnsOfWins)
    avgLoss = mean(returnsOfLosses)
    profitFactor = grossLoss > 0 ? grossProfit / grossLoss : nil

    self.bars = bars.count
    guard let last = result.equity.last else { return }
    finalEquity = last
    totalReturn = finalEquity / result.initialCash - 1
    let calendarDays = Int(bars.day[bars.count - 1]) - Int(bars.day[0])
    if calendarDays > 0 && finalEquity > 0 {
      cagr = pow(finalEquity / result.initialCash, 1.0 / (Double(calendarDays) / 365.0)) - 1
    }
    var peak = -Double.infinity, worst = 0.0, run = 0
    for e in result.equity {
      if e >= peak { peak = e; run = 0 } else { run += 1; longestDrawdownBars = max(longestDrawdownBars, run) }
      worst = min(worst, e / peak - 1)
    }
    maxDrawdown = worst
    let daily = dailyReturns(equity: result.equity, day: bars.day)
    days = daily.count + 1
    sharpe = sharpeRatio(dailyReturns: daily)
    sortino = sortinoRatio(dailyReturns: daily)
    var held = 0
    for s in result.shares where s > 0 { held += 1 }
    exposure = Double(held) / Double(bars.count)
  }

  /// The statistics as ordered (key, value) pairs, the keys as in `summary.json`.
  public var fields: [(key: String, value: Double?)] {
    [("total_trades", Double(totalTrades)), ("wins", Double(wins)), ("losses", Double(losses)),
     ("win_rate", winRate), ("avg_win", avgWin), ("avg_loss", avgLoss), ("best_trade", bestTrade),
     ("worst_trade", worstTrade), ("total_pnl", totalPnl), ("total_return", totalReturn),
     ("final_equity", finalEquity), ("cagr", cagr), ("max_drawdown", maxDrawdown), ("sharpe", sharpe),
     ("sortino", sortino), ("profit_factor", profitFactor), ("exposure", exposure), ("fees", fees),
     ("avg_bars_held", averageBarsHeld), ("longest_drawdown_bars", Double(longestDrawdownBars)),
     ("bars", Double(bars)), ("days", Double(days))]
  }

  /// Keys whose values are counts (written without a fraction).
  public static let integerKeys: Set<String> = ["total_trades", "wins", "losses", "longest_drawdown_bars", "bars", "days"]
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
