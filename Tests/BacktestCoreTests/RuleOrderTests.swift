@testable import BacktestCore
@testable import BacktestRun
import Foundation
import Testing

/// Rules with `entry_order`, `short_entry` and `short_exit` (`Docs/rules.md`):
/// they place exactly the engine's orders of `Docs/orders.md` (whose fills
/// `OrderTests` works by hand) at the bars the conditions say.
@Suite struct RuleOrderTests {
  static let goog = "{bars: ../Data/GOOG.csv, timezone: America/New_York, session: all}"

  @Test("a limit entry from a rule is the engine's limit order at the price the expression gives at the decision close")
  func limitEqualsScriptedOrders() throws {
    let output = try runBacktest("""
      name: t
      data: \(Self.goog)
      strategy:
        type: rules
        params: {dip: 1%}
        entry: sma(close, 50) > sma(close, 200) and close < close[1]
        entry_order: {type: limit, price: close * (1 - dip), valid_bars: 3}
        stop_loss: 4%
        profit_target: 8%
        trailing_stop: 6%
        max_bars_held: 20
      """)
    let bars = output.bars, close = Array(bars.close)
    func sma(_ n: Int, _ i: Int) -> Double { close[(i - n + 1)...i].reduce(0, +) / Double(n) }
    // The same decisions written out: an order at every close where the condition holds (the engine takes one
    // only while flat with no order waiting, as the rule's decisions are).
    var signals: [Int: Signal] = [:]
    for i in 199..<bars.count where sma(50, i) > sma(200, i) && close[i] < close[i - 1] {
      signals[i] = .enter(EntryOrder(kind: .limit(close[i] * (1 - 0.01)), validBars: 3, stopLoss: 0.04, profitTarget: 0.08,
                                     trailingStop: 0.06, maxBarsHeld: 20))
    }
    let scripted = runScripted(bars, signals).result
    let rules = output.run.result
    #expect(rules.trades.count > 50 && rules.fills.expiredOrders > 20)
    #expect(rules.trades == scripted.trades)
    #expect(rules.fills.expiredOrders == scripted.fills.expiredOrders)
    #expect(rules.equity == scripted.equity)
    // Some entries filled at an open under the limit, some at the limit inside the bar.
    let limit = { (t: Trade) in close[t.entryBar - 1] * (1 - 0.01) }
    #expect(rules.trades.contains { $0.entryPrice == bars.open[$0.entryBar] && $0.entryPrice < limit($0) })
    #expect(rules.trades.contains { $0.entryPrice == limit($0) && bars.open[$0.entryBar] > limit($0) })
  }

  static let hand: [(Double, Double, Double, Double)] = [
    (100, 101, 99, 100), (100, 102, 99, 101), (101, 103, 100, 102), (102, 103, 98, 99), (99, 100, 96, 97),
    (97, 99, 96, 98), (98, 101, 97, 100), (100, 102, 99, 101), (101, 102, 100, 100.5), (100.5, 101, 99, 100),
  ]

  static func rule(_ lines: String, broker: BrokerSettings = BrokerSettings()) throws -> BacktestResult {
    let config = try runConfig("name: t\ndata: {bars: ../Data/GOOG.csv}\nstrategy:\n  type: rules\n" + lines)
    let p = try #require(config.strategy.parameters as? RulesStrategy.Parameters)
    var s = RulesStrategy(parameters: p, bars: handBars(Self.hand))
    return Engine.run(&s, bars: handBars(Self.hand), broker: broker)
  }

  @Test("a limit price undefined at the decision places no order and is counted; the first defined one is placed")
  func undefinedPrice() throws {
    // sma(close, 3) is undefined at bars 0 and 1: the entries decided there place no order. At bar 2 the limit is
    // (100 + 101 + 102) / 3 = 101; bar 3 opens 102 and trades down to 98: filled at 101.
    // (A price with a comma goes in the block form, or quoted: in a flow mapping the comma ends the value.)
    let r = try Self.rule("  entry: close > 0\n  entry_order:\n    type: limit\n    price: sma(close, 3)\n")
    #expect(r.fills.unpricedOrders == 2 && r.fills.expiredOrders == 0)
    #expect(r.trades.count == 1 && r.trades[0].entryBar == 3 && r.trades[0].entryPrice == 101 && r.trades[0].exitReason == .endOfData)
  }

  @Test("the live signal: a limit entry is BUY with its price; one whose price is undefined is HOLD, saying so")
  func liveSignal() throws {
    func signal(_ price: String) throws -> LiveSignal {
      let output = try runBacktest("name: t\ndata: {bars: ../Data/GOOG.csv}\nstrategy:\n  type: rules\n  entry: close > 0\n"
                                   + "  entry_order:\n    type: limit\n    price: \(price)\n    valid_bars: 2\n", overrides: ["data.end=2004-09-30"])
      return LiveSignalAnalyzer.analyze(output, position: .flat, alerts: [], holidays: [], now: nil)
    }
    var s = try signal("close * 0.98")
    #expect(s.action == .buy && s.reason.hasSuffix("; limit \(formatPlain(s.close * 0.98)) for 2 bars"), "\(s.reason)")
    s = try signal("sma(close, 500)")
    #expect(s.action == .hold && s.reason.hasSuffix("; limit undefined (no order) for 2 bars"), "\(s.reason)")
  }

  @Test("short_entry sells short at the next open, short_exit buys back; a long entry on the same close wins")
  func shortRules() throws {
    // Sell short after an up close, buy back after a down close: decided at bar 1 (101 > 100), sold at bar 2's open 101;
    // bar 3 closes down (99 < 102): bought back at bar 4's open 99. P&L = shares × (101 − 99).
    var r = try Self.rule("  short_entry: close > close[1]\n  short_exit: close < close[1]\n")
    #expect(r.trades.count >= 2 && r.trades.allSatisfy { $0.side == .short })
    let first = r.trades[0]
    #expect(first.entryBar == 2 && first.entryPrice == 101 && first.exitBar == 4 && first.exitPrice == 99 && first.exitReason == .technical)
    #expect(first.shares == (100_000 / 101).rounded(.down) && first.pnl == first.shares * 2)
    // Both conditions hold at bar 1: the long is taken.
    r = try Self.rule("  entry: close > close[1]\n  exit: close < close[1]\n  short_entry: close > close[1]\n")
    #expect(r.trades[0].side == .long && r.trades[0].entryBar == 2)
    // A short's stop is above its fill: 101 × 1.015 = 102.515, which bar 2's high 103 reaches (the entry bar counts).
    r = try Self.rule("  short_entry: close > close[1]\n  short_exit: close < close[1]\n  stop_loss: 1.5%\n")
    #expect(r.trades[0].exitBar == 2 && r.trades[0].exitReason == .stopLoss && abs(r.trades[0].exitPrice - 101 * 1.015) < 1e-9)
  }

  @Test("a short side does not move the long side's first decision: each side decides from its own warm-up")
  func warmUpPerSide() throws {
    // `not` of an undefined comparison holds, so without its warm-up this entry would hold from bar 0.
    let long = "  entry: not (close < sma(close, 5))\n"
    let alone = try Self.rule(long), both = try Self.rule(long + "  short_entry: close > close[1] and close < 0\n")
    #expect(alone.trades.first!.entryBar == 7 && both.trades.map(\.entryBar) == alone.trades.map(\.entryBar))  // decided at bar 6: 100 ≥ 99.2
  }

  @Test("a short pays its borrow rate per calendar day on its value at the previous close")
  func borrowFee() throws {
    var broker = BrokerSettings()
    broker.borrowRate = 0.0365
    let r = try Self.rule("  short_entry: close > close[1]\n  short_exit: close < close[1]\n", broker: broker)
    // Short 990 shares at bar 2's open 101; before bar 3's orders the fee on bar 2's close 102 for 1 day is charged to
    // cash, 990 × 102 × 0.0365 / 365 = 10.098; before bar 4's, 990 × 99 × 0.0001 = 9.801. The trade's P&L leaves
    // the fees out (they are the account's, like the expense drag); the equity pays them.
    let shares = (100_000 / 101.0).rounded(.down)
    #expect(shares == 990)
    let (fee3, fee4): (Double, Double) = (10.098, 9.801)
    let cash3: Double = 100_000 + 990 * 101 - fee3, cash4: Double = 100_000 + 990 * 2 - fee3 - fee4
    #expect(abs(r.cash[3] - cash3) < 1e-9 && abs(r.cash[4] - cash4) < 1e-9)
    #expect(r.trades[0].pnl == 990 * 2)
    let total = r.trades.reduce(0) { $0 + $1.pnl }
    #expect(r.carry.borrowFees > fee3 + fee4 && abs(r.equity.last! - (100_000 + total - r.carry.borrowFees)) < 1e-6)
  }

  @Test("entry_order and the short keys are refused with a message where they are wrong", arguments: [
    ("  entry: close > 0\n  entry_order: {type: market, price: close}\n", "is for a limit or stop order"),
    ("  entry: close > 0\n  entry_order: {type: limit}\n", "missing 'strategy.entry_order.price'"),
    ("  entry: close > 0\n  entry_order: {type: limt, price: close}\n", "did you mean 'limit'"),
    ("  entry: close > 0\n  entry_order: {type: stop, price: close > 1}\n", "expected a number (a price"),
    ("  entry: close > 0\n  entry_order: {type: stop, price: close, valid_bar: 2}\n", "unknown key 'valid_bar' in 'strategy.entry_order'; did you mean 'valid_bars'"),
    ("  entry: close > 0\n  entry_order: {type: stop, price: close, valid_bars: 0}\n", "valid_bars"),
    ("  entry: close > 0\n  short_exit: close < 1\n", "'strategy.short_exit' without 'short_entry'"),
    ("  exit: close > 0\n", "missing 'strategy.entry'"),
    ("  short_entry: bars_held > 2\n", "bars_held"),
  ])
  func refused(lines: String, message: String) {
    do {
      _ = try runConfig("name: t\ndata: {bars: ../Data/GOOG.csv}\nstrategy:\n  type: rules\n" + lines)
      Issue.record("accepted: \(lines)")
    } catch {
      #expect("\(error)".contains(message), "\(error)")
      #expect("\(error)".contains("test.yaml:"), "\(error)")
    }
  }

  @Test("the summary lists the short conditions and the order only when written")
  func summary() throws {
    let plain = try runConfig("name: t\ndata: {bars: ../Data/GOOG.csv}\nstrategy:\n  type: rules\n  entry: close > 0\n")
    #expect(plain.strategy.parameterSummary.map(\.name) == ["entry", "exit", "stop_loss", "profit_target", "trailing_stop", "max_bars_held"])
    let both = try runConfig("name: t\ndata: {bars: ../Data/GOOG.csv}\nstrategy:\n  type: rules\n  entry: close > 0\n  short_entry: close < 0\n"
                             + "  entry_order: {type: stop, price: high, valid_bars: 2}\n")
    let s = Dictionary(uniqueKeysWithValues: both.strategy.parameterSummary.map { ($0.name, $0.value) })
    #expect(s["short_entry"] == "close < 0" && s["short_exit"] == "none" && s["entry_order"] == "stop at high for 2 bars")
  }
}
