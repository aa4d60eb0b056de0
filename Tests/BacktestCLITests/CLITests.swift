import Foundation
import Testing

/// Runs the built `backtest` binary.
struct CLI {
  static let root: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()

  /// The `backtest` executable next to the test bundle (SwiftPM builds it first).
  static let binary: String = {
    var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
      let candidate = url.appendingPathComponent("backtest").path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      url.deleteLastPathComponent()
    }
    return root + "/.build/debug/backtest"
  }()

  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// Runs `executable` (the `backtest` binary unless told otherwise) and waits for it to exit.
  static func run(_ arguments: [String], in directory: String = root, environment: [String: String] = [:],
                  executable: String = binary) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v }
    process.environment = env
    // Output goes to files, read once the process has ended: reading a pipe can fail with EINTR when
    // another test's child exits (FileHandle then traps), and a full pipe could stall the child.
    let folder = try temporaryFolder()
    let outPath = folder + "/stdout", errPath = folder + "/stderr"
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath)), err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    defer { try? out.close(); try? err.close() }
    process.standardOutput = out
    process.standardError = err
    try process.run()
    process.waitUntilExit()
    return Result(status: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: URL(fileURLWithPath: outPath)), as: UTF8.self),
                  stderr: String(decoding: try Data(contentsOf: URL(fileURLWithPath: errPath)), as: UTF8.self))
  }

  /// Where this test process's temporary folders go; removed when the process exits.
  static let scratch: String = {
    let path = NSTemporaryDirectory() + "backtest-cli-tests-\(ProcessInfo.processInfo.processIdentifier)"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: CLI.scratch) }
    return path
  }()

  /// A fresh temporary folder (inside `scratch`).
  static func temporaryFolder() throws -> String {
    let path = scratch + "/" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }
}

@Suite(.serialized) struct CLITests {
  @Test("a run that charges an expense ratio says once what it models; a run without one says nothing")
  func expenseRatioNotice() throws {
    let note = "backtest: note: expense_ratio INCM 0.35% is charged on top of the prices: right for an index, synthetic data or an advisory "
      + "fee; a fund's market prices already have its expenses taken out, so on real fund prices it counts them twice\n"
    let portfolio = try CLI.run(["run", "income-etf.yaml", "--quiet", "--out", try CLI.temporaryFolder()])
    #expect(portfolio.status == 0 && portfolio.stderr == note)
    let swing = try CLI.run(["run", "income-swing.yaml", "--quiet", "--out", try CLI.temporaryFolder()])
    #expect(swing.status == 0 && swing.stderr == note.replacingOccurrences(of: "INCM 0.35%", with: "0.35%"))
    let none = try CLI.run(["run", "three-fund.yaml", "--quiet", "--out", try CLI.temporaryFolder()])
    #expect(none.status == 0 && none.stderr.isEmpty)
  }

  @Test("bench --write writes a run file with every output; bench times whole runs of itself next to the engine alone")
  func benchWholeProcess() throws {
    let dir = try CLI.temporaryFolder()
    #expect(try CLI.run(["bench", "--write", dir, "--sweep-bars", "2000"]).status == 0)
    #expect(try CLI.run(["run", dir + "/bench-run.yaml", "--quiet"]).status == 0)
    let written = try FileManager.default.contentsOfDirectory(atPath: dir + "/bench-run-out")
    for name in ["equity.csv", "indicators.csv", "trades.csv", "summary.json", "report.md", "price.svg", "report.html"] {
      #expect(written.contains(name), "\(name)")
    }
    let r = try CLI.run(["bench", "--bars", "500", "--sweep-bars", "500", "--whole", "1500", "--runs", "1", "--jobs", "1"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("whole process, every output") && r.stdout.contains("     1,500 bars: ") && r.stdout.contains("(engine alone "),
            "\(r.stdout)")
    // The child's processor time: a run that starts threads and writes eleven files takes some, and at most
    // its cores' worth of its wall time (with two milliseconds for the figures' rounding).
    let line = r.stdout.split(separator: "\n").first { $0.contains("1,500 bars: ") } ?? ""
    let wall = line.split(separator: " ").dropFirst(2).first.flatMap { Double($0) } ?? -1
    let cpu = line.components(separatedBy: "CPU ").dropFirst().first?.split(separator: " ").first.flatMap { Double($0) } ?? -1
    #expect(cpu > 0 && cpu <= wall * Double(ProcessInfo.processInfo.activeProcessorCount) + 0.002, "\(line)")
  }

  @Test("--timing names each phase; the engine's span says that indicators.csv was written in it, only when it was")
  func timingPhases() throws {
    /// The phases' names and figures in the `timing:` line, and that line.
    func phases(_ extra: [String]) throws -> (names: [String], line: String) {
      let r = try CLI.run(["run", "gpix.yaml", "--out", try CLI.temporaryFolder(), "--quiet", "--timing"] + extra)
      #expect(r.status == 0, "\(r.stderr)")
      let line = r.stderr.split(separator: "\n").first { $0.hasPrefix("timing: ") }.map(String.init) ?? ""
      let parts = line.dropFirst("timing: ".count).components(separatedBy: ", ")
      for part in parts { #expect((part.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? -1) >= 0, "\(line)") }
      return (parts.map { String($0.split(separator: " ").first ?? "") }, line)
    }
    let csv = try phases([])
    #expect(csv.names == ["config", "load", "engine", "reports"], "\(csv.line)")
    #expect(csv.line.contains(" ms (indicators.csv written meanwhile), reports ") && csv.line.hasSuffix(" ms (the rest)"), "\(csv.line)")
    let json = try phases(["--set", "report.formats=[json]"])
    #expect(json.names == ["config", "load", "engine", "reports"], "\(json.line)")
    #expect(!json.line.contains("indicators.csv") && json.line.hasSuffix(" ms"), "\(json.line)")
  }

  @Test("backtest run gpix.yaml runs the shipped config, prints a summary and writes every report")
  func runShipped() throws {
    let out = try CLI.temporaryFolder()
    let r = try CLI.run(["run", "gpix.yaml", "--out", out])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("gpix-swing: bollinger_rsi on Data/synthetic_gpix_30min.csv"))
    #expect(r.stdout.contains("SYNTHETIC"))
    #expect(r.stdout.contains("trades 113"))
    let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
    #expect(files == ["equity.csv", "equity.svg", "indicators.csv", "monthly.svg", "price.svg", "report.html", "report.md",
                      "returns.svg", "rsi.svg", "summary.json", "trades.csv"])
    let trades = try String(contentsOfFile: out + "/trades.csv", encoding: .utf8)
    #expect(trades.hasPrefix("entry_time,entry_price,exit_time,exit_price,shares,pnl,return,exit_reason,bars_held"))
    let equity = try String(contentsOfFile: out + "/equity.csv", encoding: .utf8)
    #expect(equity.hasPrefix("time,equity,cash,position_shares,close,drawdown"))
    let report = try String(contentsOfFile: out + "/report.md", encoding: .utf8)
    #expect(report.contains("| Final equity | $124,679.23 |"))
  }

  @Test("the same run gives byte-identical files whatever the time zone and locale of the machine",
        arguments: ["Strategies/goog-swing.yaml", "Strategies/dca-ledger.yaml"])
  func deterministic(runFile: String) throws {
    let a = try CLI.temporaryFolder(), b = try CLI.temporaryFolder()
    #expect(try CLI.run(["run", runFile, "--out", a, "--quiet"]).status == 0)
    #expect(try CLI.run(["run", runFile, "--out", b, "--quiet"],
                        environment: ["TZ": "Asia/Kolkata", "LANG": "de_DE.UTF-8", "LC_ALL": "de_DE.UTF-8"]).status == 0)
    let files = try FileManager.default.contentsOfDirectory(atPath: a).sorted()
    let other = try FileManager.default.contentsOfDirectory(atPath: b).sorted()
    #expect(files.count >= 8 && files == other)
    for f in files {
      #expect(FileManager.default.contents(atPath: a + "/" + f) == FileManager.default.contents(atPath: b + "/" + f), "\(f)")
    }
  }

  @Test("exit codes: 64 bad command line, 65 bad config or data, 66 missing input; nothing written on failure")
  func exitCodes() throws {
    let dir = try CLI.temporaryFolder()
    let out = dir + "/out"
    try "name: x\ndata: {bars: bars.csv}\nstrategy: {type: bollinger_rsi, stop_los: 2%}\n"
      .write(toFile: dir + "/typo.yaml", atomically: false, encoding: .utf8)
    try "name: x\ndata: {bars: bad.csv}\nstrategy: {type: bollinger_rsi}\n"
      .write(toFile: dir + "/bad.yaml", atomically: false, encoding: .utf8)
    try "timestamp,open,high,low,close\n2024-01-02,1,2,1,1\n2024-01-03,1,2,1,oops\n"
      .write(toFile: dir + "/bad.csv", atomically: false, encoding: .utf8)
    try "name: x\ndata: {bars: nowhere.csv}\nstrategy: {type: bollinger_rsi}\n"
      .write(toFile: dir + "/missing.yaml", atomically: false, encoding: .utf8)

    var r = try CLI.run(["run"])
    #expect(r.status == 64 && r.stderr.contains("backtest: error: missing the run file"))
    r = try CLI.run(["run", "gpix.yaml", "--sed", "1"])
    #expect(r.status == 64 && r.stderr.contains("unknown option '--sed'; did you mean '--set'?"))
    r = try CLI.run(["rnu"])
    #expect(r.status == 64 && r.stderr.contains("unknown command 'rnu'; did you mean 'run'?"))

    r = try CLI.run(["run", dir + "/typo.yaml", "--out", out])
    #expect(r.status == 65)
    #expect(r.stderr.contains("typo.yaml:3:33: error: unknown key 'stop_los' in 'strategy'; did you mean 'stop_loss'?"))
    #expect(r.stderr.contains("    3 | strategy: {type: bollinger_rsi, stop_los: 2%}"))

    r = try CLI.run(["run", dir + "/bad.yaml", "--out", out])
    #expect(r.status == 65 && r.stderr.contains("bad.csv:3:18: error: expected a number for 'close', found 'oops'"))

    r = try CLI.run(["run", dir + "/missing.yaml", "--out", out])
    #expect(r.status == 66 && r.stderr.contains("nowhere.csv: error: no such file"))
    r = try CLI.run(["run", dir + "/none.yaml", "--out", out])
    #expect(r.status == 66)
    r = try CLI.run(["run", dir, "--out", out])
    #expect(r.status == 66 && r.stderr.contains("is a directory"))
    r = try CLI.run(["run", "gpix.yaml", "--out", out, "--set", "strategy.stop_loss=2"])
    #expect(r.status == 65 && r.stderr.contains("did you mean 2%?"))

    #expect(!FileManager.default.fileExists(atPath: out), "a failed run must not write a report")
  }

  @Test("a failed run leaves the previous report intact, and no temporary file behind")
  func previousReportKept() throws {
    let out = try CLI.temporaryFolder()
    #expect(try CLI.run(["run", "goog-swing.yaml", "--out", out, "--quiet"]).status == 0)
    let before = FileManager.default.contents(atPath: out + "/summary.json")
    let r = try CLI.run(["run", "goog-swing.yaml", "--out", out, "--set", "data.bars=missing.csv"])
    #expect(r.status == 66)
    #expect(FileManager.default.contents(atPath: out + "/summary.json") == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: out).allSatisfy { !$0.hasPrefix(".") })
  }

  @Test("--set changes the run: a profit target produces PROFIT_TARGET exits")
  func setOverride() throws {
    let out = try CLI.temporaryFolder()
    let r = try CLI.run(["run", "goog-swing.yaml", "--out", out, "--quiet", "--set", "strategy.profit_target=3%"])
    #expect(r.status == 0)
    let trades = try String(contentsOfFile: out + "/trades.csv", encoding: .utf8)
    #expect(trades.contains("PROFIT_TARGET"))
  }
}
