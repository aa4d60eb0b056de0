import Foundation

/// Indicator columns shared by every sweep combination that needs them.
public struct SharedIndicators: Sendable {
  /// Rolling mean and population deviation of the close, by Bollinger period.
  public var meanDeviation: [Int: (mean: ContiguousArray<Double>, deviation: ContiguousArray<Double>)] = [:]
  /// RSI of the close, by period.
  public var rsi: [Int: ContiguousArray<Double>] = [:]
  /// How many bars before bar `i` are the last of their calendar day (`n + 1` entries).
  public var dayEndsBefore: ContiguousArray<Int> = []
  /// Where buy signals can fire, by band and RSI period.
  public var buyCandidates: [BuyCandidates.Key: BuyCandidates] = [:]

  /// Computes each distinct column once, and the buy candidates, for the given parameters.
  public init(bars: BarSeries, parameters: [BollingerRSI.Parameters]) {
    // Each column is independent: compute them on all cores.
    let tasks = Set(parameters.map(\.bollingerPeriod)).sorted().map { (true, $0) }
      + Set(parameters.map(\.rsiPeriod)).sorted().map { (false, $0) }
    let results = ConcurrentSlots<(ContiguousArray<Double>, ContiguousArray<Double>)>(count: tasks.count)
    DispatchQueue.concurrentPerform(iterations: tasks.count) { k in
      let (isBollinger, p) = tasks[k]
      if isBollinger {
        let (mean, deviation) = rollingMeanDeviation(bars.close, period: p)
        results.set(k, (mean, deviation))
      } else {
        results.set(k, (BacktestCore.rsi(bars.close, period: p), []))
      }
    }
    for (k, task) in tasks.enumerated() {
      let r = results.get(k)
      if task.0 { meanDeviation[task.1] = (r.0, r.1) } else { rsi[task.1] = r.0 }
    }
    let n = bars.count
    var ends = 0
    bars.day.withUnsafeBufferPointer { day in
      dayEndsBefore = ContiguousArray(unsafeUninitializedCapacity: n + 1) { before, count in
        before[0] = 0
        for i in 0..<n {
          ends += i == n - 1 || day[i + 1] != day[i] ? 1 : 0
          before[i + 1] = ends
        }
        count = n + 1
      }
    }
    // Candidates by band (one scan of the columns each), then by RSI period.
    let thresholds = Dictionary(parameters.map { (BuyCandidates.Key($0), $0.oversold) }, uniquingKeysWith: max)
    let bands = Set(thresholds.keys.map { BuyCandidates.Key(bollingerPeriod: $0.bollingerPeriod, deviations: $0.deviations, rsiPeriod: 0) })
      .sorted { ($0.bollingerPeriod, $0.deviations) < ($1.bollingerPeriod, $1.deviations) }
    let found = ConcurrentSlots<[(BuyCandidates.Key, BuyCandidates)]>(count: bands.count)
    let shared = self
    DispatchQueue.concurrentPerform(iterations: bands.count) { b in
      let band = bands[b]
      let below = BuyCandidates.belowBand(close: bars.close, meanDeviation: shared.meanDeviation[band.bollingerPeriod]!,
                                          deviations: band.deviations)
      found.set(b, thresholds.filter { $0.key.bollingerPeriod == band.bollingerPeriod && $0.key.deviations == band.deviations }
        .map { key, threshold in
          (key, BuyCandidates(below: below, rsi: shared.rsi[key.rsiPeriod]!, threshold: threshold,
                              from: max(key.bollingerPeriod - 1, key.rsiPeriod)))
        })
    }
    for b in bands.indices { for (key, candidates) in found.get(b) { buyCandidates[key] = candidates } }
  }
}

/// The bars where a `bollinger_rsi` buy signal can fire for one band and RSI
/// period: the close under the lower band and the RSI under the highest
/// `oversold` in use, from the first bar both are defined, before the last bar.
/// A combination's flat phase walks this short list instead of every bar.
public struct BuyCandidates: Sendable {
  public struct Key: Hashable, Sendable {
    public var bollingerPeriod: Int, deviations: Double, rsiPeriod: Int
    public init(bollingerPeriod: Int, deviations: Double, rsiPeriod: Int) {
      self.bollingerPeriod = bollingerPeriod
      self.deviations = deviations
      self.rsiPeriod = rsiPeriod
    }
    public init(_ p: BollingerRSI.Parameters) {
      self.init(bollingerPeriod: p.bollingerPeriod, deviations: p.bollingerDeviations, rsiPeriod: p.rsiPeriod)
    }
  }
  /// The candidates' bar indices, rising.
  public var bars: ContiguousArray<Int>
  /// The RSI at each candidate.
  public var rsi: ContiguousArray<Double>
  /// Every candidate's RSI is under this; a combination's `oversold` must not exceed it.
  public var threshold: Double

  /// The bars before the last whose close is under `mean - deviations × deviation`
  /// (the exact expression the strategy evaluates; NaN compares false).
  static func belowBand(close: ContiguousArray<Double>, meanDeviation md: (mean: ContiguousArray<Double>, deviation: ContiguousArray<Double>),
                        deviations k: Double) -> ContiguousArray<Int> {
    let n = close.count
    return ContiguousArray(unsafeUninitializedCapacity: max(n, 1)) { below, count in
      close.withUnsafeBufferPointer { close in
      md.mean.withUnsafeBufferPointer { mean in
      md.deviation.withUnsafeBufferPointer { deviation in
        // Branch-free: write every index, keep it when the test holds.
        var m = 0
        for s in 0..<max(n - 1, 0) {
          below[m] = s
          m += close[s] < mean[s] - k * deviation[s] ? 1 : 0
        }
        count = m
      }}}
    }
  }

  /// The bars of `below` from `from` on whose RSI is under `threshold`.
  init(below: ContiguousArray<Int>, rsi column: ContiguousArray<Double>, threshold: Double, from: Int) {
    let start = below.firstIndex { $0 >= from } ?? below.count
    var kept = 0
    let bars = ContiguousArray<Int>(unsafeUninitializedCapacity: below.count - start + 1) { bars, count in
      below.withUnsafeBufferPointer { below in
      column.withUnsafeBufferPointer { column in
        // Branch-free, as in `belowBand`.
        for s in below[start...] {
          bars[kept] = s
          kept += column[s] < threshold ? 1 : 0
        }
      }}
      count = kept
    }
    self.bars = bars
    rsi = ContiguousArray(unsafeUninitializedCapacity: kept) { rsi, count in
      for (j, s) in bars.enumerated() { rsi[j] = column[s] }
      count = kept
    }
    self.threshold = threshold
  }
}

/// The `bollinger_rsi` strategy and its broker fused into one loop for sweeps.
///
/// It follows `Engine.run` with `BollingerRSI` event for event (fills at the
/// open, intrabar stop and target, marks, decisions at the close) and feeds
/// the same tallies as `SummaryAccumulator`, so its statistics are
/// bit-identical to a full run's (a property test holds it to that). It
/// stores nothing per bar and reads the bands as `mean ± k × deviation` from
/// shared columns.
///
/// The loop alternates two phases: flat, it takes the next buy signal from
/// the shared candidates and marks the bars up to it at once; holding, it walks bar by bar until an
/// exit, with the account's marks in registers and each bar's equity written
/// straight into its day's slot.
public enum SwingKernel {
  public static func run(bars: BarSeries, indicators: SharedIndicators, parameters p: BollingerRSI.Parameters,
                         broker: BrokerSettings, accumulator: inout SummaryAccumulator) -> PerformanceSummary {
    accumulator.reset()
    let n = bars.count
    guard n > 0, let md = indicators.meanDeviation[p.bollingerPeriod], let rsiColumn = indicators.rsi[p.rsiPeriod],
          let candidates = indicators.buyCandidates[BuyCandidates.Key(p)], p.oversold <= candidates.threshold else {
      preconditionFailure("indicators missing for \(p)")
    }
    let k = p.bollingerDeviations, oversold = p.oversold, overbought = p.overbought
    let stopLoss = p.stopLoss, profitTarget = p.profitTarget
    let slip = broker.slippageBasisPoints / 10_000
    let commission = broker.commission
    let rule = broker.intrabarRule
    let sizing = broker.sizing
    let firstDecision = max(p.bollingerPeriod - 1, p.rsiPeriod)
    let days = indicators.dayEndsBefore[n]
    var cash = broker.initialCash
    var trades = TradeTally(), marks = EquityMarks()

    accumulator.fillDayEnds(count: days) { dayEquity in
    bars.open.withUnsafeBufferPointer { open in
    bars.high.withUnsafeBufferPointer { high in
    bars.low.withUnsafeBufferPointer { low in
    bars.close.withUnsafeBufferPointer { close in
    md.mean.withUnsafeBufferPointer { mean in
    md.deviation.withUnsafeBufferPointer { deviation in
    rsiColumn.withUnsafeBufferPointer { rsi in
    indicators.dayEndsBefore.withUnsafeBufferPointer { dayEndsBefore in
    candidates.bars.withUnsafeBufferPointer { candidateBar in
    candidates.rsi.withUnsafeBufferPointer { candidateRSI in
      let candidateCount = candidateBar.count
      var next = 0
      // Bar t's equity goes to the slot of its day (the day ends before it); the
      // day's last bar writes last, so each slot ends up with its day-end equity.
      var t = 0
      flat: while true {
        if t == n - 1 {
          marks.mark(cash, bar: t)
          dayEquity[days - 1] = cash
          break flat
        }
        // The next buy signal: the first candidate from here whose RSI is under this
        // combination's threshold (or none, s = n - 1).
        let from = max(t, firstDecision)
        while next < candidateCount && (candidateBar[next] < from || !(candidateRSI[next] < oversold)) { next += 1 }
        let s = next < candidateCount ? candidateBar[next] : n - 1
        // The account stands still up to the signal's bar; the buy fills at the next open.
        let end = s < n - 1 ? s + 1 : n - 1
        marks.markFlat(cash, bars: t..<end)
        for d in dayEndsBefore[t]..<dayEndsBefore[end] { dayEquity[d] = cash }
        t = end
        guard s < n - 1 else { continue flat }

        let entryPrice = BrokerRules.buyPrice(open: open[t], high: high[t], slip: slip)
        let shares = BrokerRules.entryShares(cash: cash, price: entryPrice, sizing: sizing, commission: commission)
        guard shares > 0 else { continue flat }
        let entryFee = commission.fee(shares: shares, price: entryPrice)
        cash -= shares * entryPrice + entryFee
        let entryBar = t
        let (stop, target) = BrokerRules.levels(entry: entryPrice, stopLoss: stopLoss, profitTarget: profitTarget)
        @inline(__always) func exit(_ t: Int, _ price: Double, _ reason: ExitReason) {
          let fee = commission.fee(shares: shares, price: price)
          cash += shares * price - fee
          trades.add(Trade(entryBar: entryBar, entryPrice: entryPrice, exitBar: t, exitPrice: price, shares: shares,
                           entryFee: entryFee, exitFee: fee, exitReason: reason))
        }
        // Holding. Every bar after the entry is past the first decision.
        while true {
          let o = open[t], h = high[t], l = low[t]
          // Neither level touched (the common case), else the exact rule.
          if !(o > stop && l > stop && o < target && h < target),
             let e = BrokerRules.intrabarExit(open: o, high: h, low: l, stop: stop, target: target,
                                              entryBar: t == entryBar, rule: rule) {
            exit(t, BrokerRules.sellPrice(e.price, low: l, slip: slip), e.reason)
            marks.barsHeld += t - entryBar
            continue flat
          }
          let c = close[t]
          let equity = cash + shares * c
          if t == n - 1 {
            // As in Engine.run: marked before the END_OF_DATA close, less that close's commission.
            let final = equity - commission.fee(shares: shares, price: c)
            exit(t, c, .endOfData)
            marks.mark(final, bar: t)
            marks.barsHeld += n - entryBar
            dayEquity[days - 1] = final
            break flat
          }
          marks.mark(equity, bar: t)
          dayEquity[dayEndsBefore[t]] = equity
          if c > mean[t] + k * deviation[t] || rsi[t] > overbought {
            // The sell fills at the next open; flat from that bar on.
            t += 1
            exit(t, BrokerRules.sellPrice(open[t], low: low[t], slip: slip), .technical)
            marks.barsHeld += t - entryBar
            continue flat
          }
          t += 1
        }
      }
    }}}}}}}}}}}
    marks.barsMarked = n
    accumulator.trades = trades
    accumulator.marks = marks
    let calendarDays = Int(bars.day[n - 1]) - Int(bars.day[0])
    return accumulator.summary(initialCash: broker.initialCash, calendarDays: calendarDays)
  }
}

/// Write-once slots filled from concurrent tasks, each slot by one task.
public final class ConcurrentSlots<T>: @unchecked Sendable {
  private var slots: [T?]
  private let lock = NSLock()
  public init(count: Int) { slots = Array(repeating: nil, count: count) }
  public func set(_ k: Int, _ value: T) { lock.lock(); slots[k] = value; lock.unlock() }
  /// The value of slot `k`, which must have been set.
  public func get(_ k: Int) -> T { lock.lock(); defer { lock.unlock() }; return slots[k]! }
  /// The value of slot `k`, or `nil` when it is outside the slots or not set.
  public func peek(_ k: Int) -> T? { lock.lock(); defer { lock.unlock() }; return k < slots.count ? slots[k] : nil }
  /// Removes and returns the value of slot `k` (so that the caller holds the only reference), or `nil`.
  public func take(_ k: Int) -> T? {
    lock.lock(); defer { lock.unlock() }
    guard k < slots.count else { return nil }
    defer { slots[k] = nil }
    return slots[k]
  }
}
