import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One file of `Corpus/` with the exit code and the one error line it must give.
struct CorpusCase: CustomTestStringConvertible, Sendable {
  var file: String
  var status: Int32
  var message: String
  var testDescription: String { file }

  static let folder = CLI.root + "/Tests/BacktestCLITests/Corpus"

  static let all: [CorpusCase] = {
    let text = (try? String(contentsOfFile: folder + "/expected.tsv", encoding: .utf8)) ?? ""
    return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
      let parts = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
      return CorpusCase(file: parts[0], status: Int32(parts[1])!, message: parts.count > 2 ? parts[2] : "")
    }
  }()

  /// Runs the case: `ledger-budgets-*.yaml` as the budgets of Data/ledger.csv, other `ledger-*` and
  /// `tracker-*` files with `backtest ledger`, a YAML file directly, a bar file through a run file that names it.
  func run(out: String) throws -> CLI.Result {
    let name = (file as NSString).lastPathComponent
    if name.hasPrefix("ledger-budgets-") {
      return try CLI.run(["ledger", "Data/ledger.csv", "--budgets", Self.folder + "/" + file, "--out", out])
    }
    if name.hasPrefix("ledger-") || name.hasPrefix("tracker-") {
      return try CLI.run(["ledger", Self.folder + "/" + file, "--out", out])
    }
    if file.hasSuffix(".yaml") {
      return try CLI.run(["run", Self.folder + "/" + file, "--out", out, "--quiet"])
    }
    let config = try CLI.temporaryFolder() + "/run.yaml"
    try "name: x\ndata: {bars: \(Self.folder)/\(file)}\nstrategy: {type: bollinger_rsi}\n"
      .write(toFile: config, atomically: false, encoding: .utf8)
    return try CLI.run(["run", config, "--out", out, "--quiet"])
  }
}

@Suite struct HostileInputTests {
  @Test("the corpus holds every case the issue lists", arguments: [
    "truncated-row", "extra-column", "nan", "inf", "negative-price", "zero-price", "high-below-low", "unsorted",
    "duplicate", "unknown-timestamp", "non-utf8", "empty", "header-only", "overflow-1e400", "tab", "duplicate-key",
    "wrong-type", "unknown-key", "unclosed-quote", "unclosed-bracket", "deep-nesting", "bom-crlf", "dst-offsets",
    "quoted", "no-final-newline", "ledger-bad-date", "ledger-thousands", "ledger-budgets-unknown", "tracker-missing-field",
  ])
  func covered(_ name: String) {
    #expect(CorpusCase.all.contains { $0.file.contains("/" + name + ".") }, "\(name)")
  }

  @Test("each corpus file gives its exit code and exactly one precise error line, and writes nothing",
        arguments: CorpusCase.all)
  func corpus(_ c: CorpusCase) throws {
    let out = try CLI.temporaryFolder() + "/out"
    let r = try c.run(out: out)
    #expect(r.status == c.status, "\(r.stderr)")
    if c.status == 0 {
      #expect(r.stderr.isEmpty)
      #expect(FileManager.default.fileExists(atPath: out + "/trades.csv"))
    } else {
      let lines = r.stderr.split(separator: "\n").filter { $0.contains("error:") }
      #expect(lines.count == 1, "\(r.stderr)")
      #expect(lines.first.map(String.init) == CorpusCase.folder + "/" + c.message, "got: \(r.stderr)")
      #expect(!FileManager.default.fileExists(atPath: out), "a failed run left output behind")
    }
  }

  @Test("a 10 MB single line is one short error, exit 65")
  func hugeLine() throws {
    let dir = try CLI.temporaryFolder()
    let bars = "timestamp,open,high,low,close\n2024-01-02," + String(repeating: "1", count: 10_000_000) + "x,1,1,1\n"
    try bars.write(toFile: dir + "/huge.csv", atomically: false, encoding: .utf8)
    try "name: x\ndata: {bars: huge.csv}\nstrategy: {type: bollinger_rsi}\n".write(toFile: dir + "/run.yaml", atomically: false, encoding: .utf8)
    let r = try CLI.run(["run", dir + "/run.yaml", "--out", dir + "/out"])
    #expect(r.status == 65 && r.stderr.contains("huge.csv:2:12: error: expected a number for 'open', found '1111"))
    #expect(r.stderr.count < 400)
  }

  @Test("paths that are directories or missing give exit 66 with the path named")
  func badPaths() throws {
    let dir = try CLI.temporaryFolder()
    try "name: x\ndata: {bars: \(dir)}\nstrategy: {type: bollinger_rsi}\n".write(toFile: dir + "/dir.yaml", atomically: false, encoding: .utf8)
    var r = try CLI.run(["run", dir + "/dir.yaml", "--out", dir + "/out"])
    #expect(r.status == 66 && r.stderr.contains("\(dir): error: is a directory; expected a file"))
    r = try CLI.run(["run", dir + "/absent.yaml", "--out", dir + "/out"])
    #expect(r.status == 66 && r.stderr.contains("absent.yaml: error: no such file"))
  }

  @Test("an unreadable file gives exit 66 (skipped as root, who can read anything)", .enabled(if: getuid() != 0))
  func unreadable() throws {
    let dir = try CLI.temporaryFolder()
    try "name: x\n".write(toFile: dir + "/locked.yaml", atomically: false, encoding: .utf8)
    chmod(dir + "/locked.yaml", 0)
    let r = try CLI.run(["run", dir + "/locked.yaml"])
    #expect(r.status == 66 && r.stderr.contains("cannot read the file"))
  }
}
