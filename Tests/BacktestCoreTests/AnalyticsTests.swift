import BacktestCore
import Testing

@Suite struct AnalyticsTests {
  // Equity at the last bar of four days: 100, 110, 99, 108.9 → returns +10%, -10%, +10%.
  static let equity: ContiguousArray<Double> = [90, 100, 105, 110, 99, 108.9]
  static let day: ContiguousArray<Int32> = [0, 0, 1, 1, 2, 3]

  @Test("daily returns use each day's last bar and skip the first day")
  func daily() {
    let r = dailyReturns(equity: Self.equity, day: Self.day)
    #expect(r.count == 3)
    #expect(abs(r[0] - 0.1) < 1e-15 && abs(r[1] + 0.1) < 1e-15 && abs(r[2] - 0.1) < 1e-15)
  }

  @Test("Sharpe and Sortino worked by hand: mean 1/30, sd sqrt(1/75), downside sqrt(0.01/3)")
  func ratios() {
    let r = [0.1, -0.1, 0.1]
    let sharpe = (1.0 / 30) / (1.0 / 75).squareRoot() * 252.0.squareRoot()   // 4.58257569…
    let sortino = (1.0 / 30) / (0.01 / 3).squareRoot() * 252.0.squareRoot()  // 9.16515139…
    #expect(abs(sharpeRatio(dailyReturns: r)! - sharpe) < 1e-12)
    #expect(abs(sharpeRatio(dailyReturns: r)! - 4.582575694955840) < 1e-12)
    #expect(abs(sortinoRatio(dailyReturns: r)! - sortino) < 1e-12)
    #expect(abs(sortinoRatio(dailyReturns: r)! - 9.16515138991168) < 1e-12)
  }

  @Test("undefined statistics are nil: one day, zero deviation, no losing day")
  func undefined() {
    #expect(sharpeRatio(dailyReturns: [0.01]) == nil)
    #expect(sharpeRatio(dailyReturns: [0.01, 0.01]) == nil)
    #expect(sortinoRatio(dailyReturns: [0.01, 0.02]) == nil)
    let summary = PerformanceSummary(result: runScripted(handBars([(1, 1, 1, 1), (1, 1, 1, 1)]), [:]).result,
                                     bars: handBars([(1, 1, 1, 1), (1, 1, 1, 1)]))
    #expect(summary.totalTrades == 0 && summary.winRate == nil && summary.profitFactor == nil && summary.sharpe == nil)
    #expect(summary.avgWin == nil && summary.bestTrade == nil && summary.totalReturn == 0 && summary.exposure == 0)
  }

  @Test("drawdown is equity over its running maximum, minus one")
  func drawdown() {
    let dd = drawdowns(Self.equity)
    #expect(dd[0] == 0 && dd[3] == 0 && abs(dd[4] - (99.0 / 110 - 1)) < 1e-15 && abs(dd[5] - (108.9 / 110 - 1)) < 1e-15)
  }

  @Test("trade statistics worked by hand: one win of +10%, one loss of -5%")
  func tradeStatistics() {
    // Day 0 decide; buy 1000 @100 on day 1; sell @110 on day 3; buy @110 on day 4... (cash 110000 → 1000 shares)
    let bars = handBars([(100, 100, 100, 100), (100, 100, 100, 100), (100, 110, 100, 110), (110, 110, 110, 110),
                         (110, 110, 104.5, 104.5), (104.5, 104.5, 104.5, 104.5), (104.5, 104.5, 104.5, 104.5)])
    let signals: [Int: Signal] = [0: .enterLong(stopLoss: nil, profitTarget: nil), 2: .exitLong(.technical),
                                  3: .enterLong(stopLoss: nil, profitTarget: nil), 4: .exitLong(.technical)]
    let result = runScripted(bars, signals).result
    let s = PerformanceSummary(result: result, bars: bars)
    #expect(s.totalTrades == 2 && s.wins == 1 && s.losses == 1 && s.winRate == 0.5)
    #expect(abs(s.avgWin! - 0.1) < 1e-12 && abs(s.avgLoss! + 0.05) < 1e-12)
    #expect(abs(s.totalPnl - (10_000 - 5_500)) < 1e-9)            // 1000 × 10 and 1000 × (104.5 - 110)
    #expect(abs(s.profitFactor! - 10_000.0 / 5_500) < 1e-12)
    #expect(abs(s.finalEquity - 104_500) < 1e-9 && abs(s.totalReturn - 0.045) < 1e-12)
    #expect(abs(s.exposure - 3.0 / 7) < 1e-15)                      // held at the close of days 1, 2 and 4
    #expect(abs(s.cagr! - (pow(1.045, 365.0 / 6) - 1)) < 1e-12)     // 6 calendar days
  }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
