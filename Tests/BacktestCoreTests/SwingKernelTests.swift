import BacktestCore
import BacktestRun
import Testing

@Suite struct SwingKernelTests {
  @Test("the sweep kernel's statistics equal the general engine's bit for bit", arguments: Array(UInt64(1)...16))
  func equivalence(seed: UInt64) {
    var rng = SplitMix64(seed: seed &* 7919)
    let bars = SyntheticBars.generate(count: 1500 + Int(rng.next() % 3000), seed: seed)
    var p = PropertyTests.parameters(&rng)
    func draw() {
      p = PropertyTests.parameters(&rng)
      p.stopLoss = rng.unit() < 0.2 ? nil : 0.005 + rng.unit() * 0.03
      p.overbought = 60 + rng.unit() * 20
    }
    var probe = BollingerRSI(parameters: p, bars: bars)
    while Engine.run(&probe, bars: bars, broker: BrokerSettings()).trades.isEmpty {
      draw()
      probe = BollingerRSI(parameters: p, bars: bars)
    }
    var broker = BrokerSettings()
    switch rng.next() % 4 {
    case 0: broker.commission = .perTrade(1)
    case 1: broker.commission = .percent(0.001)
    default: break
    }
    if rng.next() % 3 == 0 { broker.slippageBasisPoints = 5 }
    switch rng.next() % 6 {
    case 0: broker.sizing = .fraction(0.5)
    case 1 where p.stopLoss != nil: broker.sizing = .risk(0.01)
    case 2: broker.sizing = .fixedCash(4_000)
    default: break
    }
    if rng.next() % 2 == 0 { broker.intrabarRule = .optimistic }

    var strategy = BollingerRSI(parameters: p, bars: bars)
    let expected = PerformanceSummary(result: Engine.run(&strategy, bars: bars, broker: broker), bars: bars)
    // Shared as in a sweep, with a combination that differs only in its threshold.
    var looser = p
    looser.oversold += 10
    let shared = SharedIndicators(bars: bars, parameters: [looser, p])
    var accumulator = SummaryAccumulator()
    let actual = SwingKernel.run(bars: bars, indicators: shared, parameters: p, broker: broker, accumulator: &accumulator)
    #expect(expected.totalTrades > 0, "seed \(seed): no trades")
    #expect(actual == expected, "seed \(seed)")
    // Reusing the accumulator gives the same answer again.
    #expect(SwingKernel.run(bars: bars, indicators: shared, parameters: p, broker: broker, accumulator: &accumulator) == expected)
  }
}

@Suite struct SwingSignalsTests {
  @Test("buy lists and sell bits are the strategy's tests at each bar, across chunk boundaries", arguments: [UInt64(3), 4, 5])
  func signalsMatchColumns(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    let bars = SyntheticBars.generate(count: 5_000 + Int(rng.next() % 1_000), seed: seed)
    var p = PropertyTests.parameters(&rng)
    p.overbought = 60 + rng.unit() * 20
    var looser = p
    looser.oversold += 7
    let shared = SharedIndicators(bars: bars, parameters: [p, looser])
    let (mean, deviation) = rollingMeanDeviation(bars.close, period: p.bollingerPeriod)
    let rsiColumn = rsi(bars.close, period: p.rsiPeriod)
    let k = p.bollingerDeviations, n = bars.count
    let firstDecision = max(p.bollingerPeriod - 1, p.rsiPeriod)
    var sells = 0
    for t in 0..<n {
      let expected = bars.close[t] > mean[t] + k * deviation[t] || rsiColumn[t] > p.overbought
      #expect(shared.signals[SwingSignals.Key(p)]!.sell[t] == expected, "seed \(seed) bar \(t)")
      sells += expected ? 1 : 0
    }
    #expect(sells > 0)
    for q in [p, looser] {
      let expected = (firstDecision..<(n - 1)).filter {
        rsiColumn[$0] < q.oversold && bars.close[$0] < mean[$0] - k * deviation[$0]
      }
      #expect(!expected.isEmpty)
      #expect(Array(shared.signals[SwingSignals.Key(q)]!.buys) == expected, "seed \(seed) oversold \(q.oversold)")
    }
    // The day-end counts: bar i's day ends after dayEndsBefore[i] others.
    #expect(shared.dayEndsBefore.count == n + 1 && shared.dayEndsBefore[0] == 0)
    for i in 0..<n {
      let isEnd = i == n - 1 || bars.day[i + 1] != bars.day[i]
      if shared.dayEndsBefore[i + 1] - shared.dayEndsBefore[i] != (isEnd ? 1 : 0) { Issue.record("day ends at bar \(i)"); break }
    }
  }
}
