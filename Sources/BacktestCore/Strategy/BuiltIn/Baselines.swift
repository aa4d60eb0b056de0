import Foundation

/// Moving-average crossover: buy when the fast SMA crosses above the slow one,
/// sell when it crosses below; optional stop-loss and profit target.
package struct SMACross: Strategy {
  package struct Parameters: StrategyParameters {
    package var fast = 10
    package var slow = 30
    package var stopLoss: Double? = nil
    package var profitTarget: Double? = nil
    package init() {}

    package static let declarations: [Parameter<Parameters>] = [
      .integer("fast", \.fast, in: 1...100_000, doc: "closes in the fast average"),
      .integer("slow", \.slow, in: 2...100_000, doc: "closes in the slow average (more than fast)"),
      .fraction("stop_loss", \.stopLoss, .between(0, 1), doc: "stop below the entry fill (2% or none)"),
      .fraction("profit_target", \.profitTarget, .above(0), doc: "target above the entry fill (3% or none)"),
    ]

    package func validate() throws(ParameterConflict) {
      if fast >= slow {
        throw ParameterConflict(path: "fast", message: "expected 'strategy.fast' < 'strategy.slow', found \(fast) and \(slow)")
      }
    }
  }

  package static let name = "sma_cross"
  package static let summary = "buy when the fast SMA crosses above the slow SMA, sell when it crosses below"

  package let parameters: Parameters
  package let close: ContiguousArray<Double>
  package let fast: ContiguousArray<Double>
  package let slow: ContiguousArray<Double>
  package var firstDecisionBar: Int { parameters.slow }

  package init(parameters: Parameters, bars: BarSeries) {
    self.parameters = parameters
    close = bars.close
    fast = sma(bars.close, period: parameters.fast)
    slow = sma(bars.close, period: parameters.slow)
  }

  package mutating func decide(at i: Int, position: PositionView) -> Signal {
    let above = fast[i] > slow[i], wasAbove = fast[i - 1] > slow[i - 1]
    if !position.isOpen && above && !wasAbove {
      return .enterLong(stopLoss: parameters.stopLoss, profitTarget: parameters.profitTarget)
    }
    if position.isOpen && !above && wasAbove { return .exitLong(.technical) }
    return .hold
  }

  package var indicatorColumns: [IndicatorColumn] {
    [IndicatorColumn("sma_fast", fast, plot: .overlay(label: "SMA \(parameters.fast)", color: "#0071E3")),
     IndicatorColumn("sma_slow", slow, plot: .overlay(label: "SMA \(parameters.slow)", color: "#FF9500"))]
  }

  package func exitLevels(forEntryAt i: Int) -> (stopLoss: Double?, profitTarget: Double?) {
    (parameters.stopLoss, parameters.profitTarget)
  }

  package func explain(_ signal: Signal, at i: Int, position: PositionView) -> String {
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
package struct BuyAndHold: Strategy {
  package struct Parameters: StrategyParameters {
    package init() {}
    package static let declarations: [Parameter<Parameters>] = []
  }

  package static let name = "buy_and_hold"
  package static let summary = "buy at the open of the second bar and hold to the end"

  package init(parameters: Parameters, bars: BarSeries) {}
  package var firstDecisionBar: Int { 0 }

  package mutating func decide(at i: Int, position: PositionView) -> Signal {
    position.isOpen ? .hold : .enterLong(stopLoss: nil, profitTarget: nil)
  }

  package var indicatorColumns: [IndicatorColumn] { [] }

  package func explain(_ signal: Signal, at i: Int, position: PositionView) -> String {
    position.isOpen ? "holding to the end" : "buys at the next open and holds"
  }
}
