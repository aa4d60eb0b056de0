import Foundation

/// Where the bars come from and how to read them (`data:` section).
package struct DataSettings: Sendable {
  /// The bar file, resolved against the run file's folder.
  package var bars: String
  /// Wall-clock timestamps without an offset are read in this zone; sessions are in it too.
  package var timeZone: TimeZone
  package var session: SessionWindow
  package var resample: ResampleInterval?
  /// Free text shown in reports (for example "synthetic data").
  package var description: String?
  /// Keep bars whose date is on or after / on or before these days (days since 1970), when set.
  package var startDay: Int?
  package var endDay: Int?
  /// Market holidays (days since 1970, local): no bar closes on them (for the live signal's clock).
  package var holidays: Set<Int> = []
  /// Finer bars (e.g. 1-minute) that settle ambiguous intrabar exits (`data.intrabar`).
  package var intrabar: String?
  /// Dividend events (`ex_date,pay_date,amount`) of the traded asset (`data.dividends`).
  package var dividends: String?
  /// The asset's symbol, to pick its rows from a dividend file with a `symbol` column (`data.symbol`).
  package var symbol: String?
  /// Prices from the adjusted close (`data.price: adjusted`, Yahoo's `Adj Close`) instead of the close.
  package var adjustedPrices = false

  /// The data settings of bars given as values: `bars` names them in reports.
  package init(bars: String, timeZone: TimeZone = TimeZone(identifier: "UTC")!, session: SessionWindow = .all,
              resample: ResampleInterval? = nil, description: String? = nil, startDay: Int? = nil, endDay: Int? = nil) {
    self.bars = bars
    self.timeZone = timeZone
    self.session = session
    self.resample = resample
    self.description = description
    self.startDay = startDay
    self.endDay = endDay
  }
}

/// The report formats a run can write.
package enum ReportFormat: String, Sendable, CaseIterable {
  case csv, json, markdown, html
}

/// Where reports go and in which formats (`report:` section).
package struct ReportSettings: Sendable {
  package var out: String
  package var formats: [ReportFormat]

  package init(out: String, formats: [ReportFormat]) {
    self.out = out
    self.formats = formats
  }
}

/// A run file (`Strategies/gpix.yaml`) read and checked.
public struct RunConfig: Sendable {
  package var name: String
  package var configFile: String
  package var data: DataSettings
  package var strategy: ConfiguredStrategy
  package var broker: BrokerSettings
  package var report: ReportSettings
  /// The economic-cycle section, when the run file has one.
  package var cycle: CycleRunSettings?
  /// Price alerts for the live signal (`alerts: [{above: 27.5}, {below: 25}]`).
  package var alerts: [PriceAlert] = []
  /// The trade journal file (`journal:`), resolved against the run file's folder.
  package var journal: String?
  /// Annual expense ratio accrued daily on the position (`portfolio.expense_ratio`).
  package var expenseRatio = 0.0
  /// The hash of the run file's settings, for the run manifest; `nil` for settings made as a value.
  package var settingsHash: String?
  /// With `data.universe`: the symbols the strategy runs over, each on its own cash (`member(_:)`); empty for one
  /// asset, `data.bars`.
  package var universe: [UniverseMember] = []

  /// A run configuration as a value (an app needs no run file): every part given.
  package init(name: String, configFile: String = "", data: DataSettings, strategy: ConfiguredStrategy,
              broker: BrokerSettings = BrokerSettings(), report: ReportSettings = ReportSettings(out: "", formats: ReportFormat.allCases),
              cycle: CycleRunSettings? = nil, alerts: [PriceAlert] = [], journal: String? = nil, expenseRatio: Double = 0) {
    self.name = name
    self.configFile = configFile
    self.data = data
    self.strategy = strategy
    self.broker = broker
    self.report = report
    self.cycle = cycle
    self.alerts = alerts
    self.journal = journal
    self.expenseRatio = expenseRatio
  }
}

/// The `cycle:` section of a run file: where the macro data is, the
/// classifier's parameters (spec §9), and what the filter does.
package struct CycleRunSettings: Sendable {
  /// Macro CSV files, resolved against the run file's folder (FRED downloads come one per series).
  package var macroFiles: [String]
  package var classifier: CycleSettings
  /// Whether the filter acts on entries and exits (stages are reported either way).
  package var filter: Bool
  package var buyStages: Set<CycleStage>
  /// Stages in which an open position is sold at the next open (reason `CYCLE_EXIT`); none is a buy stage.
  package var exitStages: Set<CycleStage>

  package init(macroFiles: [String] = [], classifier: CycleSettings = CycleSettings(), filter: Bool = true,
              buyStages: Set<CycleStage> = [.expansion], exitStages: Set<CycleStage> = []) {
    self.macroFiles = macroFiles
    self.classifier = classifier
    self.filter = filter
    self.buyStages = buyStages
    self.exitStages = exitStages
  }
}

/// One symbol of a universe (`data.universe`), paths resolved.
package struct UniverseMember: Sendable, Equatable {
  package var symbol: String
  package var bars: String
  /// Its own dividend file; without one, the run file's `data.dividends` (its rows for this symbol) if any.
  package var dividends: String?

  package init(symbol: String, bars: String, dividends: String? = nil) {
    self.symbol = symbol
    self.bars = bars
    self.dividends = dividends
  }
}

/// One asset of a portfolio run file (`data.assets`), paths resolved.
package struct AssetSettings: Sendable, Equatable {
  package var symbol: String
  package var bars: String
  package var dividends: String?
  package var expenseRatio: Double
  package var weight: Double

  package init(symbol: String, bars: String, dividends: String? = nil, expenseRatio: Double = 0, weight: Double) {
    self.symbol = symbol
    self.bars = bars
    self.dividends = dividends
    self.expenseRatio = expenseRatio
    self.weight = weight
  }
}

/// Money added to or taken from the account after the initial cash (`portfolio.contributions`).
package enum ContributionPlan: Sendable, Equatable {
  case none
  /// Each month's net of the ledger, invested at the first bar of the next month.
  case ledger
  /// A fixed deposit on this day of every month after the first (DCA).
  case monthly(amount: Double, day: Int)
}

/// A run file whose strategy is `portfolio`: target weights over several
/// assets, with dividends, costs and cash flows.
public struct PortfolioRunConfig: Sendable {
  package var name: String
  package var configFile: String
  package var description: String?
  package var timeZone: TimeZone
  package var startDay: Int?
  package var endDay: Int?
  package var assets: [AssetSettings]
  package var settings: PortfolioSettings
  package var contributions: ContributionPlan
  /// The income/expense ledger (`portfolio.ledger`), resolved.
  package var ledger: String?
  package var report: ReportSettings
  /// The hash of the run file's settings, for the run manifest; `nil` for settings made as a value.
  package var settingsHash: String?
  /// The allocation strategy: fixed weights (`portfolio`), a `rotation`, or your own.
  package var strategy: ConfiguredAllocation

  /// A portfolio run as a value; without `strategy`, fixed weights (each asset's `weight`, traded back to by
  /// `settings.rebalance`).
  package init(name: String, configFile: String = "", description: String? = nil, timeZone: TimeZone = TimeZone(identifier: "UTC")!,
              startDay: Int? = nil, endDay: Int? = nil, assets: [AssetSettings], settings: PortfolioSettings,
              contributions: ContributionPlan = .none, ledger: String? = nil,
              report: ReportSettings = ReportSettings(out: "", formats: ReportFormat.allCases), strategy: ConfiguredAllocation? = nil) {
    self.name = name
    self.configFile = configFile
    self.description = description
    self.timeZone = timeZone
    self.startDay = startDay
    self.endDay = endDay
    self.assets = assets
    self.settings = settings
    self.contributions = contributions
    self.ledger = ledger
    self.report = report
    self.strategy = strategy ?? .fixedWeights(.init(symbols: assets.map(\.symbol), weights: assets.map(\.weight), rebalance: settings.rebalance))
  }
}

extension PortfolioRunConfig {
  /// The rotation's rule and score, when the strategy is a `rotation`.
  package var rotation: Rotation.Parameters? { strategy.parameters as? Rotation.Parameters }
}

/// A run file of any kind: a strategy over one asset, the same strategy over each symbol of a universe, or an
/// allocation strategy over several assets (a portfolio). Every command takes one.
public enum AnyRunConfig: Sendable {
  /// A single-asset strategy over one asset's bars.
  case swing(RunConfig)
  /// A single-asset strategy over each symbol of `data.universe` (`RunConfig.universe`), each on its own cash.
  case universe(RunConfig)
  /// An allocation strategy over several assets sharing one account.
  case portfolio(PortfolioRunConfig)

  /// The run's name (`name:`, else the file's).
  public var name: String {
    switch self {
    case .swing(let c), .universe(let c): c.name
    case .portfolio(let c): c.name
    }
  }

  /// Where the reports go and in which formats.
  package var report: ReportSettings {
    get {
      switch self {
      case .swing(let c), .universe(let c): c.report
      case .portfolio(let c): c.report
      }
    }
    set {
      switch self {
      case .swing(var c): c.report = newValue; self = .swing(c)
      case .universe(var c): c.report = newValue; self = .universe(c)
      case .portfolio(var c): c.report = newValue; self = .portfolio(c)
      }
    }
  }

  /// Whether the run holds several assets (an allocation strategy).
  package var isPortfolio: Bool {
    if case .portfolio = self { true } else { false }
  }

  /// The cash the account starts with (each symbol's, for a universe).
  package var initialCash: Double {
    switch self {
    case .swing(let c), .universe(let c): c.broker.initialCash
    case .portfolio(let c): c.settings.initialCash
    }
  }

  /// The strategy's name (`strategy.type`).
  package var strategyName: String {
    switch self {
    case .swing(let c), .universe(let c): c.strategy.name
    case .portfolio(let c): c.strategy.name
    }
  }

  /// Every input file the run reads, in the order it reads them: bars, macro series and dividends for one asset (for
  /// each symbol of a universe); each asset's bars and dividends, then the ledger, for several.
  package var inputFiles: [String] {
    switch self {
    case .swing(let c): [c.data.bars] + (c.cycle?.macroFiles ?? []) + (c.data.dividends.map { [$0] } ?? [])
    case .universe(let c): c.universe.indices.flatMap { AnyRunConfig.swing(c.member($0)).inputFiles }
    case .portfolio(let c): c.assets.flatMap { [$0.bars] + ($0.dividends.map { [$0] } ?? []) } + (c.ledger.map { [$0] } ?? [])
    }
  }
}
