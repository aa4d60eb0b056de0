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
    func fused(_ e: [Double]) -> (sharpe: Double?, sortino: Double?, returns: [Double]) {
      var returns = [Double](repeating: .nan, count: max(0, e.count - 1))
      let ratios = e.withUnsafeBufferPointer { e in
        returns.withUnsafeMutableBufferPointer { SummaryAccumulator.sharpeAndSortino(dayEnds: e, returns: $0) }
      }
      return (ratios.sharpe, ratios.sortino, returns)
    }
    for e in cases {
      let (sharpe, sortino, returns) = fused(e)
      let daily = simpleReturns(e)
      #expect(sharpe == sharpeRatio(dailyReturns: daily), "\(e.count) values")
      #expect(sortino == sortinoRatio(dailyReturns: daily), "\(e.count) values")
      #expect(returns == daily, "\(e.count) values: the returns left behind")
    }
    // Rising equity has no losing day: no Sortino; flat equity has no deviation: no Sharpe.
    #expect(fused([100.0, 101, 102, 103]).sortino == nil)
    #expect(fused([100.0, 100, 100]).sharpe == nil)
  }
}
