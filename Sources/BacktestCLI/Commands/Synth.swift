import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

/// `backtest synth`: seeded synthetic bars in the standard CSV, for testing a strategy on prices it has never seen.
struct SynthCommand {
  var count: Int
  var seed: UInt64
  var out: String
  var settings = SyntheticBars.Settings()
  var start: Int
  var price: Double
  var quiet: Bool

  /// Bars per trading day for each `--interval`.
  static let intervals: [(name: String, barsPerDay: Int)] = [("30min", 13), ("1h", 6), ("1d", 1)]

  static let spec = CommandSpec(
    "synth", summary: "write seeded synthetic bars (standard CSV) to test a strategy on prices it has never seen",
    options: [
      .option("out", "FILE.csv", "the CSV to write", required: true, completion: .file),
      .option("bars", "N", "how many bars (at most 10,000,000)", default: .value("13000")),
      .option("seed", "N", "the random seed: the same seed gives the same bars", default: .value("1")),
      .option("model", "MODEL", "the price model (regime: calm and volatile spells)", default: .value(SyntheticBars.Model.regime.rawValue),
              completion: .choices(SyntheticBars.Model.allCases.map(\.rawValue))),
      .option("interval", "LENGTH", "bar length", default: .value("30min"), completion: .choices(intervals.map(\.name))),
      .option("drift", "RATE", "annual drift, 0.06 or 6%", default: .value(formatPercentPlain(SyntheticBars.Settings().drift))),
      .option("vol", "RATE", "annual volatility", default: .value(formatPercentPlain(SyntheticBars.Settings().volatility))),
      .option("vol-high", "RATE", "annual volatility of the volatile regime",
              default: .value(formatPercentPlain(SyntheticBars.Settings().volatileVolatility))),
      .option("start", "DATE", "the first day, YYYY-MM-DD", default: .value("2020-01-02")),
      .option("price", "P", "the first open", default: .value("50")),
      .quiet,
    ],
    details: "The bars are labelled SYNTHETIC in the run summary; 30-minute and hourly bars follow the New York session with daylight saving.",
    examples: ["synth --out /tmp/synth.csv --bars 20000 --seed 3", "synth --out /tmp/daily.csv --interval 1d --model gbm --drift 6%"])

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, command: Self.spec, path: "synth")
    if !a.positionals.isEmpty { throw UsageError(message: "synth takes options only, found '\(a.positionals[0])'") }
    count = try a.integer("bars", maximum: 10_000_000)!
    seed = UInt64(try a.integer("seed", minimum: 0)!)
    out = a.option("out")!
    settings.model = SyntheticBars.Model(rawValue: try a.choice("model")!)!
    let interval = try a.choice("interval")!
    settings.barsPerDay = Self.intervals.first { $0.name == interval }!.barsPerDay
    func fraction(_ name: String) throws -> Double {
      let text = a.option(name)!
      let percent = text.hasSuffix("%")
      guard let v = parseDecimal(percent ? text.dropLast() : Substring(text)), abs(v) <= ConfigTable.largestNumber else {
        throw UsageError(message: "expected a number like 0.06 or 6% for '--\(name)', found '\(excerpt(text))'")
      }
      return percent ? v / 100 : v
    }
    settings.drift = try fraction("drift")
    settings.volatility = try fraction("vol")
    settings.volatileVolatility = try fraction("vol-high")
    guard settings.volatility > 0, settings.volatileVolatility > 0 else { throw UsageError(message: "expected volatilities > 0") }
    let startText = a.option("start")!
    guard case .date(let d)? = Array(startText.utf8).withUnsafeBufferPointer({ parseTimestamp($0, 0, $0.count) }) else {
      throw UsageError(message: "expected --start YYYY-MM-DD, found '\(startText)'")
    }
    start = d
    // Times hold years up to 9999 (a run refuses a later bar): a series that would end after it is not written.
    if SyntheticBars.lastDay(count: count, startDay: start, barsPerDay: settings.barsPerDay) > CivilDate.days(year: 9999, month: 12, day: 31) {
      throw UsageError(message: "the last of \(HumanFormat.integer(count)) \(interval) bars from \(startText) would fall after 9999-12-31; expected an earlier --start or fewer --bars")
    }
    price = try fraction("price")
    quiet = a.flag("quiet")
    guard BarCSVReader.priceRange.contains(price) else { throw UsageError(message: "expected --price from 1e-12 to 1e12") }
  }

  func run() throws -> Int32 {
    let bars = SyntheticBars.generate(count: count, seed: seed, startDay: start, startPrice: price, settings: settings)
    // A drift or volatility so large that prices leave the range a bar file may hold: say so, write nothing.
    if let i = bars.indices.first(where: { !BarCSVReader.priceRange.contains(bars.low[$0]) || !BarCSVReader.priceRange.contains(bars.high[$0]) }) {
      throw UsageError(message: "the prices leave the range 1e-12 to 1e12 at bar \(i + 1) (\(bars.timeLabel(i))); expected a smaller --drift, --vol or --vol-high, or fewer --bars")
    }
    let folder = (out as NSString).deletingLastPathComponent
    try AtomicWriter.write([ReportFile(name: (out as NSString).lastPathComponent, contents: SyntheticBars.csv(bars))], into: folder.isEmpty ? "." : folder)
    if !quiet { print("wrote \(HumanFormat.integer(bars.count)) SYNTHETIC bars (\(settings.model.rawValue), seed \(seed)) to \(out)") }
    return ExitCode.ok
  }
}
