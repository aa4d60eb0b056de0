import BacktestCore
import ExampleStrategies
import Foundation
import Testing

@Suite struct DonchianTests {
  /// Daily bars made by hand: (open, high, low, close) from 2024-01-01.
  static func bars(_ rows: [(Double, Double, Double, Double)]) -> BarSeries {
    var bars = BarSeries(source: "hand")
    for (k, r) in rows.enumerated() {
      let day = Int32(19_723 + k)
      let label = Array("day\(k)".utf8)
      bars.append(time: Int64(day) * 86_400, day: day, open: r.0, high: r.1, low: r.2, close: r.3, volume: 0, label: label)
    }
    return bars
  }

  @Test("buys the open after a close above the previous highs and sells the open after a close below the previous lows")
  func breakout() {
    var p = Donchian.Parameters()
    p.entryPeriod = 3
    p.exitPeriod = 2
    let b = Self.bars([
      (10, 11, 9, 10), (10, 12, 9, 11), (11, 12, 10, 11),  // highs 11, 12, 12
      (11, 13, 11, 12.5),  // bar 3: close 12.5 > max(11, 12, 12) = 12: buy at bar 4's open
      (12, 14, 12, 13.5), (13, 14, 12.5, 13),
      (13, 13, 11, 11.8),  // bar 6: close 11.8 < min(low 12, 12.5) = 12: sell at bar 7's open
      (11.5, 12, 11, 11.6),
    ])
    var s = Donchian(parameters: p, bars: b)
    #expect(s.firstDecisionBar == 3)
    #expect(s.upper[3] == 12 && s.lower[3] == 9)
    let result = Engine.run(&s, bars: b, broker: BrokerSettings())
    #expect(result.trades.count == 1)
    let t = result.trades[0]
    #expect(t.entryBar == 4 && t.entryPrice == 12 && t.exitBar == 7 && t.exitPrice == 11.5 && t.exitReason == .technical)
  }

  @Test("the decision at a position view with an open position, unit-tested without the engine")
  func decideWithPosition() {
    var p = Donchian.Parameters()
    p.entryPeriod = 2
    p.exitPeriod = 2
    let b = Self.bars([(10, 11, 9, 10), (10, 11, 9, 10), (10, 11, 9, 8.5)])
    var s = Donchian(parameters: p, bars: b)
    #expect(s.decide(at: 2, position: .flat) == .hold)
    #expect(s.decide(at: 2, position: PositionView(shares: 100, entryPrice: 10, entryBar: 1)) == .exitLong(.technical))
  }

  @Test("strategies built over one indicator store (as a sweep's combinations are) share each channel and trade as each built alone")
  func sharedChannels() throws {
    // A random walk of daily bars (a fixed linear congruential sequence).
    var state: UInt64 = 7, close = 100.0
    var rows: [(Double, Double, Double, Double)] = []
    for _ in 0..<3_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let open = close
      close = (open * (1 + (Double(state >> 11) / Double(1 << 53) - 0.5) * 0.04) * 100).rounded() / 100
      rows.append((open, max(open, close) + 0.3, min(open, close) - 0.3, close))
    }
    let bars = Self.bars(rows)
    let shared = IndicatorStore()
    for entry in [10, 20, 30] {
      for exit in [10, 20] {
        var p = Donchian.Parameters()
        (p.entryPeriod, p.exitPeriod, p.stopLoss) = (entry, exit, 0.08)
        var sharing = Donchian(parameters: p, bars: bars, indicators: shared)
        var alone = Donchian(parameters: p, bars: bars)
        let a = Engine.run(&sharing, bars: bars, broker: BrokerSettings()), b = Engine.run(&alone, bars: bars, broker: BrokerSettings())
        #expect(a.trades == b.trades && a.equity == b.equity, "entry \(entry), exit \(exit)")
        #expect(PerformanceSummary(result: a, bars: bars) == PerformanceSummary(result: b, bars: bars))
        #expect(b.trades.count > 0)
      }
    }
    // One column per distinct period of each channel: three highs and two lows, not one pair per combination.
    #expect(shared.count == 5)
  }

}
