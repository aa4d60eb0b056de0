import BacktestCore
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

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, flags: [], options: ["bars", "seed", "out", "model", "interval", "drift", "vol", "vol-high", "start", "price"])
    if !a.positionals.isEmpty { throw UsageError(message: "synth takes options only, found '\(a.positionals[0])'") }
    count = try a.integer("bars", default: 13_000)
    seed = UInt64(try a.integer("seed", default: 1, minimum: 0))
    guard let out = a.option("out") else { throw UsageError(message: "expected --out FILE.csv") }
    self.out = out
    let model = a.option("model") ?? "regime"
    guard let m = SyntheticBars.Model(rawValue: model) else { throw UsageError(message: "expected --model gbm or regime, found '\(model)'") }
    settings.model = m
    switch a.option("interval") ?? "30min" {
    case "30min": settings.barsPerDay = 13
    case "1h": settings.barsPerDay = 6
    case "1d": settings.barsPerDay = 1
    case let other: throw UsageError(message: "expected --interval 30min, 1h or 1d, found '\(other)'")
    }
    func fraction(_ name: String, _ fallback: Double) throws -> Double {
      guard let text = a.option(name) else { return fallback }
      let percent = text.hasSuffix("%")
      guard let v = Double(percent ? String(text.dropLast()) : text), v.isFinite else {
        throw UsageError(message: "expected a number like 0.06 or 6% for '--\(name)', found '\(text)'")
      }
      return percent ? v / 100 : v
    }
    settings.drift = try fraction("drift", 0)
    settings.volatility = try fraction("vol", 0.16)
    settings.volatileVolatility = try fraction("vol-high", 0.45)
    guard settings.volatility > 0, settings.volatileVolatility > 0 else { throw UsageError(message: "expected volatilities > 0") }
    let startText = a.option("start") ?? "2020-01-02"
    guard case .date(let d)? = Array(startText.utf8).withUnsafeBufferPointer({ parseTimestamp($0, 0, $0.count) }) else {
      throw UsageError(message: "expected --start YYYY-MM-DD, found '\(startText)'")
    }
    start = d
    price = try fraction("price", 50)
    guard price > 0 else { throw UsageError(message: "expected --price > 0") }
  }

  func run() throws -> Int32 {
    let bars = SyntheticBars.generate(count: count, seed: seed, startDay: start, startPrice: price, settings: settings)
    let folder = (out as NSString).deletingLastPathComponent
    try AtomicWriter.write([ReportFile(name: (out as NSString).lastPathComponent, contents: SyntheticBars.csv(bars))], into: folder.isEmpty ? "." : folder)
    print("wrote \(HumanFormat.integer(bars.count)) SYNTHETIC bars (\(settings.model.rawValue), seed \(seed)) to \(out)")
    return ExitCode.ok
  }
}
