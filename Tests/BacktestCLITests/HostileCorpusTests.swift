import BacktestCore
import BacktestRun
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One line of a corpus's `cases*.tsv` (`Corpus2/`, `Corpus3/`): a command, its exit code, its one error line or a line
/// of its output; `{dir}` in them is the case's own corpus folder.
struct HostileCase: CustomTestStringConvertible, Sendable {
  var name: String
  var arguments: [String]
  var status: Int32
  var error: String
  var output: String
  /// The corpus folder the case's `{dir}` names.
  var folder: String
  var testDescription: String { name }

  static let folder = CLI.root + "/Tests/BacktestCLITests/Corpus2"
  static let folders = [folder, CLI.root + "/Tests/BacktestCLITests/Corpus3"]

  static let all: [HostileCase] = folders.flatMap { folder in
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
      .filter { $0.hasPrefix("cases") && $0.hasSuffix(".tsv") }.sorted()
    return files.flatMap { file in
      let text = (try? String(contentsOfFile: folder + "/" + file, encoding: .utf8)) ?? ""
      return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
        let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        return HostileCase(name: parts[0], arguments: parts[1].split(separator: " ").map(String.init), status: Int32(parts[2])!,
                           error: parts[3], output: parts.count > 4 ? parts[4] : "", folder: folder)
      }
    }
  }
}

/// Runs the binary, killing it after `seconds` (a hang is a failure, not a stuck test run).
func runBounded(_ arguments: [String], seconds: Double = 60, environment: [String: String] = [:]) throws -> (result: CLI.Result, timedOut: Bool) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: CLI.binary)
  process.arguments = arguments
  process.currentDirectoryURL = URL(fileURLWithPath: CLI.root)
  process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  let out = try CLI.temporaryFolder()
  _ = FileManager.default.createFile(atPath: out + "/stdout", contents: nil)
  _ = FileManager.default.createFile(atPath: out + "/stderr", contents: nil)
  process.standardOutput = FileHandle(forWritingAtPath: out + "/stdout")
  process.standardError = FileHandle(forWritingAtPath: out + "/stderr")
  try process.run()
  let deadline = Date().addingTimeInterval(seconds)
  while process.isRunning && Date() < deadline { usleep(10_000) }
  let timedOut = process.isRunning
  if timedOut { kill(process.processIdentifier, SIGKILL) }
  process.waitUntilExit()
  let text = { (name: String) in (try? String(contentsOfFile: out + "/" + name, encoding: .utf8)) ?? "" }
  return (CLI.Result(status: process.terminationStatus, stdout: text("stdout"), stderr: text("stderr")), timedOut)
}

@Suite struct HostileCorpusTests {
  @Test("the second corpus covers every class of the hostile pass", arguments: [
    "montecarlo-runs", "cash-1.5e308", "dev-zero", "crlf-yaml", "cash-1.7e308", "bar-1e300", "exit-before-entry",
    "oversold-above-overbought", "hex-percent", "no-invalid-suggestion", "control-name", "convert-bad-bar", "funds-long-header",
    "out-under-a-file", "limit-price-undefined", "entry-order-price-condition", "rotation-top-too-large", "rotation-asset-gap",
  ])
  func covered(_ name: String) {
    #expect(HostileCase.all.contains { $0.name == name }, "\(name)")
  }

  @Test("each case gives its exit code and exactly its one error line (or its output), within a bounded time",
        arguments: HostileCase.all)
  func corpus(_ c: HostileCase) throws {
    let out = try CLI.temporaryFolder() + "/out"
    let fill = { (text: String) in text.replacingOccurrences(of: "{dir}", with: c.folder).replacingOccurrences(of: "{out}", with: out) }
    let (r, timedOut) = try runBounded(c.arguments.map(fill), seconds: 60)
    #expect(!timedOut, "still running after 60 s")
    #expect(r.status == c.status, "\(r.stderr)")
    if c.error.isEmpty {
      #expect(r.stderr.isEmpty, "\(r.stderr)")
    } else {
      let lines = r.stderr.split(separator: "\n").filter { $0.contains("error:") }
      #expect(lines.count == 1 && lines.first.map(String.init) == fill(c.error), "got: \(r.stderr)")
      #expect(!FileManager.default.fileExists(atPath: out), "a failed command left output behind")
    }
    if !c.output.isEmpty { #expect(r.stdout.split(separator: "\n").contains { $0 == fill(c.output) }, "got: \(r.stdout)") }
    // Nothing a hostile input holds reaches the terminal raw.
    #expect(!(r.stdout + r.stderr).unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
  }

  static func writeRun(_ dir: String, name: String, extra: String = "") throws -> String {
    let path = dir + "/\(name).yaml"
    try "name: \(name)\ndata: {bars: \(HostileCase.folder)/good/bars.csv}\nstrategy: {type: bollinger_rsi\(extra)}\nreport: {formats: [csv, json, markdown, html]}\n"
      .write(toFile: path, atomically: false, encoding: .utf8)
    return path
  }

  /// The report in `folder` is one run's, complete: the summary counts the trades the CSV lists.
  static func checkOneRun(_ folder: String, names: Set<String>) throws {
    let entries = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
    #expect(entries == names, "\(entries.symmetricDifference(names))")
    let summary = try String(contentsOfFile: folder + "/summary.json", encoding: .utf8)
    let trades = try String(contentsOfFile: folder + "/trades.csv", encoding: .utf8).split(separator: "\n").count - 1
    #expect(summary.contains("\"total_trades\": \(trades),"))
    let name = summary.contains("\"name\": \"wide\"") ? "wide" : "narrow"
    let report = try String(contentsOfFile: folder + "/report.md", encoding: .utf8)
    #expect(report.hasPrefix("# Backtest: \(name)\n"), "report.md and summary.json are from different runs")
    #expect(try String(contentsOfFile: folder + "/report.html", encoding: .utf8).contains(name))
  }

  @Test("five runs of two configurations into one folder at once end with one complete run, and no temporaries")
  func concurrentRuns() throws {
    let dir = try CLI.temporaryFolder()
    let narrow = try Self.writeRun(dir, name: "narrow")
    let wide = try Self.writeRun(dir, name: "wide", extra: ", bollinger: {period: 10, std_dev: 1.0}")
    let out = dir + "/out"
    #expect(try CLI.run(["run", wide, "--out", out, "--quiet"]).status == 0)
    let names = Set(try FileManager.default.contentsOfDirectory(atPath: out))
    let processes = try (0..<5).map { k in
      let p = Process()
      p.executableURL = URL(fileURLWithPath: CLI.binary)
      p.arguments = ["run", k % 2 == 0 ? narrow : wide, "--out", out, "--quiet"]
      try p.run()
      return p
    }
    for p in processes { p.waitUntilExit(); #expect(p.terminationStatus == 0) }
    try Self.checkOneRun(out, names: names)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }.isEmpty)
  }

  @Test("a rerun with fewer formats leaves none of the previous run's files; a killed run's temporaries are removed by the next")
  func folderReplacedWhole() throws {
    let dir = try CLI.temporaryFolder()
    let run = try Self.writeRun(dir, name: "narrow")
    let out = dir + "/out"
    #expect(try CLI.run(["run", run, "--out", out, "--quiet"]).status == 0)
    #expect(FileManager.default.fileExists(atPath: out + "/report.html"))
    // What killed writers leave: a staging folder beside the report, a temporary file in it (old naming).
    let dead = Process()
    dead.executableURL = URL(fileURLWithPath: "/bin/true")
    try dead.run()
    dead.waitUntilExit()
    var buffer = [CChar](repeating: 0, count: 256)
    gethostname(&buffer, 255)
    let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      .filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }
    try FileManager.default.createDirectory(atPath: dir + "/.out.tmp-\(host)-\(dead.processIdentifier)-0", withIntermediateDirectories: false)
    try "half".write(toFile: out + "/.trades.csv.tmp-\(dead.processIdentifier)", atomically: false, encoding: .utf8)
    // A live process's temporary stays.
    try FileManager.default.createDirectory(atPath: dir + "/.out.tmp-\(host)-\(getpid())-99", withIntermediateDirectories: false)
    #expect(try CLI.run(["run", run, "--out", out, "--quiet", "--set", "report.formats=[csv]"]).status == 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["equity.csv", "indicators.csv", "trades.csv"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") } == [".out.tmp-\(host)-\(getpid())-99"])
  }

  @Test("a folder that is not only a report is not replaced")
  func foreignFolder() throws {
    let dir = try CLI.temporaryFolder()
    let run = try Self.writeRun(dir, name: "narrow")
    try FileManager.default.createDirectory(atPath: dir + "/mine/sub", withIntermediateDirectories: true)
    try "notes".write(toFile: dir + "/mine/trades.csv", atomically: false, encoding: .utf8)
    let r = try CLI.run(["run", run, "--out", dir + "/mine", "--quiet"])
    #expect(r.status == 1 && r.stderr == "\(dir)/mine: error: holds 'sub', which is not part of a report; expected a report folder to replace as a whole (choose another folder, or move that away)\n")
    #expect(FileManager.default.fileExists(atPath: dir + "/mine/sub"))
  }

  @Test("five journal entries at once: one is recorded, the four others are refused, none is lost silently")
  func concurrentJournal() throws {
    let file = try CLI.temporaryFolder() + "/journal.csv"
    let processes = try (1...5).map { k in
      let p = Process()
      p.executableURL = URL(fileURLWithPath: CLI.binary)
      p.arguments = ["journal", "enter", "--file", file, "--price", "10", "--shares", "\(k)", "--time", "2024-01-0\(k)", "--quiet"]
      p.standardError = FileHandle.nullDevice
      try p.run()
      return p
    }
    for p in processes { p.waitUntilExit() }
    #expect(processes.filter { $0.terminationStatus == 0 }.count == 1)
    #expect(processes.filter { $0.terminationStatus == 65 }.count == 4)
    let journal = try Journal.parse(try String(contentsOfFile: file, encoding: .utf8), file: file)
    #expect(journal.entries.count == 1)
    #expect(try CLI.run(["journal", "exit", "--file", file, "--price", "11", "--time", "2024-02-01"]).status == 0)
    let r = try CLI.run(["journal", "exit", "--file", file, "--price", "11", "--time", "2024-01-01"])
    #expect(r.status == 65 && r.stderr.contains("error: no open trade to exit"))
  }

  @Test("an exit earlier than its entry is refused")
  func exitBeforeEntry() throws {
    let file = try CLI.temporaryFolder() + "/journal.csv"
    #expect(try CLI.run(["journal", "enter", "--file", file, "--price", "10", "--shares", "1", "--time", "2024-01-05"]).status == 0)
    let r = try CLI.run(["journal", "exit", "--file", file, "--price", "11", "--time", "2024-01-04T10:00:00-05:00"])
    #expect(r.status == 65 && r.stderr == "\(file): error: the exit time 2024-01-04T10:00:00-05:00 is before the entry time 2024-01-05; expected an exit at or after its entry\n")
  }

  static func sweepFile(_ dir: String, periods: String) throws -> String {
    let path = dir + "/sweep-\(periods.filter(\.isNumber)).yaml"
    try """
      name: hostile-sweep
      data: {bars: \(HostileCase.folder)/good/bars.csv}
      strategy: {type: bollinger_rsi}
      sweep:
        parameters:
          bb_period: [\(periods)]
          oversold: [25, 30, 35]
        metric: sharpe

      """.write(toFile: path, atomically: false, encoding: .utf8)
    return path
  }

  @Test("resuming a sweep whose results hold combinations outside the grid runs it again (it is cheap), not a crash")
  func resumeOutsideGrid() throws {
    let dir = try CLI.temporaryFolder()
    let wide = try Self.sweepFile(dir, periods: "10, 20")
    #expect(try CLI.run(["sweep", wide, "--out", dir + "/out", "--quiet"]).status == 0)
    let results = try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8)
    let r = try CLI.run(["sweep", try Self.sweepFile(dir, periods: "20"), "--out", dir + "/out"])
    #expect(r.status == 0)
    #expect(r.stderr.hasPrefix("note: results.csv was made from other combinations; running all 3 combinations again instead of resuming"), "\(r.stderr)")
    // A results.csv with CRLF line ends (edited on Windows) resumes like its LF twin.
    try results.replacingOccurrences(of: "\n", with: "\r\n").write(toFile: dir + "/out/results.csv", atomically: false, encoding: .utf8)
    let resumed = try CLI.run(["sweep", wide, "--out", dir + "/out"])
    #expect(resumed.status == 0 && resumed.stdout.contains("0 combinations run, 6 resumed"), "\(resumed.stderr)")
    #expect(try String(contentsOfFile: dir + "/out/results.csv", encoding: .utf8) == results)
  }

  @Test("three sweeps into one folder at once: one runs the grid, the others wait and resume it; the result is a clean run's")
  func concurrentSweeps() throws {
    let dir = try CLI.temporaryFolder()
    let file = try Self.sweepFile(dir, periods: "10, 15, 20, 25")
    #expect(try CLI.run(["sweep", file, "--out", dir + "/clean", "--quiet"]).status == 0)
    let clean = try String(contentsOfFile: dir + "/clean/results.csv", encoding: .utf8)
    let out = dir + "/out"
    let logs = try (0..<3).map { _ in try CLI.temporaryFolder() + "/stdout" }
    let processes = try logs.map { log in
      let p = Process()
      p.executableURL = URL(fileURLWithPath: CLI.binary)
      p.arguments = ["sweep", file, "--out", out]
      _ = FileManager.default.createFile(atPath: log, contents: nil)
      p.standardOutput = FileHandle(forWritingAtPath: log)
      p.standardError = FileHandle.nullDevice
      try p.run()
      return p
    }
    for p in processes { p.waitUntilExit(); #expect(p.terminationStatus == 0) }
    let said = try logs.map { try String(contentsOfFile: $0, encoding: .utf8) }
    #expect(said.filter { $0.contains(": 12 combinations run on") }.count == 1, "\(said)")
    #expect(said.filter { $0.contains(": 0 combinations run, 12 resumed") }.count == 2, "\(said)")
    #expect(try String(contentsOfFile: out + "/results.csv", encoding: .utf8) == clean)
    #expect(try String(contentsOfFile: out + "/sweep.md", encoding: .utf8) == String(contentsOfFile: dir + "/clean/sweep.md", encoding: .utf8))
  }

  @Test("a sweep killed at any moment, then run again: the clean run's results and reports, no temporaries left")
  func killedSweeps() throws {
    let dir = try CLI.temporaryFolder()
    let file = try Self.sweepFile(dir, periods: "10, 15, 20, 25")
    #expect(try CLI.run(["sweep", file, "--out", dir + "/clean", "--quiet"]).status == 0)
    let clean = try FileManager.default.contentsOfDirectory(atPath: dir + "/clean").sorted()
    let out = dir + "/out"
    for delayMilliseconds in [5, 20, 40, 70, 110, 160, 250] {
      let p = Process()
      p.executableURL = URL(fileURLWithPath: CLI.binary)
      p.arguments = ["sweep", file, "--out", out, "--quiet"]
      try p.run()
      usleep(useconds_t(delayMilliseconds * 1000))
      // (Once it has ended its id may be another process's.)
      if p.isRunning { kill(p.processIdentifier, SIGKILL) }
      p.waitUntilExit()
      #expect(try CLI.run(["sweep", file, "--out", out, "--quiet"]).status == 0)
      #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == clean, "after a kill at \(delayMilliseconds) ms")
      for name in ["results.csv", "sweep.md"] {
        #expect(try String(contentsOfFile: out + "/" + name, encoding: .utf8) == String(contentsOfFile: dir + "/clean/" + name, encoding: .utf8))
      }
      #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }.isEmpty, "after a kill at \(delayMilliseconds) ms")
    }
  }

  @Test("a run whose equity would compound past 1e308 is refused, naming the bar file; nothing infinite is written")
  func overflowingEquity() throws {
    let dir = try CLI.temporaryFolder()
    // Prices climbing from 1e-12 to 1e12 and back, 26 times: a moving-average crossover rides each climb.
    var csv = "timestamp,open,high,low,close\n"
    var day = 0
    for _ in 0..<26 {
      for k in Array(0...60) + Array((0..<60).reversed()) {
        let p = pow(10, -12 + 24 * Double(k) / 60)
        csv += CivilDate.isoDate(days: 18_000 + day) + ",\(p),\(p),\(p),\(p)\n"
        day += 1
      }
    }
    try csv.write(toFile: dir + "/bars.csv", atomically: false, encoding: .utf8)
    try "name: x\ndata: {bars: bars.csv}\nstrategy: {type: sma_cross, fast: 2, slow: 4}\n".write(toFile: dir + "/run.yaml", atomically: false, encoding: .utf8)
    let r = try CLI.run(["run", dir + "/run.yaml", "--out", dir + "/out"])
    // (After a note that these prices jump overnight as splits would.)
    #expect(r.status == 65 && r.stderr.contains("as a split would") && r.stderr.contains("\n\(dir)/bars.csv: error: the equity reaches inf at "),
            "\(r.stderr)")
    #expect(r.stderr.hasSuffix(": these prices swing by factors too large to compound (a number holds 1e-308 to 1e308); expected prices that move as markets do\n"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }

  @Test("a pipe as input is refused at once, even with no writer; a pipe as output is not replaced by a file")
  func pipes() throws {
    let dir = try CLI.temporaryFolder()
    #expect(mkfifo(dir + "/bars.csv", 0o644) == 0)
    try "name: x\ndata: {bars: bars.csv}\nstrategy: {type: bollinger_rsi}\n".write(toFile: dir + "/run.yaml", atomically: false, encoding: .utf8)
    let (r, timedOut) = try runBounded(["run", dir + "/run.yaml", "--out", dir + "/out"], seconds: 20)
    #expect(!timedOut && r.status == 66)
    #expect(r.stderr == "\(dir)/bars.csv: error: is a pipe or a socket; expected a regular file (save the data to a file first)\n")
    let (s, _) = try runBounded(["synth", "--out", dir + "/bars.csv", "--bars", "10"], seconds: 20)
    #expect(s.status == 1 && s.stderr == "\(dir)/bars.csv: error: is not a regular file (a folder, a device or a pipe); expected a file to replace\n")
    var info = stat()
    #expect(lstat(dir + "/bars.csv", &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    let (j, journalTimedOut) = try runBounded(["journal", "list", "--file", dir + "/bars.csv"], seconds: 20)
    #expect(!journalTimedOut && j.status == 66)
  }

  @Test("a loop of symbolic links is named as one")
  func symlinkLoop() throws {
    let dir = try CLI.temporaryFolder()
    #expect(symlink(dir + "/a.csv", dir + "/b.csv") == 0 && symlink(dir + "/b.csv", dir + "/a.csv") == 0)
    try "name: x\ndata: {bars: a.csv}\nstrategy: {type: bollinger_rsi}\n".write(toFile: dir + "/run.yaml", atomically: false, encoding: .utf8)
    let r = try CLI.run(["run", dir + "/run.yaml", "--out", dir + "/out"])
    #expect(r.status == 66 && r.stderr == "\(dir)/a.csv: error: cannot read the file (a loop of symbolic links)\n")
  }

  @Test("a 2 MB line is quoted as a short excerpt, never echoed whole")
  func hugeLineNotEchoed() throws {
    let dir = try CLI.temporaryFolder()
    try ("date," + String(repeating: "x", count: 2_000_000) + "\n2024-01-02,1\n").write(toFile: dir + "/nav.csv", atomically: false, encoding: .utf8)
    let (r, _) = try runBounded(["funds", dir + "/nav.csv"], seconds: 60)
    #expect(r.status == 65 && r.stderr.contains("found 'date,xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'") && r.stderr.count < 300, "\(r.stderr.count) characters")
    let unknown = String(repeating: "k", count: 2_000_000)
    try "name: x\n\(unknown): 1\n".write(toFile: dir + "/run.yaml", atomically: false, encoding: .utf8)
    let (y, timedOut) = try runBounded(["run", dir + "/run.yaml"], seconds: 60)
    #expect(!timedOut && y.status == 65 && y.stderr.count < 1_000, "\(y.stderr.count) characters")
  }
}
