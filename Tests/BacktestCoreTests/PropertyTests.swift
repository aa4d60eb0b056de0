import BacktestCore
import Testing

@Suite struct PropertyTests {
  static let seeds: [UInt64] = Array(1...12)

  static func parameters(_ rng: inout SplitMix64) -> BollingerRSI.Parameters {
    var p = BollingerRSI.Parameters()
    p.bollingerPeriod = 5 + Int(rng.next() % 30)
    p.bollingerDeviations = 1 + rng.unit() * 1.5
    p.rsiPeriod = 3 + Int(rng.next() % 20)
    p.oversold = 25 + rng.unit() * 15
    p.profitTarget = rng.unit() < 0.5 ? nil : 0.01 + rng.unit() * 0.03
    return p
  }

  @Test("cutting the bars after bar k changes no indicator, fill or account value at or before k", arguments: seeds)
  func noLookAhead(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    let bars = SyntheticBars.generate(count: 2500, seed: seed)
    let p = Self.parameters(&rng)
    var full = BollingerRSI(parameters: p, bars: bars)
    let all = Engine.run(&full, bars: bars, broker: BrokerSettings())
    for _ in 0..<5 {
      let k = 50 + Int(rng.next() % 2400)
      let cut = bars.prefix(k + 1)
      var part = BollingerRSI(parameters: p, bars: cut)
      let partial = Engine.run(&part, bars: cut, broker: BrokerSettings())
      for i in 0...k {
        #expect(part.bands.lower[i].bitPattern == full.bands.lower[i].bitPattern, "seed \(seed) k \(k) lower[\(i)]")
        #expect(part.rsi[i].bitPattern == full.rsi[i].bitPattern, "seed \(seed) k \(k) rsi[\(i)]")
      }
      #expect(Array(partial.equity[0..<k]) == Array(all.equity[0..<k]), "seed \(seed) k \(k) equity")
      #expect(Array(partial.shares[0...k]) == Array(all.shares[0...k]), "seed \(seed) k \(k) shares")
      let closedBefore = all.trades.filter { $0.exitBar < k }
      #expect(Array(partial.trades.prefix(closedBefore.count)) == closedBefore, "seed \(seed) k \(k) trades")
    }
  }

  @Test("every fill lies in its bar's range; cash never goes negative; P&L adds up to the equity change",
        arguments: seeds)
  func accounting(seed: UInt64) {
    var rng = SplitMix64(seed: seed &+ 100)
    let bars = SyntheticBars.generate(count: 3000, seed: seed)
    var broker = BrokerSettings()
    broker.slippageBasisPoints = Double(rng.next() % 20)
    broker.commission = [.none, .perTrade(1), .perShare(0.01), .percent(0.001)][Int(rng.next() % 4)]
    var s = BollingerRSI(parameters: Self.parameters(&rng), bars: bars)
    let r = Engine.run(&s, bars: bars, broker: broker)
    #expect(!r.trades.isEmpty, "seed \(seed): no trades, the property says little")
    for t in r.trades {
      #expect(bars.low[t.entryBar] <= t.entryPrice && t.entryPrice <= bars.high[t.entryBar], "seed \(seed) entry")
      #expect(bars.low[t.exitBar] <= t.exitPrice && t.exitPrice <= bars.high[t.exitBar], "seed \(seed) exit")
      #expect(t.entryBar <= t.exitBar)
    }
    #expect(r.cash.allSatisfy { $0 >= -1e-9 }, "seed \(seed): negative cash")
    let pnl = r.trades.reduce(0) { $0 + $1.pnl }
    #expect(abs(r.equity.last! - broker.initialCash - pnl) < 1e-6, "seed \(seed): \(r.equity.last!) vs \(pnl)")
    for i in bars.indices.dropLast() {
      #expect(abs(r.equity[i] - (r.cash[i] + r.shares[i] * bars.close[i])) <= 1e-9 * r.equity[i])
    }
  }

  @Test("positions never overlap, and trades come in time order", arguments: seeds)
  func oneAtATime(seed: UInt64) {
    var rng = SplitMix64(seed: seed &+ 200)
    let bars = SyntheticBars.generate(count: 3000, seed: seed)
    var s = BollingerRSI(parameters: Self.parameters(&rng), bars: bars)
    let trades = Engine.run(&s, bars: bars, broker: BrokerSettings()).trades
    for (a, b) in zip(trades, trades.dropFirst()) {
      #expect(a.exitBar <= b.entryBar, "seed \(seed)")
    }
  }
}
