import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

/// `backtest convert polygon FILE.json --out FILE.csv`: saved Polygon aggregates to the standard CSV.
struct ConvertCommand {
  var input: String
  var out: String
  var timeZone: TimeZone
  var daily: Bool
  var quiet: Bool

  static let spec = CommandSpec(
    "convert", summary: "turn saved market data into the standard bar CSV",
    subcommands: [
      CommandSpec("polygon", summary: "saved Polygon aggregates JSON to the standard bar CSV",
                  arguments: [ArgumentSpec("FILE.json", "a response of Polygon's aggregates endpoint, saved", completion: .file)],
                  options: [.option("out", "FILE.csv", "the CSV to write", required: true, completion: .file),
                            .option("timezone", "TZ", "the IANA time zone the timestamps are written in", default: .value("America/New_York")),
                            .flag("daily", "write dates (YYYY-MM-DD) instead of times, for daily bars"), .quiet],
                  examples: ["convert polygon saved.json --out Data/gpix_30min.csv"]),
    ],
    examples: ["convert polygon saved.json --out Data/gpix_30min.csv"])

  init(_ args: ArraySlice<String>) throws {
    let (command, path, rest) = try Arguments.subcommand(args, of: Self.spec, path: "convert")
    let a = try Arguments(rest, command: command, path: path)
    guard a.positionals.count == 1 else { throw UsageError(message: "expected one file: backtest convert polygon FILE.json --out FILE.csv") }
    input = a.positionals[0]
    out = a.option("out")!
    let zone = a.option("timezone")!
    guard let tz = TimeZone(identifier: zone) else { throw UsageError(message: "expected an IANA time zone for '--timezone', found '\(zone)'") }
    timeZone = tz
    daily = a.flag("daily")
    quiet = a.flag("quiet")
  }

  func run() throws -> Int32 {
    let data = try readInputFile(input)
    let page = try PolygonAggregates.parse(data, file: input)
    let order = page.bars.indices.sorted { page.bars[$0].time < page.bars[$1].time }
    let text = PolygonAggregates.csv(order.map { page.bars[$0] }, timeZone: timeZone, daily: daily)
    // Check what we wrote reads back as valid bars before replacing anything; a bad
    // bar is reported at its result in the input (line k + 2 of the CSV is the k-th bar in time order).
    let bytes = Array(text.utf8)
    do {
      _ = try bytes.withUnsafeBufferPointer { try BarCSVReader(timeZone: timeZone).read($0, file: out) }
    } catch let error as InputError {
      guard let line = error.location?.line, line >= 2, line - 2 < order.count else { throw InputError(error.message, file: input) }
      throw PolygonAggregates.resultError(order[line - 2], error.message, in: data, file: input)
    }
    let folder = (out as NSString).deletingLastPathComponent
    try AtomicWriter.write([ReportFile(name: (out as NSString).lastPathComponent, contents: text)], into: folder.isEmpty ? "." : folder)
    if !quiet { print("wrote \(page.bars.count) bars to \(out)") }
    return ExitCode.ok
  }
}
