import Foundation

/// The files a run file names, read: bars, macro series, finer bars, dividends.
extension Backtest {
  /// Reads the bar file (or takes its `contents`, already read) and applies
  /// the session filter and resampling.
  ///
  /// - Throws: `InputError` for a missing or bad file, or when no bar is left.
  public static func loadBars(_ data: DataSettings, contents: Data? = nil) throws -> (bars: BarSeries, barsInFile: Int) {
    let bytes = try contents ?? readInputFile(data.bars)
    let raw = try bytes.withUnsafeBytes { try BarCSVReader(timeZone: data.timeZone).read($0.bindMemory(to: UInt8.self), file: data.bars) }
    return (try prepare(raw, data: data), raw.count)
  }

  /// Reads the run's bars (see `loadBars(_:contents:)`) and checks the
  /// strategy against them (a signals file's times must be bars' times).
  public static func loadBars(for config: RunConfig, contents: Data? = nil) throws -> (bars: BarSeries, barsInFile: Int) {
    let loaded = try loadBars(config.data, contents: contents)
    try config.strategy.check(against: loaded.bars)
    return loaded
  }

  /// Reads and classifies the macro files and finds the stage of every bar.
  ///
  /// - Throws: `InputError` for a missing or bad macro file.
  public static func loadCycle(_ config: RunConfig, bars: BarSeries) throws -> CycleContext? {
    guard let settings = config.cycle else { return nil }
    let (data, rows) = try settings.load()
    return cycle(settings, data: data, rows: rows, bars: bars)
  }

  /// Reads `data.intrabar`, the finer bars that settle ambiguous exits, when configured.
  public static func loadIntrabar(_ data: DataSettings) throws -> IntrabarData? {
    try data.intrabar.map { IntrabarData(bars: try BarCSVReader(timeZone: data.timeZone).read(file: $0)) }
  }

  /// Reads `data.dividends`, when configured.
  public static func loadDividends(_ data: DataSettings) throws -> [Dividend] {
    try data.dividends.map { try DividendReader.read(try readInputFile($0), file: $0, symbol: data.symbol) } ?? []
  }

  /// Loads everything a run file names and runs it.
  public static func run(_ config: RunConfig, explain: FinalQuestion? = nil) throws -> RunOutput {
    let (bars, count) = try loadBars(for: config)
    return execute(config, bars: bars, barsInFile: count, cycle: try loadCycle(config, bars: bars), intrabar: try loadIntrabar(config.data),
                   dividends: try loadDividends(config.data), explain: explain)
  }
}

/// The files a portfolio run file names, read: each asset's bars and dividends, the ledger.
extension PortfolioBacktest {
  /// Reads every file the run file names.
  ///
  /// - Throws: `InputError` for a missing or bad file, or an asset left without bars.
  public static func load(_ config: PortfolioRunConfig) throws -> (assets: [PortfolioAsset], ledger: CashFlowLedger?) {
    var assets: [PortfolioAsset] = []
    for a in config.assets {
      var bars = try BarCSVReader(timeZone: config.timeZone).read(file: a.bars)
      if config.startDay != nil || config.endDay != nil {
        let first = config.startDay ?? .min, last = config.endDay ?? .max, all = bars
        bars = all.filtered { Int(all.day[$0]) >= first && Int(all.day[$0]) <= last }
        if bars.isEmpty { throw InputError("no bar lies between data.start and data.end", file: a.bars) }
      }
      let dividends = try a.dividends.map { try DividendReader.read(try readInputFile($0), file: $0, symbol: a.symbol) } ?? []
      assets.append(PortfolioAsset(symbol: a.symbol, bars: bars, dividends: dividends, expenseRatio: a.expenseRatio, weight: a.weight))
    }
    let ledger = try config.ledger.map { try LedgerReader.read(try readInputFile($0), file: $0) }
    return (assets, ledger)
  }

  /// Loads everything the run file names and runs it.
  public static func run(_ config: PortfolioRunConfig) throws -> PortfolioOutput {
    let (assets, ledger) = try load(config)
    return execute(config, assets: assets, ledger: ledger)
  }
}
