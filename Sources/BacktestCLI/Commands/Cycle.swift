import BacktestCore
import CommandLineSupport
import Foundation

/// `backtest cycle CONFIG [--out DIR]`: the stage timeline and `cycle_stages.csv`.
struct CycleCommand {
  var catalog: StrategyCatalog
  var configPath: String
  var out: String?
  var overrides: [String]

  init(_ args: ArraySlice<String>, catalog: StrategyCatalog) throws {
    self.catalog = catalog
    let a = try Arguments(args, flags: [], options: ["out", "set"])
    guard a.positionals.count == 1 else { throw UsageError(message: "expected one run file: backtest cycle CONFIG") }
    configPath = RunCommand.locate(a.positionals[0])
    out = a.option("out")
    overrides = a.options["set"] ?? []
  }

  func run() throws -> Int32 {
    let text = String(decoding: try readInputFile(configPath), as: UTF8.self)
    let config = try RunConfig.parse(text, file: configPath, overrides: overrides, catalog: catalog)
    guard let cycle = config.cycle else {
      throw InputError("no 'cycle:' section; expected cycle.macro_file and the classifier settings", file: configPath)
    }
    let rows = try cycle.classify()
    let timeline = StageTimeline(rows: rows, settings: cycle.classifier)
    print("economic-cycle stages from \(cycle.macroFiles.joined(separator: ", ")) (a stage is usable from its release):")
    for change in timeline.changes {
      print("  \(CivilDate.isoDate(days: CivilDate.day(ofSeconds: change.instant)))  \(change.stage.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0))  \(CycleDescription.inputs(change.row))")
    }
    let folder = out ?? config.report.out
    try AtomicWriter.write([ReportFile(name: "cycle_stages.csv", contents: CycleStageTable.csv(rows))], into: folder)
    print("wrote cycle_stages.csv (\(rows.count) quarters) to \(folder)/")
    return ExitCode.ok
  }
}
