import BacktestCore
import Foundation

/// `backtest bench`: timings on generated bars, for release builds.
struct BenchCommand {
  var bars: Int
  var seed: UInt64

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, flags: [], options: ["bars", "seed"])
    if !a.positionals.isEmpty { throw UsageError(message: "bench takes no arguments, found '\(a.positionals[0])'") }
    bars = try a.integer("bars", default: 1_000_000, minimum: 100)
    seed = UInt64(try a.integer("seed", default: 1, minimum: 0))
  }

  func run() throws -> Int32 {
    let clock = ContinuousClock()
    func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
    let csv = SyntheticBars.csv(SyntheticBars.generate(count: bars, seed: seed))
    let bytes = Array(csv.utf8)
    print("generated \(HumanFormat.integer(bars)) 30-minute bars (\(String(format: "%.1f", Double(bytes.count) / 1e6)) MB of CSV), seed \(seed)")

    var best = Double.infinity
    var series = BarSeries(source: "bench")
    for _ in 0..<3 {
      let t0 = clock.now
      series = try bytes.withUnsafeBufferPointer { try BarCSVReader().read($0, file: "bench.csv") }
      best = min(best, seconds(clock.now - t0))
    }
    print(String(format: "csv load:        %8.1f MB/s  (%.3f s, best of 3)", Double(bytes.count) / 1e6 / best, best))

    var engineBest = Double.infinity
    var trades = 0
    for _ in 0..<5 {
      let t0 = clock.now
      var strategy = BollingerRSI(parameters: .init(), bars: series)
      let result = Engine.run(&strategy, bars: series, broker: BrokerSettings())
      engineBest = min(engineBest, seconds(clock.now - t0))
      trades = result.trades.count
    }
    print(String(format: "single backtest: %8.1f M bars/s (%.4f s for %d bars incl. indicators, %d trades, best of 5)",
                 Double(series.count) / engineBest / 1e6, engineBest, series.count, trades))
    return ExitCode.ok
  }
}
