import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

/// `backtest compare DIR DIR…`: the figures of several runs (or sweeps) side by side, with differences.
struct CompareCommand {
  static let spec = CommandSpec(
    "compare", summary: "put the figures of several runs (or sweeps) side by side, with each one's difference from the first",
    arguments: [ArgumentSpec("DIR", "output folders of runs (summary.json) or sweeps (results.csv and sweep.json)", count: .oneOrMore,
                             completion: .directory)],
    options: [.flag("markdown", "print a Markdown table"), .flag("json", "print JSON (backtest.compare/1) with full precision"),
              .option("top", "N", "the sweep combinations shown: the first sweep's best", default: .value("10")),
              .out("also write compare.html into this folder: the table and the runs' equity (each folder's equity.csv) overlaid")],
    examples: ["compare Reports/gpix Reports/gpix-tight-stop", "compare out/sweep-2022 out/sweep-2023 --markdown",
               "compare Reports/gpix Reports/gpix-fees --out /tmp/compare"])

  var folders: [String]
  var markdown: Bool
  var json: Bool
  var top: Int
  var out: String?

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, command: Self.spec, path: "compare")
    guard a.positionals.count >= 2 else { throw UsageError(message: "expected at least two folders to compare: backtest compare DIR DIR...") }
    folders = a.positionals
    markdown = a.flag("markdown")
    json = a.flag("json")
    top = try a.integer("top", minimum: 1)!
    out = a.option("out")
    if markdown && json { throw UsageError(message: "expected one of --markdown and --json, found both") }
  }

  func run() throws -> Int32 {
    let names = folders.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    let isSweep = names.map { FileManager.default.fileExists(atPath: $0 + "/results.csv") && FileManager.default.fileExists(atPath: $0 + "/sweep.json") }
    let comparison: RunComparison
    if isSweep.allSatisfy({ $0 }) {
      let plan = try JSONReader.parse(try readInputFile(names[0] + "/sweep.json"), file: names[0] + "/sweep.json")
      guard let metric = plan["metric"]?.string, plan.members != nil else {
        throw InputError("expected the sweep's metric ('metric')", file: names[0] + "/sweep.json")
      }
      guard SweepRanking.metricKeys.contains(metric) else {
        throw InputError("expected the sweep's metric to be one of the statistics (sharpe, cagr, total_return, …), found '\(excerpt(metric))'",
                         at: plan["metric"]!.location)
      }
      let results = try names.map { name in
        let text = String(decoding: try readInputFile(name + "/results.csv"), as: UTF8.self)
        try RunComparison.check(results: text, metric: metric, file: name + "/results.csv")
        return text
      }
      comparison = RunComparison(names: names, results: results, metric: metric, top: top)
    } else if isSweep.contains(true) {
      throw UsageError(message: "expected only runs or only sweeps; \(zip(names, isSweep).filter(\.1).map(\.0).joined(separator: ", ")) "
                         + "hold a sweep, the others a run")
    } else {
      let summaries = try names.map { name in
        let summary = try JSONReader.parse(try readInputFile(name + "/summary.json"), file: name + "/summary.json")
        try RunComparison.check(summary: summary, file: name + "/summary.json")
        return summary
      }
      comparison = RunComparison(names: names, summaries: summaries)
    }
    print(json ? comparison.json.rendered() : markdown ? comparison.markdown : comparison.text, terminator: json ? "\n" : "")
    if let out {
      // Each run's equity.csv, where it has one (a sweep's folder has none).
      let curves = names.map { name -> RunComparison.EquityCurve? in
        guard FileManager.default.fileExists(atPath: name + "/equity.csv"), let data = try? readInputFile(name + "/equity.csv") else { return nil }
        return RunComparison.equityCurve(csv: String(decoding: data, as: UTF8.self))
      }
      try AtomicWriter.write([ReportFile(name: "compare.html", contents: comparison.html(curves: curves))], into: out)
      FileHandle.standardError.write(Data("wrote compare.html to \(out)/\n".utf8))
    }
    return ExitCode.ok
  }
}
