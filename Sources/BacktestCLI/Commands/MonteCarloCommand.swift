import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

/// `backtest montecarlo CONFIG`: resamples the strategy's daily returns and trade order.
struct MonteCarloCommand {
  var catalog: StrategyCatalog
  /// The run file named on the command line, with the `--set` overrides.
  let file: RunFileArgument
  var runs: Int
  var seed: UInt64
  var block: Double?
  var jobs: Int
  var drawdown: Double
  var out: String?

  static let spec = CommandSpec(
    "montecarlo", summary: "resample a run's daily returns (stationary block bootstrap) and its trade order; percentiles and risks",
    arguments: [.config],
    options: [
      .option("runs", "N", "how many resampled paths (at most 1,000,000: about 100 MB)", default: .value("10000")),
      .option("seed", "N", "the random seed: the same seed gives the same paths, whatever --jobs", default: .value("7")),
      .option("block", "DAYS", "the mean block length of the bootstrap", default: .described("round(days^(1/3))")),
      .option("drawdown", "FRACTION", "the drawdown whose probability is reported, 20% or 0.2", default: .value("20%")),
      .jobs,
      .out("write montecarlo.json into this folder"),
      .set,
    ],
    details: "A portfolio or rotation resamples its daily time-weighted returns (deposits and withdrawals taken out); it has no trades to shuffle. Prints the 5th, 50th and 95th percentiles of final equity, CAGR, Sharpe, max drawdown and longest drawdown, the probability of losing money and of a drawdown worse than --drawdown.",
    examples: ["montecarlo Strategies/gpix.yaml --runs 10000 --seed 7", "montecarlo gpix.yaml --drawdown 15% --out /tmp/mc"])

  init(_ args: ArraySlice<String>, catalog: StrategyCatalog) throws {
    self.catalog = catalog
    let a = try Arguments(args, command: Self.spec, path: "montecarlo")
    file = try RunFileArgument(a, usage: "backtest montecarlo CONFIG --runs 10000 --seed 7")
    // Each path's statistics are kept for the percentiles: the count bounds the memory.
    runs = try a.integer("runs", maximum: 1_000_000)!
    seed = UInt64(try a.integer("seed", minimum: 0)!)
    jobs = try a.integer("jobs") ?? ProcessInfo.processInfo.activeProcessorCount
    block = try a.number("block", expected: "a mean block length >= 1") { $0 >= 1 }
    let d = a.option("drawdown")!
    guard let v = parseDecimal(d.hasSuffix("%") ? String(d.dropLast()) : d).map({ d.hasSuffix("%") ? $0 / 100 : $0 }), v > 0, v < 1 else {
      throw UsageError(message: "expected a drawdown threshold like 20% or 0.2 for '--drawdown', found '\(d)'")
    }
    drawdown = v
    out = a.option("out")
  }

  func run() throws -> Int32 {
    let config = try file.config(catalog: catalog)
    // The daily returns resampled: the account's for one asset; a portfolio's time-weighted ones (deposits are not gains).
    if case .universe(let c) = config { throw InputError(c.universe.oneAtATime("montecarlo resamples one run's returns"), file: file.path) }
    let output = try config.run()
    try output.requireFinite()
    let daily = output.dailyReturns ?? [], trades = output.tradeReturns
    guard daily.count >= 2 else {
      throw InputError("fewer than 3 days of data; expected enough days to resample", file: config.inputFiles.first ?? file.path)
    }
    let initial = config.initialCash
    let blockLength = block ?? MonteCarlo.defaultBlockLength(days: daily.count)
    let boot = MonteCarlo.summarize(MonteCarlo.bootstrap(dailyReturns: daily, initial: initial, runs: runs, seed: seed,
                                                         blockLength: blockLength, workers: jobs), initial: initial, drawdownThreshold: drawdown)
    let shuffle = trades.isEmpty ? nil : MonteCarlo.summarize(MonteCarlo.shuffleTrades(tradeReturns: trades, initial: initial, runs: runs, seed: seed,
                                                                                        workers: jobs), initial: initial, drawdownThreshold: drawdown)
    let f = { (p: MonteCarlo.Percentiles?, money: Bool) -> [String] in
      guard let p else { return ["—", "—", "—"] }
      return [p.p5, p.p50, p.p95].map { money ? HumanFormat.money($0) : HumanFormat.percent($0) }
    }
    print("\(config.name): \(runs) stationary-bootstrap paths of \(daily.count) daily\(config.isPortfolio ? " time-weighted" : "") returns (mean block \(formatPlain(blockLength)) days), seed \(seed)")
    printTable(["", "p5", "p50", "p95"], [
      ["final equity"] + f(boot.finalEquity, true), ["CAGR"] + f(boot.cagr, false),
      ["Sharpe"] + (boot.sharpe.map { [$0.p5, $0.p50, $0.p95].map { String(format: "%.2f", $0) } } ?? ["—", "—", "—"]),
      ["max drawdown"] + f(boot.maxDrawdown, false),
      ["longest drawdown (days)"] + [boot.longestDrawdown.p5, boot.longestDrawdown.p50, boot.longestDrawdown.p95].map { String(Int($0.rounded())) },
    ])
    print("probability of losing money \(HumanFormat.percent(boot.probabilityOfLoss)); of a drawdown worse than \(HumanFormat.percent(drawdown)): \(HumanFormat.percent(boot.probabilityOfDrawdownWorse))")
    if let shuffle {
      print("trade order shuffled \(runs) times (\(trades.count) trades): max drawdown p5 \(HumanFormat.percent(shuffle.maxDrawdown.p5)), p50 \(HumanFormat.percent(shuffle.maxDrawdown.p50)), p95 \(HumanFormat.percent(shuffle.maxDrawdown.p95))")
    }
    if let out {
      let settings: JSONValue = .object([("config", .string(file.path)), ("runs", .integer(runs)), ("seed", .integer(Int(seed))),
                                         ("block_length", .number(blockLength)), ("drawdown_threshold", .number(drawdown)),
                                         ("days", .integer(daily.count)), ("trades", .integer(trades.count)),
                                         ("method", .string("stationary bootstrap of daily \(config.isPortfolio ? "time-weighted " : "")returns"))])
      let json: JSONValue = .object(MonteCarlo.json(boot) + [("trade_shuffle", shuffle.map { .object(MonteCarlo.json($0)) } ?? .null), ("settings", settings)])
      try AtomicWriter.write([ReportFile(name: "montecarlo.json", contents: json.rendered() + "\n")], into: out)
      print("wrote montecarlo.json to \(out)/")
    }
    return ExitCode.ok
  }
}
