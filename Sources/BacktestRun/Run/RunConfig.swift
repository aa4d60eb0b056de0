import BacktestCore
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
