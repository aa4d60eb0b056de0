/// Builds a `PerformanceSummary` incrementally: trades as they close, the
/// account as each bar is marked. The general engine's columns and the sweep
/// kernel both feed it, in the same order, so both give bit-identical statistics.
public struct SummaryAccumulator: Sendable {
  /// The closed trades' tally.
  var trades = TradeTally()
  /// The marks of the account so far (the sweep kernel works on a copy of them in registers).
  var marks = EquityMarks()
  /// Equity at the last bar of each day.
  public private(set) var dayEndEquity: [Double] = []
  /// The simple returns of `dayEndEquity` (`e[k] / e[k-1] - 1`), once `summary` has computed them.
  public private(set) var dailyReturns: [Double] = []

  public init(expectedDays: Int = 0) { dayEndEquity.reserveCapacity(expectedDays) }

  /// Forgets everything, keeping the storage (for reuse across sweep combinations).
  public mutating func reset() {
    let days = dayEndEquity, returns = dailyReturns
    self = SummaryAccumulator()
    dayEndEquity = days
    dayEndEquity.removeAll(keepingCapacity: true)
    dailyReturns = returns
    dailyReturns.removeAll(keepingCapacity: true)
  }

  @inline(__always)
  public mutating func add(_ trade: Trade) { trades.add(trade) }

  /// Records the equity at a bar's close; `held` when a position is open;
  /// `dayEnd` when it is the last bar of its calendar day.
  @inline(__always)
  public mutating func mark(equity e: Double, held: Bool, dayEnd: Bool) {
    marks.mark(e)
    if held { marks.barsHeld += 1 }
    if dayEnd { dayEndEquity.append(e) }
  }

  /// Makes the day-end equities `days` slots for `body` to fill in place
  /// (the sweep kernel knows each bar's slot); `body` must set every one.
  @inline(__always)
  mutating func fillDayEnds(count days: Int, _ body: (UnsafeMutablePointer<Double>) -> Void) {
    dayEndEquity.removeAll(keepingCapacity: true)
    dayEndEquity.append(contentsOf: repeatElement(0, count: days))
    dayEndEquity.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
  }

  /// `sharpeRatio` and `sortinoRatio` of the daily returns of `e` (`e[k] / e[k-1] - 1`),
  /// which the first pass writes to `returns` (`e.count - 1` slots) and the second
  /// reads back: every sum is taken in the same order with the same operations as
  /// those functions take it, so the values are identical.
  static func sharpeAndSortino(dayEnds e: UnsafeBufferPointer<Double>, returns: UnsafeMutableBufferPointer<Double>)
    -> (sharpe: Double?, sortino: Double?)
  {
    let n = e.count - 1
    guard n > 0 else { return (nil, nil) }
    precondition(returns.count >= n)
    var sum = 0.0, downside = 0.0
    for k in 1...n {
      let r = e[k] / e[k - 1] - 1
      returns[k - 1] = r
      sum += r
      // Adding +0 leaves the (non-negative) sum as it was: no branch needed.
      downside += r < 0 ? r * r : 0
    }
    guard n > 1 else { return (nil, nil) }
    let m = sum / Double(n)
    var squares = 0.0
    for r in returns[0..<n] { squares += (r - m) * (r - m) }
    let deviation = (squares / Double(n - 1)).squareRoot()
    let downsideDeviation = (downside / Double(n)).squareRoot()
    return (deviation > 0 ? m / deviation * (252.0).squareRoot() : nil,
            downsideDeviation > 0 ? m / downsideDeviation * (252.0).squareRoot() : nil)
  }

  /// The statistics; `calendarDays` is from the first to the last bar's date.
  ///
  /// It leaves the daily returns in `dailyReturns`.
  public mutating func summary(initialCash: Double, calendarDays: Int) -> PerformanceSummary {
    var s = PerformanceSummary()
    let trades = trades
    s.totalTrades = trades.totalTrades
    s.wins = trades.wins
    s.losses = trades.losses
    s.totalPnl = trades.totalPnl
    s.fees = trades.fees
    if trades.totalTrades > 0 {
      s.winRate = Double(trades.wins) / Double(trades.totalTrades)
      s.averageBarsHeld = Double(trades.heldBarsInTrades) / Double(trades.totalTrades)
      s.bestTrade = trades.best
      s.worstTrade = trades.worst
    }
    s.avgWin = trades.wins > 0 ? trades.winReturnSum / Double(trades.wins) : nil
    s.avgLoss = trades.losses > 0 ? trades.lossReturnSum / Double(trades.losses) : nil
    s.profitFactor = trades.grossLoss > 0 ? trades.grossProfit / trades.grossLoss : nil
    s.bars = marks.barsMarked
    guard marks.barsMarked > 0 else { return s }
    s.finalEquity = marks.lastEquity
    s.totalReturn = marks.lastEquity / initialCash - 1
    s.twr = s.totalReturn
    if calendarDays > 0 && marks.lastEquity > 0 {
      s.cagr = pow(marks.lastEquity / initialCash, 1.0 / (Double(calendarDays) / 365.0)) - 1
    }
    s.xirr = s.cagr
    s.maxDrawdown = marks.worstDrawdown
    s.longestDrawdownBars = marks.longestRun
    s.days = dayEndEquity.count
    dailyReturns.removeAll(keepingCapacity: true)
    dailyReturns.append(contentsOf: repeatElement(0, count: max(0, dayEndEquity.count - 1)))
    (s.sharpe, s.sortino) = dayEndEquity.withUnsafeBufferPointer { e in
      dailyReturns.withUnsafeMutableBufferPointer { Self.sharpeAndSortino(dayEnds: e, returns: $0) }
    }
    s.exposure = Double(marks.barsHeld) / Double(marks.barsMarked)
    return s
  }
}

/// What the closed trades add up to: counts, profit and loss, best and worst.
struct TradeTally: Sendable {
  var totalTrades = 0, wins = 0, losses = 0, heldBarsInTrades = 0
  var winReturnSum = 0.0, lossReturnSum = 0.0, grossProfit = 0.0, grossLoss = 0.0, totalPnl = 0.0, fees = 0.0
  var best = -Double.infinity, worst = Double.infinity

  @inline(__always)
  mutating func add(_ trade: Trade) {
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
}

/// The running marks of an account: its peak, deepest drawdown, longest
/// stretch below the peak, and how many bars were marked and held.
struct EquityMarks: Sendable {
  var peak = -Double.infinity, worstDrawdown = 0.0
  /// The last bar at a peak (-1 before any), and the longest stretch below a peak that has ended.
  var peakBar = -1, longestEndedRun = 0
  var barsMarked = 0, barsHeld = 0
  var lastEquity = 0.0

  /// The most consecutive bars below the running peak.
  var longestRun: Int { max(longestEndedRun, barsMarked - 1 - peakBar) }

  /// Marks the next bar at equity `e` (who counts held bars does so itself).
  @inline(__always)
  mutating func mark(_ e: Double) {
    mark(e, bar: barsMarked)
    barsMarked += 1
  }

  /// Marks bar `i` at equity `e`; bars are marked in order, each once, and
  /// `barsMarked` is left to the caller.
  @inline(__always)
  mutating func mark(_ e: Double, bar i: Int) {
    if e >= peak { longestEndedRun = max(longestEndedRun, i - 1 - peakBar); peak = e; peakBar = i }
    let dd = e / peak - 1
    if dd < worstDrawdown { worstDrawdown = dd }
    lastEquity = e
  }

  /// Marks `bars` at equity `e`: what `mark(e, bar:)` on each does.
  @inline(__always)
  mutating func markFlat(_ e: Double, bars: Range<Int>) {
    guard !bars.isEmpty else { return }
    if e >= peak { longestEndedRun = max(longestEndedRun, bars.lowerBound - 1 - peakBar); peak = e; peakBar = bars.upperBound - 1 }
    let dd = e / peak - 1
    if dd < worstDrawdown { worstDrawdown = dd }
    lastEquity = e
  }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
