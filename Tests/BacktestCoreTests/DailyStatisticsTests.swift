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

  @Test("four summaries taken together (Sharpe and Sortino as vector lanes) equal each one's own summary, bit for bit")
  func lanesEqualOneByOne() {
    var rng = SplitMix64(seed: 8)
    /// An account marked over `days` days of three bars, flat (cash) now and then, or all along with `flat`.
    func account(days: Int, flat: Bool = false, rising: Bool = false) -> SummaryAccumulator {
      var a = SummaryAccumulator()
      var e = 100_000.0
      for day in 0..<days {
        let held = !flat && (day / 5) % 2 == 0
        for bar in 0..<3 {
          if held { e *= rising ? 1.001 : 1 + 0.004 * rng.normal() }
          a.mark(equity: e, held: held, day: Int32(day + day / 5 * 2), dayEnd: bar == 2)
        }
      }
      return a
    }
    let sets: [[SummaryAccumulator]] = [
      [account(days: 7_700), account(days: 7_700), account(days: 7_700, flat: true), account(days: 7_700, rising: true)],
      (0..<4).map { _ in account(days: 3) },
      [account(days: 40), account(days: 41), account(days: 40), account(days: 40)],  // day counts differ: one by one
      (0..<4).map { _ in account(days: 2) },
    ]
    let cash = [100_000.0, 50_000, 100_000, 1]
    for set in sets {
      var lanes = set, alone = set
      let together = SummaryAccumulator.summaries(&lanes, initialCash: cash, calendarDays: 400)
      for j in 0..<4 {
        #expect(together[j] == alone[j].summary(initialCash: cash[j], calendarDays: 400), "\(set[j].dayEndEquity.count) days, lane \(j)")
        #expect(lanes[j].dailyReturns == alone[j].dailyReturns)
      }
    }
    var flat = [account(days: 30, flat: true)] + (0..<3).map { _ in account(days: 30) }
    #expect(SummaryAccumulator.summaries(&flat, initialCash: cash, calendarDays: 40)[0].sharpe == nil)
  }
}
