/// What a strategy wants done after the close of a bar; orders fill at the
/// next bar's open (`Docs/orders.md`).
public enum Signal: Equatable, Sendable {
  /// Do nothing at the next open.
  case hold
  /// Close the open long position at the next open, for this reason (a
  /// strategy's own rule is `.technical`).
  case exitLong(ExitReason)
  /// Open a long position at the next open. `stopLoss` and `profitTarget` are
  /// fractions of the entry fill price (`0.02` = 2%), checked intrabar by the
  /// broker from the entry bar on; `nil` disables each.
  case enterLong(stopLoss: Double?, profitTarget: Double?)
  /// Open a short position at the next open: the stop `stopLoss` above the
  /// entry fill, the target `profitTarget` below it.
  case enterShort(stopLoss: Double?, profitTarget: Double?)
  /// Close the open short position at the next open, for this reason.
  case exitShort(ExitReason)
  /// An entry order of any kind: long or short, at the market, a limit or a
  /// stop price, with its own exits (stop, target, trailing stop, a time limit).
  /// (Boxed, so that the common signals stay small: `decide` returns one per bar.)
  indirect case enter(EntryOrder)
}

extension Signal {
  /// Whether the signal opens a position (of either side, any order).
  public var isEntry: Bool {
    switch self {
    case .enterLong, .enterShort, .enter: return true
    case .hold, .exitLong, .exitShort: return false
    }
  }

  /// Whether the signal closes a position.
  public var isExit: Bool {
    switch self {
    case .exitLong, .exitShort: return true
    case .hold, .enterLong, .enterShort, .enter: return false
    }
  }
}

/// What a strategy may know of the position at a bar's close: `decide(at:position:)` receives it after the bar's
/// fills and intrabar exits (a position stopped out during bar `i` is already flat at `i`'s close).
public struct PositionView: Sendable, Equatable {
  /// Shares held: positive long, negative short, 0 flat.
  public var shares: Double
  /// The entry's fill price, slippage included (stop and target levels are measured from it); 0 when flat.
  public var entryPrice: Double
  /// The bar of the entry fill (the bar after the decision for a market order); `-1` when flat.
  public var entryBar: Int
  /// Whether a position is open.
  public var isOpen: Bool { shares != 0 }
  /// Whether the position is long.
  public var isLong: Bool { shares > 0 }
  /// Whether the position is short.
  public var isShort: Bool { shares < 0 }

  /// Bars since the entry fill at bar `i`'s close: 0 on the entry bar, 1 on the next; 0 when flat. The rules'
  /// `bars_held`; a trade that exits at bar `x` shows `x - entryBar + 1` in trades.csv (`Docs/orders.md`).
  @inlinable
  public func barsHeld(at i: Int) -> Int { isOpen ? i - entryBar : 0 }

  /// A position of `shares` entered at `entryPrice` on bar `entryBar`.
  public init(shares: Double, entryPrice: Double, entryBar: Int) {
    self.shares = shares
    self.entryPrice = entryPrice
    self.entryBar = entryBar
  }

  /// No position.
  public static let flat = PositionView(shares: 0, entryPrice: 0, entryBar: -1)
}

/// Where a report draws an indicator column.
public enum IndicatorPlot: Sendable, Equatable {
  /// Written to `indicators.csv` only.
  case hidden
  /// A line over the price chart, named `label` in its legend.
  case overlay(label: String, color: String)
  /// A line in a panel of its own under the price chart (columns naming the same panel share it).
  case panel(IndicatorPanel, color: String)
}

/// A chart panel under the price chart: its own value axis and reference levels.
public struct IndicatorPanel: Sendable, Equatable {
  /// The chart's file name without `.svg` and its element id: `rsi`.
  public var id: String
  /// The short name reports use: `RSI`.
  public var name: String
  /// The chart's title: `RSI (14)`.
  public var title: String
  /// The value axis; `nil` to fit the values.
  public var range: ClosedRange<Double>?
  /// Dashed reference lines (for example the oversold and overbought levels).
  public var levels: [Double]

  /// A panel with its id, legend name, title, value axis (`nil` fits the values) and reference levels.
  public init(id: String, name: String, title: String, range: ClosedRange<Double>? = nil, levels: [Double] = []) {
    self.id = id
    self.name = name
    self.title = title
    self.range = range
    self.levels = levels
  }
}

/// A column of per-bar values a strategy computed, written to `indicators.csv`
/// and drawn where `plot` says.
public struct IndicatorColumn: Sendable {
  /// The column's name in `indicators.csv` (`bb_lower`).
  public var name: String
  /// One value per bar; NaN where undefined (the warm-up).
  public var values: ContiguousArray<Double>
  /// Where the column is drawn.
  public var plot: IndicatorPlot

  /// A column named `name` of per-bar `values`, drawn where `plot` says (not drawn by default).
  public init(_ name: String, _ values: ContiguousArray<Double>, plot: IndicatorPlot = .hidden) {
    self.name = name
    self.values = values
    self.plot = plot
  }
}

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
