import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `backtest sweep FILE`: runs a parameter sweep, resumably.
struct SweepCommand {
  var catalog: StrategyCatalog
  /// The run file named on the command line, with the `--set` overrides.
  let file: RunFileArgument
  var out: String?
  var jobs: Int
  var shard: (index: Int, count: Int)?
  var fresh: Bool
  var quiet: Bool
  var timing: Bool

  static let spec = CommandSpec(
    "sweep", summary: "run a parameter sweep (a run file with a sweep: section) on all cores; resumes where it stopped",
    arguments: [ArgumentSpec("FILE", "a sweep file: a path, or a name in Strategies/", completion: .runFile)],
    options: [
      .out("the folder for results.csv and the reports", default: "report.out of the file, plus /shard-i-of-n for a shard"),
      .jobs,
      .option("shard", "I/N", "run the I-th of N contiguous parts of the plan (0-based; whole groups of combinations that share indicators), for a job array; merge combines the shards"),
      .set,
      .flag("fresh", "start over instead of resuming from DIR/results.csv"),
      .flag("quiet", "print nothing on success, and no progress"),
      .flag("timing", "print where the time went on stderr"),
    ],
    details: "Every finished combination is appended to results.csv at once: a killed sweep keeps its lines, and the same command resumes. Results are identical for any --jobs or sharding. Progress is a live bar on a terminal, a plain line every few seconds in a pipe or a log.",
    examples: ["sweep Strategies/gpix-sweep.yaml", "sweep gpix-sweep.yaml --shard 0/4 --out out/shard-0"])

  init(_ args: ArraySlice<String>, catalog: StrategyCatalog) throws {
    self.catalog = catalog
    let a = try Arguments(args, command: Self.spec, path: "sweep")
    file = try RunFileArgument(a, usage: "backtest sweep FILE")
    out = a.option("out")
    jobs = try a.integer("jobs") ?? ProcessInfo.processInfo.activeProcessorCount
    fresh = a.flag("fresh")
    quiet = a.flag("quiet")
    timing = a.flag("timing")
    if let text = a.option("shard") {
      let parts = text.split(separator: "/")
      guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, i >= 0, i < n else {
        throw UsageError(message: "expected --shard i/n with 0 <= i < n (for example --shard 0/4), found '\(text)'")
      }
      shard = (i, n)
    }
  }

  func run() throws -> Int32 {
    let clock = ContinuousClock()
    var marks: [(String, ContinuousClock.Instant)] = [("start", clock.now)]
    func mark(_ name: String) { marks.append((name, clock.now)) }
    defer {
      if timing {
        let parts = zip(marks, marks.dropFirst()).map { String(format: "%@ %.1f ms", $1.0, ProgressLine.seconds($1.1 - $0.1) * 1000) }
        printError("timing: " + parts.joined(separator: ", "))
      }
    }
    let (root, settings) = try SweepRunner.parse(try file.text(), file: file.path, overrides: file.overrides, catalog: catalog)
    let base = try AnyRunConfig.parse(document: root, file: file.path, catalog: catalog)
    let plan = SweepPlan.combinations(settings)
    let mine = shard.map { SweepPlan.shard(plan, index: $0.index, of: $0.count) } ?? plan
    var folder = out ?? base.report.out
    if out == nil, let shard { folder += "/shard-\(shard.index)-of-\(shard.count)" }
    mark("config")

    // Each combination's settings are checked and built on another core while the bars load
    // (a bad value is still reported before a bad bar file, as when they were built first).
    let pendingJobs = OnOtherThread { Result {
      try SweepRunner.jobs(root: root, file: file.path, settings: settings, combinations: mine, catalog: catalog, skippingInvalid: true)
    } }
    // One sweep at a time in a folder: another waits, then resumes from what this one wrote.
    // (The folder is replaced as a whole at the end; refuse now one that is not a report.)
    try ReportFolder.checkReplaceable(folder)
    let created = !FileManager.default.fileExists(atPath: folder)
    try makeFolder(folder)
    var succeeded = false
    // A bad value or bar file leaves no new, empty folder behind.
    defer { if created && !succeeded { rmdir(folder) } }
    let lock = try ExclusiveLock(folder) { printError("\(Program.name): waiting for another sweep writing to \(folder)/") }
    defer { lock.unlock() }
    // A new results.csv starts as its header, written and flushed meanwhile too; it
    // replaces the old file only once the bars have loaded (a bad bar file must
    // not leave a new, empty one behind).
    let resultsPath = folder + "/results.csv"
    let previous = fresh || !FileManager.default.fileExists(atPath: resultsPath) ? nil : try readInputFile(resultsPath)
    let newHeader = previous == nil ? try AtomicBatch(into: folder) : nil
    newHeader?.add([ReportFile(name: "results.csv", contents: SweepReport.header(settings) + "\n")])
    var pendingFingerprint: OnOtherThread<Result<String, Error>>?
    let loaded = Result { () throws -> (SweepData, SweepData, Int?) in
      // One asset's bar file is read here, so that its fingerprint is made on another core while it parses.
      let barFile: Data? = if case .swing(let config) = base { try readInputFile(config.data.bars) } else { nil }
      pendingFingerprint = OnOtherThread { Result { try Self.fingerprint(base: base, root: root, barFile: barFile) } }
      // The cycle gate is made for every bar (a bar's stage depends on no later bar); the sweep runs the in-sample part.
      let data = try SweepData.load(base, barFile: barFile)
      let (inSample, outOfSampleStart) = try data.split(settings, file: file.path)
      return (data, inSample, outOfSampleStart)
    }
    let (jobs, skipped) = try pendingJobs.value.get()
    if jobs.isEmpty, let first = skipped.first {
      throw InputError("every combination is invalid, for example " + Self.describe(first.combination, settings) + ": " + first.reason, file: file.path)
    }
    let (data, inSample, outOfSampleStart) = try loaded.get()
    let bars = inSample.timeline
    mark("load")
    let fingerprint = try pendingFingerprint!.value.get()
    mark("fingerprint")

    // Resume: keep what a previous run of the same sweep finished.
    var records: [SweepRecord] = []
    // A changed sweep (other data, settings or grid) that costs less than about a second to run again
    // (at the general engine's 20 M bar-combinations/s on this kind of machine) starts over by itself.
    // Bar-combinations to run (a universe's combinations run on their own symbol's bars).
    let work = jobs.reduce(0.0) { $0 + Double(inSample.timeline(of: $1).count) }
    let cheap = shard == nil && work < 20e6
    if let data = previous {
      let (old, complete) = try SweepReport.parse(String(decoding: data, as: UTF8.self), file: resultsPath, settings: settings)
      let mineKeys = Set(mine.map { $0.values.joined(separator: "\u{1F}") })
      let other = old.first(where: { $0.fingerprint != fingerprint })
      // Rows of another shard or of combinations no longer in the sweep would be kept and ranked as this run's; a row
      // written twice (two files joined by hand) would count twice.
      let foreign = old.filter { !mineKeys.contains($0.key) }
      var seen = Set<String>()
      let repeated = old.first { !seen.insert($0.key).inserted }
      if cheap && (other != nil || !foreign.isEmpty || repeated != nil) {
        if !quiet {
          printError("note: results.csv was made from other \(other != nil ? "data or settings" : repeated != nil && foreign.isEmpty ? "runs (a combination appears twice)" : "combinations"); "
                     + "running all \(jobs.count) combinations again instead of resuming (they take about "
                     + String(format: "%.2f", work / 20e6) + " s)")
        }
        try AtomicWriter.write([ReportFile(name: "results.csv", contents: SweepReport.header(settings) + "\n")], into: folder)
      } else if let other {
        throw InputError("results.csv was made from other data or settings (fingerprint \(other.fingerprint), now \(fingerprint)); run with --fresh to start over, or choose another --out",
                         file: resultsPath)
      } else if let first = foreign.first {
        throw InputError("\(foreign.count) of its results are not in this \(shard == nil ? "sweep" : "shard") (for example "
                         + zip(settings.parameters.map(\.name), first.values).map { "\($0)=\($1)" }.joined(separator: " ")
                         + "): it was made by another shard or with another grid; run with --fresh to start over, or choose another --out",
                         file: resultsPath)
      } else if let repeated {
        throw InputError("combination " + zip(settings.parameters.map(\.name), repeated.values).map { "\($0)=\($1)" }.joined(separator: " ")
                         + " appears twice in results.csv (two files joined?); run with --fresh to start over, or choose another --out",
                         file: resultsPath)
      } else {
        records = old
        if !complete { try AtomicWriter.write([ReportFile(name: "results.csv", contents: SweepReport.csv(old, settings: settings))], into: folder) }
      }
    } else {
      try newHeader!.commit()
    }
    mark("resume")
    let done = Set(records.map(\.key))
    let todo = jobs.filter { !done.contains($0.combination.values.joined(separator: "\u{1F}")) }

    let sink = try ResultSink(path: resultsPath, fingerprint: fingerprint)
    let progress = ProgressLine(total: todo.count, label: "sweep", enabled: !quiet)
    // What the significance tests keep of each run; a shard has none (merge runs them on the whole sweep).
    let blockSums = shard == nil ? ConcurrentSlots<BacktestOverfitting.BlockSums>(count: plan.count) : nil
    let best = shard == nil ? BestReturns(settings: settings) : nil
    SweepRunner.run(todo, data: inSample, workers: self.jobs, blockSums: blockSums, best: best) { combination, summary in
      sink.append(SweepRanking.record(combination, summary, fingerprint: fingerprint), progress: progress)
    }
    // The appended lines are flushed to disk while the final files are made.
    let flushed = OnOtherThread { Result { try sink.close() } }
    let seconds = progress.elapsed
    mark("sweep")

    // Final files, in plan order whatever the job count.
    let order = Dictionary(uniqueKeysWithValues: plan.map { ($0.values.joined(separator: "\u{1F}"), $0.index) })
    let all = (records + sink.records).map { (order[$0.key]!, $0) }.sorted { $0.0 < $1.0 }.map(\.1)
    let title = (base.name) + (shard.map { " (shard \($0.index)/\($0.count))" } ?? "")
    // The first files are written and flushed while the others are made, into a
    // new folder that replaces the old one as a whole.
    let batch = try AtomicBatch(replacing: folder)
    let first = [
      ReportFile(name: "results.csv", contents: SweepReport.csv(all, settings: settings)),
      ReportFile(name: "sweep.json", contents: Self.planJSON(settings: settings, plan: plan, path: file.path, overrides: file.overrides,
                                                              fingerprint: fingerprint, shard: shard, skipped: skipped).rendered() + "\n"),
    ]
    batch.add(first)
    // A shard writes its rows only: merge makes the reports, holdout, walk-forward and significance of the whole sweep
    // (a shard's own ranking of its slice would be work for nothing, paid by every shard).
    let study = shard == nil
      ? SweepReport.study(all, SweepStudyInputs(settings: settings, jobs: jobs, data: data, split: (inSample, outOfSampleStart),
                                                initialCash: base.initialCash, workers: self.jobs, known: blockSums, best: best,
                                                skipped: skipped),
                          title: title, total: mine.count) : nil
    let files = first + (study?.files ?? [])
    batch.add(Array(files.dropFirst(first.count)))
    try flushed.value.get()
    try batch.commit()
    succeeded = true

    mark("reports")
    let ranked = SweepRanking.ranking(all, settings: settings)
    if !quiet {
      let barCombos = todo.reduce(0.0) { $0 + Double(inSample.timeline(of: $1).count) }
      print("\(base.name): \(todo.count) combinations run" + (records.isEmpty ? "" : ", \(records.count) resumed")
        + (settings.overUniverse ? " over \(settings.parameters[0].values.count) symbols" : " on \(HumanFormat.integer(bars.count)) bars")
        + " with \(self.jobs) jobs in \(String(format: "%.3f", seconds)) s"
        + (seconds > 0 && todo.count > 0 ? String(format: " (%.1f M bar-combinations/s)", barCombos / seconds / 1e6) : ""))
      if let best = ranked.first {
        print("  best by \(settings.metric): " + zip(settings.parameters.map(\.name), best.values).map { "\($0)=\($1)" }.joined(separator: " ")
          + " → \(settings.metric) \(SweepReport.formatMetric(best.metric(settings.metric)))"
          + (base.isPortfolio ? "" : ", trades \(Int(best.metric("total_trades") ?? 0))"))
      }
      let constrained = SweepPlan.constrainedOut(settings)
      if constrained > 0, let constraint = settings.constraint {
        print("  \(constrained) grid point\(constrained == 1 ? "" : "s") left out by sweep.constraints.where (\(constraint.text))")
      }
      if let first = skipped.first {
        print("  \(skipped.count) combination\(skipped.count == 1 ? "" : "s") skipped as invalid, for example "
          + Self.describe(first.combination, settings) + ": " + first.reason)
      }
      // Whether the winner is believable, and how it did out of sample: the figures sweep.md leads with.
      if let sig = study?.significance {
        print("  deflated Sharpe ratio \(String(format: "%.3f", sig.dsr)) over \(sig.trials) trials (below 0.95 the winner may be luck)"
          + (sig.overfitting.map { String(format: ", probability of backtest overfitting %.2f", $0.probability) } ?? ""))
      }
      if let wf = study?.walkForward {
        print("  walk-forward out of sample (\(wf.windows.count) windows chained): total return \(HumanFormat.percent(wf.summary.totalReturn)), "
          + "Sharpe \(HumanFormat.ratio(wf.summary.sharpe)), max drawdown \(HumanFormat.percent(wf.summary.maxDrawdown)), efficiency \(HumanFormat.ratio(wf.efficiency))")
      }
      if let top = study?.validation.first {
        print("  holdout: the best in-sample gives out of sample Sharpe \(HumanFormat.ratio(top.outOfSample.sharpe)), "
          + "total return \(HumanFormat.percent(top.outOfSample.totalReturn)) (in sample \(HumanFormat.ratio(top.inSample.metric("sharpe"))))")
      }
      if let robust = SweepRanking.acrossSymbols(all, settings: settings).first {
        print("  across symbols, best mean: " + zip(settings.parameters.dropFirst().map(\.name), robust.values).map { "\($0)=\($1)" }.joined(separator: " ")
          + " → \(settings.metric) mean \(SweepReport.formatMetric(robust.mean)), median \(SweepReport.formatMetric(robust.median)), "
          + "worst \(SweepReport.formatMetric(robust.worst)) over \(robust.symbols) symbols")
      }
      print("wrote \(files.map(\.name).joined(separator: ", ")) to \(folder)/")
    }
    return ExitCode.ok
  }

  /// A fingerprint of what the results depend on: every input file's bytes (`AnyRunConfig.inputFiles`; the first,
  /// one asset's bars, given as `barFile` when already read) and the base settings.
  static func fingerprint(base: AnyRunConfig, root: YAMLNode, barFile: Data?) throws -> String {
    var f = Fingerprint()
    let files = base.inputFiles
    if let barFile { barFile.withUnsafeBytes { f.add(raw: $0) } }
    for file in files.dropFirst(barFile == nil ? 0 : 1) {
      try readInputFile(file).withUnsafeBytes { f.add(raw: $0) }
    }
    guard case .mapping(let entries) = root.kind else { return f.hex }
    for e in entries where e.key != "report" && e.key != "name" { f.add(e.key + "=" + e.value.canonicalText) }
    return f.hex
  }

  /// A fingerprint of the plan: the parameters' names and every combination's values, in order.
  static func planFingerprint(settings: SweepSettings, plan: [SweepCombination]) -> String {
    var f = Fingerprint()
    for p in settings.parameters { f.add(p.name) }
    for c in plan { f.add(c.values.joined(separator: "\u{1F}")) }
    return f.hex
  }

  /// What `backtest merge` needs to know of a shard: the sweep file and `--set` overrides it ran with,
  /// the fingerprints of its inputs and of its plan, and which shard it is.
  /// `name=value name=value` of a combination.
  static func describe(_ c: SweepCombination, _ settings: SweepSettings) -> String {
    zip(settings.parameters.map(\.name), c.values).map { "\($0)=\($1)" }.joined(separator: " ")
  }

  static func planJSON(settings: SweepSettings, plan: [SweepCombination], path: String, overrides: [String], fingerprint: String,
                       shard: (index: Int, count: Int)?, skipped: [SweepRunner.Skipped] = []) -> JSONValue {
    let range = shard.map { SweepPlan.shardRanges(plan, shards: $0.count)[$0.index] } ?? 0..<plan.count
    return .object([
      ("sweep_file", .string(absolutePath(path))), ("overrides", .array(overrides.map { .string($0) })), ("fingerprint", .string(fingerprint)),
      ("plan", .string(planFingerprint(settings: settings, plan: plan))), ("combinations", .integer(plan.count)),
      ("shard", .integer(shard?.index ?? 0)), ("shards", .integer(shard?.count ?? 1)),
      ("first", .integer(range.lowerBound)), ("end", .integer(range.upperBound)),
      // The combinations of the part not run because a run file with their values is refused (merge checks each).
      ("skipped", .array(skipped.map { .integer($0.combination.index) })),
      ("parameters", .array(settings.parameters.map { .string($0.name) })), ("metric", .string(settings.metric)),
    ])
  }

  /// `path` from the root, lexically (`..` and `.` resolved, links kept): the same whichever folder the sweep was
  /// launched from, so that shards launched from different places record one file.
  static func absolutePath(_ path: String) -> String {
    let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    var parts: [Substring] = []
    for part in full.split(separator: "/") {
      if part == "." || part.isEmpty { continue }
      if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
      parts.append(part)
    }
    return "/" + parts.joined(separator: "/")
  }
}

/// Appends result lines to `results.csv` as combinations finish, one write
/// per line, so a killed sweep keeps every line it finished.
final class ResultSink: @unchecked Sendable {
  private let lock = NSLock()
  private let fd: Int32
  private let path: String
  private(set) var records: [SweepRecord] = []
  private var failure: String?

  init(path: String, fingerprint: String) throws {
    self.path = path
    fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    if fd < 0 { throw OutputError(path: path, message: "cannot open for appending (\(systemReason(errno)))") }
  }

  func append(_ record: SweepRecord, progress: ProgressLine) {
    var line = SweepReport.line(record) + "\n"
    lock.lock()
    defer { lock.unlock() }
    records.append(record)
    if failure == nil, let error = line.withUTF8({ writeAll(fd, $0) }) { failure = systemReason(error) }
    progress.update(done: records.count)
  }

  func close() throws {
    if fsync(fd) != 0 && failure == nil { failure = systemReason(errno) }
    _ = closeDescriptor(fd)
    if let failure { throw OutputError(path: path, message: "cannot append results (\(failure))") }
  }
}

/// The C library's `close`, named apart from `ResultSink.close`.
private func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }
