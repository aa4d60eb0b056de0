import BacktestCore
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
    if rng.next() % 3 == 0 { broker.sizing = .fraction(0.5) }
    if rng.next() % 2 == 0 { broker.intrabarRule = .optimistic }

    var strategy = BollingerRSI(parameters: p, bars: bars)
    let expected = PerformanceSummary(result: Engine.run(&strategy, bars: bars, broker: broker), bars: bars)
    // Shared as in a sweep: the buy candidates are gathered for a looser threshold too.
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
