import BacktestCore
import Foundation
import Testing

@Suite struct MonteCarloTests {
  @Test("bootstrapped i.i.d. normal returns: percentiles of the log growth are mean ± 1.645 sd within sampling error")
  func knownDistribution() {
    var rng = SplitMix64(seed: 99)
    let days = 1000
    let returns = (0..<days).map { _ in 0.0004 + 0.01 * rng.normal() }
    let logs = returns.map { log1p($0) }
    let m = mean(logs)!, sd = sampleDeviation(logs)!
    let paths = MonteCarlo.bootstrap(dailyReturns: returns, initial: 1, runs: 4000, seed: 7, blockLength: 1, workers: 2)
    let growth = paths.map { log($0.finalEquity) }.sorted()
    // Sum of T draws from the sample: mean T·m, sd √T·sd (population sd of the sample, ≈ sd for T = 1000).
    let center = Double(days) * m, spread = Double(days).squareRoot() * sd
    let error = spread * 0.08  // the percentiles of 4000 draws are good to a few percent of the spread
    #expect(abs(MonteCarlo.percentile(growth, 0.5) - center) < error)
    #expect(abs(MonteCarlo.percentile(growth, 0.05) - (center - 1.645 * spread)) < error)
    #expect(abs(MonteCarlo.percentile(growth, 0.95) - (center + 1.645 * spread)) < error)
    let lossShare = Double(paths.filter { $0.finalEquity < 1 }.count) / 4000
    let expected = 0.5 * erfc(center / spread / 2.0.squareRoot())  // P(N(center, spread) < 0)
    #expect(abs(lossShare - expected) < 0.03, "\(lossShare) vs \(expected)")
  }

  /// Coverage of the bootstrap's p5–p95 interval of final equity. Returns whose growth factors are i.i.d.
  /// log-normal, `ln(1 + r) ~ N(μ, σ²)`, give a final equity after `T` days of `exp(N(Tμ, Tσ²))` per unit:
  /// its true median is `exp(Tμ)`. Each of 400 seeded histories of `T` = 50 days is bootstrapped 200 times
  /// (days drawn independently, mean block length 1); its p5–p95 interval of final equity should contain
  /// `exp(Tμ)` for about 90% of histories (the percentile interval of a sum, `T·mean ± 1.645·√T·sd`, is a 90%
  /// confidence interval for `Tμ`).
  ///
  /// Tolerance ±0.05: the binomial standard deviation of a share of 400 is √(0.9·0.1/400) = 0.015, and the
  /// percentile bootstrap of a mean undercovers slightly for 50 days and 200 paths (it scales by the sample's
  /// deviation with divisor T, and by z rather than t; 0.879 over 6,000 histories in a numpy simulation).
  /// Seeded, so deterministic; about a second.
  @Test("the p5–p95 interval of final equity covers the true median final equity of a known process in 90% ± 5% of histories")
  func coverage() {
    let mu = 0.0005, sigma = 0.01, days = 50, histories = 400
    let truth = exp(Double(days) * mu)
    var covered = 0
    for k in 0..<histories {
      var rng = SplitMix64(seed: 10_000 + UInt64(k))
      let history = (0..<days).map { _ in expm1(mu + sigma * rng.normal()) }
      let runs = MonteCarlo.bootstrap(dailyReturns: history, initial: 1, runs: 200, seed: UInt64(k), blockLength: 1, workers: 2)
      let interval = MonteCarlo.summarize(runs, initial: 1, drawdownThreshold: 0.2).finalEquity
      if interval.p5 <= truth && truth <= interval.p95 { covered += 1 }
    }
    let share = Double(covered) / Double(histories)
    #expect(abs(share - 0.90) <= 0.05, "covered in \(share) of \(histories) histories")
  }

  @Test("deterministic for a seed and independent of the number of workers")
  func deterministic() {
    var rng = SplitMix64(seed: 3)
    let returns = (0..<300).map { _ in 0.01 * rng.normal() }
    let a = MonteCarlo.bootstrap(dailyReturns: returns, initial: 100, runs: 500, seed: 11, blockLength: 5, workers: 1).map(\.finalEquity)
    let b = MonteCarlo.bootstrap(dailyReturns: returns, initial: 100, runs: 500, seed: 11, blockLength: 5, workers: 2).map(\.finalEquity)
    let c = MonteCarlo.bootstrap(dailyReturns: returns, initial: 100, runs: 500, seed: 12, blockLength: 5, workers: 2).map(\.finalEquity)
    #expect(a == b && a != c)
  }

  @Test("a shuffle of the trade order keeps the final equity and changes the drawdowns")
  func tradeShuffle() {
    let trades = [0.1, -0.05, -0.05, -0.05, 0.2, 0.03, -0.08, 0.04]
    let paths = MonteCarlo.shuffleTrades(tradeReturns: trades, initial: 100, runs: 300, seed: 5, workers: 2)
    let final = trades.reduce(100.0) { $0 * (1 + $1) }
    #expect(paths.allSatisfy { abs($0.finalEquity - final) < 1e-9 })
    #expect(Set(paths.map(\.maxDrawdown)).count > 5)
    // Worst case by hand: all four losses in a row: 0.95^3 × 0.92 − 1.
    #expect(abs((paths.map(\.maxDrawdown).min() ?? 0) - (0.95 * 0.95 * 0.95 * 0.92 - 1)) < 1e-12)
  }

  @Test("bootstrap blocks: mean block length 1 draws days independently; a huge one keeps the sample's order")
  func blocks() {
    let sample = (0..<50).map(Double.init)
    var rng = SplitMix64(seed: 1)
    let long = MonteCarlo.bootstrapPath(sample, blockLength: 1e12, rng: &rng)
    let start = Int(long[0])
    #expect(long == (0..<50).map { Double((start + $0) % 50) })
    #expect(MonteCarlo.defaultBlockLength(days: 1000) == 10)
    #expect(MonteCarlo.percentile([1, 2, 3, 4, 5], 0.5) == 3 && MonteCarlo.percentile([1, 2, 3, 4, 5], 0.05) == 1.2)
  }
}

@Suite struct SyntheticPathTests {
  @Test("GBM daily bars: log returns have the configured drift and volatility within sampling error")
  func gbmMoments() {
    var settings = SyntheticBars.Settings()
    settings.model = .gbm
    settings.barsPerDay = 1
    settings.drift = 0.08
    settings.volatility = 0.20
    let bars = SyntheticBars.generate(count: 20_000, seed: 4, startPrice: 1000, settings: settings)
    #expect(bars.isDateOnly && bars.count == 20_000)
    let logs = (1..<bars.count).map { log(bars.close[$0] / bars.close[$0 - 1]) }
    let vol = sampleDeviation(logs)! * 252.0.squareRoot()
    #expect(abs(vol - 0.20) < 0.01, "\(vol)")
    // Drift of log prices: μ − σ²/2 = 0.06 a year, with a standard error of σ/√years ≈ 0.018.
    let annualLog = mean(logs)! * 252
    #expect(abs(annualLog - 0.06) < 0.06, "\(annualLog)")
  }

  @Test("synthetic bars are deterministic for a seed, valid as bars, and differ between seeds")
  func deterministic() throws {
    let a = SyntheticBars.csv(SyntheticBars.generate(count: 2000, seed: 1))
    #expect(a == SyntheticBars.csv(SyntheticBars.generate(count: 2000, seed: 1)))
    #expect(a != SyntheticBars.csv(SyntheticBars.generate(count: 2000, seed: 2)))
    let bars = try readBars(a, zone: "America/New_York")
    #expect(bars.count == 2000)
  }

  @Test("the last day of synthetic bars is known before they are made: the day of the last bar generate writes")
  func lastDay() {
    for (count, perDay) in [(1, 1), (5, 1), (6, 1), (23, 1), (100, 1), (13, 13), (14, 13), (299, 13), (1000, 6)] {
      for start in 0..<7 {
        var settings = SyntheticBars.Settings()
        settings.barsPerDay = perDay
        let startDay = CivilDate.days(year: 9999, month: 11, day: 1) + start
        let bars = SyntheticBars.generate(count: count, seed: 1, startDay: startDay, settings: settings)
        #expect(SyntheticBars.lastDay(count: count, startDay: startDay, barsPerDay: perDay) == Int(bars.day[count - 1]), "\(count) \(perDay) \(start)")
      }
    }
    // December 9999 has 23 weekdays: 23 daily bars from its first day end on the 31st.
    #expect(SyntheticBars.lastDay(count: 23, startDay: CivilDate.days(year: 9999, month: 12, day: 1), barsPerDay: 1)
      == CivilDate.days(year: 9999, month: 12, day: 31))
  }
}
