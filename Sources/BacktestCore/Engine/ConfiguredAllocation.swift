/// An allocation strategy with its parameters read, ready to run over any
/// assets. It holds the strategy type opened once, so running it dispatches
/// dynamically once per run and never per bar.
public struct ConfiguredAllocation: Sendable {
  /// The strategy's name, as a run file writes it in `strategy.type`.
  public let name: String
  /// The typed parameters.
  public let parameters: any StrategyParameters
  /// The parameters as reports show them.
  public var parameterSummary: [(name: String, value: String)] { parameters.summary }
  /// The declared parameters, and any the run file declared (a rotation's `params`).
  public var parameterInfo: [ParameterInfo] { parameters.parameterInfo }
  /// The strategy type.
  public let type: any AllocationStrategy.Type
  @usableFromInline let body: @Sendable ([PortfolioAsset], PortfolioSettings, Range<Int>?) -> PortfolioResult

  /// The strategy `S` with `parameters`. Inlinable, so that the loop is specialized for `S` in the module that names it.
  @inlinable
  public init<S: AllocationStrategy>(_ type: S.Type, parameters: S.Parameters) {
    name = S.name
    self.parameters = parameters
    self.type = S.self
    body = { assets, settings, range in
      var strategy = S(parameters: parameters, assets: assets.map { AllocationAsset(symbol: $0.symbol, bars: $0.bars) })
      return PortfolioEngine.run(assets, settings: settings, strategy: &strategy, trading: range)
    }
  }

  init(name: String, parameters: any StrategyParameters, type: any AllocationStrategy.Type,
       body: @escaping @Sendable ([PortfolioAsset], PortfolioSettings, Range<Int>?) -> PortfolioResult) {
    self.name = name
    self.parameters = parameters
    self.type = type
    self.body = body
  }

  /// Fixed weights: each asset's `PortfolioAsset.weight`, traded back to by `PortfolioSettings.rebalance`, whatever
  /// `parameters` (the weights as read, for reports) say.
  package static func fixedWeights(_ parameters: FixedWeights.Parameters = .init()) -> ConfiguredAllocation {
    ConfiguredAllocation(name: FixedWeights.name, parameters: parameters, type: FixedWeights.self) { assets, settings, range in
      var strategy = FixedWeights(parameters: .init(symbols: assets.map(\.symbol), weights: assets.map(\.weight), rebalance: settings.rebalance),
                                  assets: [])
      return PortfolioEngine.run(assets, settings: settings, strategy: &strategy, trading: range)
    }
  }

  /// Reads `table` (the `strategy:` section) for `S` and checks the parameters against the run's `symbols`.
  @inlinable
  public static func configure<S: AllocationStrategy>(_ type: S.Type, table: ConfigTable, symbols: [String]) throws -> ConfiguredAllocation {
    table.allow("type")
    let parameters = try S.Parameters.read(from: table)
    try table.finish()
    do {
      try S.check(parameters, symbols: symbols)
    } catch {
      var conflict = InputError(error.message, at: S.Parameters.location(of: error.path, in: table))
      conflict.isConflict = true
      throw conflict
    }
    return ConfiguredAllocation(type, parameters: parameters)
  }

  /// Runs the strategy over `assets` (`PortfolioEngine.run`), the timeline bars in `range` only when given.
  public func run(_ assets: [PortfolioAsset], settings: PortfolioSettings, trading range: Range<Int>? = nil) -> PortfolioResult {
    body(assets, settings, range)
  }

  /// Whether the strategy decides as it goes (a rotation or your own), rather than holding fixed weights.
  public var decides: Bool { type != FixedWeights.self }
}

extension FixedWeights {
  /// Reads `weights` (a weight in (0, 1] for every one of `symbols`, adding up to at most 1; one asset alone may
  /// leave them out, for 100%) and `rebalance` (`never`, `weekly`, `monthly`, `quarterly`, `annually` or `{drift: 5%}`).
  ///
  /// - Throws: `InputError` at the offending key or value.
  public static func configure(_ strategy: ConfigTable, symbols: [String]) throws -> ConfiguredAllocation {
    strategy.allow("type")
    var weights = [Double](repeating: 0, count: symbols.count)
    if let node = strategy.node("weights") {
      guard case .mapping(let entries) = node.kind else {
        throw InputError("expected a mapping like {VTI: 60%, BND: 40%} for 'strategy.weights', found \(node.typeDescription)", at: node.location)
      }
      let table = try ConfigTable(node, path: "strategy.weights")
      for entry in entries {
        guard let k = symbols.firstIndex(of: entry.key) else {
          let hint = closestMatch(to: entry.key, in: symbols).map { "; did you mean '\($0)'?" } ?? ""
          throw InputError("'\(entry.key)' is not one of the assets (\(symbols.joined(separator: ", ")))\(hint)", at: entry.keyLocation)
        }
        weights[k] = try table.fraction(entry.key, default: nil, expected: "a weight in (0, 1]", where: { $0 > 0 && $0 <= 1 }) ?? 0
      }
      if let missing = weights.firstIndex(of: 0) {
        throw InputError("no weight for asset '\(symbols[missing])'; give every asset a weight", at: node.location)
      }
      let total = weights.reduce(0, +)
      if total > 1 + 1e-9 {
        var conflict = InputError("the weights add up to \(formatPercentPlain(total)); expected at most 100% (the rest stays in cash)", at: node.location)
        conflict.isConflict = true
        throw conflict
      }
    } else if symbols.count == 1 {
      weights[0] = 1
    } else {
      throw InputError("missing 'strategy.weights'; expected a weight per asset like {\(symbols.map { "\($0): \(formatPercentPlain(1 / Double(symbols.count)))" }.joined(separator: ", "))}",
                       at: strategy.location)
    }
    var rebalance = RebalanceRule.never
    if let node = strategy.node("rebalance") {
      switch node.kind {
      case .scalar(let text, _):
        let rules: [String: RebalanceRule] = Rotation.Parameters.periods.merging(["never": .never]) { a, _ in a }
        guard let rule = rules[text] else {
          let names = ["never", "weekly", "monthly", "quarterly", "annually"]
          let hint = closestMatch(to: text, in: names).map { "; did you mean '\($0)'?" } ?? ""
          throw InputError("expected never, weekly, monthly, quarterly, annually or {drift: 5%} for 'strategy.rebalance', found '\(text)'\(hint)",
                           at: node.location)
        }
        rebalance = rule
      case .mapping:
        let r = try ConfigTable(node, path: "strategy.rebalance")
        guard let drift = try r.fraction("drift", default: nil, expected: "a threshold in (0, 1)", where: { $0 > 0 && $0 < 1 }) else {
          throw InputError("expected {drift: 5%} for 'strategy.rebalance'", at: node.location)
        }
        try r.finish()
        rebalance = .drift(drift)
      default:
        throw InputError("expected never, weekly, monthly, quarterly, annually or {drift: 5%} for 'strategy.rebalance', found \(node.typeDescription)",
                         at: node.location)
      }
    }
    try strategy.finish()
    return .fixedWeights(Parameters(symbols: symbols, weights: weights, rebalance: rebalance))
  }}
