import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

/// `backtest cycle CONFIG [--out DIR]`: the stage timeline and `cycle_stages.csv`.
struct CycleCommand {
  var catalog: StrategyCatalog
  /// The run file named on the command line, with the `--set` overrides.
  let file: RunFileArgument
  var out: String?
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
    file = try RunFileArgument(a, usage: "backtest cycle CONFIG")
    out = a.option("out")
    quiet = a.flag("quiet")
  }

  func run() throws -> Int32 {
    let config = try RunConfig.parse(try file.text(), file: file.path, overrides: file.overrides, catalog: catalog)
    guard let cycle = config.cycle else {
      throw InputError("no 'cycle:' section; expected cycle.macro_file and the classifier settings", file: file.path)
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
