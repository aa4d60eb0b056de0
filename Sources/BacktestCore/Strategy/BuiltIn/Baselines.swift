import Foundation

/// Moving-average crossover: buy when the fast SMA crosses above the slow one,
/// sell when it crosses below; optional stop-loss and profit target.
public struct SMACross: Strategy {
  public struct Parameters: StrategyParameters {
    public var fast = 10
    public var slow = 30
    public var stopLoss: Double? = nil
    public var profitTarget: Double? = nil
    public init() {}

    public static let declarations: [Parameter<Parameters>] = [
      .integer("fast", \.fast, in: 1...100_000, doc: "closes in the fast average"),
      .integer("slow", \.slow, in: 2...100_000, doc: "closes in the slow average (more than fast)"),
      .fraction("stop_loss", \.stopLoss, .between(0, 1), doc: "stop below the entry fill (2% or none)"),
      .fraction("profit_target", \.profitTarget, .above(0), doc: "target above the entry fill (3% or none)"),
    ]

    public func validate() throws(ParameterConflict) {
      if fast >= slow {
        throw ParameterConflict(path: "fast", message: "expected 'strategy.fast' < 'strategy.slow', found \(fast) and \(slow)")
      }
    }
  }

  public static let name = "sma_cross"
  public static let summary = "buy when the fast SMA crosses above the slow SMA, sell when it crosses below"

  public let parameters: Parameters
  public let close: ContiguousArray<Double>
  public let fast: ContiguousArray<Double>
  public let slow: ContiguousArray<Double>
  public var firstDecisionBar: Int { parameters.slow }

  public init(parameters: Parameters, bars: BarSeries) {
    self.parameters = parameters
    close = bars.close
    fast = sma(bars.close, period: parameters.fast)
    slow = sma(bars.close, period: parameters.slow)
  }

  public mutating func decide(at i: Int, position: PositionView) -> Signal {
    let above = fast[i] > slow[i], wasAbove = fast[i - 1] > slow[i - 1]
    if !position.isOpen && above && !wasAbove {
      return .enterLong(stopLoss: parameters.stopLoss, profitTarget: parameters.profitTarget)
    }
    if position.isOpen && !above && wasAbove { return .exitLong(.technical) }
    return .hold
  }

  public var indicatorColumns: [IndicatorColumn] {
    [IndicatorColumn("sma_fast", fast, plot: .overlay(label: "SMA \(parameters.fast)", color: "#0071E3")),
     IndicatorColumn("sma_slow", slow, plot: .overlay(label: "SMA \(parameters.slow)", color: "#FF9500"))]
  }

  public func exitLevels(forEntryAt i: Int) -> (stopLoss: Double?, profitTarget: Double?) {
    (parameters.stopLoss, parameters.profitTarget)
  }

  public func explain(_ signal: Signal, at i: Int, position: PositionView) -> String {
    guard i >= 1, !slow[i].isNaN, !slow[i - 1].isNaN else { return "not enough bars yet for every indicator" }
    let f = { (x: Double) in String(format: "%.2f", x) }
    let now = "SMA \(parameters.fast) \(f(fast[i])) \(fast[i] > slow[i] ? ">" : "<=") SMA \(parameters.slow) \(f(slow[i]))"
    switch signal {
    case .enterLong, .enterShort, .enter: return "\(now), crossing above at this close"
    case .exitLong, .exitShort: return "\(now), crossing below at this close"
    case .hold: return (position.isOpen ? "holding: " : "no entry: ") + now + ", no cross at this close"
    }
  }
}

/// Buys at the first possible fill (the open of the second bar) and holds to
/// the end: the benchmark every report compares against.
public struct BuyAndHold: Strategy {
  public struct Parameters: StrategyParameters {
    public init() {}
    public static let declarations: [Parameter<Parameters>] = []
  }

  public static let name = "buy_and_hold"
  public static let summary = "buy at the open of the second bar and hold to the end"

  public init(parameters: Parameters, bars: BarSeries) {}
  public var firstDecisionBar: Int { 0 }

  public mutating func decide(at i: Int, position: PositionView) -> Signal {
    position.isOpen ? .hold : .enterLong(stopLoss: nil, profitTarget: nil)
  }

  public var indicatorColumns: [IndicatorColumn] { [] }

  public func explain(_ signal: Signal, at i: Int, position: PositionView) -> String {
    position.isOpen ? "holding to the end" : "buys at the next open and holds"
  }
}
