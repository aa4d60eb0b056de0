import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `backtest bench`: timings on generated bars, for release builds.
struct BenchCommand {
  var bars: Int
  var sweepBars: Int
  var seed: UInt64
  var jobs: Int
  var writeFolder: String?
  var wholeBars: [Int]
  var runs: Int

  static let spec = CommandSpec(
    "bench", summary: "time CSV loading, one backtest and the 180-combination sweep on generated 30-minute bars",
    options: [
      .option("bars", "N", "bars for the CSV and single-backtest timings", default: .value("1000000")),
      .option("sweep-bars", "N", "bars for the sweep timing", default: .value("100000")),
      .option("seed", "N", "the seed of the generated bars", default: .value("1")),
      .jobs,
      .option("write", "DIR", "instead of timing, write the sweep's bars, sweep file and run file into DIR (to time whole processes)",
              completion: .directory),
      .option("whole", "N,N", "bar counts for the whole-process timings (backtest run with every output); 0 for none",
              default: .value("200000,1000000")),
      .option("runs", "N", "runs of each whole process (the median is printed)", default: .value("5")),
    ],
    details: "Meaningful in a release build: swift run -c release backtest bench. The whole-process timings run this executable as a child process (backtest run on generated bars, every report format) and print the median time, the fastest and the slowest, the child's processor time (user and system, all its threads; the median) and its peak memory, next to the engine alone in process on the same bars.",
    examples: ["bench", "bench --bars 200000 --jobs 2", "bench --whole 10000000 --runs 3"])

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, command: Self.spec, path: "bench")
    if !a.positionals.isEmpty { throw UsageError(message: "bench takes no arguments, found '\(a.positionals[0])'") }
    bars = try a.integer("bars", minimum: 100)!
    sweepBars = try a.integer("sweep-bars", minimum: 100)!
    seed = UInt64(try a.integer("seed", minimum: 0)!)
    jobs = try a.integer("jobs") ?? ProcessInfo.processInfo.activeProcessorCount
    writeFolder = a.option("write")
    let whole = a.option("whole")!
    let counts = whole.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")) }
    guard !counts.isEmpty, counts.allSatisfy({ $0 != nil && ($0! == 0 || $0! >= 100) }) else {
      throw UsageError(message: "expected bar counts >= 100 (or 0) separated by commas for '--whole', found '\(whole)'")
    }
    wholeBars = counts.compactMap { $0 }.filter { $0 > 0 }
    runs = try a.integer("runs")!
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

  /// The whole-process run: `Strategies/gpix.yaml`'s settings, every report format.
  static func runFile(bars: String) -> String {
    "name: bench-run\ndata: {bars: \(bars), timezone: America/New_York, session: regular}\n"
      + "strategy: {type: bollinger_rsi, bollinger: {period: 20, std_dev: 2.0}, rsi: {period: 14, oversold: 30, overbought: 70}, "
      + "stop_loss: 2%, profit_target: null}\n"
      + "portfolio: {initial_cash: 100000, sizing: all_in, commission: 0, slippage_bps: 0}\n"
      + "report: {out: bench-run-out, formats: [csv, json, markdown, html]}\n"
  }

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

  /// The rules with a trailing stop: the same grid, through the general engine (a trailing stop leaves the kernel).
  static func trailingSweepFile(bars: String) -> String {
    "name: bench-sweep-trailing\ndata: {bars: \(bars), timezone: America/New_York}\n" + rulesStrategy
      + "\n  trailing_stop: 3%\nreport: {out: bench-sweep-trailing-out}\n" + sweepSection + "\n"
  }

  func run() throws -> Int32 {
    if let folder = writeFolder {
      // Files to time whole processes with (for example: hyperfine 'backtest sweep DIR/bench-sweep.yaml --quiet --fresh').
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      try AtomicWriter.write([
        ReportFile(name: "bars.csv", contents: SyntheticBars.csv(SyntheticBars.generate(count: sweepBars, seed: seed))),
        ReportFile(name: "bench-sweep.yaml", contents: Self.sweepFile(bars: "bars.csv")),
        ReportFile(name: "bench-sweep-rules.yaml", contents: Self.rulesSweepFile(bars: "bars.csv")),
        ReportFile(name: "bench-sweep-trailing.yaml", contents: Self.trailingSweepFile(bars: "bars.csv")),
        ReportFile(name: "bench-run.yaml", contents: Self.runFile(bars: "bars.csv")),
      ], into: folder)
      print("wrote \(folder)/bars.csv (\(HumanFormat.integer(sweepBars)) bars), \(folder)/bench-sweep.yaml (180 combinations), "
            + "bench-sweep-rules.yaml (the same 180 combinations written as rules), bench-sweep-trailing.yaml (those rules with a "
            + "trailing stop: the general engine) and bench-run.yaml (every output)")
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
    // The fastest of 5 in-process runs of a sweep file's jobs over sweepSeries.
    func bestSweep(_ text: String, file: String) throws -> (seconds: Double, combinations: Int) {
      let (root, settings) = try SweepRunner.parse(text, file: file)
      let sweepJobs = try SweepRunner.jobs(root: root, file: file, settings: settings, combinations: SweepPlan.combinations(settings))
      var best = Double.infinity
      for _ in 0..<5 {
        let t0 = clock.now
        SweepRunner.run(sweepJobs, bars: sweepSeries, cycle: nil, workers: jobs) { _, _ in }
        best = min(best, seconds(clock.now - t0))
      }
      return (best, sweepJobs.count)
    }
    let (sweepBest, combinations) = try bestSweep(Self.sweepFile(bars: "unused.csv"), file: "bench-sweep.yaml")
    let barCombinations = Double(sweepBars) * Double(combinations)
    print(String(format: "sweep:           %8.1f M bar-combinations/s (%d combinations × %d bars in %.4f s on %d jobs, indicators included, best of 5)",
                 barCombinations / sweepBest / 1e6, combinations, sweepBars, sweepBest, jobs))
    let rulesSweepBest = try bestSweep(Self.rulesSweepFile(bars: "unused.csv"), file: "bench-sweep-rules.yaml").seconds
    print(String(format: "sweep as rules:  %8.1f M bar-combinations/s (%.4f s, best of 5)", barCombinations / rulesSweepBest / 1e6, rulesSweepBest))
    // The general engine: the same rules with a trailing stop, which the fused kernel does not simulate.
    let generalBest = try bestSweep(Self.trailingSweepFile(bars: "unused.csv"), file: "bench-sweep-trailing.yaml").seconds
    print(String(format: "general engine:  %8.1f M bar-combinations/s (%.4f s, best of 5; the rules with a 3%% trailing stop, %.2f× the kernel's time)",
                 barCombinations / generalBest / 1e6, generalBest, generalBest / sweepBest))
    if !wholeBars.isEmpty { try wholeProcesses() }
    return ExitCode.ok
  }

  /// Times `backtest run` with every output as a child process on generated
  /// bars, next to the engine alone (strategy, buy and hold and statistics) in process.
  func wholeProcesses() throws {
    let executable = Self.executablePath
    let root = FileManager.default.temporaryDirectory.path + "/backtest-bench-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: root) }
    print("whole process, every output (backtest run with Strategies/gpix.yaml's settings: CSV, JSON, Markdown and SVG, HTML; "
      + "\(runs) runs, median [fastest–slowest]; CPU: the median of its user and system time, on \(ProcessInfo.processInfo.activeProcessorCount) cores):")
    for count in wholeBars {
      let folder = root + "/\(count)"
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      try AtomicWriter.write([
        ReportFile(name: "bars.csv", contents: SyntheticBars.csv(SyntheticBars.generate(count: count, seed: seed))),
        ReportFile(name: "run.yaml", contents: Self.runFile(bars: "bars.csv")),
      ], into: folder)
      // The engine alone: the run's strategy, its buy-and-hold benchmark and both summaries, bars in memory.
      let config = try RunConfig.parse(Self.runFile(bars: "bars.csv"), file: folder + "/run.yaml")
      let inputs = try Backtest.load(config)
      var engine = Double.infinity
      for _ in 0..<3 {
        let t0 = ContinuousClock.now
        _ = Backtest.execute(config, inputs)
        engine = min(engine, Self.seconds(ContinuousClock.now - t0))
      }
      var times: [Double] = [], cpu: [Double] = [], peak = 0
      for _ in 0..<runs {
        let child = try Self.timeChild(executable, ["run", folder + "/run.yaml", "--quiet"])
        times.append(child.seconds)
        cpu.append(child.cpuSeconds)
        peak = max(peak, child.maxResident)
      }
      times.sort()
      cpu.sort()
      let written = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/bench-run-out"))?.reduce(0) { total, name in
        total + ((try? FileManager.default.attributesOfItem(atPath: folder + "/bench-run-out/" + name)[.size] as? Int) ?? 0)
      } ?? 0
      let label = HumanFormat.integer(count)
      print(String(format: "  %@ bars: %7.3f s [%.3f–%.3f] (engine alone %.3f s), CPU %.3f s, peak memory %.0f MB, %.1f MB of reports",
                   String(repeating: " ", count: max(0, 10 - label.count)) + label, times[times.count / 2], times[0], times[times.count - 1], engine,
                   cpu[cpu.count / 2], Double(peak) / 1e6, Double(written) / 1e6))
      try? FileManager.default.removeItem(atPath: folder)
    }
  }

  static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

  /// This executable's path, for running it as a child.
  static var executablePath: String {
    #if os(Linux)
    if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return resolved }
    #endif
    return Bundle.main.executablePath ?? CommandLine.arguments[0]
  }

  /// Runs `executable` with `arguments` and returns its time from start to exit,
  /// the processor time it used (user and system, all its threads) and its peak
  /// resident memory in bytes; throws when it fails.
  static func timeChild(_ executable: String, _ arguments: [String]) throws -> (seconds: Double, cpuSeconds: Double, maxResident: Int) {
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    let start = ContinuousClock.now
    guard posix_spawn(&pid, executable, nil, nil, argv, environ) == 0 else {
      throw OutputError(path: executable, message: "cannot start it for the whole-process timing")
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let elapsed = seconds(ContinuousClock.now - start)
    guard status == 0 else { throw OutputError(path: executable, message: "the whole-process run failed (status \(status))") }
    #if os(Linux)
    let maxResident = usage.ru_maxrss * 1024  // kilobytes on Linux
    #else
    let maxResident = usage.ru_maxrss         // bytes on macOS
    #endif
    func processorSeconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    let cpu = processorSeconds(usage.ru_utime) + processorSeconds(usage.ru_stime)
    return (elapsed, cpu, Int(maxResident))
  }
}
