import BacktestCore
import Foundation

/// The `bollinger_rsi` strategy and its broker fused into one loop for sweeps.
///
/// It follows `Engine.run` with `BollingerRSI` event for event (fills at the
/// open, intrabar stop and target, marks, decisions at the close) and feeds
/// the same tallies as `SummaryAccumulator`, so its statistics are
/// bit-identical to a full run's (a property test holds it to that). It
/// stores nothing per bar and reads its signals from `SwingSignals` shared
/// with the other combinations of the same bands.
///
/// The loop alternates two phases: flat, it finds the next buy signal (the
/// next bit set in both buy arrays, a word at a time) and marks the bars up
/// to it at once; holding, it walks bar
/// by bar until an exit, with the account's marks in registers and each
/// bar's equity written straight into its day's slot.
package struct SwingKernel: SweepKernel {
  /// What the parameter sets share: day ends and each signal key's bits.
  package let indicators: SharedIndicators

  package init(bars: BarSeries, parameters: [BollingerRSI.Parameters]) {
    indicators = SharedIndicators(bars: bars, parameters: parameters)
  }

  package func simulate(_ parameters: BollingerRSI.Parameters, bars: BarSeries, broker: BrokerSettings,
                       accumulator: inout SummaryAccumulator) {
    Self.simulate(bars: bars, indicators: indicators, parameters: parameters, broker: broker, accumulator: &accumulator)
  }

  package static func run(bars: BarSeries, indicators: SharedIndicators, parameters p: BollingerRSI.Parameters,
                         broker: BrokerSettings, accumulator: inout SummaryAccumulator) -> PerformanceSummary {
    simulate(bars: bars, indicators: indicators, parameters: p, broker: broker, accumulator: &accumulator)
    return accumulator.summary(initialCash: broker.initialCash, calendarDays: calendarDays(bars))
  }

  /// From the first bar's date to the last's.
  static func calendarDays(_ bars: BarSeries) -> Int { Int(bars.day[bars.count - 1]) - Int(bars.day[0]) }

  /// `run` without the summary: the trades and marks are left in `accumulator`.
  static func simulate(bars: BarSeries, indicators: SharedIndicators, parameters p: BollingerRSI.Parameters,
                       broker: BrokerSettings, accumulator: inout SummaryAccumulator) {
    guard let signals = indicators.signals[SwingSignals.Key(p)] else { preconditionFailure("indicators missing for \(p)") }
    simulate(bars: bars, dayEndsBefore: indicators.dayEndsBefore, signals: signals, stopLoss: p.stopLoss,
             profitTarget: p.profitTarget, broker: broker, accumulator: &accumulator)
  }

  /// The fused loop for any long-only rule whose buys and sells are known as
  /// bits before the run (`signals`), with a stop-loss and profit target as
  /// fractions of the entry fill; `dayEndsBefore` as `SharedIndicators` holds it.
  static func simulate(bars: BarSeries, dayEndsBefore: ContiguousArray<Int>, signals: SwingSignals, stopLoss: Double?,
                       profitTarget: Double?, broker: BrokerSettings, accumulator: inout SummaryAccumulator) {
    accumulator.reset()
    let n = bars.count
    precondition(n > 0, "no bars")
    let slip = broker.slippageBasisPoints / 10_000
    let commission = broker.commission
    let rule = broker.intrabarRule
    let sizing = broker.sizing
    let days = dayEndsBefore[n]
    var cash = broker.initialCash
    var trades = TradeTally(), marks = EquityMarks()

    accumulator.fillDayEnds(count: days) { dayEquity in
    bars.open.withUnsafeBufferPointer { open in
    bars.high.withUnsafeBufferPointer { high in
    bars.low.withUnsafeBufferPointer { low in
    bars.close.withUnsafeBufferPointer { close in
    bars.day.withUnsafeBufferPointer { day in
    dayEndsBefore.withUnsafeBufferPointer { dayEndsBefore in
    signals.underBand.words.withUnsafeBufferPointer { underBand in
    signals.underRSI.words.withUnsafeBufferPointer { underRSI in
    signals.sell.words.withUnsafeBufferPointer { sell in
      let firstBuy = signals.firstBuy
      // Bar t's equity goes to the slot of its day (the day ends before it); the
      // day's last bar writes last, so each slot ends up with its day-end equity.
      var t = 0
      flat: while true {
        if t == n - 1 {
          marks.mark(cash, bar: t, day: day[t])
          dayEquity[days - 1] = cash
          break flat
        }
        // The next buy signal from here (none: s = n - 1).
        let s = SwingSignals.nextBuy(t, band: underBand, rsi: underRSI, firstBuy: firstBuy, bars: n)
        // The account stands still up to the signal's bar; the buy fills at the next open.
        let end = s < n - 1 ? s + 1 : n - 1
        marks.markFlat(cash, bars: t..<end, days: (day[t], day[end - 1]))
        for d in dayEndsBefore[t]..<dayEndsBefore[end] { dayEquity[d] = cash }
        t = end
        guard s < n - 1 else { continue flat }

        let entryPrice = BrokerRules.buyPrice(open: open[t], high: high[t], slip: slip)
        let shares = BrokerRules.entryShares(cash: cash, price: entryPrice, sizing: sizing, commission: commission, stopLoss: stopLoss,
                                             exposure: 1)
        guard shares > 0 else { continue flat }
        let entryFee = commission.fee(shares: shares, price: entryPrice)
        cash -= shares * entryPrice + entryFee
        let entryBar = t
        let (stop, target) = BrokerRules.levels(entry: entryPrice, stopLoss: stopLoss, profitTarget: profitTarget)
        @inline(__always) func exit(_ t: Int, _ price: Double, _ reason: ExitReason) {
          let fee = commission.fee(shares: shares, price: price)
          cash += shares * price - fee
          trades.add(Trade(entryBar: entryBar, entryPrice: entryPrice, exitBar: t, exitPrice: price, shares: shares,
                           entryFee: entryFee, exitFee: fee, exitReason: reason), calendarDays: Int(day[t]) - Int(day[entryBar]))
        }
        // Holding.
        while true {
          let o = open[t], h = high[t], l = low[t]
          // Neither level touched (the common case), else the exact rule.
          if !(o > stop && l > stop && o < target && h < target),
             let e = BrokerRules.intrabarExit(open: o, high: h, low: l, stop: stop, target: target, rule: rule) {
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
            marks.mark(final, bar: t, day: day[t])
            marks.barsHeld += n - entryBar
            dayEquity[days - 1] = final
            break flat
          }
          marks.mark(equity, bar: t, day: day[t])
          dayEquity[dayEndsBefore[t]] = equity
          if sell[t >> 6] >> UInt64(t & 63) & 1 != 0 {
            // The sell fills at the next open; flat from that bar on.
            t += 1
            exit(t, BrokerRules.sellPrice(open[t], low: low[t], slip: slip), .technical)
            marks.barsHeld += t - entryBar
            continue flat
          }
          t += 1
        }
      }
    }}}}}}}}}}
    marks.barsMarked = n
    accumulator.trades = trades
    accumulator.marks = marks
  }
}
