import BacktestCore
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
    struct Shard { var folder: String; var file: String; var fingerprint: String; var index: Int; var count: Int }
    var shards: [Shard] = []
    for folder in folders {
      let path = folder + "/sweep.json"
      let data = try readInputFile(path)
      guard let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let file = json["sweep_file"] as? String, let fingerprint = json["fingerprint"] as? String,
        let index = json["shard"] as? Int, let count = json["shards"] as? Int
      else { throw InputError("expected the sweep.json a sweep shard writes", file: path) }
      shards.append(Shard(folder: folder, file: file, fingerprint: fingerprint, index: index, count: count))
    }
    let first = shards[0]
    for s in shards where s.fingerprint != first.fingerprint || s.count != first.count || s.file != first.file {
      throw InputError("this shard is from another sweep (\(s.file), fingerprint \(s.fingerprint), \(s.count) shards) than \(first.folder) (\(first.file), fingerprint \(first.fingerprint), \(first.count) shards)",
                       file: s.folder + "/sweep.json")
    }
    let indices = shards.map(\.index)
    let missingShards = (0..<first.count).filter { !indices.contains($0) }
    if !missingShards.isEmpty {
      throw InputError("shards \(missingShards.map { "\($0)/\(first.count)" }.joined(separator: ", ")) are missing; expected all \(first.count)",
                       file: folders.joined(separator: " "))
    }
    if let duplicate = indices.first(where: { i in indices.filter { $0 == i }.count > 1 }) {
      throw InputError("shard \(duplicate)/\(first.count) is given twice", file: folders.joined(separator: " "))
    }

    let text = String(decoding: try readInputFile(first.file), as: UTF8.self)
    let (root, settings) = try SweepRunner.parse(text, file: first.file, catalog: catalog)
    let plan = SweepPlan.combinations(settings)
    let order = Dictionary(uniqueKeysWithValues: plan.map { ($0.values.joined(separator: "\u{1F}"), $0.index) })
    var seen: [String: String] = [:]
    var records: [SweepRecord] = []
    for s in shards {
      let path = s.folder + "/results.csv"
      let (rows, _) = try SweepReport.parse(String(decoding: try readInputFile(path), as: UTF8.self), file: path, settings: settings)
      for r in rows {
        guard let k = order[r.key] else {
          throw InputError("combination \(r.values.joined(separator: ",")) is not in the sweep's plan", file: path)
        }
        guard k % s.count == s.index else {
          throw InputError("combination \(r.values.joined(separator: ",")) belongs to shard \(k % s.count), not \(s.index)", file: path)
        }
        if let other = seen[r.key] {
          throw InputError("combination \(r.values.joined(separator: ",")) appears twice (also in \(other))", file: path)
        }
        seen[r.key] = path
        records.append(r)
      }
    }
    let missing = plan.filter { seen[$0.values.joined(separator: "\u{1F}")] == nil }
    if !missing.isEmpty {
      let sample = missing.prefix(3).map { $0.values.joined(separator: ",") }.joined(separator: "; ")
      throw InputError("\(missing.count) of \(plan.count) combinations have no result (for example \(sample)); rerun those shards: they resume",
                       file: folders.joined(separator: " "))
    }
    records.sort { order[$0.key]! < order[$1.key]! }
    var validation: (rows: [ValidationRow], split: HoldoutSplit)?
    let base = try RunConfig.parse(document: root, file: first.file, catalog: catalog)
    let allBars = try Backtest.loadBars(base.data).bars
    let (inSample, outOfSampleStart) = try SweepCommand.split(allBars, settings: settings, file: first.file)
    let jobs = try SweepRunner.jobs(root: root, file: first.file, settings: settings, combinations: plan, catalog: catalog)
    if let split = settings.validation, let outOfSampleStart {
      validation = (SweepValidation.evaluate(records, settings: settings, jobs: jobs, bars: allBars, outOfSampleStart: outOfSampleStart), split)
    }
    let significance = base.cycle == nil ? SweepSignificance.evaluate(records, settings: settings, jobs: jobs, bars: inSample) : nil
    try AtomicWriter.write([
      ReportFile(name: "results.csv", contents: SweepReport.csv(records, settings: settings)),
      ReportFile(name: "sweep.json", contents: SweepCommand.planJSON(settings: settings, path: first.file, fingerprint: first.fingerprint,
                                                                     total: plan.count, shard: nil).rendered() + "\n"),
    ] + SweepReport.reportFiles(records, settings: settings, title: "merged from \(shards.count) shards", total: plan.count,
                                validation: validation, significance: significance,
                                walkForward: settings.walkForward.map {
                                  (WalkForward.run($0, jobs: jobs, settings: settings, bars: inSample, initialCash: base.broker.initialCash,
                                                   workers: ProcessInfo.processInfo.activeProcessorCount), inSample)
                                }), into: out)
    let best = SweepRanking.ranking(records, settings: settings).first
    if quiet { return ExitCode.ok }
    print("merged \(records.count) combinations from \(shards.count) shards into \(out)/"
      + (best.map { "; best by \(settings.metric): " + zip(settings.parameters.map(\.name), $0.values).map { "\($0)=\($1)" }.joined(separator: " ") } ?? ""))
    return ExitCode.ok
  }
}
