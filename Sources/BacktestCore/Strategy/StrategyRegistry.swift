/// A strategy with its parameters read, ready to run over any bars.
///
/// It holds the strategy type opened once, so running it dispatches
/// dynamically once per run and never per bar.
public struct ConfiguredStrategy: Sendable {
  public let name: String
  /// The parameters as reports show them (made when asked: a sweep builds
  /// thousands of configurations and never shows them).
  public var parameterSummary: [(name: String, value: String)] { parameters.summary }
  /// The typed parameters (cast to `S.Parameters` for a strategy-specific fast path).
  public let parameters: any StrategyParameters
  private let body: @Sendable (BarSeries, BrokerSettings, CycleGate?, IntrabarData?, AccountEvents?, Range<Int>?) -> StrategyRun

  /// Reads `table` (the `strategy:` section) for strategy `S`; reports unknown keys.
  public static func configure<S: Strategy>(_ type: S.Type, table: ConfigTable) throws -> ConfiguredStrategy {
    table.allow("type")
    let parameters = try S.parameters(from: table)
    try table.finish()
    return ConfiguredStrategy(type, parameters: parameters)
  }

  public init<S: Strategy>(_ type: S.Type, parameters: S.Parameters) {
    name = S.name
    self.parameters = parameters
    body = { bars, broker, gate, intrabar, account, range in
      var strategy = S(parameters: parameters, bars: bars)
      guard let gate else {
        let result = Engine.run(&strategy, bars: bars, broker: broker, intrabar: intrabar, account: account, trading: range)
        return StrategyRun(result: result, indicators: strategy.indicatorColumns, blockedEntries: 0)
      }
      var filtered = CycleFilter(strategy, gate: gate)
      let result = Engine.run(&filtered, bars: bars, broker: broker, intrabar: intrabar, account: account, trading: range)
      return StrategyRun(result: result, indicators: filtered.inner.indicatorColumns, blockedEntries: filtered.blockedEntries)
    }
  }

  /// Runs the strategy over `bars`, through the cycle filter when `gate` is given.
  ///
  /// With `range`, the strategy is built over all of `bars` and trades only
  /// the bars in `range`, with a fresh account (`Engine.run`): the bars before
  /// it warm the indicators. Pass `bars` ending at the range's end to make
  /// sure nothing after it exists.
  public func run(bars: BarSeries, broker: BrokerSettings, cycle gate: CycleGate? = nil, intrabar: IntrabarData? = nil,
                  account: AccountEvents? = nil, trading range: Range<Int>? = nil) -> StrategyRun {
    body(bars, broker, gate, intrabar, account, range)
  }
}

/// A backtest's result together with the strategy's indicator columns.
public struct StrategyRun: Sendable {
  public var result: BacktestResult
  public var indicators: [IndicatorColumn]
  /// Buy signals the cycle filter blocked.
  public var blockedEntries: Int
}

/// The built-in strategies, by the name a run file gives in `strategy.type`.
public enum StrategyRegistry {
  public static let all: [any Strategy.Type] = [BollingerRSI.self, SMACross.self, BuyAndHold.self]

  public static var names: [String] { all.map { $0.name } }

  /// Reads the `strategy:` section: `type` picks the strategy, the rest are its parameters.
  public static func configure(_ table: ConfigTable) throws -> ConfiguredStrategy {
    guard let typeName = try table.string("type") else {
      throw InputError("missing 'strategy.type'; expected one of \(names.joined(separator: ", "))", at: table.location)
    }
    if typeName == "portfolio" {
      throw InputError("the portfolio strategy (target weights, rebalancing, dividends, cash flows) runs with 'backtest run', not with this command",
                       at: table.node("type")!.location)
    }
    guard let type = all.first(where: { $0.name == typeName }) else {
      let hint = closestMatch(to: typeName, in: names + ["portfolio"]).map { "; did you mean '\($0)'?" } ?? ""
      throw InputError("unknown strategy '\(typeName)'\(hint); expected one of \(names.joined(separator: ", "))",
                       at: table.node("type")!.location)
    }
    return try open(type, table)
  }

  private static func open<S: Strategy>(_ type: S.Type, _ table: ConfigTable) throws -> ConfiguredStrategy {
    try ConfiguredStrategy.configure(type, table: table)
  }
}
