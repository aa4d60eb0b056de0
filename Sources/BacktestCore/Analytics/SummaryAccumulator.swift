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

  /// `sharpeRatio` and `sortinoRatio` of the daily returns of `e` (`e[k] / e[k-1] - 1`)
  /// in two passes and no array: every sum is taken in the same order with the
  /// same operations as those functions take it, so the values are identical.
  static func sharpeAndSortino(dayEnds e: UnsafeBufferPointer<Double>) -> (sharpe: Double?, sortino: Double?) {
    let n = e.count - 1
    guard n > 1 else { return (nil, nil) }
    var sum = 0.0, downside = 0.0
    for k in 1...n {
      let r = e[k] / e[k - 1] - 1
      sum += r
      if r < 0 { downside += r * r }
    }
    let m = sum / Double(n)
    var squares = 0.0
    for k in 1...n {
      let r = e[k] / e[k - 1] - 1
      squares += (r - m) * (r - m)
    }
    let deviation = (squares / Double(n - 1)).squareRoot()
    let downsideDeviation = (downside / Double(n)).squareRoot()
    return (deviation > 0 ? m / deviation * (252.0).squareRoot() : nil,
            downsideDeviation > 0 ? m / downsideDeviation * (252.0).squareRoot() : nil)
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
    s.days = dayEndEquity.count
    (s.sharpe, s.sortino) = dayEndEquity.withUnsafeBufferPointer { Self.sharpeAndSortino(dayEnds: $0) }
    s.exposure = Double(barsHeld) / Double(barsMarked)
    return s
  }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
