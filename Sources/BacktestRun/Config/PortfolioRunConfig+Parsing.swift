import BacktestCore
import Foundation

extension PortfolioRunConfig {
  /// `portfolio:` keys that only this strategy reads.
  package static let portfolioStrategyKeys = ["drip", "fractional_shares", "contributions", "ledger"]

  /// Whether a parsed run file names a strategy over several assets (`portfolio`, `rotation` or another allocation
  /// strategy of `catalog`).
  package static func isPortfolio(_ root: YAMLNode, catalog: StrategyCatalog = BuiltInStrategies.catalog) -> Bool {
    strategyType(root).map { catalog.allocation(named: $0) != nil } ?? false
  }

  /// The `strategy.type` a parsed run file writes, if it writes one as text.
  static func strategyType(_ root: YAMLNode) -> String? {
    guard case .mapping(let entries) = root.kind, let strategy = entries.first(where: { $0.key == "strategy" })?.value,
          case .mapping(let keys) = strategy.kind, let type = keys.first(where: { $0.key == "type" })?.value,
          case .scalar(let name, _) = type.kind else { return nil }
    return name
  }

  /// Reads an already parsed run file.
  ///
  /// - Throws: `InputError` with the file, line and column of the first problem.
  package static func parse(document root: YAMLNode, file: String, catalog: StrategyCatalog = BuiltInStrategies.catalog) throws -> PortfolioRunConfig {
    let table = try ConfigTable(root, path: "")
    table.allow("sweep")  // a sweep file is also a run file: `backtest run` uses its base settings
    let directory = (file as NSString).deletingLastPathComponent
    let name = try table.string("name", default: ((file as NSString).lastPathComponent as NSString).deletingPathExtension)!

    let data = try table.table("data")
    let zone = try data.timeZone("timezone", default: "UTC")
    let startDay = try data.date("start"), endDay = try data.date("end")
    let description = try data.string("description")

    let portfolio = try table.table("portfolio")
    let defaultExpense = try RunConfig.readExpenseRatio(portfolio)
    var assets: [AssetSettings] = []
    if let list = data.node("assets") {
      guard case .sequence(let items) = list.kind, !items.isEmpty else {
        throw InputError("expected a list of assets like [{symbol: VTI, bars: VTI.csv}] for 'data.assets', found \(list.typeDescription)",
                         at: list.location)
      }
      for item in items {
        let a = try ConfigTable(item, path: "data.assets")
        guard let symbol = try a.string("symbol"), let bars = try a.string("bars") else {
          throw InputError("expected each asset to give 'symbol' and 'bars'", at: item.location)
        }
        if assets.contains(where: { $0.symbol == symbol }) {
          throw InputError("asset '\(symbol)' is listed twice", at: a.node("symbol")!.location)
        }
        let expense = try a.fraction("expense_ratio", default: defaultExpense, expected: "an annual fraction from 0 up to but not including 1",
                                     bareAtMost: ConfigTable.bareRateLimit, where: { $0 >= 0 && $0 < 1 }) ?? 0
        assets.append(AssetSettings(symbol: symbol, bars: resolvePath(bars, relativeTo: a.node("bars")!.location.pathBase),
                                    dividends: try a.path("dividends"),
                                    expenseRatio: expense, weight: 0))
        try a.finish()
      }
      if let key = ["bars", "dividends", "symbol"].first(where: data.contains) {
        throw InputError("give either data.assets or data.\(key), not both", at: data.entries.first { $0.key == key }!.keyLocation)
      }
    } else {
      guard let bars = try data.string("bars") else {
        throw InputError("missing 'data.assets' (or 'data.bars' for one asset); expected the bar files of the portfolio", at: data.location)
      }
      let path = resolvePath(bars, relativeTo: data.node("bars")!.location.pathBase)
      let symbol = try data.string("symbol") ?? ((path as NSString).lastPathComponent as NSString).deletingPathExtension
      assets.append(AssetSettings(symbol: symbol, bars: path,
                                  dividends: try data.path("dividends"),
                                  expenseRatio: defaultExpense, weight: 0))
    }
    try data.finish()

    let strategyTable = try table.table("strategy")
    strategyTable.dataTimeZone = zone
    let strategy = try catalog.configureAllocation(strategyTable, symbols: assets.map(\.symbol))
    if let fixed = strategy.parameters as? FixedWeights.Parameters {
      for a in assets.indices { assets[a].weight = fixed.weights[a] }
    }
    var settings = PortfolioSettings()
    settings.rebalance = (strategy.parameters as? FixedWeights.Parameters)?.rebalance ?? .never

    for key in ["sizing", "intrabar_rule"] where portfolio.contains(key) {
      throw InputError("'portfolio.\(key)' applies to swing strategies; \(strategy.name == FixedWeights.name ? "the portfolio strategy sizes by strategy.weights" : strategy.name == Rotation.name ? "a rotation sizes by strategy.top and weighting" : "\(strategy.name) sizes by the weights it sets")",
                       at: portfolio.entries.first { $0.key == key }!.keyLocation)
    }
    let broker = try RunConfig.readBroker(portfolio)
    settings.initialCash = broker.initialCash
    settings.commission = broker.commission
    settings.slippageBasisPoints = broker.slippageBasisPoints
    settings.drip = try portfolio.choice("drip", ["true", "false"], default: "false") == "true"
    settings.fractionalShares = try portfolio.choice("fractional_shares", ["true", "false"], default: "false") == "true"
    let ledger = try portfolio.path("ledger")
    var contributions: ContributionPlan = ledger == nil ? .none : .ledger
    if let node = portfolio.node("contributions") {
      switch node.kind {
      case .scalar("ledger", _):
        guard ledger != nil else {
          throw InputError("'contributions: ledger' needs 'portfolio.ledger', the path of a date,amount,category,note file", at: node.location)
        }
        contributions = .ledger
      case .scalar("none", _):
        contributions = .none
      case .mapping:
        let c = try ConfigTable(node, path: "portfolio.contributions")
        guard let amount = try c.double("monthly", where: { $0 != 0 }, expected: "an amount per month (negative to withdraw)") else {
          throw InputError("expected {monthly: 500} (and optionally day: 1-31) for 'portfolio.contributions'", at: node.location)
        }
        let day = try c.int("day", default: 1, in: 1...31)!
        try c.finish()
        contributions = .monthly(amount: amount, day: day)
      default:
        throw InputError("expected ledger, none or {monthly: 500, day: 1} for 'portfolio.contributions', found \(node.typeDescription)",
                         at: node.location)
      }
    }
    try portfolio.finish()

    let report = try RunConfig.readReport(try table.table("report"), name: name, directory: directory)
    try table.finish()
    var config = PortfolioRunConfig(name: name, configFile: file, description: description, timeZone: zone, startDay: startDay,
                                    endDay: endDay, assets: assets, settings: settings, contributions: contributions, ledger: ledger,
                                    report: report, strategy: strategy)
    config.settingsHash = RunManifest.settingsHash(root)
    return config
  }
}

/// A run file of either kind.
extension AnyRunConfig {
  /// Reads a run file's text, applying `--set key.path=value` overrides first.
  public static func parse(_ text: String, file: String, overrides: [String] = [],
                          catalog: StrategyCatalog = BuiltInStrategies.catalog) throws -> AnyRunConfig {
    var root = try YAMLReader.parse(text, file: file)
    for (k, override) in overrides.enumerated() {
      root = try RunConfig.applyOverride(override, index: k, to: root, catalog: catalog)
    }
    return try parse(document: root, file: file, catalog: catalog)
  }

  /// Reads an already parsed run file of either kind.
  package static func parse(document root: YAMLNode, file: String, catalog: StrategyCatalog = BuiltInStrategies.catalog) throws -> AnyRunConfig {
    if PortfolioRunConfig.isPortfolio(root, catalog: catalog) {
      return .portfolio(try PortfolioRunConfig.parse(document: root, file: file, catalog: catalog))
    }
    let config = try RunConfig.parse(document: root, file: file, catalog: catalog)
    return config.universe.isEmpty ? .swing(config) : .universe(config)
  }
}
