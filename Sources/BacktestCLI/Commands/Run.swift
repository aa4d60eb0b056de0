import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

/// `backtest run CONFIG`: load, run, report.
struct RunCommand {
  var catalog: StrategyCatalog
  /// The run file named on the command line, with the `--set` overrides.
  let file: RunFileArgument
  var out: String?
  var quiet: Bool
  var timing: Bool

  static let spec = CommandSpec(
    "run", summary: "run a strategy file and write its trades, equity, statistics and reports",
    arguments: [.config],
    options: [.out("the folder for the reports", default: "report.out of the run file; with --set, that folder's name + '-set'"), .set, .quiet,
              .flag("timing", "print the time spent reading, loading, running and writing on stderr")],
    details: "A strategy over one asset (bollinger_rsi, sma_cross, buy_and_hold, rules, signals or your own), the same over each symbol of data.universe (each on its own cash: universe.csv, a ranking report and symbols/SYMBOL/), or an allocation strategy over data.assets (portfolio: fixed target weights; rotation; or your own), with dividends (DRIP), deposits and withdrawals. A sweep file runs its base settings.",
    examples: ["run Strategies/gpix.yaml", "run gpix.yaml --set strategy.stop_loss=1.5% --out /tmp/run"])

  init(_ args: ArraySlice<String>, catalog: StrategyCatalog) throws {
    self.catalog = catalog
    let a = try Arguments(args, command: Self.spec, path: "run")
    file = try RunFileArgument(a, usage: "backtest run CONFIG")
    out = a.option("out")
    quiet = a.flag("quiet")
    timing = a.flag("timing")
  }

  func run() throws -> Int32 {
    let clock = ContinuousClock()
    let start = clock.now
    let text = try file.text()
    var settings = try AnyRunConfig.parse(text, file: file.path, overrides: file.overrides, catalog: catalog)
    if let out {
      settings.report.out = out
    } else if !file.overrides.isEmpty,
              let base = try? AnyRunConfig.parse(text, file: file.path, overrides: [], catalog: catalog), base.report.out == settings.report.out {
      // Another run than the file's: its report goes beside the file's, which stays the file's own.
      settings.report.out += "-set"
      if !quiet {
        printError("note: with --set the report goes to \(settings.report.out)/, beside the run file's \(base.report.out)/ (which --set never "
                   + "replaces); --out DIR writes it elsewhere")
      }
    }
    var config: RunConfig
    switch settings {
    case .swing(let swing): config = swing
    case .portfolio(let portfolio): return try runPortfolio(portfolio)
    case .universe(let universe): return try runUniverse(universe)
    }
    let parsed = clock.now
    let inputs = try Backtest.load(config)
    if !quiet { for notice in inputs.notices { printError("note: " + notice) } }
    let bars = inputs.bars
    let loaded = clock.now
    let report = EarlyReport(folder: config.report.out, bars: bars, stages: inputs.cycle?.gate.stages)
    let output = Backtest.execute(config, inputs, indicatorsReady: config.report.formats.contains(.csv) ? report.start : nil)
    try AnyRunOutput.single(output).requireFinite()
    let ran = clock.now
    if config.expenseRatio > 0 { printError("backtest: " + ExpenseRatioNote.notice(charged: formatPercentPlain(config.expenseRatio))) }
    let files = try report.finish(output)
    let written = clock.now
    if !quiet { printSummary(output, files: files) }
    if timing {
      func ms(_ d: Duration) -> String { String(format: "%.1f ms", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000) }
      // indicators.csv is made while the strategy trades: its time falls in the engine's span, sharing the cores.
      let early = report.indicatorsBegunEarly ? " (indicators.csv written meanwhile)" : ""
      printError("timing: config \(ms(parsed - start)), load \(ms(loaded - parsed)) (\(bars.count) bars), "
        + "engine \(ms(ran - loaded))\(early), reports \(ms(written - ran))\(early.isEmpty ? "" : " (the rest)")")
    }
    return ExitCode.ok
  }

  func printSummary(_ output: RunOutput, files: [ReportFile]) {
    let s = output.summary, b = output.benchmarkSummary, bars = output.bars, c = output.config
    print("\(c.name): \(c.strategy.name) on \(c.data.bars)")
    if let d = c.data.description { print("  \(d)") }
    print("  \(HumanFormat.integer(bars.count)) bars, \(bars.timeLabel(0)) → \(bars.timeLabel(bars.count - 1)), "
      + (c.data.adjustedPrices ? "adjusted prices" : "prices as traded"))
    print("  trades \(s.totalTrades) (win rate \(HumanFormat.percent(s.winRate))), total return \(HumanFormat.percent(s.totalReturn)), "
      + "CAGR \(HumanFormat.percent(s.cagr)), max drawdown \(HumanFormat.percent(s.maxDrawdown)), "
      + "Sharpe \(HumanFormat.ratio(s.sharpe)), final equity \(HumanFormat.money(s.finalEquity))")
    if let cycle = output.cycle {
      print("  cycle: \(cycle.settings.filter ? "entries only in \(cycle.settings.buyStages.sorted().map(\.rawValue).joined(separator: ", ")), \(output.run.blockedEntries) buy signal(s) skipped" : "filter off")"
        + ", stage at the last bar: \(cycle.gate.stages[bars.count - 1].rawValue)")
    }
    let r = output.run.result
    if r.fills.expiredOrders > 0 || r.fills.unpricedOrders > 0 || r.carry.borrowFees > 0 {
      print("  orders: \(r.fills.expiredOrders) expired unfilled, \(r.fills.unpricedOrders) not placed (price undefined at the decision)"
        + (r.carry.borrowFees > 0 ? ", borrow fees \(HumanFormat.money(r.carry.borrowFees))" : ""))
    }
    print("  buy & hold: total return \(HumanFormat.percent(b.totalReturn)), max drawdown \(HumanFormat.percent(b.maxDrawdown)), "
      + "Sharpe \(HumanFormat.ratio(b.sharpe))")
    print("wrote \(files.map(\.name).joined(separator: ", ")) to \(c.report.out)/")
  }

  func runPortfolio(_ config: PortfolioRunConfig) throws -> Int32 {
    let clock = ContinuousClock()
    let start = clock.now
    let (assets, ledger, manifest) = try PortfolioBacktest.loadInputs(config)
    let loaded = clock.now
    let output = PortfolioBacktest.execute(config, assets: assets, ledger: ledger, manifest: manifest)
    try AnyRunOutput.portfolio(output).requireFinite()
    let ran = clock.now
    let charged = assets.filter { $0.expenseRatio > 0 }
    if !charged.isEmpty {
      printError("backtest: " + ExpenseRatioNote.notice(charged: charged.map { "\($0.symbol) \(formatPercentPlain($0.expenseRatio))" }.joined(separator: ", ")))
    }
    let files = PortfolioReport.files(output)
    try AtomicWriter.replaceFolder(config.report.out, with: files)
    if timing {
      func ms(_ d: Duration) -> String { String(format: "%.1f ms", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000) }
      printError("timing: load \(ms(loaded - start)) (\(assets.count) assets), engine \(ms(ran - loaded)), reports \(ms(clock.now - ran))")
    }
    guard !quiet else { return ExitCode.ok }
    let s = output.summary, p = s.performance, bars = output.result.timeline
    print("\(config.name): \(config.strategy.decides ? "" : "portfolio of ")\(PortfolioReport.strategyText(output))")
    if let d = config.description { print("  \(d)") }
    print("  \(HumanFormat.integer(bars.count)) bars, \(bars.timeLabel(0)) → \(bars.timeLabel(bars.count - 1))")
    print("  final equity \(HumanFormat.money(s.finalEquity)) from \(HumanFormat.money(s.deposited)) deposited"
      + (s.withdrawn > 0 ? " and \(HumanFormat.money(s.withdrawn)) withdrawn" : "")
      + "; TWR \(HumanFormat.percent(s.twr)), XIRR \(HumanFormat.percent(s.xirr)), max drawdown \(HumanFormat.percent(p.maxDrawdown)), Sharpe \(HumanFormat.ratio(p.sharpe))")
    print("  dividends \(HumanFormat.money(s.dividendIncome)), fees \(HumanFormat.money(s.fees)), \(s.rebalances) rebalance(s), \(s.fills) fill(s)"
      + (config.strategy.decides ? ", turnover \(HumanFormat.percent(s.turnover)) a year" : ""))
    if let last = output.result.decisions.last {
      let held = output.assets.indices.filter { last.weights[$0] > 0 }.sorted { last.ranks[$0] < last.ranks[$1] }
        .map { "\(output.assets[$0].symbol) \(formatPercentPlain(last.weights[$0]))" }
      print("  last ranking at the close of \(bars.timeLabel(last.bar)): "
        + (held.isEmpty ? PortfolioReport.noTargetReason(output, last) : "targets " + held.joined(separator: ", ")))
    }
    if let b = output.withoutRebalancing {
      print("  \(PortfolioReport.comparisonName(output).lowercased()): TWR \(HumanFormat.percent(b.twr)), XIRR \(HumanFormat.percent(b.xirr)), max drawdown \(HumanFormat.percent(b.performance.maxDrawdown))")
    }
    print("wrote \(files.map(\.name).joined(separator: ", ")) to \(config.report.out)/")
    return ExitCode.ok
  }

  /// A strategy over each symbol of a universe: every symbol's own run under `symbols/SYMBOL/`, and the ranking.
  func runUniverse(_ config: RunConfig) throws -> Int32 {
    let clock = ContinuousClock()
    let start = clock.now
    let output = try UniverseBacktest.run(config)
    if !quiet { for notice in output.notices { printError("note: " + notice) } }
    try AnyRunOutput.universe(output).requireFinite()
    let ran = clock.now
    if config.expenseRatio > 0 { printError("backtest: " + ExpenseRatioNote.notice(charged: formatPercentPlain(config.expenseRatio))) }
    let files = UniverseReport.files(output)
    try AtomicWriter.replaceFolder(config.report.out, with: files)
    if timing {
      func ms(_ d: Duration) -> String { String(format: "%.1f ms", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000) }
      printError("timing: load and engine \(ms(ran - start)) (\(output.members.count) symbols), reports \(ms(clock.now - ran))")
    }
    guard !quiet else { return ExitCode.ok }
    print("\(config.name): \(UniverseReport.subtitle(output))")
    if let d = config.data.description { print("  \(d)") }
    let ranked = UniverseReport.ranking(output).prefix(5).map { k in
      "\(output.members[k].symbol) \(HumanFormat.ratio(output.members[k].output.summary.sharpe))"
    }
    print("  best Sharpe: " + ranked.joined(separator: ", ") + (output.members.count > 5 ? ", …" : ""))
    if let total = UniverseReport.across(output, "total_return"), let sharpe = UniverseReport.across(output, "sharpe") {
      print("  across symbols: total return mean \(HumanFormat.percent(total.mean)), median \(HumanFormat.percent(total.median)), "
        + "worst \(HumanFormat.percent(total.worst)); Sharpe median \(HumanFormat.ratio(sharpe.median)), worst \(HumanFormat.ratio(sharpe.worst)); "
        + "beat buy & hold on \(UniverseReport.beatBuyAndHold(output)) of \(output.members.count)")
    }
    let top = Set(files.map { String($0.name.prefix { $0 != "/" }) })
    print("wrote \(files.filter { !$0.name.contains("/") }.map(\.name).joined(separator: ", "))"
      + (top.contains("symbols") ? " and symbols/SYMBOL/ (\(output.members.count) folders)" : "") + " to \(config.report.out)/")
    return ExitCode.ok
  }
}
