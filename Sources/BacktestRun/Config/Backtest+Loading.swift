import BacktestCore
import Foundation

/// The files a run file names, read: bars, macro series, finer bars, dividends.
extension Backtest {
  /// Reads the bar file (or takes its `contents`, already read) and applies
  /// the session filter and resampling.
  ///
  /// - Throws: `InputError` for a missing or bad file, or when no bar is left.
  package static func loadBars(_ data: DataSettings, contents: Data? = nil) throws -> (bars: BarSeries, barsInFile: Int) {
    let bytes = try contents ?? readInputFile(data.bars)
    var reader = BarCSVReader(timeZone: data.timeZone)
    reader.adjusted = data.adjustedPrices
    let raw = try bytes.withUnsafeBytes { try reader.read($0.bindMemory(to: UInt8.self), file: data.bars) }
    var bars = try prepare(raw, data: data)
    bars.unusedColumns = raw.unusedColumns
    return (bars, raw.count)
  }

  /// Reads the run's bars (see `loadBars(_:contents:)`) and checks the
  /// strategy against them (a signals file's times must be bars' times).
  package static func loadBars(for config: RunConfig, contents: Data? = nil) throws -> (bars: BarSeries, barsInFile: Int) {
    let loaded = try loadBars(config.data, contents: contents)
    try config.strategy.check(against: loaded.bars)
    return loaded
  }

  /// Reads and classifies the macro files and finds the stage of every bar.
  ///
  /// - Throws: `InputError` for a missing or bad macro file.
  package static func loadCycle(_ config: RunConfig, bars: BarSeries) throws -> CycleContext? {
    guard let settings = config.cycle else { return nil }
    let (data, rows) = try settings.load()
    return cycle(settings, data: data, rows: rows, bars: bars)
  }

  /// Reads `data.intrabar`, the finer bars that settle ambiguous exits, when configured.
  package static func loadIntrabar(_ data: DataSettings) throws -> IntrabarData? {
    try data.intrabar.map { IntrabarData(bars: try BarCSVReader(timeZone: data.timeZone).read(file: $0)) }
  }

  /// Reads `data.dividends`, when configured.
  package static func loadDividends(_ data: DataSettings) throws -> [Dividend] {
    try data.dividends.map { try DividendReader.read(try readInputFile($0), file: $0, symbol: data.symbol) } ?? []
  }

  /// Loads everything a run file names and runs it.
  package static func run(_ config: RunConfig, explain: FinalQuestion? = nil) throws -> RunOutput {
    execute(config, try load(config), explain: explain)
  }

  /// Runs the configured strategy and the benchmark over inputs read from files.

  /// Reads every file a run file names, and records each in the run manifest.
  ///
  /// The bar file is hashed, and the smaller files (intrabar bars, macro
  /// series, dividends) read and hashed, on another thread while the bars
  /// parse. Errors come in the order the files are used: bars, macro,
  /// intrabar, dividends.
  ///
  /// - Throws: `InputError` for a missing or bad file, or when no bar is left.
  package static func load(_ config: RunConfig) throws -> RunInputs {
    let data = config.data
    let barFile = try readInputFile(data.bars)
    let others = OnOtherThread { () -> (bars: RunManifest.Input, rest: OtherInputs) in
      (RunManifest.Input(role: "bars", file: data.bars, contents: barFile), OtherInputs(config))
    }
    let (bars, barsInFile) = try loadBars(for: config, contents: barFile)
    // Unmapping a large file takes a few ms (2.8 for 57 MB) that the run need not wait for.
    releaseOnOtherThread(consume barFile)
    let (barsInput, o) = others.value
    let context = try o.macro.get().map { Self.cycle(config.cycle!, data: $0.data, rows: $0.rows, bars: bars) }
    let intrabar = try o.intrabar.get(), (dividends, payDates) = try o.dividends.get()
    let manifest = RunManifest(settings: config.settingsHash, inputs: [barsInput] + o.records)
    var notices: [String] = []
    if !bars.unusedColumns.isEmpty {
      let adjustedUnused = !data.adjustedPrices && bars.unusedColumns.contains { BarCSVReader.adjustedNames.contains($0.lowercased()) }
      notices.append("\(data.bars): column\(bars.unusedColumns.count > 1 ? "s" : "") \(bars.unusedColumns.joined(separator: ", ")) not used"
                     + (adjustedUnused ? " (prices are the close, not adjusted for dividends and splits; data.price: adjusted uses the adjusted close)" : ""))
    }
    if !data.adjustedPrices, case let jumps = bars.splitLikeJumps, let jump = jumps.first {
      let count = jumps.count
      notices.append("\(data.bars): the close goes from \(formatPlain(bars.close[jump - 1])) at \(bars.timeLabel(jump - 1)) to "
                     + "\(formatPlain(bars.close[jump])) at \(bars.timeLabel(jump)) overnight, as a split would"
                     + (count > 1 ? " (and \(count - 1) more such jump\(count > 2 ? "s" : ""))" : "")
                     + "; these prices are as traded (data.price: close): a split shows as a loss or gain it was not. "
                     + "Expected split-adjusted bars, or data.price: adjusted with an Adj Close column")
    }
    if let file = data.dividends, !payDates {
      notices.append("\(file): no pay_date column; each dividend is paid on its ex-date")
    }
    return RunInputs(bars: bars, barsInFile: barsInFile, cycle: context, intrabar: intrabar, dividends: dividends, manifest: manifest,
                     notices: notices)
  }

  /// The files besides the bars, each read, hashed and parsed; an error kept until its turn.
  private struct OtherInputs: Sendable {
    var macro: Result<(data: MacroData, rows: [QuarterRow])?, Error>
    var intrabar: Result<IntrabarData?, Error>
    var dividends: Result<(dividends: [Dividend], payDates: Bool), Error>
    var records: [RunManifest.Input] = []

    init(_ config: RunConfig) {
      let data = config.data
      var records: [RunManifest.Input] = []
      func read(_ path: String, _ role: String) throws -> Data {
        let contents = try readInputFile(path)
        records.append(RunManifest.Input(role: role, file: path, contents: contents))
        return contents
      }
      intrabar = Result {
        try data.intrabar.map { path in
          IntrabarData(bars: try read(path, "intrabar").withUnsafeBytes {
            try BarCSVReader(timeZone: data.timeZone).read($0.bindMemory(to: UInt8.self), file: path)
          })
        }
      }
      macro = Result { try config.cycle.map { try $0.load { try read($0, "macro") } } }
      dividends = Result { try data.dividends.map { try DividendReader.readFile(try read($0, "dividends"), file: $0, symbol: data.symbol) } ?? ([], true) }
      self.records = records
    }
  }
}

extension RunManifest {
  /// The hash of a run file's settings: its document, after `--set`
  /// overrides, in `YAMLNode.canonicalText`'s one-line form (layout and
  /// comments aside), without the `report` section (where the reports go and
  /// in which formats does not change them).
  package static func settingsHash(_ root: YAMLNode) -> String {
    var f = Fingerprint()
    if case .mapping(let entries) = root.kind {
      for e in entries where e.key != "report" { f.add(e.key + "=" + e.value.canonicalText) }
    } else {
      f.add(root.canonicalText)
    }
    return f.hex
  }
}

/// The files a portfolio run file names, read: each asset's bars and dividends, the ledger.
extension PortfolioBacktest {
  /// Reads every file the run file names.
  ///
  /// - Throws: `InputError` for a missing or bad file, or an asset left without bars.
  package static func load(_ config: PortfolioRunConfig) throws -> (assets: [PortfolioAsset], ledger: CashFlowLedger?) {
    let (assets, ledger, _) = try loadInputs(config)
    return (assets, ledger)
  }

  /// Reads every file the run file names, and records each in the run manifest.
  ///
  /// - Throws: `InputError` for a missing or bad file, or an asset left without bars.
  package static func loadInputs(_ config: PortfolioRunConfig) throws -> (assets: [PortfolioAsset], ledger: CashFlowLedger?, manifest: RunManifest) {
    var records: [RunManifest.Input] = []
    func read(_ path: String, _ role: String) throws -> Data {
      let contents = try readInputFile(path)
      records.append(RunManifest.Input(role: role, file: path, contents: contents))
      return contents
    }
    var assets: [PortfolioAsset] = []
    for a in config.assets {
      var bars = try read(a.bars, "bars").withUnsafeBytes {
        try BarCSVReader(timeZone: config.timeZone).read($0.bindMemory(to: UInt8.self), file: a.bars)
      }
      if config.startDay != nil || config.endDay != nil {
        let first = config.startDay ?? .min, last = config.endDay ?? .max, all = bars
        bars = all.filtered { Int(all.day[$0]) >= first && Int(all.day[$0]) <= last }
        if bars.isEmpty { throw InputError("no bar lies between data.start and data.end", file: a.bars) }
      }
      let dividends = try a.dividends.map { try DividendReader.read(try read($0, "dividends"), file: $0, symbol: a.symbol) } ?? []
      assets.append(PortfolioAsset(symbol: a.symbol, bars: bars, dividends: dividends, expenseRatio: a.expenseRatio, weight: a.weight))
    }
    let ledger = try config.ledger.map { try LedgerReader.read(try read($0, "ledger"), file: $0) }
    return (assets, ledger, RunManifest(settings: config.settingsHash, inputs: records))
  }

  /// Loads everything the run file names and runs it.
  public static func run(_ config: PortfolioRunConfig) throws -> PortfolioOutput {
    let (assets, ledger, manifest) = try loadInputs(config)
    return execute(config, assets: assets, ledger: ledger, manifest: manifest)
  }
}
