@testable import BacktestCore
@testable import BacktestRun
import Foundation
import Testing

/// Entry orders, trailing stops, time exits and short positions on hand-made
/// bars, each with its hand-worked fills (`Docs/orders.md`).
@Suite struct OrderTests {
  typealias Row = (Double, Double, Double, Double)

  static func run(_ rows: [Row], _ signals: [Int: Signal], broker: BrokerSettings = BrokerSettings())
    -> (result: BacktestResult, trades: [(side: EntryOrder.Side, entryBar: Int, entry: Double, exitBar: Int, exit: Double, reason: ExitReason, ambiguous: Bool)])
  {
    let r = runScripted(handBars(rows), signals, broker: broker).result
    return (r, r.trades.map { ($0.side, $0.entryBar, $0.entryPrice, $0.exitBar, $0.exitPrice, $0.exitReason, $0.ambiguous) })
  }

  static let flat: Row = (100, 101, 99, 100)

  @Test("a buy limit the open gaps through fills at the open")
  func limitGappedThrough() {
    let (_, t) = Self.run([Self.flat, (97, 98, 96, 97.5), (98, 99, 97, 98)], [0: .enter(EntryOrder(kind: .limit(99)))])
    #expect(t.count == 1 && t[0].entryBar == 1 && t[0].entry == 97 && t[0].reason == .endOfData)
  }

  @Test("a buy limit the bar reaches fills at the limit; a stop the bar also reached counts (ambiguous)")
  func limitTouched() {
    // Bar 1 opens 100, trades down to 98.8: the limit 99 fills inside the bar. Its low 98.8 is above the 2% stop (97.02).
    var (_, t) = Self.run([Self.flat, (100, 100.5, 98.8, 99.5), (99.5, 100, 99, 99.8)], [0: .enter(EntryOrder(kind: .limit(99), stopLoss: 0.02))])
    #expect(t.count == 1 && t[0].entryBar == 1 && t[0].entry == 99 && t[0].reason == .endOfData && !t[0].ambiguous)
    // The same bar reaching 96.9 also reaches the stop (99 × 0.98 = 97.02): whether before or after the fill is unknown,
    // so the stop counts, flagged ambiguous; a target reached in that bar does not.
    (_, t) = Self.run([Self.flat, (100, 104, 96.9, 99.5), (99.5, 100, 99, 99.8)],
                      [0: .enter(EntryOrder(kind: .limit(99), stopLoss: 0.02, profitTarget: 0.03))])
    #expect(t.count == 1 && t[0].entryBar == 1 && t[0].exitBar == 1 && t[0].exit == 99 * (1 - 0.02) && t[0].reason == .stopLoss && t[0].ambiguous)
  }

  @Test("a limit waits up to valid_bars bars, blocks new entries meanwhile, and expires unfilled")
  func expiry() {
    let rows: [Row] = [Self.flat, (100, 101, 99.5, 100), (100, 101, 99.2, 100), (100, 101, 99.6, 100), (100, 101, 98.5, 100), (100, 101, 99, 100)]
    // valid 2 bars: bars 1 and 2 do not reach 99, so it expires after bar 2; the market buy decided at bar 1's close,
    // while it waits, is not taken.
    var (r, t) = Self.run(rows, [0: .enter(EntryOrder(kind: .limit(99), validBars: 2)), 1: .enterLong(stopLoss: nil, profitTarget: nil)])
    #expect(t.isEmpty && r.fills.expiredOrders == 1)
    // Decided after it expired, a new entry is taken.
    (r, t) = Self.run(rows, [0: .enter(EntryOrder(kind: .limit(99), validBars: 2)), 2: .enterLong(stopLoss: nil, profitTarget: nil)])
    #expect(t.count == 1 && t[0].entryBar == 3 && r.fills.expiredOrders == 1)
    // valid 4 bars: bar 4 reaches 98.5 ≤ 99 and fills at 99.
    (r, t) = Self.run(rows, [0: .enter(EntryOrder(kind: .limit(99), validBars: 4))])
    #expect(t.count == 1 && t[0].entryBar == 4 && t[0].entry == 99 && r.fills.expiredOrders == 0)
  }

  @Test("a buy stop fills at the open above it, else at the stop when the bar reaches it, with slippage")
  func stopEntry() {
    var (_, t) = Self.run([Self.flat, (103, 104, 102, 103.5), Self.flat], [0: .enter(EntryOrder(kind: .stop(102)))])
    #expect(t[0].entryBar == 1 && t[0].entry == 103)
    (_, t) = Self.run([Self.flat, (100, 102.5, 99.5, 102), Self.flat], [0: .enter(EntryOrder(kind: .stop(102)))])
    #expect(t[0].entryBar == 1 && t[0].entry == 102)
    var broker = BrokerSettings()
    broker.slippageBasisPoints = 10
    (_, t) = Self.run([Self.flat, (100, 102.5, 99.5, 102), Self.flat], [0: .enter(EntryOrder(kind: .stop(102)))], broker: broker)
    #expect(t[0].entry == 102 * 1.001)
    // Not reached: no fill.
    (_, t) = Self.run([Self.flat, (100, 101.5, 99.5, 101), Self.flat], [0: .enter(EntryOrder(kind: .stop(102)))])
    #expect(t.isEmpty)
  }

  @Test("the trailing stop rises with each close (never falls) and exits like a stop, reason TRAILING_STOP")
  func trailingRatchet() {
    // Entry at bar 1's open 100; 5% trail: closes 104, 110, 106 raise it to 98.8, 104.5 (110 × 0.95), stay 104.5;
    // bar 5 trades down to 104 through 104.5: exits at the level.
    let rows: [Row] = [Self.flat, (100, 104.5, 99.5, 104), (104, 110.5, 103.8, 110), (109, 109.5, 105.5, 106),
                       (106, 107, 105, 106.5), (106, 106.2, 104, 105)]
    let (_, t) = Self.run(rows, [0: .enter(EntryOrder(stopLoss: 0.10, trailingStop: 0.05))])
    #expect(t.count == 1 && t[0].exitBar == 5 && abs(t[0].exit - 110 * 0.95) < 1e-12 && t[0].reason == .trailingStop)
    // The fixed 2% stop is nearer until the trail passes it: before any rise it binds, with its own reason.
    let (_, s) = Self.run([Self.flat, (100, 100.5, 97.5, 99)], [0: .enter(EntryOrder(stopLoss: 0.02, trailingStop: 0.05))])
    #expect(s[0].exitBar == 1 && s[0].exit == 98 && s[0].reason == .stopLoss)
  }

  @Test("max_bars_held closes at the next open after that many bars, reason TIME")
  func timeExit() {
    let rows: [Row] = Array(repeating: Self.flat, count: 6)
    let (_, t) = Self.run(rows, [0: .enter(EntryOrder(maxBarsHeld: 3))])
    // Entered at bar 1; held bars 1, 2, 3; closes at bar 4's open.
    #expect(t.count == 1 && t[0].entryBar == 1 && t[0].exitBar == 4 && t[0].reason == .time)
  }

  @Test("a short opens at the next open, its stop above: a gap through the stop exits at the open")
  func shortStopGappedThrough() {
    let (r, t) = Self.run([Self.flat, (100, 100.5, 99.5, 100), (103, 104, 102.5, 103.5), Self.flat],
                          [0: .enterShort(stopLoss: 0.02, profitTarget: nil)])
    #expect(t.count == 1 && t[0].side == .short && t[0].entry == 100 && t[0].exitBar == 2 && t[0].exit == 103 && t[0].reason == .stopLoss)
    // 1,000 shares short at 100, bought back at 103: −3,000.
    let trade = r.trades[0]
    #expect(trade.shares == 1000 && trade.pnl == -3000 && abs(trade.returnFraction - (1 - 103.0 / 100)) < 1e-15)
    #expect(r.equity[3] == 100_000 - 3000)
  }

  @Test("a short whose bar touches its target and its stop exits at the stop (conservative), ambiguous")
  func shortTargetAndStopInOneBar() {
    let (_, t) = Self.run([Self.flat, (100, 100.5, 99.5, 100), (100, 102.5, 96.5, 99), Self.flat],
                          [0: .enterShort(stopLoss: 0.02, profitTarget: 0.03)])
    #expect(t[0].exitBar == 2 && t[0].exit == 102 && t[0].reason == .stopLoss && t[0].ambiguous)
    // The target alone: at the target level.
    let (_, u) = Self.run([Self.flat, (100, 100.5, 99.5, 100), (100, 101, 96.5, 99), Self.flat],
                          [0: .enterShort(stopLoss: 0.02, profitTarget: 0.03)])
    #expect(u[0].exit == 97 && u[0].reason == .profitTarget && !u[0].ambiguous)
  }

  @Test("a short's equity is cash plus shares times (entry - close), and it pays its borrow fee daily")
  func shortEquityAndBorrowFee() {
    // 366 flat days at 50 after the entry: 2,000 shares short (all-in at 50) owe 3% a year on 100,000.
    var rows: [Row] = [(50, 50, 50, 50)]
    rows += Array(repeating: (50, 50, 50, 50), count: 366)
    var broker = BrokerSettings()
    broker.borrowRate = 0.03
    let (r, t) = Self.run(rows, [0: .enterShort(stopLoss: nil, profitTarget: nil)], broker: broker)
    #expect(t.count == 1 && r.trades[0].shares == 2000)
    // Charged from the bar after the entry to the last: 365 days of 2,000 × 50 × 3% / 365 = 3,000.
    #expect(abs(r.carry.borrowFees - 3000) < 1e-6)
    #expect(abs(r.equity[r.equity.count - 1] - (100_000 - 3000)) < 1e-6)
  }

  @Test("without these orders, every long-only run is unchanged (the fill rules are the same code)")
  func longOnlyUnchanged() {
    let rows: [Row] = [Self.flat, (100, 100.5, 99.5, 100), (99.5, 99.8, 97.5, 99), (99, 99, 98, 98.5)]
    let a = Self.run(rows, [0: .enterLong(stopLoss: 0.02, profitTarget: nil)]).result
    let b = Self.run(rows, [0: .enter(EntryOrder(stopLoss: 0.02))]).result
    #expect(a.trades == b.trades && a.equity == b.equity)
  }
}
