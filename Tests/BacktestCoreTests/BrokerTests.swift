import BacktestCore
import BacktestRun
import Testing

/// A broker rule on hand-made bars with its hand-worked fills.
struct FillCase: CustomTestStringConvertible, Sendable {
  var name: String
  var bars: [(Double, Double, Double, Double)]
  var signals: [Int: Signal]
  /// (entry bar, entry price, exit bar, exit price, reason) per trade.
  var expected: [(Int, Double, Int, Double, ExitReason)]
  var testDescription: String { name }

  static let buy = Signal.enterLong(stopLoss: 0.02, profitTarget: 0.03)
  static let buyNoTarget = Signal.enterLong(stopLoss: 0.02, profitTarget: nil)

  static let all: [FillCase] = [
    FillCase(name: "market buy fills at the next open; technical sell at the next open",
             bars: [(100, 101, 99, 100), (100.5, 101, 99.5, 100.8), (101, 102, 100.5, 101.5), (101.2, 102, 100.9, 101)],
             signals: [0: buyNoTarget, 1: .exitLong(.technical)],
             expected: [(1, 100.5, 2, 101, .technical)]),
    FillCase(name: "gap through the stop exits at the open, not at the stop",
             bars: [(100, 101, 99, 100), (100, 100.5, 99.5, 100), (97, 99, 96, 98.5), (98, 99, 97, 98)],
             signals: [0: buyNoTarget],
             expected: [(1, 100, 2, 97, .stopLoss)]),
    FillCase(name: "a bar trading down through the stop exits at the stop level",
             bars: [(100, 101, 99, 100), (100, 100.5, 99.5, 100), (99.5, 99.8, 97.5, 99), (99, 99, 98, 98.5)],
             signals: [0: buyNoTarget],
             expected: [(1, 100, 2, 98, .stopLoss)]),
    FillCase(name: "stop wins when stop and target are touched in one bar",
             bars: [(100, 101, 99, 100), (100, 100.5, 99.5, 100), (100, 103.5, 97.9, 101), (101, 101, 100, 100.5)],
             signals: [0: buy],
             expected: [(1, 100, 2, 98, .stopLoss)]),
    FillCase(name: "an open above the target exits there even if the low reaches the stop",
             bars: [(100, 101, 99, 100), (100, 100.5, 99.5, 100), (104, 104.5, 97, 98), (98, 99, 97, 98)],
             signals: [0: buy],
             expected: [(1, 100, 2, 104, .profitTarget)]),
    FillCase(name: "the target is reached intrabar and fills at the target level",
             bars: [(100, 101, 99, 100), (100, 100.5, 99.5, 100), (100.5, 103.2, 100.1, 102), (102, 102, 101, 101)],
             signals: [0: buy],
             expected: [(1, 100, 2, 103, .profitTarget)]),
    FillCase(name: "the stop is checked on the entry bar itself",
             bars: [(100, 101, 99, 100), (100, 100.2, 97.5, 99), (99, 99.5, 98.5, 99)],
             signals: [0: buyNoTarget],
             expected: [(1, 100, 1, 98, .stopLoss)]),
    FillCase(name: "a position closed intrabar is re-entered by a signal at that bar's close",
             bars: [(100, 101, 99, 100), (100, 100.2, 97.5, 99), (99.2, 99.5, 98.8, 99.1), (99.3, 99.6, 99, 99.4)],
             signals: [0: buyNoTarget, 1: buyNoTarget],
             expected: [(1, 100, 1, 98, .stopLoss), (2, 99.2, 3, 99.4, .endOfData)]),
    FillCase(name: "a technical sell due at the open wins over a stop touched later in that bar",
             bars: [(100, 101, 99, 100), (100, 100.5, 99.5, 100), (99.5, 99.6, 97, 98), (98, 98, 97, 97.5)],
             signals: [0: buyNoTarget, 1: .exitLong(.technical)],
             expected: [(1, 100, 2, 99.5, .technical)]),
    FillCase(name: "a decision on the last bar is dropped; an open position closes at the last close",
             bars: [(100, 101, 99, 100), (100, 100.5, 99.5, 100.2), (100.3, 100.9, 99.9, 100.6)],
             signals: [0: buyNoTarget, 2: .exitLong(.technical)],
             expected: [(1, 100, 2, 100.6, .endOfData)]),
    FillCase(name: "a buy decided on the last bar never fills",
             bars: [(100, 101, 99, 100), (100, 100.5, 99.5, 100.2)],
             signals: [1: buyNoTarget],
             expected: []),
    FillCase(name: "levels are computed in binary floating point: a low of 96.04 does not reach 98 * (1 - 0.02)",
             bars: [(100, 101, 99, 100), (98, 98.5, 97.5, 98), (97, 97.5, 96.04, 97), (97, 97.2, 96.0399, 97)],
             signals: [0: buyNoTarget],
             expected: [(1, 98, 3, 98 * (1 - 0.02), .stopLoss)]),
  ]
}

@Suite struct BrokerTests {
  @Test("fills follow the spec's order of events", arguments: FillCase.all)
  func fills(_ c: FillCase) {
    let (result, _) = runScripted(handBars(c.bars), c.signals)
    #expect(result.trades.count == c.expected.count)
    for (t, e) in zip(result.trades, c.expected) {
      #expect(t.entryBar == e.0 && t.entryPrice == e.1 && t.exitBar == e.2 && t.exitPrice == e.3 && t.exitReason == e.4,
              "got \(t.entryBar)@\(t.entryPrice) → \(t.exitBar)@\(t.exitPrice) \(t.exitReason)")
    }
  }

  @Test("whole shares: floor(cash / price); cash and equity follow the fills")
  func accounting() {
    let bars = handBars([(100, 101, 99, 100), (33, 34, 32, 33.5), (34, 35, 33, 34.5), (35, 36, 34, 35)])
    let (result, _) = runScripted(bars, [0: .enterLong(stopLoss: nil, profitTarget: nil), 1: .exitLong(.technical)])
    let t = result.trades[0]
    #expect(t.shares == 3030)  // floor(100000 / 33)
    #expect(result.cash[1] == 100_000 - 3030 * 33)
    let markedEquity: Double = 100_000 - 3030 * 33 + 3030 * 33.5
    #expect(result.equity[1] == markedEquity)
    #expect(t.pnl == 3030 * (34 - 33))
    #expect(result.equity[3] == 100_000 + 3030)
    #expect(result.shares[1] == 3030 && result.shares[2] == 0)
  }

  @Test("a buy that cannot afford one share is skipped and counted")
  func zeroShares() {
    let bars = handBars([(100, 101, 99, 100), (200_000, 200_001, 199_999, 200_000), (1, 1, 1, 1)])
    let (result, _) = runScripted(bars, [0: .enterLong(stopLoss: nil, profitTarget: nil)])
    #expect(result.trades.isEmpty && result.fills.skippedEntries == 1)
  }

  @Test("commission models: per trade, per share and percent, worked by hand")
  func commissions() {
    let bars = handBars([(100, 101, 99, 100), (50, 51, 49, 50), (60, 61, 59, 60), (60, 61, 59, 60)])
    let signals: [Int: Signal] = [0: .enterLong(stopLoss: nil, profitTarget: nil), 1: .exitLong(.technical)]
    var broker = BrokerSettings()
    broker.initialCash = 1000

    broker.commission = .perTrade(5)
    var t = runScripted(bars, signals, broker: broker).result.trades[0]
    #expect(t.shares == 19 && t.fees == 10)                      // floor(995 / 50)
    #expect(t.pnl == 19 * 10 - 10)
    let expectedReturn: Double = (19.0 * 60 - 5) / (19.0 * 50 + 5) - 1
    #expect(t.returnFraction == expectedReturn)

    broker.commission = .perShare(1)
    t = runScripted(bars, signals, broker: broker).result.trades[0]
    #expect(t.shares == 19 && t.fees == 38)                      // floor(1000 / 51)

    broker.commission = .percent(0.01)
    let r = runScripted(bars, signals, broker: broker).result
    t = r.trades[0]
    #expect(t.shares == 19)                                       // floor(1000 / 50.5)
    let expectedFees: Double = 0.01 * 19 * 50 + 0.01 * 19 * 60
    #expect(abs(t.fees - expectedFees) < 1e-12)
    #expect(abs(r.equity[3] - (1000 + t.pnl)) < 1e-9)
  }

  @Test("slippage moves fills against the trader but never outside the bar")
  func slippage() {
    let bars = handBars([(100, 101, 99, 100), (100, 100.05, 99, 100), (100, 101, 99.99, 100), (100, 101, 99, 100)])
    var broker = BrokerSettings()
    broker.slippageBasisPoints = 10
    let t = runScripted(bars, [0: .enterLong(stopLoss: nil, profitTarget: nil), 1: .exitLong(.technical)], broker: broker).result.trades[0]
    #expect(t.entryPrice == 100.05)   // 100 * 1.001 = 100.1, capped at the high
    #expect(t.exitPrice == 99.99)     // 100 * 0.999 = 99.9, raised to the low
  }

  @Test("sizing: a fixed number of shares, and a fraction of the cash")
  func sizing() {
    let bars = handBars([(100, 101, 99, 100), (10, 11, 9, 10), (10, 11, 9, 10)])
    var broker = BrokerSettings()
    broker.sizing = .fixedShares(7)
    #expect(runScripted(bars, [0: .enterLong(stopLoss: nil, profitTarget: nil)], broker: broker).result.trades[0].shares == 7)
    broker.sizing = .fraction(0.25)
    #expect(runScripted(bars, [0: .enterLong(stopLoss: nil, profitTarget: nil)], broker: broker).result.trades[0].shares == 2500)
  }

  @Test("risk sizing: the equity's fraction at risk over the stop's distance, within the cash; no stop, no entry")
  func riskSizing() {
    let bars = handBars([(100, 101, 99, 100), (10, 11, 9, 10), (10, 11, 9, 10)])
    var broker = BrokerSettings()
    broker.sizing = .risk(0.01)
    // 100,000 × 1% = 1,000 at risk; 2% of a 10 fill is 0.2 a share: 5,000 shares. A 5% stop on a short: 2,000.
    #expect(runScripted(bars, [0: .enterLong(stopLoss: 0.02, profitTarget: nil)], broker: broker).result.trades[0].shares == 5_000)
    #expect(runScripted(bars, [0: .enterShort(stopLoss: 0.05, profitTarget: nil)], broker: broker).result.trades[0].shares == 2_000)
    // 50% at risk would want 250,000 shares; the cash buys 10,000.
    broker.sizing = .risk(0.5)
    #expect(runScripted(bars, [0: .enterLong(stopLoss: 0.02, profitTarget: nil)], broker: broker).result.trades[0].shares == 10_000)
    let unstopped = runScripted(bars, [0: .enterLong(stopLoss: nil, profitTarget: nil)], broker: broker).result
    #expect(unstopped.trades.isEmpty && unstopped.fills.skippedEntries == 1)
  }

  @Test("fixed cash sizing: whole shares for the amount, commission included, within the cash")
  func fixedCashSizing() {
    let bars = handBars([(100, 101, 99, 100), (10, 11, 9, 10), (10, 11, 9, 10)])
    var broker = BrokerSettings()
    broker.sizing = .fixedCash(2_505)
    #expect(runScripted(bars, [0: .enterLong(stopLoss: nil, profitTarget: nil)], broker: broker).result.trades[0].shares == 250)
    broker.commission = .perTrade(10)   // 2,495 left for shares
    #expect(runScripted(bars, [0: .enterLong(stopLoss: nil, profitTarget: nil)], broker: broker).result.trades[0].shares == 249)
    broker.commission = .perTrade(0)
    broker.sizing = .fixedCash(1e9)
    #expect(runScripted(bars, [0: .enterLong(stopLoss: nil, profitTarget: nil)], broker: broker).result.trades[0].shares == 10_000)
  }

  @Test("volatility target: min(1, target / annualized deviation of the day-end returns known at the decision)")
  func volatilityTarget() {
    // Two bars a day: day-end closes 100, 110, then day 3's close so far.
    var bars = BarSeries(source: "hand")
    let first = CivilDate.days(year: 2024, month: 1, day: 1)
    for (k, (day, close)) in [(0, 100.0), (1, 105), (1, 110), (2, 99), (2, 98), (3, 100)].enumerated() {
      let d = first + day
      bars.append(time: Int64(d) * 86_400 + Int64(k) * 60, day: Int32(d), open: 100, high: 111, low: 97, close: close, volume: 0,
                  label: Array(CivilDate.isoDate(days: d).utf8))
    }
    let fractions = BrokerRules.volatilityFractions(bars, target: 0.5, lookback: 2)
    // Returns 10% and -10% (99 / 110 - 1): sample deviation √0.02, × √252 = 2.245; 0.5 / 2.245. Then 98 / 110 - 1.
    #expect(Array(fractions[0..<3]) == [0, 0, 0])
    #expect(abs(fractions[3] - 0.2227177015936869) < 1e-15)
    #expect(abs(fractions[4] - 0.21303432326352656) < 1e-15)
    var broker = BrokerSettings()
    broker.sizing = .volatilityTarget(0.5, lookback: 2)
    // Decided at bar 3, filled at bar 4's open of 100: floor(100,000 × 0.22272 / 100).
    #expect(runScripted(bars, [3: .enterLong(stopLoss: nil, profitTarget: nil)], broker: broker).result.trades[0].shares == 222)
    // Decided before two returns are known: nothing.
    #expect(runScripted(bars, [2: .enterLong(stopLoss: nil, profitTarget: nil)], broker: broker).result.fills.skippedEntries == 1)
    // A low-volatility market is capped at the whole equity.
    broker.sizing = .volatilityTarget(50, lookback: 2)
    #expect(runScripted(bars, [3: .enterLong(stopLoss: nil, profitTarget: nil)], broker: broker).result.trades[0].shares == 1_000)
  }

  @Test("the strategy sees the position after intrabar exits, and nothing before firstDecisionBar")
  func positionView() {
    let bars = handBars([(100, 101, 99, 100), (100, 100.2, 97.5, 99), (99, 99.5, 98.5, 99)])
    let (_, s) = runScripted(bars, [0: .enterLong(stopLoss: 0.02, profitTarget: nil)])
    #expect(s.asked.map(\.0) == [0, 1, 2])
    #expect(!s.asked[1].1.isOpen)  // stopped out on bar 1 before its close
  }

  @Test("the position a strategy sees: entry bar and fill price, bars held 0 on the entry bar; trades.csv counts one more")
  func positionBarsHeld() {
    let bars = handBars([(100, 101, 99, 100), (100, 101, 99, 100), (100, 101, 99, 100), (100, 101, 99, 100), (100, 101, 99, 100)])
    var broker = BrokerSettings()
    broker.slippageBasisPoints = 50
    let (result, s) = runScripted(bars, [0: .enterLong(stopLoss: nil, profitTarget: nil), 2: .exitLong(.technical)], broker: broker)
    let views = s.asked.map(\.1)
    #expect(views[0] == .flat && views[0].barsHeld(at: 0) == 0)
    // The fill: 100 × (1 + 50 bps); floor(100,000 / 100.5) shares.
    #expect(views[1].entryBar == 1 && abs(views[1].entryPrice - 100.5) < 1e-9 && views[1].shares == 995)
    #expect(views[1].barsHeld(at: 1) == 0 && views[2].barsHeld(at: 2) == 1)
    #expect(result.trades[0].exitBar == 3 && result.trades[0].barsHeld == 3)
    #expect(!views[3].isOpen && views[3].barsHeld(at: 3) == 0)
  }
}

@Suite struct IntrabarRuleTests {
  static let buy = Signal.enterLong(stopLoss: 0.02, profitTarget: 0.03)

  @Test("stop and target in one bar: conservative takes the stop, optimistic the target; both flag the trade")
  func bothTouched() {
    let bars = handBars([(100, 101, 99, 100), (100, 100.5, 99.5, 100), (100, 103.5, 97.9, 101), (101, 101, 100, 100.5)])
    var broker = BrokerSettings()
    let conservative = runScripted(bars, [0: Self.buy], broker: broker).result
    broker.intrabarRule = .optimistic
    let optimistic = runScripted(bars, [0: Self.buy], broker: broker).result
    #expect(conservative.trades[0].exitPrice == 98 && conservative.trades[0].exitReason == .stopLoss && conservative.trades[0].ambiguous)
    #expect(optimistic.trades[0].exitPrice == 103 && optimistic.trades[0].exitReason == .profitTarget && optimistic.trades[0].ambiguous)
    #expect(conservative.fills.ambiguousBars == 1 && optimistic.fills.ambiguousBars == 1)
  }

  @Test("a stop touched on the entry bar after the open fill is certain: both rules exit at the stop, not ambiguous")
  func entryBarStop() {
    // Bought at the open of bar 1 (100, its first price); the bar then trades down to 97.5 < 98: the stop was hit after the fill.
    let bars = handBars([(100, 101, 99, 100), (100, 100.2, 97.5, 99), (99, 99.5, 98.5, 99)])
    var broker = BrokerSettings()
    for rule in [IntrabarRule.conservative, .optimistic] {
      broker.intrabarRule = rule
      let r = runScripted(bars, [0: Self.buy], broker: broker).result
      #expect(r.trades[0].exitBar == 1 && r.trades[0].exitPrice == 98 && r.trades[0].exitReason == .stopLoss, "\(rule)")
      #expect(!r.trades[0].ambiguous && r.fills.ambiguousBars == 0, "\(rule)")
    }
  }

  /// One bar after a fill at its open 100 (stop 98, target 103): (open, high, low) and the exits under both rules.
  struct AmbiguityCase: CustomTestStringConvertible, Sendable {
    var name: String
    var bar: (open: Double, high: Double, low: Double)
    var conservative: (Double, ExitReason)?
    var optimistic: (Double, ExitReason)?
    var ambiguous: Bool
    var testDescription: String { name }

    static let all = [
      AmbiguityCase(name: "both levels touched: ambiguous, the rules disagree", bar: (100, 103.5, 97.9),
                    conservative: (98, .stopLoss), optimistic: (103, .profitTarget), ambiguous: true),
      AmbiguityCase(name: "only the stop touched: certain", bar: (100, 101, 97.9), conservative: (98, .stopLoss),
                    optimistic: (98, .stopLoss), ambiguous: false),
      AmbiguityCase(name: "only the target touched: certain", bar: (100, 103.5, 99), conservative: (103, .profitTarget),
                    optimistic: (103, .profitTarget), ambiguous: false),
      AmbiguityCase(name: "a gap through the stop: the open, whatever follows", bar: (97, 104, 96), conservative: (97, .stopLoss),
                    optimistic: (97, .stopLoss), ambiguous: false),
      AmbiguityCase(name: "a gap through the target: the open, whatever follows", bar: (104, 105, 97), conservative: (104, .profitTarget),
                    optimistic: (104, .profitTarget), ambiguous: false),
      AmbiguityCase(name: "neither touched: no exit", bar: (100, 102, 99), conservative: nil, optimistic: nil, ambiguous: false),
    ]
  }

  @Test("ambiguous means a bar touching both levels without a gap; only there do the rules differ, on the entry bar as on any other",
        arguments: AmbiguityCase.all)
  func ambiguityDefinition(_ c: AmbiguityCase) {
    for (rule, expected) in [(IntrabarRule.conservative, c.conservative), (.optimistic, c.optimistic)] {
      let e = BrokerRules.intrabarExit(open: c.bar.open, high: c.bar.high, low: c.bar.low, stop: 98, target: 103, rule: rule)
      #expect(e?.price == expected?.0 && e?.reason == expected?.1 && (e?.ambiguous ?? false) == c.ambiguous, "\(rule)")
      // The same bar as the entry bar (bought at its open 100) and as the bar after it.
      var broker = BrokerSettings()
      broker.intrabarRule = rule
      for entryBar in [true, false] {
        let last = (c.bar.open, c.bar.high, c.bar.low, c.bar.open)
        let bars = entryBar ? handBars([(100, 100, 100, 100), (100, c.bar.high, c.bar.low, 100), (100, 100, 100, 100)])
                            : handBars([(100, 100, 100, 100), (100, 100, 100, 100), last, (100, 100, 100, 100)])
        guard entryBar == false || c.bar.open == 100 else { continue }  // an entry bar opens at the fill
        let r = runScripted(bars, [0: Self.buy], broker: broker).result
        let exit = r.trades[0].exitReason == .endOfData ? nil : (r.trades[0].exitPrice, r.trades[0].exitReason)
        #expect(exit?.0 == expected?.0 && exit?.1 == expected?.1, "\(rule), entry bar \(entryBar)")
        #expect(r.trades[0].ambiguous == c.ambiguous && r.fills.ambiguousBars == (c.ambiguous ? 1 : 0), "\(rule), entry bar \(entryBar)")
      }
    }
  }

  @Test("a gap through a level and a plain stop are not ambiguous")
  func notAmbiguous() {
    let gap = handBars([(100, 101, 99, 100), (100, 100.5, 99.5, 100), (97, 99, 96, 98.5), (98, 99, 97, 98)])
    #expect(!runScripted(gap, [0: Self.buy]).result.trades[0].ambiguous)
    let plain = handBars([(100, 101, 99, 100), (100, 100.5, 99.5, 100), (99.5, 99.8, 97.5, 99), (99, 99, 98, 98.5)])
    #expect(!runScripted(plain, [0: Self.buy]).result.trades[0].ambiguous)
  }
}

@Suite struct IntrabarResolutionTests {
  static let buy = Signal.enterLong(stopLoss: 0.02, profitTarget: 0.03)
  // Day 2 (2024-01-03) touches both the stop (98) and the target (103).
  static let bars = handBars([(100, 101, 99, 100), (100, 100.5, 99.5, 100), (100, 103.5, 97.9, 101), (101, 101, 100, 100.5)])

  /// Finer bars inside day 2, one hour apart: (high, low) each, opening at 100.
  static func fine(_ rows: [(Double, Double)]) -> IntrabarData {
    var fine = BarSeries(source: "fine")
    let day = CivilDate.days(year: 2024, month: 1, day: 3)
    for (k, r) in rows.enumerated() {
      let t = Int64(day) * 86_400 + Int64(k) * 3600
      fine.append(time: t, day: Int32(day), open: 100, high: r.0, low: r.1, close: 100, volume: 0, label: Array("f\(k)".utf8))
    }
    return IntrabarData(bars: fine)
  }

  static func exit(_ intrabar: IntrabarData?) -> (Trade, BacktestResult) {
    var s = ScriptedStrategy(parameters: .init(signals: [0: buy]), bars: bars)
    let r = Engine.run(&s, bars: bars, broker: BrokerSettings(), intrabar: intrabar)
    return (r.trades[0], r)
  }

  @Test("finer bars that reach the target first settle the bar as PROFIT_TARGET")
  func targetFirst() {
    let (t, r) = Self.exit(Self.fine([(101, 99.5), (103.2, 100), (101, 97.9)]))
    #expect(t.exitReason == .profitTarget && t.exitPrice == 103 && !t.ambiguous && r.fills.resolvedBars == 1 && r.fills.ambiguousBars == 1)
  }

  @Test("finer bars that reach the stop first settle the bar as STOP_LOSS")
  func stopFirst() {
    let (t, r) = Self.exit(Self.fine([(101, 97.9), (103.5, 100)]))
    #expect(t.exitReason == .stopLoss && t.exitPrice == 98 && !t.ambiguous && r.fills.resolvedBars == 1)
  }

  @Test("a finer bar touching both leaves the bar ambiguous: the rule decides; no finer data, the same")
  func stillAmbiguous() {
    let (t, r) = Self.exit(Self.fine([(101, 99.5), (103.5, 97.9)]))
    #expect(t.exitReason == .stopLoss && t.ambiguous && r.fills.resolvedBars == 0)
    let (u, _) = Self.exit(nil)
    #expect(u.exitReason == .stopLoss && u.ambiguous)
  }
}

@Suite struct IntrabarConfigTests {
  static let yaml = """
    name: t
    data: {bars: ../Tests/BacktestCoreTests/Fixtures/oracle/edge.csv, intrabar: ../Tests/BacktestCoreTests/Fixtures/oracle/edge.csv}
    strategy: {type: bollinger_rsi, profit_target: 3%}
    """

  @Test("data.intrabar is read relative to the run file and used by the run")
  func config() throws {
    let output = try runBacktest(Self.yaml)
    #expect(output.config.data.intrabar == Repo.path("Tests/BacktestCoreTests/Fixtures/oracle/edge.csv"))
    // The bars as their own finer bars: the one bar touching both levels stays ambiguous (its only finer bar touches
    // both) and the conservative rule takes the stop; the stop touched on an entry bar is not ambiguous at all.
    let r = output.run.result
    #expect(r.fills.ambiguousBars == 1 && r.fills.resolvedBars == 0 && r.trades.filter(\.ambiguous).count == 1)
    #expect(r.trades.contains { $0.exitBar == $0.entryBar && $0.exitReason == .stopLoss && !$0.ambiguous })
    #expect(RunReport.summaryJSON(output).rendered().contains("\"resolved_from_intrabar\": 0"))
  }

  @Test("the other rule's summary differs only at the ambiguous bar, and disappears once the finer bars settle it")
  func otherRule() throws {
    let output = try runBacktest(Self.yaml)
    let r = output.run.result
    let k = try #require(r.trades.firstIndex { $0.ambiguous })
    // The same run under the optimistic rule: the same trades up to the ambiguous exit, which takes the target instead.
    var broker = output.config.broker
    broker.intrabarRule = .optimistic
    let optimistic = output.config.strategy.run(bars: output.bars, broker: broker, intrabar: nil).result
    #expect(Array(optimistic.trades.prefix(k)) == Array(r.trades.prefix(k)))
    #expect(optimistic.trades[k].entryBar == r.trades[k].entryBar && optimistic.trades[k].exitBar == r.trades[k].exitBar)
    #expect(r.trades[k].exitReason == .stopLoss && optimistic.trades[k].exitReason == .profitTarget && optimistic.trades[k].ambiguous)
    let other = try #require(output.otherRule)
    #expect(other.totalReturn == PerformanceSummary(result: optimistic, bars: output.bars).totalReturn)
    #expect(MarkdownReport.render(output).contains("### Intrabar ambiguity"))

    // Finer bars inside the ambiguous bar that reach the stop first settle it: nothing stays ambiguous, no other rule.
    let t = r.trades[k].exitBar
    let start = output.bars.time[t]
    var fine = BarSeries(source: "fine")
    for (j, (high, low)) in [(output.bars.open[t], r.trades[k].exitPrice), (output.bars.high[t], output.bars.low[t])].enumerated() {
      let time = start + Int64(j) * 60
      fine.append(time: time, day: output.bars.day[t], open: output.bars.open[t], high: high, low: low, close: low, volume: 0,
                  label: Array("f\(j)".utf8))
    }
    let settled = Backtest.execute(output.config, RunInputs(bars: output.bars, barsInFile: output.barsInFile, intrabar: IntrabarData(bars: fine)))
    #expect(settled.run.result.fills.resolvedBars == 1 && !settled.run.result.trades.contains(where: \.ambiguous))
    #expect(settled.otherRule == nil && !MarkdownReport.render(settled).contains("### Intrabar ambiguity"))
    #expect(!RunReport.summaryJSON(settled).rendered().contains("other_intrabar_rule"))
  }
}
