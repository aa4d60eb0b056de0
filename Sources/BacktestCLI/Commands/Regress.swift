import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

/// `backtest regress [DIR]`: runs every run file in DIR and compares its
/// reports with `Reports/reference/<name>/`; `--update` rewrites them.
struct RegressCommand {
  var catalog: StrategyCatalog
  var directory: String
  var reference: String
  var update: Bool
  var tolerance: Double
  var quiet: Bool

  static let spec = CommandSpec(
    "regress", summary: "run every run file in a folder and compare its reports with the committed references",
    arguments: [ArgumentSpec("DIR", "the folder of run files (default: Strategies)", count: .optional, completion: .directory)],
    options: [
      .flag("update", "rewrite the references instead (review the diff before committing)"),
      .option("reference", "DIR", "the folder of references, one subfolder per run name", default: .value("Reports/reference"),
              completion: .directory),
      .option("tolerance", "X", "how far numbers may differ, relative; text must match exactly",
              default: .value("\(ReportComparison.defaultTolerance)")),
      .flag("quiet", "print only the differences and the result line of a failed comparison"),
    ],
    examples: ["regress", "regress --update"])

  init(_ args: ArraySlice<String>, catalog: StrategyCatalog) throws {
    self.catalog = catalog
    let a = try Arguments(args, command: Self.spec, path: "regress")
    guard a.positionals.count <= 1 else { throw UsageError(message: "expected at most one folder of run files") }
    directory = a.positionals.first ?? "Strategies"
    reference = a.option("reference")!
    update = a.flag("update")
    quiet = a.flag("quiet")
    let t = a.option("tolerance")!
    guard let v = parseDecimal(t), v.isFinite, v >= 0 else { throw UsageError(message: "expected a number >= 0 for '--tolerance', found '\(t)'") }
    tolerance = v
  }

  /// The report files a run file or a sweep file produces, in memory.
  static func outputs(_ text: String, path: String, catalog: StrategyCatalog) throws -> (name: String, files: [ReportFile]) {
    let root = try YAMLReader.parse(text, file: path)
    guard case .mapping(let entries) = root.kind, entries.contains(where: { $0.key == "sweep" }) else {
      let output = try AnyRunConfig.parse(document: root, file: path, catalog: catalog).run()
      return (output.name, output.files)
    }
    let (base, settings) = try SweepRunner.parse(text, file: path, catalog: catalog)
    let config = try AnyRunConfig.parse(document: base, file: path, catalog: catalog)
    let plan = SweepPlan.combinations(settings)
    let (jobs, skipped) = try SweepRunner.jobs(root: base, file: path, settings: settings, combinations: plan, catalog: catalog,
                                               skippingInvalid: true)
    let data = try SweepData.load(config)
    let split = try data.split(settings, file: path)
    let collected = RecordCollector()
    let blockSums = ConcurrentSlots<BacktestOverfitting.BlockSums>(count: plan.count)
    let best = BestReturns(settings: settings)
    let workers = ProcessInfo.processInfo.activeProcessorCount
    SweepRunner.run(jobs, data: split.inSample, workers: workers, blockSums: blockSums, best: best) { combination, summary in
      collected.add(combination.index, SweepRanking.record(combination, summary, fingerprint: "-"))
    }
    let records = collected.sorted
    return (config.name, [ReportFile(name: "results.csv", contents: SweepReport.csv(records, settings: settings))]
      + SweepReport.study(records, SweepStudyInputs(settings: settings, jobs: jobs, data: data, split: split, initialCash: config.initialCash,
                                                    workers: workers, known: blockSums, best: best, skipped: skipped),
                          title: config.name, total: plan.count).files)
  }

  func run() throws -> Int32 {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw InputError("no such folder of run files", file: directory, kind: .missingInput)
    }
    let runFiles = try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
    var failed = 0, compared = 0
    for name in runFiles {
      let path = directory + "/" + name
      let text = String(decoding: try readInputFile(path), as: UTF8.self)
      if case .mapping(let entries) = try YAMLReader.parse(text, file: path).kind,
        entries.contains(where: { $0.key == "holdings" || $0.key == "universe" }) {
        if !quiet { print("skip  \(path) (a file for analyze or screen; its reference in Reports/reference/research-* is checked by swift test)") }
        continue
      }
      let (name, files) = try Self.outputs(text, path: path, catalog: catalog)
      compared += 1
      let folder = reference + "/" + name
      if update {
        // The folder is replaced as a whole: a file no longer produced goes with it.
        try AtomicWriter.replaceFolder(folder, with: files)
        if !quiet { print("updated \(folder)/ (\(files.count) files)") }
        continue
      }
      var differences: [String] = []
      for file in files {
        guard let data = FileManager.default.contents(atPath: folder + "/" + file.name) else {
          differences.append("\(file.name): no reference file \(folder)/\(file.name)")
          continue
        }
        let expected = String(decoding: data, as: UTF8.self)
        differences += file.name == "summary.json"
          ? ReportComparison.summaryDifferences(file: file.name, expected: expected, actual: file.contents, tolerance: tolerance)
          : ReportComparison.differences(file: file.name, expected: expected, actual: file.contents, tolerance: tolerance)
      }
      // A universe's symbols/ folder counts as produced with its files; each of them is compared above.
      let produced = Set(files.map { String($0.name.prefix { $0 != "/" }) })
      let referenced = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
      for extra in referenced.sorted() where !produced.contains(extra) && !extra.hasPrefix(".") {
        differences.append("\(extra): in the reference but no longer produced")
      }
      if differences.isEmpty {
        if !quiet { print(TextStyle.green.stdout("ok") + "    \(name) (\(path), \(files.count) files)") }
      } else {
        failed += 1
        print(TextStyle.boldRed.stdout("FAIL") + "  \(name) (\(path))")
        for d in differences { print("  " + d.replacingOccurrences(of: "\n", with: "\n  ")) }
      }
    }
    if compared == 0 {
      throw InputError("holds no run file to compare (*.yaml besides analyze and screen files); expected the folder of run files, such as Strategies",
                       file: directory, kind: .missingInput)
    }
    if update || (quiet && failed == 0) { return ExitCode.ok }
    print(failed == 0 ? "\(compared) run files match their references (numbers within \(tolerance) relative)"
                      : "\(failed) of \(compared) run files differ from their references; after a deliberate change run: backtest regress --update")
    return failed == 0 ? ExitCode.ok : ExitCode.failure
  }
}

