@testable import BacktestCore
@testable import BacktestRun
import Testing

/// The bar loop's record of every bar (`Engine.trade` makes its columns, `Account.mark` writes every element).
@Suite struct EngineRecordTests {
  @Test("a run over an empty trading range records no bar")
  func emptyRange() {
    let bars = handBars((0..<6).map { k in let c = 100.0 + Double(k); return (c, c + 1, c - 1, c) })
    var s = BuyAndHold(parameters: .init(), bars: bars)
    let r = Engine.run(&s, bars: bars, broker: BrokerSettings(), trading: 3..<3)
    #expect(r.equity.isEmpty && r.cash.isEmpty && r.shares.isEmpty && r.trades.isEmpty && r.firstBar == 3)
  }

  @Test("the record holds, at every bar's close, the cash, the shares, and the cash plus the shares at the close")
  func everyBarRecorded() {
    let bars = handBars((0..<9).map { k in let c = 100.0 + Double(k % 4); return (c, c + 1, c - 1, c) })
    var s = BuyAndHold(parameters: .init(), bars: bars)
    var broker = BrokerSettings()
    broker.initialCash = 1000
    let r = Engine.run(&s, bars: bars, broker: broker, trading: 1..<9)
    #expect(r.equity.count == 8 && r.cash.count == 8 && r.shares.count == 8)
    #expect(r.cash[0] == 1000 && r.shares[0] == 0, "buy and hold decides at the first close, fills at the next open")
    for k in 0..<8 {
      #expect(r.equity[k] == r.cash[k] + r.shares[k] * bars.close[1 + k], "bar \(1 + k)")
    }
    #expect(r.shares[1...].allSatisfy { $0 == r.shares[1] } && r.shares[1] > 0)
  }
}
