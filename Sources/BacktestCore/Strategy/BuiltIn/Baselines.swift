/// Moving-average crossover: buy when the fast SMA crosses above the slow one,
/// sell when it crosses below; optional stop-loss and profit target.
public struct SMACross: Strategy {
  public struct Parameters: StrategyParameters {
    public var fast = 10
    public var slow = 30
    public var stopLoss: Double? = nil
    public var profitTarget: Double? = nil
    public init() {}
    public var summary: [(name: String, value: String)] {
      [("fast", String(fast)), ("slow", String(slow)), ("stop_loss", stopLoss.map(formatPercentPlain) ?? "none"),
       ("profit_target", profitTarget.map(formatPercentPlain) ?? "none")]
    }
  }

  public static let name = "sma_cross"
  public static let summary = "buy when the fast SMA crosses above the slow SMA, sell when it crosses below"

  public static func parameters(from table: ConfigTable) throws -> Parameters {
    var p = Parameters()
    p.fast = try table.int("fast", default: p.fast, in: 1...100_000)!
    p.slow = try table.int("slow", default: p.slow, in: 2...100_000)!
    if p.fast >= p.slow {
      throw InputError("expected 'strategy.fast' < 'strategy.slow', found \(p.fast) and \(p.slow)",
                       at: table.node("fast")?.location ?? table.location)
    }
    p.stopLoss = try table.fraction("stop_loss", default: nil, expected: "a fraction between 0 and 1",
                                    where: { $0 > 0 && $0 < 1 })
    p.profitTarget = try table.fraction("profit_target", default: nil, expected: "a fraction > 0", where: { $0 > 0 })
    return p
  }

  public let parameters: Parameters
  public let fast: ContiguousArray<Double>
  public let slow: ContiguousArray<Double>
  public var firstDecisionBar: Int { parameters.slow }

  public init(parameters: Parameters, bars: BarSeries) {
    self.parameters = parameters
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
    [IndicatorColumn("sma_fast", fast), IndicatorColumn("sma_slow", slow)]
  }
}

/// Buys at the first possible fill (the open of the second bar) and holds to
/// the end: the benchmark every report compares against.
public struct BuyAndHold: Strategy {
  public struct Parameters: StrategyParameters {
    public init() {}
    public var summary: [(name: String, value: String)] { [] }
  }

  public static let name = "buy_and_hold"
  public static let summary = "buy at the open of the second bar and hold to the end"
  public static func parameters(from table: ConfigTable) throws -> Parameters { Parameters() }

  public init(parameters: Parameters, bars: BarSeries) {}
  public var firstDecisionBar: Int { 0 }

  public mutating func decide(at i: Int, position: PositionView) -> Signal {
    position.isOpen ? .hold : .enterLong(stopLoss: nil, profitTarget: nil)
  }

  public var indicatorColumns: [IndicatorColumn] { [] }
}
