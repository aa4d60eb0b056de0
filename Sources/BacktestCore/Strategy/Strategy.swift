/// Anything that decides at each bar's close: a strategy, or a wrapper around one.
public protocol BarDecider {
  /// The first bar index at which every input of `decide` is defined.
  var firstDecisionBar: Int { get }
  /// Decides at the close of bar `i`, reading only bars `0...i`.
  mutating func decide(at i: Int, position: PositionView) -> Signal
}

/// A trading rule evaluated once per bar, at that bar's close.
///
/// Its parameters are declared once (`Parameters.declarations`): the run-file
/// reader, `--set`, sweep axes, `backtest strategies` and the reports all
/// derive from them. `init` precomputes the indicators over the whole series
/// (each value at bar `i` must depend on bars `0...i` only) and `decide`
/// answers per bar. The engine is generic over the strategy, so the per-bar
/// call is specialized and inlined, never dynamically dispatched.
public protocol Strategy: BarDecider, SendableMetatype {
  /// The strategy's parameters, declared once (name, type, default, range, doc).
  associatedtype Parameters: StrategyParameters
  /// The name a run file uses in `strategy.type`, e.g. `bollinger_rsi`.
  static var name: String { get }
  /// One line for `backtest strategies` and reports.
  static var summary: String { get }
  /// Precomputes every indicator over `bars`.
  init(parameters: Parameters, bars: BarSeries)
  /// Precomputes every indicator over `bars` as `init(parameters:bars:)` does,
  /// taking each column from `indicators` under a key naming its parameters
  /// (`IndicatorStore.shared`), so that a sweep computes it once for all its
  /// combinations. Optional: by default the store is not used.
  init(parameters: Parameters, bars: BarSeries, indicators: IndicatorStore)
  /// The indicator columns for `indicators.csv` and the charts, in order.
  /// Read once `init` has made them (`backtest run` starts indicators.csv
  /// then) and again after the last bar (columns filled while trading work,
  /// at the cost of making that file twice).
  var indicatorColumns: [IndicatorColumn] { get }
  /// What the price chart shows besides prices and trades, for its title (`Bollinger Bands`); empty for nothing.
  var overlayTitle: String { get }
  /// Why `decide` gave `signal` at the close of bar `i` with `position`, for
  /// people: `close 26.51 < lower band 26.60 and RSI 27.4 < 30`.
  func explain(_ signal: Signal, at i: Int, position: PositionView) -> String
  /// The strategy's own view of bar `i` for the live signal: named values
  /// (JSON keys) and lines for people.
  func details(at i: Int) -> StrategyDetails
  /// The stop-loss and profit-target fractions an entry at bar `i` would get
  /// (for levels on a position the strategy did not open itself).
  func exitLevels(forEntryAt i: Int) -> (stopLoss: Double?, profitTarget: Double?)
}

/// Named values and lines a strategy shows in the live signal.
public struct StrategyDetails: Sendable {
  /// Values by JSON key (`bb_lower`, `percent_b`), `nil` where undefined.
  public var values: [(key: String, value: Double?)]
  /// Labels by JSON key (`rsi_zone`: `oversold`).
  public var labels: [(key: String, value: String?)]
  /// Lines for people, in order.
  public var lines: [String]

  /// Details of these values, labels and lines (none by default).
  public init(values: [(key: String, value: Double?)] = [], labels: [(key: String, value: String?)] = [], lines: [String] = []) {
    self.values = values
    self.labels = labels
    self.lines = lines
  }
}

extension Strategy {
  public init(parameters: Parameters, bars: BarSeries, indicators: IndicatorStore) {
    self.init(parameters: parameters, bars: bars)
  }

  public var overlayTitle: String {
    indicatorColumns.compactMap { if case .overlay(let label, _) = $0.plot { return label } else { return nil } }
      .joined(separator: ", ")
  }

  public func explain(_ signal: Signal, at i: Int, position: PositionView) -> String {
    switch signal {
    case .enterLong: return "\(Self.name) buys at the close of bar \(i)"
    case .enterShort: return "\(Self.name) sells short at the close of bar \(i)"
    case .enter(let order): return "\(Self.name) enters \(order.side.rawValue) at the close of bar \(i)"
    case .exitLong(let reason): return "\(Self.name) sells (\(reason.rawValue))"
    case .exitShort(let reason): return "\(Self.name) buys back (\(reason.rawValue))"
    case .hold: return position.isOpen ? "holding: no exit condition met" : "no entry condition met"
    }
  }

  public func exitLevels(forEntryAt i: Int) -> (stopLoss: Double?, profitTarget: Double?) { (nil, nil) }

  public func details(at i: Int) -> StrategyDetails {
    StrategyDetails(values: indicatorColumns.map { ($0.name, $0.values[i].isNaN ? nil : $0.values[i]) })
  }
}
