import Foundation

/// Indicator columns shared by every sweep combination that needs them.
public struct SharedIndicators: Sendable {
  /// Rolling mean and population deviation of the close, by Bollinger period.
  public var meanDeviation: [Int: (mean: ContiguousArray<Double>, deviation: ContiguousArray<Double>)] = [:]
  /// RSI of the close, by period.
  public var rsi: [Int: ContiguousArray<Double>] = [:]
  /// Whether bar `i` is the last of its calendar day.
  public var dayEnd: ContiguousArray<Bool> = []
  /// How many bars before bar `i` are the last of their day (`n + 1` entries).
  public var dayEndsBefore: ContiguousArray<Int> = []

  /// Computes each distinct column once for the given periods.
  public init(bars: BarSeries, bollingerPeriods: Set<Int>, rsiPeriods: Set<Int>) {
    // Each column is independent: compute them on all cores.
    let tasks = bollingerPeriods.sorted().map { (true, $0) } + rsiPeriods.sorted().map { (false, $0) }
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
      dayEnd = ContiguousArray(unsafeUninitializedCapacity: n) { isEnd, count in
        for i in 0..<n { isEnd[i] = i == n - 1 || day[i + 1] != day[i] }
        count = n
      }
    }
    dayEndsBefore = ContiguousArray(unsafeUninitializedCapacity: n + 1) { before, count in
      dayEnd.withUnsafeBufferPointer { isEnd in
        before[0] = 0
        for i in 0..<n { ends += isEnd[i] ? 1 : 0; before[i + 1] = ends }
      }
      count = n + 1
    }
  }
}

/// The `bollinger_rsi` strategy and its broker fused into one loop for sweeps.
///
/// It follows `Engine.run` with `BollingerRSI` event for event (fills at the
/// open, intrabar stop and target, marks, decisions at the close) and feeds
/// the same `SummaryAccumulator`, so its statistics are bit-identical to a
/// full run's (a property test holds it to that). It stores nothing per bar
/// and reads the bands as `mean ± k × deviation` from shared columns.
public enum SwingKernel {
  public static func run(bars: BarSeries, indicators: SharedIndicators, parameters p: BollingerRSI.Parameters,
                         broker: BrokerSettings, accumulator: inout SummaryAccumulator) -> PerformanceSummary {
    accumulator.reset()
    let n = bars.count
    guard n > 0, let md = indicators.meanDeviation[p.bollingerPeriod], let rsiColumn = indicators.rsi[p.rsiPeriod] else {
      preconditionFailure("indicators missing for \(p)")
    }
    let k = p.bollingerDeviations, oversold = p.oversold, overbought = p.overbought
    let stopLoss = p.stopLoss, profitTarget = p.profitTarget
    let slip = broker.slippageBasisPoints / 10_000
    let commission = broker.commission
    let rule = broker.intrabarRule
    let sizing = broker.sizing
    let firstDecision = max(p.bollingerPeriod - 1, p.rsiPeriod)
    var cash = broker.initialCash
    var shares = 0.0, entryPrice = 0.0, entryFee = 0.0
    var entryBar = -1
    var stop = -Double.infinity, target = Double.infinity
    var pendingBuy = false, pendingSell = false

    bars.open.withUnsafeBufferPointer { open in
    bars.high.withUnsafeBufferPointer { high in
    bars.low.withUnsafeBufferPointer { low in
    bars.close.withUnsafeBufferPointer { close in
    md.mean.withUnsafeBufferPointer { mean in
    md.deviation.withUnsafeBufferPointer { deviation in
    rsiColumn.withUnsafeBufferPointer { rsi in
    indicators.dayEnd.withUnsafeBufferPointer { dayEnd in
    indicators.dayEndsBefore.withUnsafeBufferPointer { dayEndsBefore in
      @inline(__always) func exit(_ t: Int, _ price: Double, _ reason: ExitReason, ambiguous: Bool = false) {
        let fee = commission.fee(shares: shares, price: price)
        cash += shares * price - fee
        accumulator.add(Trade(entryBar: entryBar, entryPrice: entryPrice, exitBar: t, exitPrice: price, shares: shares,
                              entryFee: entryFee, exitFee: fee, exitReason: reason))
        shares = 0
      }
      @inline(__always) func sellPrice(_ t: Int, _ price: Double) -> Double {
        BrokerRules.sellPrice(price, low: low[t], slip: slip)
      }
      var t = 0
      while t < n {
        if pendingBuy {
          pendingBuy = false
          let price = BrokerRules.buyPrice(open: open[t], high: high[t], slip: slip)
          let qty = BrokerRules.entryShares(cash: cash, price: price, sizing: sizing, commission: commission)
          if qty > 0 {
            entryFee = commission.fee(shares: qty, price: price)
            cash -= qty * price + entryFee
            shares = qty
            entryPrice = price
            entryBar = t
            (stop, target) = BrokerRules.levels(entry: price, stopLoss: stopLoss, profitTarget: profitTarget)
          }
        } else if pendingSell {
          pendingSell = false
          exit(t, sellPrice(t, open[t]), .technical)
        }
        if shares > 0, let e = BrokerRules.intrabarExit(open: open[t], high: high[t], low: low[t], stop: stop, target: target,
                                                          entryBar: t == entryBar, rule: rule) {
          exit(t, sellPrice(t, e.price), e.reason)
        }
        let held = shares > 0
        if !held && t < n - 1 {
          // Flat: the account stands still until the next buy signal. Find it (the
          // RSI test first: it is the rarer one), and mark the bars up to it at once.
          var s = max(t, firstDecision)
          let threshold = SIMD4<Double>(repeating: oversold), width = SIMD4<Double>(repeating: k)
          let rsiBase = UnsafeRawPointer(rsi.baseAddress!), closeBase = UnsafeRawPointer(close.baseAddress!)
          let meanBase = UnsafeRawPointer(mean.baseAddress!), deviationBase = UnsafeRawPointer(deviation.baseAddress!)
          // Four bars at a time: the RSI test first (the rarer one), then the band test on
          // those four only; NaN compares false, and the lanes compute exactly what the
          // scalar test below computes.
          var found = false
          while s + 4 <= n - 1 {
            let low = rsiBase.loadUnaligned(fromByteOffset: s * 8, as: SIMD4<Double>.self) .< threshold
            if any(low) {
              let below = closeBase.loadUnaligned(fromByteOffset: s * 8, as: SIMD4<Double>.self)
                .< meanBase.loadUnaligned(fromByteOffset: s * 8, as: SIMD4<Double>.self)
                - width * deviationBase.loadUnaligned(fromByteOffset: s * 8, as: SIMD4<Double>.self)
              let hit = low .& below
              if any(hit) {
                s += hit[0] ? 0 : hit[1] ? 1 : hit[2] ? 2 : 3
                found = true
                break
              }
            }
            s += 4
          }
          while !found && s < n - 1 && !(rsi[s] < oversold && close[s] < mean[s] - k * deviation[s]) { s += 1 }
          let end = s < n - 1 ? s + 1 : n - 1
          accumulator.markFlat(equity: cash, count: end - t, dayEnds: dayEndsBefore[end] - dayEndsBefore[t])
          pendingBuy = s < n - 1
          t = end
          continue
        }
        var equity = cash + shares * close[t]
        if t == n - 1 {
          if held {
            // As in Engine.run: marked before the END_OF_DATA close, less that close's commission.
            equity -= commission.fee(shares: shares, price: close[t])
            exit(t, close[t], .endOfData)
          }
          accumulator.mark(equity: equity, held: held, dayEnd: true)
          break
        }
        accumulator.mark(equity: equity, held: true, dayEnd: dayEnd[t])
        if t >= firstDecision && (close[t] > mean[t] + k * deviation[t] || rsi[t] > overbought) {
          pendingSell = true
        }
        t += 1
      }
    }}}}}}}}}
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
