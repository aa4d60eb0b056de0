import BacktestCore
import CommandLineSupport
import Foundation

/// `backtest cycle CONFIG [--out DIR]`: the stage timeline and `cycle_stages.csv`.
struct CycleCommand {
  var catalog: StrategyCatalog
  var configPath: String
  var out: String?
  var overrides: [String]
  var quiet: Bool

  static let spec = CommandSpec(
    "cycle", summary: "print the economic-cycle stage timeline of a run file's cycle: section and write cycle_stages.csv",
    arguments: [.config],
    options: [.out("the folder for cycle_stages.csv", default: "report.out of the run file"), .set, .quiet],
    details: "Each quarter's stage (Expansion, Peak, Contraction, Recovery) is usable from its release, as Docs/spec/economic-cycle.md defines it; the timeline shows every change with the inputs behind it.",
    examples: ["cycle Strategies/goog-cycle.yaml", "cycle goog-cycle.yaml --set cycle.release_lag_days.real_gdp=60 --out /tmp/cycle"])

  init(_ args: ArraySlice<String>, catalog: StrategyCatalog) throws {
    self.catalog = catalog
    let a = try Arguments(args, command: Self.spec, path: "cycle")
    guard a.positionals.count == 1 else { throw UsageError(message: "expected one run file: backtest cycle CONFIG") }
    configPath = RunCommand.locate(a.positionals[0])
    out = a.option("out")
    overrides = a.values("set")
    quiet = a.flag("quiet")
  }

  func run() throws -> Int32 {
    let text = String(decoding: try readInputFile(configPath), as: UTF8.self)
    let config = try RunConfig.parse(text, file: configPath, overrides: overrides, catalog: catalog)
    guard let cycle = config.cycle else {
      throw InputError("no 'cycle:' section; expected cycle.macro_file and the classifier settings", file: configPath)
    }
    let rows = try cycle.classify()
    let timeline = StageTimeline(rows: rows, settings: cycle.classifier)
    let folder = out ?? config.report.out
    try AtomicWriter.write([ReportFile(name: "cycle_stages.csv", contents: CycleStageTable.csv(rows))], into: folder)
    if quiet { return ExitCode.ok }
    print("economic-cycle stages from \(cycle.macroFiles.joined(separator: ", ")) (a stage is usable from its release):")
    for change in timeline.changes {
      print("  \(CivilDate.isoDate(days: CivilDate.day(ofSeconds: change.instant)))  \(change.stage.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0))  \(CycleDescription.inputs(change.row))")
    }
    print("wrote cycle_stages.csv (\(rows.count) quarters) to \(folder)/")
    return ExitCode.ok
  }
}
