import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

/// `backtest merge DIR... --out DIR`: combines the results of sweep shards,
/// checking that every combination is there exactly once.
struct MergeCommand {
  var catalog: StrategyCatalog
  var folders: [String]
  var out: String
  var quiet: Bool

  static let spec = CommandSpec(
    "merge", summary: "combine the results of sweep shards, checking every combination is there exactly once, and rank them",
    arguments: [ArgumentSpec("DIR", "the --out folders of the shards", count: .oneOrMore, completion: .directory)],
    options: [.out("the folder for the merged results and reports", required: true), .quiet],
    examples: ["merge out/shard-0 out/shard-1 out/shard-2 out/shard-3 --out out/merged"])

  init(_ args: ArraySlice<String>, catalog: StrategyCatalog) throws {
    self.catalog = catalog
    let a = try Arguments(args, command: Self.spec, path: "merge")
    guard !a.positionals.isEmpty else { throw UsageError(message: "expected the shard folders: backtest merge DIR... --out DIR") }
    folders = a.positionals
    out = a.option("out")!
    quiet = a.flag("quiet")
  }

  func run() throws -> Int32 {
    struct Shard {
      var folder: String, file: String, overrides: [String], fingerprint: String, plan: String, index: Int, count: Int
      /// The plan positions the shard ran, and those it skipped as invalid.
      var range: Range<Int>
      var skipped: [Int]
    }
    var shards: [Shard] = []
    for folder in folders {
      let path = folder + "/sweep.json"
      let data = try readInputFile(path)
      guard let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let file = json["sweep_file"] as? String, let overrides = json["overrides"] as? [String],
        let fingerprint = json["fingerprint"] as? String, let plan = json["plan"] as? String,
        let index = json["shard"] as? Int, let count = json["shards"] as? Int, let first = json["first"] as? Int, let end = json["end"] as? Int,
        0 <= first, first <= end
      else {
        throw InputError("expected the sweep.json a sweep shard writes (sweep_file, overrides, fingerprint, plan, shard, shards, first, end); "
                         + "a shard from an older backtest (every n-th combination) must run again with --fresh", file: path)
      }
      shards.append(Shard(folder: folder, file: file, overrides: overrides, fingerprint: fingerprint, plan: plan, index: index, count: count,
                          range: first..<end, skipped: json["skipped"] as? [Int] ?? []))
    }
    // The shards must be the slices of one plan, run on the same data and settings (the sweep file's path may differ).
    let first = shards[0]
    for s in shards.dropFirst() {
      let differences = [
        s.fingerprint == first.fingerprint ? nil : "data or settings (fingerprint \(s.fingerprint), \(first.folder) has \(first.fingerprint))",
        s.plan == first.plan ? nil : "combinations (plan \(s.plan), \(first.folder) has \(first.plan))",
        s.count == first.count ? nil : "shard count (\(s.count), \(first.folder) has \(first.count))",
      ].compactMap { $0 }
      if !differences.isEmpty {
        throw InputError("shard \(s.folder) is from another sweep than \(first.folder): other \(differences.joined(separator: ", other "))",
                         file: s.folder + "/sweep.json")
      }
    }
    for (k, s) in shards.enumerated() {
      if let other = shards[..<k].first(where: { $0.index == s.index }) {
        throw InputError("shard \(s.index)/\(s.count) is given twice: \(other.folder) and \(s.folder)", file: s.folder + "/sweep.json")
      }
    }
    let missingShards = (0..<first.count).filter { i in !shards.contains { $0.index == i } }
    if !missingShards.isEmpty {
      let given = shards.sorted { $0.index < $1.index }.map { "\($0.index)/\($0.count) (\($0.folder))" }.joined(separator: ", ")
      throw InputError("\(missingShards.count == 1 ? "shard" : "shards") \(missingShards.map { "\($0)/\(first.count)" }.joined(separator: ", ")) "
                       + "\(missingShards.count == 1 ? "is" : "are") missing: the folders given hold \(given); give one folder for each of the \(first.count) shards",
                       file: "backtest merge")
    }

    // The merged reports are made from the sweep file and data as they are now: they must still be what the shards ran.
    let text = String(decoding: try readInputFile(first.file), as: UTF8.self)
    let (root, settings) = try SweepRunner.parse(text, file: first.file, overrides: first.overrides, catalog: catalog)
    let base = try AnyRunConfig.parse(document: root, file: first.file, catalog: catalog)
    let barFile: Data? = if case .swing(let config) = base { try readInputFile(config.data.bars) } else { nil }
    let shardList = shards.map(\.folder).joined(separator: ", ")
    let fingerprint = try SweepCommand.fingerprint(base: base, root: root, barFile: barFile)
    if fingerprint != first.fingerprint {
      throw InputError("the shards (\(shardList)) were made from other data or settings than \(first.file) and its data have now "
                       + "(fingerprint \(first.fingerprint), now \(fingerprint)); restore them, or run the shards again with --fresh",
                       file: first.file)
    }
    let plan = SweepPlan.combinations(settings)
    if SweepCommand.planFingerprint(settings: settings, plan: plan) != first.plan {
      throw InputError("the shards (\(shardList)) ran another plan of combinations than \(first.file) has now "
                       + "(its sweep: section changed); restore it, or run the shards again", file: first.file)
    }
    // Each shard ran its contiguous part of the plan, as this backtest divides it.
    let ranges = SweepPlan.shardRanges(plan, shards: first.count)
    for s in shards where s.range != ranges[s.index] {
      throw InputError("shard \(s.index)/\(s.count) ran the plan positions \(s.range.lowerBound)..<\(s.range.upperBound), but this backtest "
                       + "gives it \(ranges[s.index].lowerBound)..<\(ranges[s.index].upperBound); run it again with --fresh", file: s.folder + "/sweep.json")
    }
    let order = Dictionary(uniqueKeysWithValues: plan.map { ($0.values.joined(separator: "\u{1F}"), $0.index) })
    var seen: [String: String] = [:]
    var records: [SweepRecord] = []
    for s in shards {
      let path = s.folder + "/results.csv"
      let (rows, _) = try SweepReport.parse(String(decoding: try readInputFile(path), as: UTF8.self), file: path, settings: settings)
      for (line, r) in rows.enumerated() {
        // A row computed on other data carries another fingerprint, whatever its sweep.json says.
        guard r.fingerprint == fingerprint else {
          throw InputError("combination \(r.values.joined(separator: ",")) was computed on other data or settings (fingerprint "
                           + "\(r.fingerprint), \(first.file) and its data have \(fingerprint)); run that shard again with --fresh",
                           at: SourceLocation(file: path, line: line + 2, column: 1))
        }
        guard let k = order[r.key] else {
          throw InputError("combination \(r.values.joined(separator: ",")) is not in the sweep's plan", file: path)
        }
        guard s.range.contains(k) else {
          let owner = ranges.firstIndex { $0.contains(k) } ?? 0
          throw InputError("combination \(r.values.joined(separator: ",")) belongs to shard \(owner), not \(s.index)", file: path)
        }
        if let other = seen[r.key] {
          throw InputError("combination \(r.values.joined(separator: ",")) appears twice (also in \(other))", file: path)
        }
        seen[r.key] = path
        records.append(r)
      }
    }
    // A combination a shard skipped as invalid must be one (a run file with its values is refused) and in its part.
    var skipped: [SweepRunner.Skipped] = []
    for s in shards where !s.skipped.isEmpty {
      guard s.skipped.allSatisfy({ s.range.contains($0) && $0 < plan.count }) else {
        throw InputError("lists skipped combinations outside its part of the plan", file: s.folder + "/sweep.json")
      }
      let checked = try SweepRunner.jobs(root: root, file: first.file, settings: settings, combinations: s.skipped.map { plan[$0] },
                                         catalog: catalog, skippingInvalid: true)
      if let valid = checked.jobs.first {
        throw InputError("skipped combination \(valid.combination.values.joined(separator: ",")) as invalid, but it is valid with the sweep file as it is now; run that shard again with --fresh",
                         file: s.folder + "/sweep.json")
      }
      skipped += checked.skipped
    }
    let skippedKeys = Set(skipped.map { $0.combination.values.joined(separator: "\u{1F}") })
    let missing = plan.filter { seen[$0.values.joined(separator: "\u{1F}")] == nil && !skippedKeys.contains($0.values.joined(separator: "\u{1F}")) }
    if !missing.isEmpty {
      let sample = missing.prefix(3).map { $0.values.joined(separator: ",") }.joined(separator: "; ")
      let lacking = Dictionary(grouping: missing) { m in ranges.firstIndex { $0.contains(m.index) } ?? 0 }
      let unfinished = shards.filter { lacking[$0.index] != nil }.sorted { $0.index < $1.index }
        .map { "\($0.folder) lacks \(lacking[$0.index]!.count)" }.joined(separator: ", ")
      throw InputError("\(missing.count) of \(plan.count) combinations have no result (for example \(sample)): \(unfinished); "
                       + "run those shards again: they resume", file: "backtest merge")
    }
    // In plan order: each row's position looked up once (a key made at every comparison cost n log n joins).
    records = records.map { (order[$0.key]!, $0) }.sorted { $0.0 < $1.0 }.map(\.1)
    let data = try SweepData.load(base, barFile: barFile)
    let split = try data.split(settings, file: first.file)
    // The reports run again only the top combinations (holdout) and the best (significance), unless a walk-forward or
    // the overfitting test (up to 2,000 combinations) runs them all: a large sweep's jobs are made for those only.
    let needed = (settings.walkForward != nil || plan.count <= SweepSignificance.overfittingLimit
      ? plan : SweepRanking.ranking(records, settings: settings).prefix(max(1, settings.top)).map { plan[order[$0.key]!] })
      .filter { !skippedKeys.contains($0.values.joined(separator: "\u{1F}")) }
    let jobs = try SweepRunner.jobs(root: root, file: first.file, settings: settings, combinations: needed, catalog: catalog)
    try AtomicWriter.write([
      ReportFile(name: "results.csv", contents: SweepReport.csv(records, settings: settings)),
      ReportFile(name: "sweep.json", contents: SweepCommand.planJSON(settings: settings, plan: plan, path: first.file, overrides: first.overrides,
                                                                     fingerprint: first.fingerprint, shard: nil,
                                                                     skipped: skipped.sorted { $0.combination.index < $1.combination.index }).rendered() + "\n"),
    ] + SweepReport.study(records, SweepStudyInputs(settings: settings, jobs: jobs, data: data, split: split, initialCash: base.initialCash,
                                                    workers: ProcessInfo.processInfo.activeProcessorCount,
                                                    skipped: skipped.sorted { $0.combination.index < $1.combination.index }),
                          title: "merged from \(shards.count) shards", total: plan.count).files,
      into: out)
    let best = SweepRanking.ranking(records, settings: settings).first
    if quiet { return ExitCode.ok }
    print("merged \(records.count) combinations from \(shards.count) shards into \(out)/"
      + (best.map { "; best by \(settings.metric): " + zip(settings.parameters.map(\.name), $0.values).map { "\($0)=\($1)" }.joined(separator: " ") } ?? ""))
    return ExitCode.ok
  }
}
