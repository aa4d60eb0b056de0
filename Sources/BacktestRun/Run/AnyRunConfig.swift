import BacktestCore
import Foundation

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
