/// What a strategy wants done after the close of a bar; orders fill at the
/// next bar's open.
public enum Signal: Equatable, Sendable {
  case hold
  /// Close the open position at the next open, for this reason (a strategy's
  /// own rule is `.technical`).
  case exitLong(ExitReason)
  /// Open a long position. `stopLoss` and `profitTarget` are fractions of the
  /// entry fill price (`0.02` = 2%), checked intrabar by the broker from the
  /// entry bar on; `nil` disables each.
  case enterLong(stopLoss: Double?, profitTarget: Double?)
}

/// What a strategy may know of the position at a bar's close.
public struct PositionView: Sendable, Equatable {
  public var shares: Double
  public var entryPrice: Double
  public var entryBar: Int
  public var isOpen: Bool { shares > 0 }

  public static let flat = PositionView(shares: 0, entryPrice: 0, entryBar: -1)
}

/// A column of per-bar values a strategy computed, written to `indicators.csv`.
public struct IndicatorColumn: Sendable {
  public var name: String
  public var values: ContiguousArray<Double>
  public init(_ name: String, _ values: ContiguousArray<Double>) {
    self.name = name
    self.values = values
  }
}

/// Parameters a strategy read from its run file, as a value (one per sweep combination).
public protocol StrategyParameters: Sendable, Equatable {
  /// The parameters for reports, as (name, value) text pairs in a fixed order.
  var summary: [(name: String, value: String)] { get }
}

/// A trading rule evaluated once per bar, at that bar's close.
///
/// A strategy first reads its parameters from the `strategy:` section of a run
/// file (before any data is loaded, so a typo fails fast), then precomputes its
/// indicators over the whole series in `init` (each value at bar `i` must
/// depend on bars `0...i` only) and answers `decide(at:position:)` per bar.
/// The engine is generic over the strategy, so the per-bar call is
/// specialized and inlined, never dynamically dispatched.
/// Anything that decides at each bar's close: a strategy, or a wrapper around one.
public protocol BarDecider {
  /// The first bar index at which every input of `decide` is defined.
  var firstDecisionBar: Int { get }
  /// Decides at the close of bar `i`, reading only bars `0...i`.
  mutating func decide(at i: Int, position: PositionView) -> Signal
}

public protocol Strategy: BarDecider, SendableMetatype {
  associatedtype Parameters: StrategyParameters
  /// The name a run file uses in `strategy.type`, e.g. `bollinger_rsi`.
  static var name: String { get }
  /// One line for `backtest --help` and reports.
  static var summary: String { get }
  /// Reads the parameters (every key of the `strategy:` section but `type`).
  ///
  /// - Throws: `InputError` for a wrong or out-of-range value; unknown keys
  ///   are reported by the caller afterwards.
  static func parameters(from table: ConfigTable) throws -> Parameters
  /// Precomputes every indicator over `bars`.
  init(parameters: Parameters, bars: BarSeries)
  /// The indicator columns for `indicators.csv`, in order.
  var indicatorColumns: [IndicatorColumn] { get }
}
