@testable import BacktestCore
import Testing

@Suite struct DailyStatisticsTests {
  @Test("the fused Sharpe and Sortino equal sharpeRatio and sortinoRatio of the daily returns, bit for bit")
  func fusedEqualsSeparate() {
    var rng = SplitMix64(seed: 21)
    var cases: [[Double]] = [[], [100], [100, 101], [100, 100, 100], [100, 101, 102, 103], [100, 99, 98.5]]
    for length in [3, 50, 7_700] {
      var e = [100_000.0]
      for _ in 0..<length { e.append(e.last! * (1 + 0.01 * rng.normal())) }
      cases.append(e)
    }
    for e in cases {
      let fused = e.withUnsafeBufferPointer { SummaryAccumulator.sharpeAndSortino(dayEnds: $0) }
      let daily = simpleReturns(e)
      #expect(fused.sharpe == sharpeRatio(dailyReturns: daily), "\(e.count) values")
      #expect(fused.sortino == sortinoRatio(dailyReturns: daily), "\(e.count) values")
    }
    // Rising equity has no losing day: no Sortino; flat equity has no deviation: no Sharpe.
    #expect([100.0, 101, 102, 103].withUnsafeBufferPointer { SummaryAccumulator.sharpeAndSortino(dayEnds: $0) }.sortino == nil)
    #expect([100.0, 100, 100].withUnsafeBufferPointer { SummaryAccumulator.sharpeAndSortino(dayEnds: $0) }.sharpe == nil)
  }
}
