import Foundation
import Testing

/// Results trusted as written: resumed and merged rows, the live signal's state under concurrent checks, and figures
/// beyond what a number holds (the third hostile pass).
@Suite(.serialized) struct HostileSweepTests {
  static let corpus = CLI.root + "/Tests/BacktestCLITests/Corpus3"

  static func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

  /// The corpus's small sweep (4 combinations over 300 daily bars) copied into a fresh folder, with its bars.
  static func sweepFile() throws -> String {
    let dir = try CLI.temporaryFolder()
    try FileManager.default.copyItem(atPath: CLI.root + "/Tests/BacktestCLITests/Corpus2/good/bars.csv", toPath: dir + "/bars.csv")
    try contents(corpus + "/good/sweep.yaml").replacingOccurrences(of: "../../Corpus2/good/bars.csv", with: "bars.csv")
      .write(toFile: dir + "/sweep.yaml", atomically: false, encoding: .utf8)
    return dir + "/sweep.yaml"
  }

  @Test("a resumed results.csv with nan, inf or text for a metric is refused at its line, not ranked first")
  func nanRow() throws {
    let file = try Self.sweepFile(), out = (file as NSString).deletingLastPathComponent + "/out"
    #expect(try CLI.run(["sweep", file, "--out", out, "--quiet"]).status == 0)
    let original = Self.contents(out + "/results.csv")
    var lines = original.split(separator: "\n").map(String.init)
    let sharpe = try #require(lines[0].split(separator: ",").firstIndex(of: "sharpe"))
    for bad in ["nan", "inf", "-inf", "0x1p3", "high"] {
      var fields = lines[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      fields[sharpe] = bad
      var damaged = lines
      damaged[2] = fields.joined(separator: ",")
      try (damaged.joined(separator: "\n") + "\n").write(toFile: out + "/results.csv", atomically: false, encoding: .utf8)
      let r = try CLI.run(["sweep", file, "--out", out, "--quiet"])
      #expect(r.status == 65 && r.stderr.contains("results.csv:3:1: error: expected a finite number or nothing for 'sharpe', found '\(bad)'"),
              "\(bad): \(r.stderr)")
    }
    lines = original.split(separator: "\n").map(String.init)
    try (lines.joined(separator: "\n") + "\n").write(toFile: out + "/results.csv", atomically: false, encoding: .utf8)
    #expect(try CLI.run(["sweep", file, "--out", out, "--quiet"]).status == 0)
  }

  @Test("a combination written twice in results.csv is not counted twice: a cheap sweep runs again, a shard is refused")
  func duplicateRow() throws {
    let file = try Self.sweepFile(), folder = (file as NSString).deletingLastPathComponent
    // Cheap (under a second of work): it runs again and says why.
    #expect(try CLI.run(["sweep", file, "--out", folder + "/cheap", "--quiet"]).status == 0)
    let clean = Self.contents(folder + "/cheap/results.csv")
    let row = clean.split(separator: "\n")[1]
    try (clean + row + "\n").write(toFile: folder + "/cheap/results.csv", atomically: false, encoding: .utf8)
    let again = try CLI.run(["sweep", file, "--out", folder + "/cheap"])
    #expect(again.status == 0 && again.stderr.contains("note: results.csv was made from other runs (a combination appears twice)"), "\(again.stderr)")
    #expect(again.stdout.contains("4 combinations run") && Self.contents(folder + "/cheap/results.csv") == clean)
    // A shard always resumes (it is part of a larger sweep): the repeated row is refused.
    #expect(try CLI.run(["sweep", file, "--shard", "0/1", "--out", folder + "/shard", "--quiet"]).status == 0)
    let shard = Self.contents(folder + "/shard/results.csv")
    try (shard + shard.split(separator: "\n")[1] + "\n").write(toFile: folder + "/shard/results.csv", atomically: false, encoding: .utf8)
    let refused = try CLI.run(["sweep", file, "--shard", "0/1", "--out", folder + "/shard", "--quiet"])
    #expect(refused.status == 65 && refused.stderr.contains("appears twice in results.csv"), "\(refused.stderr)")
  }

  @Test("merge refuses a shard whose rows were computed on other data, even with a sweep.json copied from a good shard")
  func mergeChecksRows() throws {
    let file = try Self.sweepFile(), folder = (file as NSString).deletingLastPathComponent
    for i in 0..<2 { #expect(try CLI.run(["sweep", file, "--shard", "\(i)/2", "--out", folder + "/s\(i)", "--quiet"]).status == 0) }
    // Shard 1 again on other bars (the last 200), its sweep.json then replaced by the good one.
    let bars = Self.contents(folder + "/bars.csv").split(separator: "\n")
    try ([String(bars[0])] + bars.suffix(200).map(String.init)).joined(separator: "\n").appending("\n")
      .write(toFile: folder + "/other.csv", atomically: false, encoding: .utf8)
    #expect(try CLI.run(["sweep", file, "--shard", "1/2", "--out", folder + "/other", "--quiet", "--set", "data.bars=" + folder + "/other.csv"]).status == 0)
    try FileManager.default.removeItem(atPath: folder + "/other/sweep.json")
    try FileManager.default.copyItem(atPath: folder + "/s1/sweep.json", toPath: folder + "/other/sweep.json")
    let r = try CLI.run(["merge", folder + "/s0", folder + "/other", "--out", folder + "/merged"])
    #expect(r.status == 65 && r.stderr.contains("other/results.csv:2:1: error: combination ") && r.stderr.contains("was computed on other data or settings"),
            "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: folder + "/merged"))
    #expect(try CLI.run(["merge", folder + "/s0", folder + "/s1", "--out", folder + "/merged", "--quiet"]).status == 0)
  }

  @Test("ten checks of one state file at once notify one change once")
  func concurrentStateChecks() throws {
    let dir = try CLI.temporaryFolder()
    let log = dir + "/notified.log"
    let processes = try (0..<10).map { _ -> Process in
      let p = Process()
      p.executableURL = URL(fileURLWithPath: CLI.binary)
      p.currentDirectoryURL = URL(fileURLWithPath: CLI.root)
      p.arguments = ["signal", Self.corpus + "/good/run.yaml", "--state", dir + "/state.json", "--on-change", "cat > /dev/null; echo x >> \(log)"]
      p.standardOutput = FileHandle.nullDevice
      try p.run()
      return p
    }
    for p in processes { p.waitUntilExit(); #expect(p.terminationStatus == 0) }
    #expect(Self.contents(log) == "x\n", "notified \(Self.contents(log).count / 2) times")
  }

  @Test("invalid combinations are skipped with their reason, not fatal; shards record them and merge checks them; constraints.where leaves points out")
  func skippedCombinations() throws {
    let file = try Self.sweepFile(), folder = (file as NSString).deletingLastPathComponent
    // fast 5, 10, 30 against slow 20, 30: fast 30 is not below either slow, so two of six are invalid.
    try Self.contents(file).replacingOccurrences(of: "fast: [5, 10]", with: "fast: [5, 10, 30]").write(toFile: file, atomically: false, encoding: .utf8)
    let r = try CLI.run(["sweep", file, "--out", folder + "/one"])
    #expect(r.status == 0 && r.stdout.contains("2 combinations skipped as invalid, for example fast=30 slow=20: expected 'strategy.fast' < 'strategy.slow', found 30 and 20"),
            "\(r.stdout) \(r.stderr)")
    #expect(Self.contents(folder + "/one/results.csv").split(separator: "\n").count == 5)
    #expect(Self.contents(folder + "/one/sweep.md").contains("2 combinations skipped as invalid"))
    for i in 0..<2 { #expect(try CLI.run(["sweep", file, "--shard", "\(i)/2", "--out", folder + "/s\(i)", "--quiet"]).status == 0) }
    #expect(try CLI.run(["merge", folder + "/s0", folder + "/s1", "--out", folder + "/m", "--quiet"]).status == 0)
    #expect(Self.contents(folder + "/m/results.csv") == Self.contents(folder + "/one/results.csv"))
    // A shard that claims a valid combination was invalid is refused.
    let json = Self.contents(folder + "/s0/sweep.json").replacingOccurrences(of: "\"skipped\": [],", with: "\"skipped\": [0],")
    try json.write(toFile: folder + "/s0/sweep.json", atomically: false, encoding: .utf8)
    let bad = try CLI.run(["merge", folder + "/s0", folder + "/s1", "--out", folder + "/m2"])
    #expect(bad.status == 65 && bad.stderr.contains("skipped combination 5,20 as invalid, but it is valid"), "\(bad.stderr)")
    // The same grid with constraints.where: fast < slow runs the four points and says two were left out.
    try (Self.contents(file) + "  constraints: {where: fast < slow}\n").write(toFile: file, atomically: false, encoding: .utf8)
    let c = try CLI.run(["sweep", file, "--out", folder + "/where"])
    #expect(c.status == 0 && c.stdout.contains("2 grid points left out by sweep.constraints.where (fast < slow)") && !c.stdout.contains("skipped as invalid"))
    // Risk sizing with a combination whose stop is off: skipped with the reason, as any conflict.
    let sizing = try CLI.run(["sweep", CLI.root + "/Tests/BacktestCLITests/Corpus3/good/sizing-sweep.yaml", "--out", folder + "/sizing"])
    #expect(sizing.status == 0 && sizing.stdout.contains("2 combinations skipped as invalid, for example stop_loss=none oversold=25: "
                                                         + "'portfolio.sizing: {risk}' sizes by the distance to the stop"), "\(sizing.stdout)")
    // Every combination invalid: an error, not an empty sweep.
    try Self.contents(file).replacingOccurrences(of: "slow: [20, 30]", with: "slow: [2, 3]").replacingOccurrences(of: "  constraints: {where: fast < slow}\n", with: "")
      .write(toFile: file, atomically: false, encoding: .utf8)
    let none = try CLI.run(["sweep", file, "--out", folder + "/none"])
    #expect(none.status == 65 && none.stderr.contains("error: every combination is invalid, for example fast=5 slow=2: "), "\(none.stderr)")
  }

  @Test("signal on daily date-only bars: after the 16:00 close the day's bar is the newest (it was left out and the previous called stale); bars after the clock are counted")
  func dailyClose() throws {
    let after = try CLI.run(["signal", "goog-swing", "--now", "2013-03-01T17:00:00-05:00"])
    #expect(after.status == 0 && after.stdout.contains("at the close of 2013-03-01 (newest bar)") && !after.stdout.contains("stale"), "\(after.stdout)")
    #expect(after.stderr.isEmpty, "\(after.stderr)")
    let before = try CLI.run(["signal", "goog-swing", "--now", "2013-03-01T15:00:00-05:00"])
    #expect(before.status == 0 && before.stdout.contains("at the close of 2013-02-28 (newest bar)"))
    #expect(before.stderr.contains("note: 1 bar of Data/GOOG.csv closes after 2013-03-01T20:00:00Z (the newest from 2013-03-01): left out, not yet closed"),
            "\(before.stderr)")
  }

  @Test("compare writes a fraction beyond what a percentage holds as a number, not inf")
  func hugeFraction() throws {
    let r = try CLI.run(["compare", Self.corpus + "/good/compare-run", Self.corpus + "/bad/compare-huge"])
    #expect(r.status == 0 && r.stdout.contains("1.00e+310%") && r.stdout.contains("+1.00e+310 pts") && !r.stdout.contains("inf"), "\(r.stdout)")
  }
}
