/// Builds a `PerformanceSummary` incrementally: trades as they close, the
/// account as each bar is marked. The general engine's columns and the sweep
/// kernel both feed it, in the same order, so both give bit-identical statistics.
public struct SummaryAccumulator: Sendable {
  /// The closed trades' tally.
  @usableFromInline package var trades = TradeTally()
  /// The marks of the account so far (the sweep kernel works on a copy of them in registers).
  @usableFromInline package var marks = EquityMarks()
  /// Equity at the last bar of each day.
  public var dayEndEquity: [Double] { dayEnds }
  @usableFromInline var dayEnds: [Double] = []
  /// The simple returns of `dayEndEquity` (`e[k] / e[k-1] - 1`), once `summary` has computed them.
  public private(set) var dailyReturns: [Double] = []

  /// An empty accumulator with room for `expectedDays` day-end equities.
  public init(expectedDays: Int = 0) { dayEnds.reserveCapacity(expectedDays) }

  /// Forgets everything, keeping the storage (for reuse across sweep combinations).
  public mutating func reset() {
    let days = dayEnds, returns = dailyReturns
    self = SummaryAccumulator()
    dayEnds = days
    dayEnds.removeAll(keepingCapacity: true)
    dailyReturns = returns
    dailyReturns.removeAll(keepingCapacity: true)
  }

  /// Adds a closed trade that lasted `calendarDays` (from its entry bar's date to its exit bar's).
  @inline(__always)
  public mutating func add(_ trade: Trade, calendarDays: Int) { trades.add(trade, calendarDays: calendarDays) }

  /// Adds the trades and marks of a general engine run over `bars`, the bars it traded (held: any position, long or
  /// short).
  public mutating func add(_ result: BacktestResult, bars: BarSeries) {
    // An account whose money overflowed to inf or nan can close a position it never opened (entry bar -1); such a
    // run is refused (`AnyRunOutput.requireFinite`), and its durations count from the first bar.
    add(result.trades, bars: bars, offset: result.firstBar, first: 0)
    for i in bars.indices {
      mark(equity: result.equity[i], held: result.shares[i] != 0, day: bars.day[i],
           dayEnd: i == bars.count - 1 || bars.day[i + 1] != bars.day[i])
    }
  }

  /// Forgets everything, then takes what `run` (a statistics-only run of the bar loop, `Engine.summarize`) keeps: the
  /// marks and day-end equities it writes here, and its trades; what `add(_:bars:)` takes of the full run, bit for bit.
  ///
  /// - Returns: the run's dividend income and expense drag (for `PerformanceSummary`).
  @inlinable
  package mutating func summarize(bars: BarSeries, _ run: (inout EquityMarks, inout [Double]) -> SummarizedRun)
    -> (dividendIncome: Double, expenseDrag: Double) {
    reset()
    let done = run(&marks, &dayEnds)
    add(done.trades, bars: bars, offset: 0, first: done.range.lowerBound)
    return (done.dividendIncome, done.expenseDrag)
  }

  /// Adds `trades`, each with the calendar days between its entry and exit bars: bar `b` is `bars[b - offset]`, and
  /// a trade counts from bar `first` at the earliest (the first bar of the range traded).
  @usableFromInline
  mutating func add(_ trades: [Trade], bars: BarSeries, offset: Int, first: Int) {
    for trade in trades {
      let entry = max(trade.entryBar - offset, first), exit = max(trade.exitBar - offset, entry)
      add(trade, calendarDays: Int(bars.day[exit]) - Int(bars.day[entry]))
    }
  }

  /// Records the equity at a bar's close; `held` when a position is open; `day` the bar's date (days since 1970);
  /// `dayEnd` when it is the last bar of its calendar day.
  @inlinable @inline(__always)
  public mutating func mark(equity e: Double, held: Bool, day: Int32, dayEnd: Bool) {
    marks.mark(e, held: held, day: day, dayEnd: dayEnd, dayEnds: &dayEnds)
  }

  /// Makes the day-end equities `days` slots for `body` to fill in place
  /// (the sweep kernel knows each bar's slot); `body` must set every one.
  @inline(__always)
  package mutating func fillDayEnds(count days: Int, _ body: (UnsafeMutablePointer<Double>) -> Void) {
    dayEnds.removeAll(keepingCapacity: true)
    dayEnds.append(contentsOf: repeatElement(0, count: days))
    dayEnds.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
  }

  /// `sharpeRatio` and `sortinoRatio` of the daily returns of `e` (`e[k] / e[k-1] - 1`),
  /// which the first pass writes to `returns` (`e.count - 1` slots) and the second
  /// reads back: every sum is taken in the same order with the same operations as
  /// those functions take it, so the values are identical. With them, the returns'
  /// sample deviation × √252.
  static func sharpeAndSortino(dayEnds e: UnsafeBufferPointer<Double>, returns: UnsafeMutableBufferPointer<Double>) -> DailyRatios {
    let n = e.count - 1
    guard n > 0 else { return DailyRatios() }
    precondition(returns.count >= n)
    var sum = 0.0, downside = 0.0
    for k in 1...n {
      let r = e[k] / e[k - 1] - 1
      returns[k - 1] = r
      sum += r
      // Adding +0 leaves the (non-negative) sum as it was: no branch needed.
      downside += r < 0 ? r * r : 0
    }
    guard n > 1 else { return DailyRatios() }
    let m = sum / Double(n)
    var squares = 0.0
    for r in returns[0..<n] { squares += (r - m) * (r - m) }
    return DailyRatios(mean: m, squares: squares, downside: downside, count: n)
  }

  /// The statistics; `calendarDays` is from the first to the last bar's date.
  ///
  /// It leaves the daily returns in `dailyReturns`.
  public mutating func summary(initialCash: Double, calendarDays: Int) -> PerformanceSummary {
    summary(initialCash: initialCash, calendarDays: calendarDays, ratios: nil)
  }

  /// `summary`, with the daily ratios given when `ratios` is (and `dailyReturns` then already written).
  mutating func summary(initialCash: Double, calendarDays: Int, ratios: DailyRatios?) -> PerformanceSummary {
    var s = PerformanceSummary()
    let trades = trades
    s.totalTrades = trades.totalTrades
    s.wins = trades.wins
    s.losses = trades.losses
    s.totalPnl = trades.totalPnl
    s.fees = trades.fees
    if trades.totalTrades > 0 {
      let count = Double(trades.totalTrades)
      s.winRate = Double(trades.wins) / count
      s.averageBarsHeld = Double(trades.heldBarsInTrades) / count
      s.longestBarsHeld = trades.longestBarsHeld
      s.averageTradeDays = Double(trades.tradeDays) / count
      s.longestTradeDays = trades.longestTradeDays
      s.bestTrade = trades.best
      s.worstTrade = trades.worst
      s.expectancy = trades.totalPnl / count
    }
    if trades.totalTrades > 1 {
      let deviation = (trades.pnlSquares / Double(trades.totalTrades - 1)).squareRoot()
      if deviation > 0 { s.sqn = Double(trades.totalTrades).squareRoot() * trades.pnlMean / deviation }
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
      // Undefined when a short period's growth, compounded to a year, overflows.
      let cagr = pow(marks.lastEquity / initialCash, 1.0 / (Double(calendarDays) / 365.0)) - 1
      s.cagr = cagr.isFinite ? cagr : nil
    }
    s.xirr = s.cagr
    s.maxDrawdown = marks.worstDrawdown
    if let cagr = s.cagr, s.maxDrawdown < 0 { s.calmar = cagr / -s.maxDrawdown }
    s.longestDrawdownBars = marks.longestRun
    if let stretches = marks.stretches {
      s.averageDrawdownBars = Double(stretches.bars) / Double(stretches.count)
      s.longestDrawdownDays = stretches.longestDays
      s.averageDrawdownDays = Double(stretches.days) / Double(stretches.count)
    }
    s.days = dayEndEquity.count
    let daily = ratios ?? {
      dailyReturns.removeAll(keepingCapacity: true)
      dailyReturns.append(contentsOf: repeatElement(0, count: max(0, dayEndEquity.count - 1)))
      return dayEndEquity.withUnsafeBufferPointer { e in
        dailyReturns.withUnsafeMutableBufferPointer { Self.sharpeAndSortino(dayEnds: e, returns: $0) }
      }
    }()
    (s.sharpe, s.sortino, s.volatility) = (daily.sharpe, daily.sortino, daily.volatility)
    s.exposure = Double(marks.barsHeld) / Double(marks.barsMarked)
    return s
  }

  /// `summary` of each of four accumulators (`initialCash[j]` for `a[j]`), with
  /// Sharpe and Sortino computed for all four at once as vector lanes when their
  /// day counts agree: each lane takes `sharpeAndSortino`'s operations in its
  /// order, so every value is identical to `summary`'s.
  package static func summaries(_ a: inout [SummaryAccumulator], initialCash: [Double], calendarDays: Int) -> [PerformanceSummary] {
    precondition(a.count == 4 && initialCash.count == 4)
    let days = a[0].dayEndEquity.count
    guard days > 2, a.allSatisfy({ $0.dayEndEquity.count == days && $0.marks.barsMarked > 0 }) else {
      return (0..<4).map { a[$0].summary(initialCash: initialCash[$0], calendarDays: calendarDays) }
    }
    // Each lane's returns are written straight into its accumulator's storage, taken out meanwhile.
    func slots(_ j: Int) -> [Double] {
      var r: [Double] = []
      swap(&r, &a[j].dailyReturns)
      r.removeAll(keepingCapacity: true)
      r.append(contentsOf: repeatElement(0, count: days - 1))
      return r
    }
    var r0 = slots(0), r1 = slots(1), r2 = slots(2), r3 = slots(3)
    let e = a.map(\.dayEndEquity)
    let ratios = e[0].withUnsafeBufferPointer { e0 in e[1].withUnsafeBufferPointer { e1 in
      e[2].withUnsafeBufferPointer { e2 in e[3].withUnsafeBufferPointer { e3 in
        r0.withUnsafeMutableBufferPointer { r0 in r1.withUnsafeMutableBufferPointer { r1 in
          r2.withUnsafeMutableBufferPointer { r2 in r3.withUnsafeMutableBufferPointer { r3 in
            sharpeAndSortino4(dayEnds: (e0.baseAddress!, e1.baseAddress!, e2.baseAddress!, e3.baseAddress!), count: days,
                              returns: (r0.baseAddress!, r1.baseAddress!, r2.baseAddress!, r3.baseAddress!))
          }}
        }}
      }}
    }}
    swap(&r0, &a[0].dailyReturns); swap(&r1, &a[1].dailyReturns); swap(&r2, &a[2].dailyReturns); swap(&r3, &a[3].dailyReturns)
    return (0..<4).map { a[$0].summary(initialCash: initialCash[$0], calendarDays: calendarDays, ratios: ratios[$0]) }
  }

  /// `sharpeAndSortino` of four series of `count` day-end equities, lane `j`
  /// for series `j`, whose returns go to `returns.j`.
  static func sharpeAndSortino4(
    dayEnds e: (UnsafePointer<Double>, UnsafePointer<Double>, UnsafePointer<Double>, UnsafePointer<Double>), count: Int,
    returns r: (UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>)
  ) -> [DailyRatios] {
    let n = count - 1
    precondition(n > 1)
    var sum = SIMD4<Double>.zero, downside = SIMD4<Double>.zero
    var previous = SIMD4(e.0[0], e.1[0], e.2[0], e.3[0])
    for k in 1...n {
      let current = SIMD4(e.0[k], e.1[k], e.2[k], e.3[k])
      let x = current / previous - 1
      r.0[k - 1] = x[0]; r.1[k - 1] = x[1]; r.2[k - 1] = x[2]; r.3[k - 1] = x[3]
      sum += x
      downside += SIMD4<Double>.zero.replacing(with: x * x, where: x .< 0)
      previous = current
    }
    let m = sum / Double(n)
    var squares = SIMD4<Double>.zero
    for k in 0..<n {
      let d = SIMD4(r.0[k], r.1[k], r.2[k], r.3[k]) - m
      squares += d * d
    }
    return (0..<4).map { j in DailyRatios(mean: m[j], squares: squares[j], downside: downside[j], count: n) }
  }
}

/// The ratios of `n` daily returns from their mean, the sum of their squared deviations from it, and the sum of the
/// negative ones' squares: Sharpe and Sortino (× √252, `nil` when their deviation is 0) and the annualized volatility.
struct DailyRatios: Sendable {
  var sharpe: Double?, sortino: Double?, volatility: Double?

  init() {}

  init(mean m: Double, squares: Double, downside: Double, count n: Int) {
    let deviation = (squares / Double(n - 1)).squareRoot()
    let downsideDeviation = (downside / Double(n)).squareRoot()
    sharpe = deviation > 0 ? m / deviation * (252.0).squareRoot() : nil
    sortino = downsideDeviation > 0 ? m / downsideDeviation * (252.0).squareRoot() : nil
    volatility = deviation * (252.0).squareRoot()
  }
}

/// What the closed trades add up to: counts, profit and loss, best and worst, durations.
@usableFromInline
package struct TradeTally: Sendable {
  var totalTrades = 0, wins = 0, losses = 0, heldBarsInTrades = 0, longestBarsHeld = 0, tradeDays = 0, longestTradeDays = 0
  var winReturnSum = 0.0, lossReturnSum = 0.0, grossProfit = 0.0, grossLoss = 0.0, totalPnl = 0.0, fees = 0.0
  /// The running mean of the trades' P&L and the sum of their squared deviations from it (Welford's update).
  var pnlMean = 0.0, pnlSquares = 0.0
  var best = -Double.infinity, worst = Double.infinity

  package init() {}

  @inline(__always)
  package mutating func add(_ trade: Trade, calendarDays: Int) {
    let pnl = trade.pnl, r = trade.returnFraction
    totalTrades += 1
    totalPnl += pnl
    fees += trade.fees
    heldBarsInTrades += trade.barsHeld
    longestBarsHeld = max(longestBarsHeld, trade.barsHeld)
    tradeDays += calendarDays
    longestTradeDays = max(longestTradeDays, calendarDays)
    let deviation = pnl - pnlMean
    pnlMean += deviation / Double(totalTrades)
    pnlSquares += deviation * (pnl - pnlMean)
    if pnl > 0 { wins += 1; winReturnSum += r; grossProfit += pnl }
    if pnl < 0 { losses += 1; lossReturnSum += r; grossLoss -= pnl }
    best = max(best, r)
    worst = min(worst, r)
  }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
