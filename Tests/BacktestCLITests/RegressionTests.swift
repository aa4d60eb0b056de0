import BacktestCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct RegressionTests {
  @Test("every shipped run file reproduces its committed reference report")
  func shippedReferences() throws {
    let r = try CLI.run(["regress", "Strategies"])
    #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
    #expect(r.stdout.contains("ok    gpix-swing"))
  }

  @Test("a reference that differs beyond the tolerance fails with a readable diff; within it, passes")
  func detectsDifferences() throws {
    let copy = try CLI.temporaryFolder() + "/reference"
    try FileManager.default.copyItem(atPath: CLI.root + "/Reports/reference", toPath: copy)
    let summary = copy + "/goog-swing/summary.json"
    let original = try String(contentsOfFile: summary, encoding: .utf8)
    let line = try #require(original.split(separator: "\n").first { $0.contains("\"final_equity\"") })
    let value = try #require(Double(line.split(separator: ":")[1].trimmingCharacters(in: CharacterSet(charactersIn: " ,"))))

    try original.replacingOccurrences(of: String(line), with: "  \"final_equity\": \(value * (1 + 1e-12)),")
      .write(toFile: summary, atomically: false, encoding: .utf8)
    #expect(try CLI.run(["regress", "Strategies", "--reference", copy]).status == 0)

    try original.replacingOccurrences(of: String(line), with: "  \"final_equity\": \(value + 0.01),")
      .write(toFile: summary, atomically: false, encoding: .utf8)
    let r = try CLI.run(["regress", "Strategies", "--reference", copy])
    #expect(r.status == 1)
    #expect(r.stdout.contains("FAIL  goog-swing") && r.stdout.contains("summary.json:") && r.stdout.contains("expected:"))
    #expect(r.stdout.contains("ok    gpix-swing"))
  }

  @Test("regress names the input file a reference was made from when it differs, and a reference by another engine still matches")
  func namesChangedInputs() throws {
    let copy = try CLI.temporaryFolder() + "/reference"
    try FileManager.default.copyItem(atPath: CLI.root + "/Reports/reference", toPath: copy)
    let summary = copy + "/gpix-swing/summary.json"
    let original = try String(contentsOfFile: summary, encoding: .utf8)
    let engine = try #require(original.split(separator: "\n").first { $0.contains("\"engine\":") })
    try original.replacingOccurrences(of: String(engine), with: "      \"engine\": \"0.0.9\",")
      .write(toFile: summary, atomically: false, encoding: .utf8)
    #expect(try CLI.run(["regress", "Strategies", "--reference", copy]).status == 0)

    try original.replacingOccurrences(of: "\"hash\": \"6d5656479ca3012b\"", with: "\"hash\": \"0000000000000000\"")
      .write(toFile: summary, atomically: false, encoding: .utf8)
    let r = try CLI.run(["regress", "Strategies", "--reference", copy])
    #expect(r.status == 1)
    #expect(r.stdout.contains("FAIL  gpix-swing (Strategies/gpix.yaml)\n  summary.json: made from other inputs than the reference: "
      + "bars file Data/synthetic_gpix_30min.csv changed (852137 -> 852137 bytes, hash 0000000000000000 -> 6d5656479ca3012b)"), "\(r.stdout)")
  }

  @Test("killing a run at any moment leaves every report file complete: the old one or the new one")
  func killMidWrite() throws {
    let dir = try CLI.temporaryFolder()
    try SyntheticBars.csv(SyntheticBars.generate(count: 150_000, seed: 4)).write(toFile: dir + "/bars.csv", atomically: false, encoding: .utf8)
    try "name: k\ndata: {bars: bars.csv, timezone: America/New_York}\nstrategy: {type: bollinger_rsi}\nreport: {out: out}\n"
      .write(toFile: dir + "/run.yaml", atomically: false, encoding: .utf8)
    let names = ["trades.csv", "equity.csv", "indicators.csv", "summary.json", "report.md"]
    func snapshot() -> [Data?] { names.map { FileManager.default.contents(atPath: dir + "/out/" + $0) } }

    #expect(try CLI.run(["run", dir + "/run.yaml", "--quiet"]).status == 0)
    let old = snapshot()
    // --set without --out is another run than the file's: it writes beside the file's report, which stays.
    let beside = try CLI.run(["run", dir + "/run.yaml", "--set", "strategy.rsi.period=9"])
    #expect(beside.status == 0 && beside.stderr.contains("note: with --set the report goes to \(dir)/out-set/, beside the run file's \(dir)/out/"))
    #expect(snapshot() == old && FileManager.default.fileExists(atPath: dir + "/out-set/summary.json"))
    #expect(try CLI.run(["run", dir + "/run.yaml", "--quiet", "--out", dir + "/new", "--set", "strategy.rsi.period=9"]).status == 0)
    let new = names.map { FileManager.default.contents(atPath: dir + "/new/" + $0) }
    #expect(old != new)

    var sawOld = false
    for delayMilliseconds in stride(from: 30, through: 2400, by: 330) {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: CLI.binary)
      process.arguments = ["run", dir + "/run.yaml", "--quiet", "--set", "strategy.rsi.period=9", "--out", dir + "/out"]
      try process.run()
      usleep(useconds_t(delayMilliseconds * 1000))
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
      process.waitUntilExit()
      // The whole folder is one run's: never some files old and others new.
      let now = snapshot()
      #expect(now == old || now == new, "the report is neither the old nor the new one after a kill at \(delayMilliseconds) ms")
      if now == old { sawOld = true }
      // Put the old report back for the next attempt.
      for (k, name) in names.enumerated() { try #require(old[k]).write(to: URL(fileURLWithPath: dir + "/out/" + name)) }
    }
    #expect(sawOld, "no kill landed before the files were replaced; the test proved nothing")
    // The next run removes what the killed ones left.
    #expect(try CLI.run(["run", dir + "/run.yaml", "--quiet"]).status == 0)
    for folder in [dir, dir + "/out"] {
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }
      #expect(leftovers.isEmpty, "\(folder): \(leftovers)")
    }
  }
}
