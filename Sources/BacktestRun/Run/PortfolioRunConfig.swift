import BacktestCore
import Foundation

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
