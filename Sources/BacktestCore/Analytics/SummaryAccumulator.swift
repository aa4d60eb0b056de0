/// Builds a `PerformanceSummary` incrementally: trades as they close, the
/// account as each bar is marked. The general engine's columns and the sweep
/// kernel both feed it, in the same order, so both give bit-identical statistics.
public struct SummaryAccumulator: Sendable {
  var totalTrades = 0, wins = 0, losses = 0, heldBarsInTrades = 0
  var winReturnSum = 0.0, lossReturnSum = 0.0, grossProfit = 0.0, grossLoss = 0.0, totalPnl = 0.0, fees = 0.0
  var best = -Double.infinity, worst = Double.infinity
  var peak = -Double.infinity, worstDrawdown = 0.0, run = 0, longestRun = 0
  var barsMarked = 0, barsHeld = 0
  var lastEquity = 0.0
  /// Equity at the last bar of each day.
  public private(set) var dayEndEquity: [Double] = []

  public init(expectedDays: Int = 0) { dayEndEquity.reserveCapacity(expectedDays) }

  /// Forgets everything, keeping the storage (for reuse across sweep combinations).
  public mutating func reset() {
    let days = dayEndEquity
    self = SummaryAccumulator()
    dayEndEquity = days
    dayEndEquity.removeAll(keepingCapacity: true)
  }

  @inline(__always)
  public mutating func add(_ trade: Trade) {
    let pnl = trade.pnl, r = trade.returnFraction
    totalTrades += 1
    totalPnl += pnl
    fees += trade.fees
    heldBarsInTrades += trade.barsHeld
    if pnl > 0 { wins += 1; winReturnSum += r; grossProfit += pnl }
    if pnl < 0 { losses += 1; lossReturnSum += r; grossLoss -= pnl }
    best = max(best, r)
    worst = min(worst, r)
  }

  /// Records the equity at a bar's close; `held` when a position is open;
  /// `dayEnd` when it is the last bar of its calendar day.
  @inline(__always)
  public mutating func mark(equity e: Double, held: Bool, dayEnd: Bool) {
    barsMarked += 1
    if held { barsHeld += 1 }
    if e >= peak { peak = e; run = 0 } else { run += 1; if run > longestRun { longestRun = run } }
    let dd = e / peak - 1
    if dd < worstDrawdown { worstDrawdown = dd }
    if dayEnd { dayEndEquity.append(e) }
    lastEquity = e
  }

  /// Records `count` consecutive bars without a position, all at equity `e`,
  /// `dayEnds` of them last in their day: exactly what `count` calls of
  /// `mark(equity: e, held: false, dayEnd:)` record.
  @inline(__always)
  public mutating func markFlat(equity e: Double, count: Int, dayEnds: Int) {
    guard count > 0 else { return }
    barsMarked += count
    if e >= peak { peak = e; run = 0 } else { run += count; if run > longestRun { longestRun = run } }
    let dd = e / peak - 1
    if dd < worstDrawdown { worstDrawdown = dd }
    if dayEnds > 0 { dayEndEquity.append(contentsOf: repeatElement(e, count: dayEnds)) }
    lastEquity = e
  }

  /// The statistics; `calendarDays` is from the first to the last bar's date.
  public func summary(initialCash: Double, calendarDays: Int) -> PerformanceSummary {
    var s = PerformanceSummary()
    s.totalTrades = totalTrades
    s.wins = wins
    s.losses = losses
    s.totalPnl = totalPnl
    s.fees = fees
    if totalTrades > 0 {
      s.winRate = Double(wins) / Double(totalTrades)
      s.averageBarsHeld = Double(heldBarsInTrades) / Double(totalTrades)
      s.bestTrade = best
      s.worstTrade = worst
    }
    s.avgWin = wins > 0 ? winReturnSum / Double(wins) : nil
    s.avgLoss = losses > 0 ? lossReturnSum / Double(losses) : nil
    s.profitFactor = grossLoss > 0 ? grossProfit / grossLoss : nil
    s.bars = barsMarked
    guard barsMarked > 0 else { return s }
    s.finalEquity = lastEquity
    s.totalReturn = lastEquity / initialCash - 1
    s.twr = s.totalReturn
    if calendarDays > 0 && lastEquity > 0 {
      s.cagr = pow(lastEquity / initialCash, 1.0 / (Double(calendarDays) / 365.0)) - 1
    }
    s.xirr = s.cagr
    s.maxDrawdown = worstDrawdown
    s.longestDrawdownBars = longestRun
    var daily: [Double] = []
    daily.reserveCapacity(max(0, dayEndEquity.count - 1))
    for k in dayEndEquity.indices.dropFirst() { daily.append(dayEndEquity[k] / dayEndEquity[k - 1] - 1) }
    s.days = dayEndEquity.count
    s.sharpe = sharpeRatio(dailyReturns: daily)
    s.sortino = sortinoRatio(dailyReturns: daily)
    s.exposure = Double(barsHeld) / Double(barsMarked)
    return s
  }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
