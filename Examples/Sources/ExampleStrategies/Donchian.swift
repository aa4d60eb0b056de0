import BacktestCore

/// Donchian channel breakout: at the close of bar `t`, flat and
/// `close[t] > max(high[t-entry_period ... t-1])` buys at the next open; long
/// and `close[t] < min(low[t-exit_period ... t-1])` sells at the next open.
/// The first decision is at bar `max(entry_period, exit_period)`; stops and
/// targets are the broker's.
public struct Donchian: Strategy {
  public struct Parameters: StrategyParameters {
    public var entryPeriod = 20
    public var exitPeriod = 10
    public var stopLoss: Double? = nil
    public var profitTarget: Double? = nil
    public init() {}

    public static let declarations: [Parameter<Parameters>] = [
      .integer("entry_period", \.entryPeriod, in: 1...100_000, doc: "bars of highs the close must break above to buy"),
      .integer("exit_period", \.exitPeriod, in: 1...100_000, doc: "bars of lows the close must break below to sell"),
      .fraction("stop_loss", \.stopLoss, .between(0, 1), doc: "stop below the entry fill (2% or none)"),
      .fraction("profit_target", \.profitTarget, .above(0), doc: "target above the entry fill (5% or none)"),
    ]
  }

  public static let name = "donchian"
  public static let summary = "buy when the close breaks above the highest high of entry_period bars, sell below the lowest low of exit_period bars"

  public let parameters: Parameters
  public let close: ContiguousArray<Double>
  /// The highest high and lowest low of the bars before each bar.
  public let upper: ContiguousArray<Double>
  public let lower: ContiguousArray<Double>

  public init(parameters: Parameters, bars: BarSeries) {
    self.init(parameters: parameters, bars: bars, indicators: IndicatorStore())
  }

  /// The channel's columns come from `indicators` by period: a sweep computes each period's once.
  public init(parameters: Parameters, bars: BarSeries, indicators: IndicatorStore) {
    self.parameters = parameters
    close = bars.close
    upper = indicators.shared("donchian high \(parameters.entryPeriod)") { Self.previous(highest(bars.high, period: parameters.entryPeriod)) }
    lower = indicators.shared("donchian low \(parameters.exitPeriod)") { Self.previous(lowest(bars.low, period: parameters.exitPeriod)) }
  }

  /// `x` moved one bar later: the value at bar `t` is `x[t - 1]` (the channel excludes the current bar).
  static func previous(_ x: ContiguousArray<Double>) -> ContiguousArray<Double> {
    var out = ContiguousArray<Double>(repeating: .nan, count: x.count)
    for i in x.indices.dropFirst() { out[i] = x[i - 1] }
    return out
  }

  public var firstDecisionBar: Int { max(parameters.entryPeriod, parameters.exitPeriod) }

  // Inlinable: the engine's bar loop, specialized for this strategy in the module that names it, inlines the decision
  // instead of calling across modules at every bar (a loop that large is inlined into only when told to).
  @inlinable @inline(__always)
  public mutating func decide(at i: Int, position: PositionView) -> Signal {
    if !position.isOpen {
      if close[i] > upper[i] { return .enterLong(stopLoss: parameters.stopLoss, profitTarget: parameters.profitTarget) }
    } else if close[i] < lower[i] {
      return .exitLong(.technical)
    }
    return .hold
  }

  public var indicatorColumns: [IndicatorColumn] {
    [IndicatorColumn("donchian_high", upper, plot: .overlay(label: "high \(parameters.entryPeriod)", color: "#34C759")),
     IndicatorColumn("donchian_low", lower, plot: .overlay(label: "low \(parameters.exitPeriod)", color: "#FF3B30"))]
  }

  public var overlayTitle: String { "Donchian channel" }

  public func exitLevels(forEntryAt i: Int) -> (stopLoss: Double?, profitTarget: Double?) {
    (parameters.stopLoss, parameters.profitTarget)
  }

  public func explain(_ signal: Signal, at i: Int, position: PositionView) -> String {
    guard !upper[i].isNaN, !lower[i].isNaN else { return "not enough bars yet for the channel" }
    let f = { (x: Double) in String(format: "%.2f", x) }
    if signal.isEntry { return "close \(f(close[i])) > highest high of \(parameters.entryPeriod) bars \(f(upper[i]))" }
    if signal.isExit { return "close \(f(close[i])) < lowest low of \(parameters.exitPeriod) bars \(f(lower[i]))" }
    if position.isOpen {
      return "holding: close \(f(close[i])) is not below the lowest low of \(parameters.exitPeriod) bars \(f(lower[i]))"
    }
    return "no entry: close \(f(close[i])) is not above the highest high of \(parameters.entryPeriod) bars \(f(upper[i]))"
  }
}
