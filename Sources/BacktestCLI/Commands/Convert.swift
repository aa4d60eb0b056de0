import BacktestCore
import CommandLineSupport
import Foundation

/// `backtest convert polygon FILE.json --out FILE.csv`: saved Polygon aggregates to the standard CSV.
struct ConvertCommand {
  var input: String
  var out: String
  var timeZone: TimeZone
  var daily: Bool

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, flags: ["daily"], options: ["out", "timezone"])
    guard a.positionals.count == 2, a.positionals[0] == "polygon" else {
      throw UsageError(message: "expected: backtest convert polygon FILE.json --out FILE.csv")
    }
    input = a.positionals[1]
    guard let out = a.option("out") else { throw UsageError(message: "expected --out FILE.csv") }
    self.out = out
    let zone = a.option("timezone") ?? "America/New_York"
    guard let tz = TimeZone(identifier: zone) else { throw UsageError(message: "expected an IANA time zone for '--timezone', found '\(zone)'") }
    timeZone = tz
    daily = a.flags.contains("daily")
  }

  func run() throws -> Int32 {
    let page = try PolygonAggregates.parse(try readInputFile(input), file: input)
    let text = PolygonAggregates.csv(page.bars.sorted { $0.time < $1.time }, timeZone: timeZone, daily: daily)
    // Check what we wrote reads back as valid bars before replacing anything.
    let bytes = Array(text.utf8)
    _ = try bytes.withUnsafeBufferPointer { try BarCSVReader(timeZone: timeZone).read($0, file: out) }
    let folder = (out as NSString).deletingLastPathComponent
    try AtomicWriter.write([ReportFile(name: (out as NSString).lastPathComponent, contents: text)], into: folder.isEmpty ? "." : folder)
    print("wrote \(page.bars.count) bars to \(out)")
    return ExitCode.ok
  }
}
