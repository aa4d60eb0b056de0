import BacktestCore
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
    var r = try CLI.run(["merge", dir + "/s0", dir + "/s1", dir + "/s2", "--out", dir + "/merged"])
    #expect(r.status == 0 && one == Self.contents(dir + "/merged/results.csv"))
    r = try CLI.run(["merge", dir + "/s0", dir + "/s2", "--out", dir + "/bad"])
    #expect(r.status == 65 && r.stderr.contains("shards 1/3 are missing"))
    r = try CLI.run(["merge", dir + "/s0", dir + "/s1", dir + "/s2", dir + "/s1", "--out", dir + "/bad"])
    #expect(r.status == 65 && r.stderr.contains("is given twice"))
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

  @Test("results from other data are not mixed in: a changed file stops the resume with a clear message")
  func fingerprint() throws {
    let dir = try CLI.temporaryFolder()
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir, "--quiet"]).status == 0)
    var r = try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir, "--quiet", "--set", "portfolio.initial_cash=5000"])
    #expect(r.status == 65 && r.stderr.contains("results.csv was made from other data or settings"))
    r = try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir, "--quiet", "--set", "portfolio.initial_cash=5000", "--fresh"])
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
