/// One asset an allocation strategy allocates among: its symbol and all its bars.
public struct AllocationAsset: Sendable {
  /// The asset's symbol, as the run file names it.
  public var symbol: String
  /// All the asset's bars.
  public var bars: BarSeries

  /// Creates an asset from its symbol and bars.
  public init(symbol: String, bars: BarSeries) {
    self.symbol = symbol
    self.bars = bars
  }
}

/// What an allocation strategy decided at a close: a target weight per asset
/// (the share of the account's value to hold; the rest stays in cash), and
/// optionally the score each asset was ranked by.
public struct Allocation: Sendable, Equatable {
  /// One weight per asset, in the run file's order, each 0 or more, adding up to at most 1.
  public var weights: [Double]
  /// One score per asset (NaN where it has none), for `targets.csv`, reports and `signal`; empty when the strategy does not score.
  public var scores: [Double]

  /// Creates a decision; `scores` is empty when the strategy does not score.
  public init(weights: [Double], scores: [Double] = []) {
    self.weights = weights
    self.scores = scores
  }
}

/// What an allocation strategy may know at the close of a timeline bar: which
/// assets have a bar there (and which of their own bars it is), the date, and
/// the targets it holds. Every asset's bars up to this close are its own bars
/// up to `barIndex(of:)`; nothing after it is reachable from here.
public struct AllocationContext: Sendable {
  /// The symbols, in the run file's order (asset `a` is `symbols[a]`).
  public let symbols: [String]
  /// The timeline bar at whose close the strategy decides.
  public let bar: Int
  /// The date of this close, in days since 1970-01-01.
  public let day: Int
  /// The previous timeline bar's date; `nil` at the first bar traded.
  public let previousDay: Int?
  /// The target weights held before this decision.
  public let weights: [Double]
  @usableFromInline let bars: [Int]

  @inlinable
  init(symbols: [String], bar: Int, day: Int, previousDay: Int?, weights: [Double], bars: [Int]) {
    self.symbols = symbols
    self.bar = bar
    self.day = day
    self.previousDay = previousDay
    self.weights = weights
    self.bars = bars
  }

  /// A context made by hand (to test a strategy without the engine): asset `a`'s bar here is `barIndices[a]` (-1 for none).
  public init(symbols: [String], bar: Int, day: Int, previousDay: Int?, weights: [Double], barIndices: [Int]) {
    self.init(symbols: symbols, bar: bar, day: day, previousDay: previousDay, weights: weights, bars: barIndices)
  }

  /// Asset `a`'s own bar at this close (an index into the bars the strategy was made with), `nil` when it has none here.
  @inlinable
  public func barIndex(of a: Int) -> Int? { bars[a] >= 0 ? bars[a] : nil }

  /// Whether this close is the first traded one, or the first of a new calendar `period` (week from Monday, month,
  /// quarter or year by the bars' dates); `false` for `.never` and drift rules after the first bar.
  public func startsPeriod(_ period: RebalanceRule) -> Bool {
    guard let previousDay else { return true }
    return period.startsNewPeriod(from: previousDay, to: day)
  }
}

/// A strategy over several assets: at the closes it chooses, it sets the
/// target weight of each asset, which the account trades to at the next full
/// bar's open (sales first; `Docs/portfolio.md`). Dividends, deposits,
/// withdrawals, DRIP, fees and the statistics are the engine's, the same for
/// every allocation strategy.
///
/// Like `Strategy`, its parameters are declared once (`Parameters`): the run
/// file, `--set`, sweep axes and `backtest strategies` derive from them. `init`
/// may precompute over each asset's whole bars, provided each value at an
/// asset's bar `k` depends on that asset's bars `0...k` only; `allocate` reads
/// them at `context.barIndex(of:)`. The engine is generic over the strategy:
/// `allocate` is called once per timeline bar, never dynamically dispatched.
public protocol AllocationStrategy: SendableMetatype {
  /// The strategy's declared parameters, read from the run file's `strategy:` section.
  associatedtype Parameters: StrategyParameters
  /// The name a run file uses in `strategy.type`, e.g. `dual_momentum`.
  static var name: String { get }
  /// One line for `backtest strategies` and reports.
  static var summary: String { get }
  /// Checks the parameters against the run's symbols (a `safe` asset must be one of them).
  static func check(_ parameters: Parameters, symbols: [String]) throws(ParameterConflict)
  /// Precomputes what `allocate` reads, over each asset's bars.
  init(parameters: Parameters, assets: [AllocationAsset])
  /// The weights bought at the first bar traded, before any decision (default: empty, all cash).
  var initialWeights: [Double] { get }
  /// When the account trades back to the current targets between decisions (default `.never`).
  var rebalance: RebalanceRule { get }
  /// At the close of a timeline bar: new target weights, or `nil` to keep the current ones.
  mutating func allocate(_ context: AllocationContext) -> Allocation?
}

extension AllocationStrategy {
  public static func check(_ parameters: Parameters, symbols: [String]) throws(ParameterConflict) {}
  public var initialWeights: [Double] { [] }
  public var rebalance: RebalanceRule { .never }
}

/// When a portfolio trades back to its target weights (and when a rotation re-ranks).
public enum RebalanceRule: Sendable, Equatable, CustomStringConvertible {
  /// Buy once, then hold.
  case never
  /// At the first bar of each new calendar week (Monday to Sunday), month, quarter or year.
  case weekly, monthly, quarterly, annually
  /// At the open after a close where some weight is further than this from its target.
  case drift(Double)

  /// Whether a calendar rebalance falls between the days `a` and `b` (b later).
  public func startsNewPeriod(from a: Int, to b: Int) -> Bool {
    let x = CivilDate.components(days: a), y = CivilDate.components(days: b)
    switch self {
    case .weekly:
      // Weeks from Monday: 1970-01-01 (day 0) was a Thursday, so day 4 is a Monday (floored for days before 1970).
      let week = { (d: Int) in (d - 4 - ((d - 4) % 7 + 7) % 7) / 7 }
      return week(a) != week(b)
    case .monthly: return (x.year, x.month) != (y.year, y.month)
    case .quarterly: return (x.year, (x.month - 1) / 3) != (y.year, (y.month - 1) / 3)
    case .annually: return x.year != y.year
    case .never, .drift: return false
    }
  }

  public var description: String {
    switch self {
    case .never: "never"
    case .weekly: "weekly"
    case .monthly: "monthly"
    case .quarterly: "quarterly"
    case .annually: "annually"
    case .drift(let d): "on drift beyond \(formatPercentPlain(d))"
    }
  }
}
