import BacktestCore

/// Dual momentum over several assets (an allocation strategy): at the first
/// close of each month, rank the assets other than `safe` by their return over
/// `lookback` of their own bars, `close[k] / close[k - lookback] - 1`; hold
/// 100% of the best (ties by symbol) if that return is above 0, else 100% of
/// `safe`. An asset without a bar at that close, or with fewer than
/// `lookback` bars before it, is not ranked. The account trades to the new
/// targets at the next full bar's open, sales first, like a rotation.
public struct DualMomentum: AllocationStrategy {
  public struct Parameters: StrategyParameters {
    public var lookback = 126
    public var safe = ""
    public init() {}

    public static let declarations: [Parameter<Parameters>] = [
      .integer("lookback", \.lookback, in: 1...100_000, doc: "bars of each asset's own history its return is measured over"),
      .text("safe", \.safe, doc: "the asset held when no other asset's return is above 0 (one of data.assets)"),
    ]
  }

  public static let name = "dual_momentum"
  public static let summary = "hold the asset with the best return over lookback bars if it is above 0, else the safe asset; monthly"

  public static func check(_ parameters: Parameters, symbols: [String]) throws(ParameterConflict) {
    guard symbols.contains(parameters.safe) else {
      let found = parameters.safe.isEmpty ? "missing 'strategy.safe'" : "'strategy.safe' is '\(parameters.safe)', not one of the assets"
      throw ParameterConflict(path: parameters.safe.isEmpty ? "" : "safe",
                              message: "\(found); expected the symbol to hold when no return is above 0: one of \(symbols.joined(separator: ", "))")
    }
    guard symbols.count >= 2 else {
      throw ParameterConflict(path: "safe", message: "dual momentum needs at least one asset besides 'strategy.safe' to rank; found only \(parameters.safe)")
    }
  }

  public let parameters: Parameters
  let closes: [ContiguousArray<Double>]
  let symbols: [String]
  let safe: Int

  public init(parameters: Parameters, assets: [AllocationAsset]) {
    self.parameters = parameters
    closes = assets.map(\.bars.close)
    symbols = assets.map(\.symbol)
    safe = symbols.firstIndex(of: parameters.safe) ?? -1
  }

  /// Asset `a`'s return over `lookback` of its bars at its bar `k`, NaN before it has that many.
  public func momentum(_ a: Int, at k: Int) -> Double {
    k >= parameters.lookback ? closes[a][k] / closes[a][k - parameters.lookback] - 1 : .nan
  }

  public mutating func allocate(_ context: AllocationContext) -> Allocation? {
    guard context.startsPeriod(.monthly) else { return nil }
    var scores = [Double](repeating: .nan, count: symbols.count)
    for a in symbols.indices where a != safe {
      if let k = context.barIndex(of: a) { scores[a] = momentum(a, at: k) }
    }
    var weights = [Double](repeating: 0, count: symbols.count)
    if let best = AllocationDecision.ranking(scores, symbols: symbols).first, scores[best] > 0 {
      weights[best] = 1
    } else {
      weights[safe] = 1
    }
    return Allocation(weights: weights, scores: scores)
  }
}
