@testable import BacktestCore
@testable import BacktestRun
import Testing

/// A sweep's run of the general engine keeps only the statistics (`SweepData.summary`); they must be the full
/// run's (`SweepData.trial`) bit for bit, whatever the strategy, the broker and the money from outside.
@Suite struct SweepSummaryTests {
  static let strategies = [
    "{type: bollinger_rsi, stop_loss: 2%}",
    """
    {type: rules, params: {n: 20}, entry: 'close < bb_lower(close, n, 2)', exit: 'close > bb_mid(close, n) or bars_held >= 30', \
    stop_loss: 3%, trailing_stop: 4%}
    """,
    """
    {type: rules, params: {n: 10}, entry: 'close < sma(close, n) * 0.99', exit: 'close > sma(close, n)', \
    short_entry: 'close > sma(close, n) * 1.01', short_exit: 'close < sma(close, n)', max_bars_held: 25}
    """,
    """
    {type: rules, params: {n: 15}, entry: 'close > close[1]', exit: 'close < sma(close, n)', \
    entry_order: {type: limit, price: close * 0.995, valid_bars: 3}, profit_target: 2%}
    """,
  ]

  static let portfolios = [
    "{initial_cash: 100000}",
    "{initial_cash: 50000, commission: {per_trade: 1}, slippage_bps: 5, expense_ratio: 0.5%}",
    "{initial_cash: 20000, commission: {percent: 0.1%}, sizing: {fraction: 0.5}, intrabar_rule: optimistic}",
  ]

  @Test("a sweep's statistics-only run gives the full run's statistics and daily returns bit for bit", arguments: Array(UInt64(1)...6))
  func summaryIsTheTrialsSummary(seed: UInt64) throws {
    var rng = SplitMix64(seed: seed &* 104_729)
    let bars = SyntheticBars.generate(count: 1500 + Int(rng.next() % 2500), seed: seed)
    // Dividends on some seeds: ex-dates every few hundred bars, paid some days later (some after the last bar).
    var dividends: [Dividend] = []
    if seed % 2 == 0 {
      var k = 100 + Int(rng.next() % 200)
      while k < bars.count {
        dividends.append(Dividend(exDay: Int(bars.day[k]), payDay: Int(bars.day[k]) + 10, amount: 0.1 + rng.unit()))
        k += 150 + Int(rng.next() % 300)
      }
    }
    let data = SweepData.asset(bars: bars, cycle: nil, dividends: dividends)
    let indicators = IndicatorStore()
    var accumulator = SummaryAccumulator()
    for strategy in Self.strategies {
      let portfolio = Self.portfolios[Int(rng.next() % UInt64(Self.portfolios.count))]
      let text = "name: s\ndata: {bars: b.csv}\nstrategy: \(strategy)\nportfolio: \(portfolio)\n"
      let config = try RunConfig.parse(text, file: "s.yaml")
      let job = SweepJob(combination: SweepCombination(index: 0, values: []), config: config)
      let trial = data.trial(job)
      let summary = try #require(data.summary(job, indicators: indicators, accumulator: &accumulator))
      #expect(trial.summary.totalTrades > 0, "seed \(seed) \(strategy): no trades")
      #expect(summary == trial.summary, "seed \(seed) \(strategy) \(portfolio)")
      #expect(accumulator.dailyReturns.map(\.bitPattern) == trial.dailyReturns.map(\.bitPattern), "seed \(seed) \(strategy) \(portfolio)")
    }
  }

  @Test("each strategy type sees its own part of a sweep's indicator store: the same key from two types gives two values")
  func storeScopedByType() {
    let store = IndicatorStore()
    let a = store.scope(for: BollingerRSI.self).shared("channel 20") { ContiguousArray<Double>([1]) }
    let b = store.scope(for: SMACross.self).shared("channel 20") { ContiguousArray<Double>([2]) }
    #expect(a == [1] && b == [2])
    // Within one type the key is shared: the second compute is not run.
    #expect(store.scope(for: BollingerRSI.self).shared("channel 20") { ContiguousArray<Double>([3]) } == [1])
  }

}
