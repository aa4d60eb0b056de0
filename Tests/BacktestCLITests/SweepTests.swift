import BacktestCore
import BacktestRun
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct SweepTests {
  static func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

  @Test("results are byte-identical whatever the job count, and sharded runs merge to the same file")
  func determinism() throws {
    let dir = try CLI.temporaryFolder()
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir + "/j1", "--jobs", "1", "--quiet"]).status == 0)
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir + "/j2", "--jobs", "2", "--quiet"]).status == 0)
    let one = Self.contents(dir + "/j1/results.csv")
    #expect(one.split(separator: "\n").count == 181)
    #expect(one.hasPrefix("bb_period,bb_std,rsi_period,oversold,total_trades,wins,losses,win_rate,avg_win,avg_loss,"))
    #expect(one == Self.contents(dir + "/j2/results.csv"))
    #expect(Self.contents(dir + "/j1/sweep.md") == Self.contents(dir + "/j2/sweep.md"))
    for i in 0..<3 {
      #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--shard", "\(i)/3", "--out", dir + "/s\(i)", "--quiet"]).status == 0)
    }
    let r = try CLI.run(["merge", dir + "/s0", dir + "/s1", dir + "/s2", "--out", dir + "/merged"])
    #expect(r.status == 0 && one == Self.contents(dir + "/merged/results.csv"))
  }

  @Test("merge refuses shards of other settings, data or combinations, a missing shard, a duplicated one and a partial one, naming the folders")
  func mergeRefusesMismatchedShards() throws {
    let dir = try CLI.temporaryFolder()
    let lines = Self.contents(CLI.root + "/Data/synthetic_gpix_30min.csv").split(separator: "\n", omittingEmptySubsequences: false)
    try (lines[0...3000].joined(separator: "\n") + "\n").write(toFile: dir + "/bars.csv", atomically: false, encoding: .utf8)
    let sweepFile = Self.contents(CLI.root + "/Strategies/gpix-sweep.yaml")
    try sweepFile.write(toFile: dir + "/sweep.yaml", atomically: false, encoding: .utf8)
    func shard(_ i: Int, _ folder: String, _ set: [String] = []) throws {
      let r = try CLI.run(["sweep", dir + "/sweep.yaml", "--shard", "\(i)/3", "--out", dir + "/" + folder, "--quiet", "--set", "data.bars=" + dir + "/bars.csv"]
        + set.flatMap { ["--set", $0] })
      #expect(r.status == 0, "\(r.stderr)")
    }
    for i in 0..<3 { try shard(i, "s\(i)") }
    try shard(1, "cash", ["portfolio.initial_cash=5000"])
    try shard(1, "grid", ["sweep.parameters.oversold=[20, 25, 30, 40]"])
    func merge(_ folders: [String]) throws -> CLI.Result {
      try CLI.run(["merge"] + folders.map { dir + "/" + $0 } + ["--out", dir + "/merged"])
    }
    var r = try merge(["s0", "cash", "s2"])
    #expect(r.status == 65 && r.stderr.contains("\(dir)/cash/sweep.json: error: shard \(dir)/cash is from another sweep than \(dir)/s0: other data or settings (fingerprint "), "\(r.stderr)")
    r = try merge(["s0", "s1", "grid"])
    #expect(r.status == 65 && r.stderr.contains("shard \(dir)/grid is from another sweep than \(dir)/s0: other combinations (plan "), "\(r.stderr)")
    r = try merge(["s0", "s2"])
    #expect(r.status == 65 && r.stderr.contains("backtest merge: error: shard 1/3 is missing: the folders given hold 0/3 (\(dir)/s0), 2/3 (\(dir)/s2)"), "\(r.stderr)")
    r = try merge(["s0", "s1", "s2", "s1"])
    #expect(r.status == 65 && r.stderr.contains("error: shard 1/3 is given twice: \(dir)/s1 and \(dir)/s1"), "\(r.stderr)")
    // A shard cut short (as if killed): merge names it and what it lacks.
    try FileManager.default.copyItem(atPath: dir + "/s1", toPath: dir + "/cut")
    let rows = Self.contents(dir + "/s1/results.csv").split(separator: "\n")
    try (rows[0...20].joined(separator: "\n") + "\n").write(toFile: dir + "/cut/results.csv", atomically: false, encoding: .utf8)
    r = try merge(["s0", "cut", "s2"])
    #expect(r.status == 65 && r.stderr.contains("40 of 180 combinations have no result (for example ") && r.stderr.contains("): \(dir)/cut lacks 40; run those shards again"),
            "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/merged"))
    // The data changed after the shards ran: the merged significance tests would use other bars than the results.
    #expect(try merge(["s0", "s1", "s2"]).status == 0)
    try (lines[0...3001].joined(separator: "\n") + "\n").write(toFile: dir + "/bars.csv", atomically: false, encoding: .utf8)
    r = try merge(["s0", "s1", "s2"])
    #expect(r.status == 65 && r.stderr.contains("\(dir)/sweep.yaml: error: the shards (\(dir)/s0, \(dir)/s1, \(dir)/s2) were made from other data or settings than \(dir)/sweep.yaml and its data have now"),
            "\(r.stderr)")
    // The grid changed after the shards ran.
    try (lines[0...3000].joined(separator: "\n") + "\n").write(toFile: dir + "/bars.csv", atomically: false, encoding: .utf8)
    #expect(try merge(["s0", "s1", "s2"]).status == 0)
    try sweepFile.replacingOccurrences(of: "oversold: {from: 20, to: 35, step: 5}", with: "oversold: {from: 20, to: 40, step: 5}")
      .write(toFile: dir + "/sweep.yaml", atomically: false, encoding: .utf8)
    r = try merge(["s0", "s1", "s2"])
    #expect(r.status == 65 && r.stderr.contains("\(dir)/sweep.yaml: error: the shards (\(dir)/s0, \(dir)/s1, \(dir)/s2) ran another plan of combinations than \(dir)/sweep.yaml has now"),
            "\(r.stderr)")
  }

  @Test("shards run with --set merge into what a single run with the same --set reports (significance included)")
  func mergeAppliesTheShardsOverrides() throws {
    let dir = try CLI.temporaryFolder()
    let lines = Self.contents(CLI.root + "/Data/synthetic_gpix_30min.csv").split(separator: "\n", omittingEmptySubsequences: false)
    try (lines[0...6000].joined(separator: "\n") + "\n").write(toFile: dir + "/bars.csv", atomically: false, encoding: .utf8)
    let set = ["--set", "data.bars=" + dir + "/bars.csv", "--quiet"]
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir + "/one"] + set).status == 0)
    for i in 0..<2 { #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--shard", "\(i)/2", "--out", dir + "/s\(i)"] + set).status == 0) }
    #expect(try CLI.run(["merge", dir + "/s0", dir + "/s1", "--out", dir + "/merged"]).status == 0)
    #expect(Self.contents(dir + "/merged/results.csv") == Self.contents(dir + "/one/results.csv"))
    let single = Self.contents(dir + "/one/sweep.md"), merged = Self.contents(dir + "/merged/sweep.md")
    #expect(single.contains("Deflated Sharpe ratio") && single.hasPrefix("# Sweep: gpix-sweep\n"))
    #expect(merged == single.replacingOccurrences(of: "# Sweep: gpix-sweep\n", with: "# Sweep: merged from 2 shards\n"))
  }

  @Test("the default combination's row equals what backtest run reports for the same settings")
  func kernelMatchesRun() throws {
    let dir = try CLI.temporaryFolder()
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir, "--quiet"]).status == 0)
    let rows = Self.contents(dir + "/results.csv").split(separator: "\n")
    let header = rows[0].split(separator: ",").map(String.init)
    let row = try #require(rows.first { $0.hasPrefix("20,2.0,14,30,") }).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    let summary = Self.contents(CLI.root + "/Reports/reference/gpix-swing/summary.json")
    for key in ["total_trades", "total_return", "sharpe", "sortino", "max_drawdown", "exposure", "profit_factor"] {
      let value = row[header.firstIndex(of: key)!]
      #expect(summary.contains("\"\(key)\": \(value),"), "\(key) = \(value)")
    }
  }

  @Test("a sweep cut short resumes: finished rows are kept, a half-written last line is dropped, nothing is duplicated")
  func resume() throws {
    let dir = try CLI.temporaryFolder()
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir + "/full", "--quiet"]).status == 0)
    let full = Self.contents(dir + "/full/results.csv")
    let lines = full.split(separator: "\n", omittingEmptySubsequences: false)
    // As if killed: 60 finished rows in another order, then half a line.
    let partial = ([lines[0]] + lines[1...60].reversed()).joined(separator: "\n") + "\n" + lines[61].prefix(30)
    try FileManager.default.createDirectory(atPath: dir + "/cut", withIntermediateDirectories: true)
    try partial.write(toFile: dir + "/cut/results.csv", atomically: false, encoding: .utf8)
    let r = try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir + "/cut"])
    #expect(r.status == 0 && r.stdout.contains("120 combinations run, 60 resumed"), "\(r.stdout)")
    #expect(Self.contents(dir + "/cut/results.csv") == full)
  }

  @Test("killing a sweep at any moment, then rerunning it, gives the uninterrupted results")
  func killAndResume() throws {
    let dir = try CLI.temporaryFolder()
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir + "/full", "--quiet"]).status == 0)
    let full = Self.contents(dir + "/full/results.csv")
    for (k, delay) in [40, 120, 250, 400].enumerated() {
      let out = dir + "/k\(k)"
      let process = Process()
      process.executableURL = URL(fileURLWithPath: CLI.binary)
      process.arguments = ["sweep", "gpix-sweep.yaml", "--out", out, "--quiet", "--jobs", "1"]
      process.currentDirectoryURL = URL(fileURLWithPath: CLI.root)
      try process.run()
      usleep(useconds_t(delay * 1000))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", out, "--quiet"]).status == 0)
      #expect(Self.contents(out + "/results.csv") == full, "killed after \(delay) ms")
    }
  }

  @Test("a folder holding another shard's results or combinations no longer in the grid stops the resume with a clear message")
  func resumeRefusesForeignRows() throws {
    let dir = try CLI.temporaryFolder()
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--shard", "0/4", "--out", dir + "/s", "--quiet"]).status == 0)
    var r = try CLI.run(["sweep", "gpix-sweep.yaml", "--shard", "1/4", "--out", dir + "/s", "--quiet"])
    #expect(r.status == 65 && r.stderr.contains("\(dir)/s/results.csv: error: 44 of its results are not in this shard (for example bb_period=10 bb_std=1.5 rsi_period=7 oversold=20): "
                                                + "it was made by another shard or with another grid; run with --fresh"), "\(r.stderr)")
    func sweep(_ periods: String) throws -> CLI.Result {
      try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir + "/grid", "--set", "sweep.parameters.bb_period=" + periods])
    }
    #expect(try sweep("[10, 15]").status == 0)
    // A grid that shrank holds rows no longer in it: cheap to run again (36 × 13,104 bar-combinations), so it starts over and says so.
    r = try sweep("[10]")
    #expect(r.status == 0 && r.stderr.contains("note: results.csv was made from other combinations; running all 36 combinations again instead of resuming (they take about 0.02 s)"), "\(r.stderr)")
    #expect(r.stdout.contains("36 combinations run on"))
    // A grid that grew resumes.
    #expect(try sweep("[10, 15]").status == 0)
    r = try sweep("[10, 15, 20]")
    #expect(r.status == 0 && r.stdout.contains("36 combinations run, 72 resumed"), "\(r.stdout)")
  }

  @Test("results from other data are not mixed in: a changed file stops the resume with a clear message")
  func fingerprint() throws {
    let dir = try CLI.temporaryFolder()
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir, "--quiet"]).status == 0)
    // Changed settings on a sweep cheaper than a second (180 × 13,104 bar-combinations): run again from scratch, saying so.
    var r = try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir, "--set", "portfolio.initial_cash=5000"])
    #expect(r.status == 0 && r.stderr.contains("note: results.csv was made from other data or settings; running all 180 combinations again instead of resuming (they take about 0.12 s)"), "\(r.stderr)")
    #expect(r.stdout.contains("180 combinations run on"))
    // A dearer one (180 × 200,000 bar-combinations, above 20 M) stops and asks.
    let bars = dir + "/big.csv"
    #expect(try CLI.run(["synth", "--out", bars, "--bars", "200000", "--seed", "3", "--quiet"]).status == 0)
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir + "/big", "--quiet", "--set", "data.bars=" + bars]).status == 0)
    r = try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir + "/big", "--quiet", "--set", "data.bars=" + bars, "--set", "portfolio.initial_cash=5000"])
    #expect(r.status == 65 && r.stderr.contains("results.csv was made from other data or settings"), "\(r.stderr)")
    r = try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir + "/big", "--quiet", "--set", "data.bars=" + bars, "--set", "portfolio.initial_cash=5000", "--fresh"])
    #expect(r.status == 0)
  }

  @Test("a fresh sweep stopped by a bad bar file leaves the folder as it was: the old results, no new folder, no temporary file")
  func freshWithBadBars() throws {
    let dir = try CLI.temporaryFolder()
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir + "/old", "--quiet"]).status == 0)
    let before = try FileManager.default.contentsOfDirectory(atPath: dir + "/old").sorted()
    let results = Self.contents(dir + "/old/results.csv")
    let lines = Self.contents(CLI.root + "/Data/synthetic_gpix_30min.csv").split(separator: "\n")
    try (lines[0..<300].joined(separator: "\n") + "\n2099-01-02T09:30:00-05:00,1,abc,1,1,1\n").write(toFile: dir + "/bad.csv", atomically: false, encoding: .utf8)
    for out in [dir + "/old", dir + "/new"] {
      let r = try CLI.run(["sweep", "gpix-sweep.yaml", "--out", out, "--fresh", "--quiet", "--set", "data.bars=" + dir + "/bad.csv"])
      #expect(r.status == 65 && r.stderr.contains("bad.csv:301:29: error: expected a number for 'high'"), "\(r.stderr)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/old").sorted() == before)
    #expect(Self.contents(dir + "/old/results.csv") == results)
    #expect(!FileManager.default.fileExists(atPath: dir + "/new"))
  }

  @Test("sweep file errors name the place")
  func errors() throws {
    let r = try CLI.run(["sweep", "gpix-sweep.yaml", "--set", "sweep.parameters.bb_perod=[1]"])
    #expect(r.status == 65 && r.stderr.contains("unknown sweep parameter 'bb_perod'; did you mean 'bb_period'?"))
    let r2 = try CLI.run(["sweep", "gpix-sweep.yaml", "--set", "sweep.parameters.oversold=[20, 200]"])
    #expect(r2.status == 65 && r2.stderr.contains("expected a number from 0 to 100 for 'strategy.rsi.oversold', found 200"))
    let r3 = try CLI.run(["sweep", "gpix-sweep.yaml", "--shard", "3/3"])
    #expect(r3.status == 64)
    // A bad value is reported before a missing bar file (the settings are checked while the bars load).
    let r4 = try CLI.run(["sweep", "gpix-sweep.yaml", "--set", "sweep.parameters.oversold=[20, 200]", "--set", "data.bars=Data/none.csv"])
    #expect(r4.status == 65 && r4.stderr.contains("found 200"), "\(r4.stderr)")
    let r5 = try CLI.run(["sweep", "gpix-sweep.yaml", "--set", "data.bars=Data/none.csv"])
    #expect(r5.status == 66 && r5.stderr.contains("Data/none.csv: error: no such file"), "\(r5.stderr)")
  }
}

@Suite(.serialized) struct HoldoutTests {
  @Test("a holdout sweep ranks on the bars before the split and runs the top combinations unchanged after it")
  func holdout() throws {
    let dir = try CLI.temporaryFolder()
    #expect(try CLI.run(["sweep", "gpix-sweep-holdout.yaml", "--out", dir + "/h", "--quiet"]).status == 0)
    // In-sample results equal a plain sweep of the bars before the split.
    let cut = try CLI.run(["sweep", "gpix-sweep-holdout.yaml", "--out", dir + "/cut", "--quiet",
                           "--set", "data.end=2023-06-30", "--set", "sweep.validation=null"])
    #expect(cut.status == 0)
    func rows(_ path: String) throws -> [String] {
      try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",").dropLast().joined(separator: ",") }
    }
    #expect(try rows(dir + "/h/results.csv") == rows(dir + "/cut/results.csv"))
    // Each out-of-sample row equals the run file's strategy with those parameters over all the bars, traded from the
    // split on with a fresh account (the bars before the split warm the indicators). `backtest run` with
    // data.start=2023-07-01 would compute the indicators from that date: a different, cold result.
    let validation = try String(contentsOfFile: dir + "/h/validation.csv", encoding: .utf8).split(separator: "\n")
    #expect(validation.count == 6)
    let header = validation[0].split(separator: ",").map(String.init)
    let file = CLI.root + "/Strategies/gpix-sweep-holdout.yaml"
    func config(_ overrides: [String]) throws -> RunConfig {
      try RunConfig.parse(document: try SweepRunner.parse(String(contentsOfFile: file, encoding: .utf8), file: file, overrides: overrides).root, file: file)
    }
    let bars = try Backtest.loadBars(try config([]).data).bars
    let split = try #require(bars.day.firstIndex { Int($0) >= CivilDate.days(year: 2023, month: 7, day: 1) })
    for line in validation.dropFirst().prefix(2) {
      let v = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      let combination = try config(["strategy.bollinger.period=\(v[1])", "strategy.rsi.oversold=\(v[2])"])
      let run = combination.strategy.run(bars: bars, broker: combination.broker, trading: split..<bars.count).result
      let summary = PerformanceSummary(result: run, bars: bars.filtered { $0 >= split })
      #expect(summary.totalReturn.description == v[header.firstIndex(of: "oos_total_return")!])
      #expect(summary.sharpe?.description == v[header.firstIndex(of: "oos_sharpe")!])
    }
    let md = try String(contentsOfFile: dir + "/h/sweep.md", encoding: .utf8)
    #expect(md.contains("## In-sample against out-of-sample") && md.contains("validation.svg"))
  }
}
