@testable import BacktestCore
@testable import BacktestRun
import Foundation
import Testing

@Suite struct SharpeSignificanceTests {
  @Test("the deflated Sharpe ratio paper's numerical example: E[max SR] ≈ 0.1132, DSR ≈ 0.9004")
  func paperExample() {
    // N = 100 trials, variance of the annualized Sharpe ratios 1/2, T = 1250 daily returns (250 a year),
    // annualized SR 2.5, skewness −3, kurtosis 10 (Bailey & López de Prado 2014, section "A numerical example").
    let perYear = 250.0
    let variance = 0.5 / perYear
    let sr = 2.5 / perYear.squareRoot()
    let benchmark = SharpeSignificance.expectedMaximum(trials: 100, variance: variance)
    #expect(abs(benchmark - 0.1132) < 5e-5, "\(benchmark)")
    let dsr = SharpeSignificance.deflated(sharpe: sr, trials: 100, variance: variance, observations: 1250, skewness: -3, kurtosis: 10)
    #expect(abs(dsr - 0.9004) < 5e-5, "\(dsr)")
  }

  @Test("PSR by hand: SR equal to the benchmark gives 0.5; normal returns shrink with fewer observations")
  func psr() {
    #expect(abs(SharpeSignificance.probabilistic(sharpe: 0.1, benchmark: 0.1, observations: 100, skewness: 0, kurtosis: 3) - 0.5) < 1e-15)
    // SR 0.1, benchmark 0, T 101, normal: z = 0.1·10 / √(1 + 0.5·0.01) = 0.997509..., Φ(z) = 0.84058...
    let z = 0.1 * 10 / (1.005).squareRoot()
    #expect(abs(SharpeSignificance.probabilistic(sharpe: 0.1, benchmark: 0, observations: 101, skewness: 0, kurtosis: 3) - normalCDF(z)) < 1e-15)
    #expect(abs(normalCDF(z) - 0.8407) < 1e-4)
    #expect(SharpeSignificance.expectedMaximum(trials: 1, variance: 1) == 0)
  }

  @Test("the inverse normal distribution function is accurate")
  func inverse() {
    for p in [1e-10, 0.001, 0.02, 0.05, 0.3, 0.5, 0.8, 0.975, 0.999, 1 - 1e-9] {
      #expect(abs(normalCDF(inverseNormalCDF(p)) - p) <= 1e-12 * max(p, 1e-3), "\(p)")
    }
    #expect(abs(inverseNormalCDF(0.975) - 1.959963984540054) < 1e-12)
  }

  @Test("moments of a known sample: skewness and kurtosis")
  func moments() {
    let m = SharpeSignificance.moments([1, 2, 3, 4, 10])!
    // mean 4; deviations −3 −2 −1 0 6: m2 = 10, m3 = 36/1 ... = (−27 −8 −1 + 0 + 216)/5 = 36, m4 = (81+16+1+0+1296)/5 = 278.8
    #expect(abs(m.skewness - 36 / pow(10, 1.5)) < 1e-12 && abs(m.kurtosis - 278.8 / 100) < 1e-12)
  }
}

@Suite struct BacktestOverfittingTests {
  @Test("worked by hand: the in-sample winner always loses out of sample → PBO 1; a strategy better everywhere → PBO 0")
  func handWorked() throws {
    // Two blocks of two days. Split 1: A wins block 1 (Sharpe 2.12 vs 0.71) but loses block 2 (0 vs 2.83): ω = 1/3, λ < 0.
    // Split 2: B wins block 2 and loses block 1 (0.71 vs 2.12): λ < 0 again. PBO = 2/2.
    let a = [0.02, 0.04, -0.01, 0.01], b = [0.00, 0.02, 0.03, 0.05]
    let overfit = try #require(BacktestOverfitting.pbo(returns: [a, b], blocks: 2))
    #expect(overfit.probability == 1 && overfit.logits.count == 2 && overfit.blocks == 2)
    #expect(overfit.logits.allSatisfy { abs($0 - log(0.5)) < 1e-15 })
    // C is better than A in both blocks: the winner stays on top out of sample, ω = 2/3, λ = ln 2 > 0.
    let c = [0.03, 0.05, 0.02, 0.03]
    let honest = try #require(BacktestOverfitting.pbo(returns: [a, c], blocks: 2))
    #expect(honest.probability == 0 && honest.logits.allSatisfy { abs($0 - log(2)) < 1e-15 })
  }

  @Test("worked by hand: a winner exactly at the median out of sample (λ = 0) counts as overfit")
  func medianCountsAsOverfit() throws {
    // Pairs (x − 0.005, x + 0.005) have Sharpe x / (√2 · 0.005), so each block ranks the strategies by its centre x.
    // Block 1 centres: A 0.03, B 0.02, C 0.01; block 2: B 0.03, A 0.02, C 0.01. Either way the winner ranks second of
    // three out of sample: ω = 2/4, λ = ln 1 = 0, which the paper counts as overfit (λ ≤ 0).
    let a = [0.025, 0.035, 0.015, 0.025], b = [0.015, 0.025, 0.025, 0.035], c = [0.005, 0.015, 0.005, 0.015]
    let r = try #require(BacktestOverfitting.pbo(returns: [a, b, c], blocks: 2))
    #expect(r.logits == [0, 0] && r.probability == 1)
  }

  @Test("block sums: by hand")
  func blockSums() throws {
    // 5 returns in 2 blocks of 2 (the fifth is left out): sums 0.06, 0.00; squares 0.002, 0.0002.
    let r = BacktestOverfitting.BlockSums(returns: [0.02, 0.04, -0.01, 0.01, 0.5], blocks: 3)
    #expect(r.periods == 5 && r.sum.count == 2)
    #expect(abs(r.sum[0] - 0.06) < 1e-15 && abs(r.sum[1]) < 1e-15)
    #expect(abs(r.squares[0] - 0.002) < 1e-15 && abs(r.squares[1] - 0.0002) < 1e-15)
    #expect(BacktestOverfitting.BlockSums(returns: [0.01], blocks: 10).sum.isEmpty)
    // 500 returns in 10 blocks of 50.
    let many = BacktestOverfitting.BlockSums(returns: Array(repeating: 0.01, count: 500))
    #expect(many.periods == 500 && many.sum.count == 10 && many.sum.allSatisfy { abs($0 - 0.5) < 1e-12 })
  }

  @Test("pure noise strategies: PBO near one half")
  func noise() throws {
    var rng = SplitMix64(seed: 8)
    let returns = (0..<40).map { _ in (0..<800).map { _ in 0.01 * rng.normal() } }
    let r = try #require(BacktestOverfitting.pbo(returns: returns, blocks: 10))
    #expect(r.logits.count == 252)  // C(10, 5)
    #expect(abs(r.probability - 0.5) < 0.2, "\(r.probability)")
  }
}

/// PSR, DSR and PBO against an independent numpy/scipy implementation (`Fixtures/validation/make.py`) on a stored
/// matrix of 20 combinations' daily returns (the oracle's, for a grid of the swing rule on the shipped 30-minute bars).
@Suite struct SweepSignificanceFixtureTests {
  struct Expected: Decodable {
    var days: Int, combinations: Int, best: Int, blocks: Int
    var sharpes: [Double], logits: [Double], logits_with_twin: [Double]
    var variance: Double, expected_maximum: Double, skewness: Double, kurtosis: Double, psr: Double, dsr: Double
    var pbo: Double, pbo_with_twin: Double
  }

  static func fixture() throws -> (columns: [[Double]], expected: Expected) {
    let csv = try SimpleCSV(path: Repo.fixtures + "/validation/returns.csv")
    let columns = try csv.header.map { name in try csv.column(name).map { try #require(Double($0)) } }
    let json = try Data(contentsOf: URL(fileURLWithPath: Repo.fixtures + "/validation/expected.json"))
    return (columns, try JSONDecoder().decode(Expected.self, from: json))
  }

  static func expectClose(_ name: String, _ actual: Double, _ expected: Double, relative: Double) {
    #expect(close(actual, expected, relative: relative), "\(name): \(actual) against \(expected)")
  }

  @Test("on the stored matrix: every input and output of the tests equals numpy/scipy's to 1e-10 relative; PBO exactly")
  func storedMatrix() throws {
    let (columns, expected) = try Self.fixture()
    #expect(columns.count == expected.combinations && columns.allSatisfy { $0.count == expected.days })
    let sharpes = columns.map { mean($0)! / sampleDeviation($0)! }
    for (k, (s, e)) in zip(sharpes, expected.sharpes).enumerated() { Self.expectClose("Sharpe of column \(k)", s, e, relative: 1e-12) }
    let best = sharpes.indices.max { sharpes[$0] < sharpes[$1] }!
    #expect(best == expected.best)
    let overfitting = try #require(BacktestOverfitting.pbo(returns: columns, blocks: expected.blocks))
    let s = try #require(SweepSignificance(bestReturns: columns[best], trialSharpes: sharpes, trials: columns.count, overfitting: overfitting))
    Self.expectClose("variance", s.variance, expected.variance, relative: 1e-10)
    Self.expectClose("expected maximum", s.expectedMaximum, expected.expected_maximum, relative: 1e-10)
    Self.expectClose("skewness", s.skewness, expected.skewness, relative: 1e-10)
    Self.expectClose("kurtosis", s.kurtosis, expected.kurtosis, relative: 1e-10)
    Self.expectClose("PSR", s.psr, expected.psr, relative: 1e-10)
    Self.expectClose("DSR", s.dsr, expected.dsr, relative: 1e-10)
    #expect(overfitting.blocks == expected.blocks && overfitting.logits.count == expected.logits.count)
    #expect(overfitting.probability == expected.pbo)
    for (a, e) in zip(overfitting.logits.sorted(), expected.logits) { #expect(abs(a - e) < 1e-12, "logit \(a) against \(e)") }
    // A twin of the best column: the winner ties with it out of sample (average ranks).
    let twin = try #require(BacktestOverfitting.pbo(returns: columns + [columns[best]], blocks: expected.blocks))
    #expect(twin.probability == expected.pbo_with_twin && twin.logits.count == expected.logits_with_twin.count)
    for (a, e) in zip(twin.logits.sorted(), expected.logits_with_twin) { #expect(abs(a - e) < 1e-12, "logit with a twin \(a) against \(e)") }
  }

  @Test("end to end: the sweep of the same grid on the shipped bars reports the fixture's PSR, DSR and PBO")
  func sweep() throws {
    let (columns, expected) = try Self.fixture()
    let path = Repo.path("Strategies/gpix-sweep-holdout.yaml")
    let (root, settings) = try SweepRunner.parse(try String(contentsOfFile: path, encoding: .utf8), file: path,
                                                 overrides: ["sweep.validation=null", "sweep.constraints.min_trades=0"])
    let jobs = try SweepRunner.jobs(root: root, file: path, settings: settings, combinations: SweepPlan.combinations(settings))
    let bars = try Backtest.loadBars(try RunConfig.parse(document: root, file: path).data).bars
    // The sweep's daily returns are the oracle's (written with 10 significant digits), column by column in plan order.
    for (job, column) in zip(jobs, columns) {
      let daily = SweepRunner.dailyReturns(of: job, bars: bars, cycle: nil)
      #expect(daily.count == column.count && zip(daily, column).allSatisfy { abs($0 - $1) <= 1e-11 }, "\(job.combination.values)")
    }
    let records = ConcurrentSlots<SweepRecord>(count: jobs.count)
    SweepRunner.run(jobs, bars: bars, cycle: nil, workers: 2) { c, summary in records.set(c.index, SweepRanking.record(c, summary, fingerprint: "-")) }
    let s = try #require(SweepSignificance.evaluate((0..<jobs.count).map { records.get($0) }, settings: settings, jobs: jobs, bars: bars))
    Self.expectClose("PSR", s.psr, expected.psr, relative: 1e-8)
    Self.expectClose("DSR", s.dsr, expected.dsr, relative: 1e-8)
    #expect(s.trials == expected.combinations && s.observations == expected.days)
    #expect(s.overfitting?.probability == expected.pbo)
  }
}

@Suite struct SweepHTMLVerdictTests {
  @Test("sweep.html carries sweep.md's verdicts: the same paragraphs, figures in bold")
  func sweepHTMLCarriesTheVerdicts() throws {
    let md = try String(contentsOfFile: Repo.path("Reports/reference/gpix-sweep/sweep.md"), encoding: .utf8)
    let html = try String(contentsOfFile: Repo.path("Reports/reference/gpix-sweep/sweep.html"), encoding: .utf8)
    let section = try #require(md.components(separatedBy: "## Is the best combination believable?\n\n").last)
    let paragraphs = section.components(separatedBy: "\n\n").prefix(2).map { $0.components(separatedBy: "\n").first! }
    #expect(paragraphs.count == 2 && paragraphs[0].hasPrefix("Probabilistic Sharpe ratio") && paragraphs[1].hasPrefix("Probability of backtest overfitting"))
    for p in paragraphs {
      let asHTML = SVGBuilder.escape(p).components(separatedBy: "**").enumerated().map { $0.offset % 2 == 1 ? "<b>\($0.element)</b>" : $0.element }.joined()
      #expect(html.contains("<p>" + asHTML + "</p>"))
    }
    #expect(html.contains("<b>0.526</b>") && html.contains("<b>0.36</b>"), "the deflated Sharpe ratio and the PBO of the reference")
  }
}
