import BacktestCore
import CommandLineSupport
import Foundation

/// `backtest bench`: timings on generated bars, for release builds.
struct BenchCommand {
  var bars: Int
  var sweepBars: Int
  var seed: UInt64
  var jobs: Int
  var writeFolder: String?

  static let spec = CommandSpec(
    "bench", summary: "time CSV loading, one backtest and the 180-combination sweep on generated 30-minute bars",
    options: [
      .option("bars", "N", "bars for the CSV and single-backtest timings", default: .value("1000000")),
      .option("sweep-bars", "N", "bars for the sweep timing", default: .value("100000")),
      .option("seed", "N", "the seed of the generated bars", default: .value("1")),
      .jobs,
      .option("write", "DIR", "instead of timing, write the sweep's bars and sweep file into DIR (to time whole processes)",
              completion: .directory),
    ],
    details: "Meaningful in a release build: swift run -c release backtest bench.",
    examples: ["bench", "bench --bars 200000 --jobs 2"])

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, command: Self.spec, path: "bench")
    if !a.positionals.isEmpty { throw UsageError(message: "bench takes no arguments, found '\(a.positionals[0])'") }
    bars = try a.integer("bars", minimum: 100)!
    sweepBars = try a.integer("sweep-bars", minimum: 100)!
    seed = UInt64(try a.integer("seed", minimum: 0)!)
    jobs = try a.integer("jobs") ?? ProcessInfo.processInfo.activeProcessorCount
    writeFolder = a.option("write")
  }

  /// The benchmark grid of issue 4: 5 × 3 × 3 × 4 = 180 combinations, stop-loss 2%.
  static let sweepSection = """
    sweep:
      parameters:
        bb_period: [10, 15, 20, 25, 30]
        bb_std: [1.5, 2.0, 2.5]
        rsi_period: [7, 14, 21]
        oversold: [20, 25, 30, 35]
      metric: sharpe
    """

  static func sweepFile(bars: String) -> String {
    "name: bench-sweep\ndata: {bars: \(bars), timezone: America/New_York}\n"
      + "strategy: {type: bollinger_rsi, stop_loss: 2%}\nreport: {out: bench-sweep-out}\n" + sweepSection + "\n"
  }

  /// The same rule written as rules (`bollinger_rsi`'s short names as its params, so the same grid applies).
  static let rulesStrategy = """
    strategy:
      type: rules
      params: {bb_period: 20, bb_std: 2, rsi_period: 14, oversold: 30, overbought: 70}
      entry: close < bb_lower(close, bb_period, bb_std) and rsi(close, rsi_period) < oversold
      exit: close > bb_upper(close, bb_period, bb_std) or rsi(close, rsi_period) > overbought
      stop_loss: 2%
    """

  static func rulesSweepFile(bars: String) -> String {
    "name: bench-sweep-rules\ndata: {bars: \(bars), timezone: America/New_York}\n" + rulesStrategy
      + "\nreport: {out: bench-sweep-rules-out}\n" + sweepSection + "\n"
  }

  func run() throws -> Int32 {
    if let folder = writeFolder {
      // Files to time whole processes with (for example: hyperfine 'backtest sweep DIR/bench-sweep.yaml --quiet --fresh').
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      try AtomicWriter.write([
        ReportFile(name: "bars.csv", contents: SyntheticBars.csv(SyntheticBars.generate(count: sweepBars, seed: seed))),
        ReportFile(name: "bench-sweep.yaml", contents: Self.sweepFile(bars: "bars.csv")),
        ReportFile(name: "bench-sweep-rules.yaml", contents: Self.rulesSweepFile(bars: "bars.csv")),
      ], into: folder)
      print("wrote \(folder)/bars.csv (\(HumanFormat.integer(sweepBars)) bars), \(folder)/bench-sweep.yaml and "
            + "bench-sweep-rules.yaml (the same 180 combinations written as rules)")
      return ExitCode.ok
    }
    let clock = ContinuousClock()
    func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
    let csv = SyntheticBars.csv(SyntheticBars.generate(count: bars, seed: seed))
    let bytes = Array(csv.utf8)
    print("generated \(HumanFormat.integer(bars)) 30-minute bars (\(String(format: "%.1f", Double(bytes.count) / 1e6)) MB of CSV), seed \(seed)")

    var best = Double.infinity
    var series = BarSeries(source: "bench")
    for _ in 0..<3 {
      let t0 = clock.now
      series = try bytes.withUnsafeBufferPointer { try BarCSVReader().read($0, file: "bench.csv") }
      best = min(best, seconds(clock.now - t0))
    }
    print(String(format: "csv load:        %8.1f MB/s  (%.3f s, best of 3)", Double(bytes.count) / 1e6 / best, best))

    // The swing rule as bollinger_rsi and the same rule written as rules (parsed once, compiled and run
    // each time), runs alternating so that both see the same machine.
    let rulesTable = try ConfigTable(try YAMLReader.parse(Self.rulesStrategy, file: "bench.yaml"), path: "").table("strategy")
    let rules = try BuiltInStrategies.catalog.configure(rulesTable).parameters as! RulesStrategy.Parameters
    var engineTimes: [Double] = [], rulesTimes: [Double] = []
    var trades = 0, rulesTrades = 0
    for _ in 0..<7 {
      var t0 = clock.now
      var strategy = BollingerRSI(parameters: .init(), bars: series)
      trades = Engine.run(&strategy, bars: series, broker: BrokerSettings()).trades.count
      engineTimes.append(seconds(clock.now - t0))
      t0 = clock.now
      var ruled = RulesStrategy(parameters: rules, bars: series)
      rulesTrades = Engine.run(&ruled, bars: series, broker: BrokerSettings()).trades.count
      rulesTimes.append(seconds(clock.now - t0))
    }
    let engineBest = engineTimes.min()!, rulesBest = rulesTimes.min()!
    let engineMedian = engineTimes.sorted()[3], rulesMedian = rulesTimes.sorted()[3]
    print(String(format: "single backtest: %8.1f M bars/s (%.4f s for %d bars incl. indicators, %d trades, best of 7; median %.4f s)",
                 Double(series.count) / engineBest / 1e6, engineBest, series.count, trades, engineMedian))
    // The bar loop alone: the strategy's indicators computed before the clock starts.
    let prepared = BollingerRSI(parameters: .init(), bars: series)
    var loopBest = Double.infinity
    for _ in 0..<5 {
      var strategy = prepared
      let t0 = clock.now
      _ = Engine.run(&strategy, bars: series, broker: BrokerSettings())
      loopBest = min(loopBest, seconds(clock.now - t0))
    }
    print(String(format: "bar loop alone:  %8.1f M bars/s (%.4f s for %d bars, indicators computed before, best of 5)",
                 Double(series.count) / loopBest / 1e6, loopBest, series.count))
    print(String(format: "same as rules:   %8.1f M bars/s (%.4f s, best of 7; median %.4f s = %.2f× bollinger_rsi's, %d trades)",
                 Double(series.count) / rulesBest / 1e6, rulesBest, rulesMedian, rulesMedian / engineMedian, rulesTrades))

    // Sweep: the 180-combination grid over sweepBars bars, in process (bars already in memory).
    let sweepSeries = SyntheticBars.generate(count: sweepBars, seed: seed)
    let (root, settings) = try SweepRunner.parse(Self.sweepFile(bars: "unused.csv"), file: "bench-sweep.yaml")
    let sweepJobs = try SweepRunner.jobs(root: root, file: "bench-sweep.yaml", settings: settings,
                                         combinations: SweepPlan.combinations(settings))
    var sweepBest = Double.infinity
    for _ in 0..<5 {
      let t0 = clock.now
      SweepRunner.run(sweepJobs, bars: sweepSeries, cycle: nil, workers: jobs) { _, _ in }
      sweepBest = min(sweepBest, seconds(clock.now - t0))
    }
    let barCombinations = Double(sweepBars) * Double(sweepJobs.count)
    print(String(format: "sweep:           %8.1f M bar-combinations/s (%d combinations × %d bars in %.4f s on %d jobs, indicators included, best of 5)",
                 barCombinations / sweepBest / 1e6, sweepJobs.count, sweepBars, sweepBest, jobs))
    let (rulesRoot, rulesSettings) = try SweepRunner.parse(Self.rulesSweepFile(bars: "unused.csv"), file: "bench-sweep-rules.yaml")
    let rulesJobs = try SweepRunner.jobs(root: rulesRoot, file: "bench-sweep-rules.yaml", settings: rulesSettings,
                                         combinations: SweepPlan.combinations(rulesSettings))
    var rulesSweepBest = Double.infinity
    for _ in 0..<5 {
      let t0 = clock.now
      SweepRunner.run(rulesJobs, bars: sweepSeries, cycle: nil, workers: jobs) { _, _ in }
      rulesSweepBest = min(rulesSweepBest, seconds(clock.now - t0))
    }
    print(String(format: "sweep as rules:  %8.1f M bar-combinations/s (%.4f s, best of 5)", barCombinations / rulesSweepBest / 1e6, rulesSweepBest))
    return ExitCode.ok
  }
}
