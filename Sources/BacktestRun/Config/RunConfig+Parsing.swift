import BacktestCore
import Foundation

extension RunConfig {
  /// Refuses risk sizing with a strategy whose stop is off (the size divides by the stop's distance: it would buy
  /// nothing); a conflict, which a sweep skips.
  static func checkSizing(_ sizing: Sizing, _ strategy: ConfiguredStrategy, at location: SourceLocation) throws {
    guard case .risk = sizing, strategy.parameterSummary.first(where: { $0.name == "stop_loss" })?.value == "none" else { return }
    var error = InputError("'portfolio.sizing: {risk}' sizes by the distance to the stop, and \(strategy.name)'s stop_loss is none; "
                           + "expected strategy.stop_loss (2% or 0.02), or another sizing", at: location)
    error.isConflict = true
    throw error
  }

  /// Reads a run file's text, applying `--set key.path=value` overrides first.
  ///
  /// - Throws: `InputError` naming the file, line and column of the first
  ///   problem: a YAML error, an unknown key (with a suggestion), a wrong type
  ///   or an out-of-range value.
  package static func parse(_ text: String, file: String, overrides: [String] = [],
                           catalog: StrategyCatalog = BuiltInStrategies.catalog) throws -> RunConfig {
    var root = try YAMLReader.parse(text, file: file)
    for (k, override) in overrides.enumerated() {
      root = try applyOverride(override, index: k, to: root, catalog: catalog)
    }
    return try parse(document: root, file: file, catalog: catalog)
  }

  /// Reads an already parsed run-file document; `strategy.type` names a strategy of `catalog`.
  package static func parse(document root: YAMLNode, file: String,
                           catalog: StrategyCatalog = BuiltInStrategies.catalog) throws -> RunConfig {
    let table = try ConfigTable(root, path: "")
    if PortfolioRunConfig.isPortfolio(root, catalog: catalog) {
      _ = try catalog.configure(try table.table("strategy"))  // throws: a strategy over several assets needs data.assets
    }
    table.allow("sweep")  // a sweep file is also a run file: `backtest run` uses its base settings
    let directory = (file as NSString).deletingLastPathComponent

    let name = try table.string("name", default: ((file as NSString).lastPathComponent as NSString).deletingPathExtension)!
    let dataTable = try table.table("data")
    let universe = try universe(in: dataTable)
    guard let barsPath = try dataTable.path("bars") ?? universe.first?.bars else {
      throw InputError("missing 'data.bars'; expected the path of a bar CSV file (or data.universe: the bar files of several symbols)",
                       at: dataTable.location)
    }
    let zone = try dataTable.timeZone("timezone", default: "UTC")
    let sessionText = try dataTable.string("session", default: "all")!
    guard let session = SessionWindow(sessionText) else {
      throw InputError("expected regular, all or a window like \"09:30-16:00\" for 'data.session', found '\(sessionText)'",
                       at: dataTable.node("session")!.location)
    }
    var resample: ResampleInterval?
    if let text = try dataTable.string("resample") {
      guard let r = ResampleInterval(text) else {
        throw InputError("expected an interval like 30min, 1h or 1d that divides a day for 'data.resample', found '\(text)'",
                         at: dataTable.node("resample")!.location)
      }
      resample = r
    }
    // Bars given on the command line are not the ones the run file's description describes.
    let description = dataTable.node("bars")?.location.isCommandLine == true && dataTable.node("description")?.location.isCommandLine != true
      ? nil : try dataTable.string("description")
    let startDay = try dataTable.date("start"), endDay = try dataTable.date("end")
    var holidays: Set<Int> = []
    for text in try dataTable.stringList("holidays", default: []) {
      guard let d = parseDate(text) else {
        throw InputError("expected dates YYYY-MM-DD in 'data.holidays', found '\(text)'", at: dataTable.node("holidays")!.location)
      }
      holidays.insert(d)
    }
    let intrabar = try dataTable.path("intrabar")
    let dividends = try dataTable.path("dividends")
    let symbol = try dataTable.string("symbol")
    let price = try dataTable.choice("price", ["close", "adjusted"], default: "close")!
    try dataTable.finish()
    var data = DataSettings(bars: barsPath, timeZone: zone, session: session,
                            resample: resample, description: description, startDay: startDay, endDay: endDay)
    data.holidays = holidays
    data.intrabar = intrabar
    data.dividends = dividends
    data.symbol = symbol
    data.adjustedPrices = price == "adjusted"

    let strategyTable = try table.table("strategy")
    strategyTable.dataTimeZone = zone
    let strategy = try catalog.configure(strategyTable)

    let portfolioTable = try table.table("portfolio")
    let broker = try readBroker(portfolioTable)
    try checkSizing(broker.sizing, strategy, at: portfolioTable.node("sizing")?.location ?? portfolioTable.location)
    let expenseRatio = try readExpenseRatio(portfolioTable)
    for key in PortfolioRunConfig.portfolioStrategyKeys where portfolioTable.contains(key) {
      throw InputError("'portfolio.\(key)' applies to the portfolio strategy (strategy.type: portfolio), not to \(strategy.name)",
                       at: portfolioTable.entries.first { $0.key == key }!.keyLocation)
    }
    try portfolioTable.finish()
    let cycle = try CycleRunSettings.read(table, directory: directory)
    var alerts: [PriceAlert] = []
    if let node = table.node("alerts") {
      guard case .sequence(let items) = node.kind else {
        throw InputError("expected a list like [{above: 27.5}, {below: 25}] for 'alerts', found \(node.typeDescription)", at: node.location)
      }
      for item in items {
        let a = try ConfigTable(item, path: "alerts")
        let above = try a.double("above", where: { $0 > 0 }, expected: "a price > 0")
        let below = try a.double("below", where: { $0 > 0 }, expected: "a price > 0")
        try a.finish()
        switch (above, below) {
        case (let x?, nil): alerts.append(PriceAlert(direction: .above, level: x))
        case (nil, let x?): alerts.append(PriceAlert(direction: .below, level: x))
        default: throw InputError("expected {above: PRICE} or {below: PRICE} in 'alerts'", at: item.location)
        }
      }
    }
    let journal = try table.path("journal")

    let report = try readReport(try table.table("report"), name: name, directory: directory)
    try table.finish()
    var config = RunConfig(name: name, configFile: file, data: data, strategy: strategy, broker: broker,
                           report: report, cycle: cycle, alerts: alerts, journal: journal)
    config.expenseRatio = expenseRatio
    config.universe = universe
    config.settingsHash = RunManifest.settingsHash(root)
    return config
  }

  /// Reads the `report:` section (default folder `../Reports/NAME`, every format).
  static func readReport(_ reportTable: ConfigTable, name: String, directory: String) throws -> ReportSettings {
    let out = try reportTable.path("out") ?? resolvePath("../Reports/\(name)", relativeTo: directory)
    let formatNames = try reportTable.stringList("formats", default: ReportFormat.allCases.map(\.rawValue))
    var formats: [ReportFormat] = []
    for f in formatNames {
      guard let format = ReportFormat(rawValue: f) else {
        let names = ReportFormat.allCases.map(\.rawValue)
        let hint = closestMatch(to: f, in: names).map { "; did you mean '\($0)'?" } ?? ""
        throw InputError("unknown report format '\(f)'\(hint); expected some of \(names.joined(separator: ", "))",
                         at: reportTable.node("formats")!.location)
      }
      if !formats.contains(format) { formats.append(format) }
    }
    try reportTable.finish()
    return ReportSettings(out: out, formats: formats)
  }

  static func readExpenseRatio(_ table: ConfigTable) throws -> Double {
    try table.fraction("expense_ratio", default: 0, expected: "an annual fraction from 0 up to but not including 1 (0.35% or 0.0035)",
                       bareAtMost: ConfigTable.bareRateLimit, where: { $0 >= 0 && $0 < 1 }) ?? 0
  }

  /// Reads the broker keys of the `portfolio:` section; the caller reads the rest and calls `finish()`.
  static func readBroker(_ table: ConfigTable) throws -> BrokerSettings {
    var broker = BrokerSettings()
    broker.initialCash = try table.double("initial_cash", default: broker.initialCash, where: { $0 > 0 },
                                          expected: "an amount > 0")!
    broker.slippageBasisPoints = try table.double("slippage_bps", default: 0, where: { $0 >= 0 && $0 < 10_000 },
                                                  expected: "basis points from 0 up to but not including 10000")!
    broker.intrabarRule = IntrabarRule(rawValue: try table.choice("intrabar_rule", ["conservative", "optimistic"], default: "conservative")!)!
    broker.borrowRate = try table.fraction("borrow_rate", default: 0, expected: "a yearly rate from 0 up to but not including 1 (3% or 0.03)",
                                           where: { $0 >= 0 && $0 < 1 }) ?? 0
    if let node = table.node("sizing") {
      switch node.kind {
      case .scalar(let text, _) where text == "all_in":
        broker.sizing = .allIn
      case .mapping:
        let sizing = try ConfigTable(node, path: "portfolio.sizing")
        let shares = try sizing.double("fixed_shares", where: { $0 >= 1 && $0 == $0.rounded() }, expected: "a whole number >= 1")
        let fraction = try sizing.fraction("fraction", default: nil, expected: "a fraction in (0, 1]",
                                           where: { $0 > 0 && $0 <= 1 })
        let risk = try sizing.fraction("risk", default: nil, expected: "a fraction of the equity in (0, 1]",
                                       where: { $0 > 0 && $0 <= 1 })
        let target = try sizing.fraction("volatility_target", default: nil, expected: "an annualized volatility above 0, at most 10 (1000%)",
                                         where: { $0 > 0 && $0 <= 10 })
        let lookback = try sizing.int("lookback", default: nil, in: 2...10_000)
        let cash = try sizing.double("fixed_cash", where: { $0 > 0 }, expected: "an amount > 0")
        try sizing.finish()
        if lookback != nil && target == nil {
          throw InputError("'portfolio.sizing.lookback' goes with volatility_target; expected {volatility_target: 15%, lookback: 20}",
                           at: sizing.node("lookback")!.location)
        }
        switch (shares, fraction, risk, target, cash) {
        case (let s?, nil, nil, nil, nil): broker.sizing = .fixedShares(s)
        case (nil, let f?, nil, nil, nil): broker.sizing = .fraction(f)
        case (nil, nil, let r?, nil, nil): broker.sizing = .risk(r)
        case (nil, nil, nil, let v?, nil): broker.sizing = .volatilityTarget(v, lookback: lookback ?? 20)
        case (nil, nil, nil, nil, let c?): broker.sizing = .fixedCash(c)
        default:
          throw InputError("expected exactly one of fixed_shares, fraction, risk, volatility_target or fixed_cash in 'portfolio.sizing'",
                           at: node.location)
        }
      default:
        throw InputError("expected all_in or {fixed_shares: N}, {fraction: 50%}, {risk: 1%}, {volatility_target: 15%, lookback: 20} "
                         + "or {fixed_cash: 10000} for 'portfolio.sizing', found \(node.typeDescription)", at: node.location)
      }
    }
    if let node = table.node("commission") {
      switch node.kind {
      case .scalar(let text, _) where Double(text) == 0:
        broker.commission = .none
      case .mapping:
        let c = try ConfigTable(node, path: "portfolio.commission")
        let perTrade = try c.double("per_trade", where: { $0 >= 0 }, expected: "an amount >= 0")
        let perShare = try c.double("per_share", where: { $0 >= 0 }, expected: "an amount >= 0")
        let percent = try c.fraction("percent", default: nil, expected: "a fraction from 0 up to but not including 1",
                                     where: { $0 >= 0 && $0 < 1 })
        try c.finish()
        switch (perTrade, perShare, percent) {
        case (let a?, nil, nil): broker.commission = .perTrade(a)
        case (nil, let a?, nil): broker.commission = .perShare(a)
        case (nil, nil, let a?): broker.commission = .percent(a)
        default:
          throw InputError("expected exactly one of per_trade, per_share or percent in 'portfolio.commission'",
                           at: node.location)
        }
      default:
        throw InputError(
          "expected 0, {per_trade: 1.0}, {per_share: 0.005} or {percent: 0.1%} for 'portfolio.commission', found \(node.typeDescription)",
          at: node.location)
      }
    }
    return broker
  }

  /// Applies one `key.path=value` override to the document.
  ///
  /// A key that is no section of a run file is read as a strategy
  /// parameter's short name, as sweep files read it (`oversold` is
  /// `strategy.rsi.oversold` for `bollinger_rsi`, `n` is `strategy.params.n`
  /// for a rule with that param).
  package static func applyOverride(_ text: String, index: Int, to root: YAMLNode,
                                   catalog: StrategyCatalog = BuiltInStrategies.catalog) throws -> YAMLNode {
    var override = try ConfigOverride(text)
    if !sections.contains(override.keys[0]) {
      let name = override.keys.joined(separator: ".")
      // A rotation's keys and params have short names, as a strategy's parameters do; fixed weights have none.
      let parameters = (try? SweepRunner.strategyParameters(root, catalog: catalog)) ?? []
      guard let path = SweepSettings.keyPath(of: name, strategy: parameters) else {
        let names = parameters.map { $0.alias ?? $0.path }
        let hint = closestMatch(to: name, in: names + sections.sorted()).map { "; did you mean '\($0)'?" } ?? ""
        throw InputError("unknown key '\(excerpt(name))'\(hint); expected a key path such as strategy.stop_loss"
                         + (names.isEmpty ? "" : " or a parameter of the strategy: \(names.joined(separator: ", "))"),
                         at: override.keyLocation)
      }
      override.keys = path.split(separator: ".").map(String.init)
    }
    return try override.apply(to: root)
  }

  /// The top-level keys of run, sweep and portfolio run files.
  static let sections: Set<String> = ["name", "data", "strategy", "portfolio", "cycle", "alerts", "journal", "report", "sweep"]
}

/// One `key.path=value` override, read once and applied to any number of documents.
package struct ConfigOverride: Sendable {
  var keys: [String]
  let value: YAMLNode
  let keyLocation: SourceLocation

  /// Reads `text`.
  ///
  /// - Throws: `InputError` without a `=`, with an empty key, or with a value that is not inline YAML.
  package init(_ text: String) throws {
    // The place its errors name: the override itself, cut short (a 100 kB value is not printed whole).
    let file = "--set \(printable(text, limit: 100))"
    guard let eq = text.firstIndex(of: "=") else {
      throw InputError("expected --set key.path=value, found '\(text)'",
                       at: SourceLocation(file: file, line: 1, column: 1))
    }
    keys = text[..<eq].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    if keys.contains(where: { $0.isEmpty }) {
      throw InputError("expected a dotted key path like strategy.stop_loss before '='",
                       at: SourceLocation(file: file, line: 1, column: 1))
    }
    let valueColumn = text.distance(from: text.startIndex, to: eq) + 2
    value = try YAMLReader.parseInline(String(text[text.index(after: eq)...]), file: file, line: 1, column: valueColumn,
                                       sourceLine: text)
    keyLocation = SourceLocation(file: file, line: 1, column: 1)
  }

  /// `root` with the value set at the key path (mappings made on the way as needed).
  ///
  /// - Throws: `InputError` when a key on the path is inside something other than a mapping.
  package func apply(to root: YAMLNode) throws -> YAMLNode {
    func set(_ node: YAMLNode, _ path: ArraySlice<String>) throws -> YAMLNode {
      guard let key = path.first else { return value }
      var entries: [YAMLEntry]
      switch node.kind {
      case .mapping(let e): entries = e
      case .null: entries = []
      default:
        throw InputError("cannot set '\(keys.joined(separator: "."))': '\(key)' is inside \(node.typeDescription), not a mapping",
                         at: keyLocation)
      }
      if let k = entries.firstIndex(where: { $0.key == key }) {
        entries[k].value = try set(entries[k].value, path.dropFirst())
        entries[k].keyLocation = keyLocation
      } else {
        entries.append(YAMLEntry(key: key, keyLocation: keyLocation,
                                 value: try set(YAMLNode(.null, at: keyLocation), path.dropFirst())))
      }
      return YAMLNode(.mapping(entries), at: node.location)
    }
    return try set(root, keys[...])
  }
}
