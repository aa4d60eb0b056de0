/// What `ConfiguredStrategy.run` is asked to explain about the last bar, for the live signal.
public enum FinalQuestion: Sendable, Equatable {
  /// The decision the backtest took at the last close, with the backtest's own position.
  case backtestPosition
  /// The decision the strategy takes at the last close for this position (the user's own).
  case position(PositionView)
}

/// The decision at the last close and why, as the strategy explains it.
public struct FinalDecision: Sendable {
  /// What was asked.
  public var question: FinalQuestion
  /// The decision, after the cycle filter when there is one.
  public var signal: Signal
  /// The strategy's own decision, before the cycle filter.
  public var unfiltered: Signal
  /// The strategy's explanation of `unfiltered`.
  public var reason: String
  /// The strategy's named values and lines for the live signal.
  public var details: StrategyDetails
  /// The position the decision was taken with.
  public var position: PositionView
  /// The stop-loss and profit-target fractions the strategy sets on an entry now.
  public var stopLoss: Double?
  /// The profit-target fraction the strategy sets on an entry now.
  public var profitTarget: Double?
}

/// A strategy with its parameters read, ready to run over any bars.
///
/// It holds the strategy type opened once, so running it dispatches
/// dynamically once per run and never per bar.
public struct ConfiguredStrategy: Sendable {
  /// The strategy's name, as a run file writes it in `strategy.type`.
  public let name: String
  /// The parameters as reports show them (made when asked: a sweep builds
  /// thousands of configurations and never shows them).
  public var parameterSummary: [(name: String, value: String)] { parameters.summary }
  /// The typed parameters.
  public let parameters: any StrategyParameters
  /// The declared parameters of the strategy type, and any the run file declared (a rule's `params`);
  /// made when asked, like `parameterSummary`.
  public var parameterInfo: [ParameterInfo] { parameters.parameterInfo }
  /// The strategy type (for optional accelerations it may supply, such as a sweep kernel).
  public let type: any Strategy.Type
  @usableFromInline let body: @Sendable (BarSeries, BrokerSettings, CycleGate?, IntrabarData?, AccountEvents?, Range<Int>?, FinalQuestion?,
                                         IndicatorsReady?) -> StrategyRun
  /// A sweep's run: the marks only (`Engine.summarize`), the strategy built with the sweep's shared indicators.
  @usableFromInline let summarize: @Sendable (BarSeries, BrokerSettings, CycleGate?, AccountEvents?, IndicatorStore, inout EquityMarks,
                                              inout [Double]) -> SummarizedRun

  /// Called on the running thread with the strategy's indicator columns once
  /// they are computed, before the first bar trades.
  public typealias IndicatorsReady = ([IndicatorColumn]) -> Void

  /// Reads `table` (the `strategy:` section) for strategy `S`; reports unknown keys.
  @inlinable
  public static func configure<S: Strategy>(_ type: S.Type, table: ConfigTable) throws -> ConfiguredStrategy {
    table.allow("type")
    let parameters = try S.Parameters.read(from: table)
    try table.finish()
    return ConfiguredStrategy(type, parameters: parameters)
  }

  /// The strategy `S` with `parameters`. Inlinable, so that the bar loop is
  /// specialized for `S` in the module that names it (no dynamic dispatch per bar).
  @inlinable
  public init<S: Strategy>(_ type: S.Type, parameters: S.Parameters) {
    name = S.name
    self.parameters = parameters
    self.type = S.self
    body = { bars, broker, gate, intrabar, account, range, question, indicatorsReady in
      // Built as a sweep builds it (`summarize`), with a store of its own: the same init either way.
      var strategy = S(parameters: parameters, bars: bars, indicators: IndicatorStore())
      indicatorsReady?(strategy.indicatorColumns)
      let probe: PositionView? = if case .position(let p) = question { p } else { nil }
      guard let gate else {
        let result = Engine.run(&strategy, bars: bars, broker: broker, intrabar: intrabar, account: account, trading: range, probe: probe)
        let final = question.map { question in
          Self.final(strategy, question, result: result, signal: probe == nil ? result.finalSignal : result.probeSignal,
                     unfiltered: probe == nil ? result.finalSignal : result.probeSignal, position: probe ?? result.finalPosition)
        }
        return StrategyRun(result: result, indicators: strategy.indicatorColumns, blockedEntries: 0, overlayTitle: strategy.overlayTitle,
                           final: final)
      }
      var filtered = CycleFilter(strategy, gate: gate)
      let result = Engine.run(&filtered, bars: bars, broker: broker, intrabar: intrabar, account: account, trading: range, probe: probe)
      let final = question.map { question in
        let position = probe ?? result.finalPosition
        var inner = filtered.inner
        let unfiltered = inner.decide(at: result.firstBar + result.equity.count - 1, position: position)
        return Self.final(filtered.inner, question, result: result, signal: probe == nil ? result.finalSignal : result.probeSignal,
                          unfiltered: unfiltered, position: position)
      }
      return StrategyRun(result: result, indicators: filtered.inner.indicatorColumns, blockedEntries: filtered.blockedEntries,
                         overlayTitle: filtered.inner.overlayTitle, final: final)
    }
    summarize = { bars, broker, gate, account, indicators, marks, dayEnds in
      let strategy = S(parameters: parameters, bars: bars, indicators: indicators.scope(for: S.self))
      guard let gate else {
        var strategy = strategy
        return Engine.summarize(&strategy, bars: bars, broker: broker, account: account, marks: &marks, dayEnds: &dayEnds)
      }
      var filtered = CycleFilter(strategy, gate: gate)
      return Engine.summarize(&filtered, bars: bars, broker: broker, account: account, marks: &marks, dayEnds: &dayEnds)
    }
  }

  @usableFromInline
  static func final<S: Strategy>(_ strategy: S, _ question: FinalQuestion, result: BacktestResult, signal: Signal,
                                         unfiltered: Signal, position: PositionView) -> FinalDecision {
    let last = result.firstBar + result.equity.count - 1
    let levels = strategy.exitLevels(forEntryAt: last)
    return FinalDecision(question: question, signal: signal, unfiltered: unfiltered, reason: strategy.explain(unfiltered, at: last, position: position),
                         details: strategy.details(at: last), position: position, stopLoss: levels.stopLoss,
                         profitTarget: levels.profitTarget)
  }

  /// Runs the strategy over `bars`, through the cycle filter when `gate` is
  /// given; with `explain`, also says what it decides at the last close and why.
  ///
  /// With `range`, the strategy is built over all of `bars` and trades only
  /// the bars in `range`, with a fresh account (`Engine.run`): the bars before
  /// it warm the indicators. Pass `bars` ending at the range's end to make
  /// sure nothing after it exists.
  ///
  /// `indicatorsReady` lets a caller start work that needs only the bars and
  /// the indicators (a report's indicators.csv) while the bars trade.
  public func run(bars: BarSeries, broker: BrokerSettings, cycle gate: CycleGate? = nil, intrabar: IntrabarData? = nil,
                  account: AccountEvents? = nil, trading range: Range<Int>? = nil, explain: FinalQuestion? = nil,
                  indicatorsReady: IndicatorsReady? = nil) -> StrategyRun {
    body(bars, broker, gate, intrabar, account, range, explain, indicatorsReady)
  }

  /// Checks the parameters against the bars the strategy is to run on (see `StrategyParameters.check`).
  public func check(against bars: BarSeries) throws { try parameters.check(against: bars) }
}

/// A backtest's result together with the strategy's indicator columns.
public struct StrategyRun: Sendable {
  /// The backtest's trades and per-bar account.
  public var result: BacktestResult
  /// The strategy's indicator columns, over every bar.
  public var indicators: [IndicatorColumn]
  /// Buy signals the cycle filter blocked.
  public var blockedEntries: Int
  /// What the price chart shows besides prices and trades (`Bollinger Bands`).
  public var overlayTitle: String = ""
  /// The decision at the last close, when the run was asked to explain it.
  public var final: FinalDecision?

  /// A run's result with its indicator columns.
  public init(result: BacktestResult, indicators: [IndicatorColumn], blockedEntries: Int, overlayTitle: String = "",
              final: FinalDecision? = nil) {
    self.result = result
    self.indicators = indicators
    self.blockedEntries = blockedEntries
    self.overlayTitle = overlayTitle
    self.final = final
  }
}

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

/// The strategies a run file may name in `strategy.type`: a value passed to
/// configuration and commands (`backtest` passes the built-ins; an
/// executable of your own passes yours too).
public struct StrategyCatalog: Sendable {
  /// One strategy type, opened once.
  public struct Entry: Sendable {
    /// The name a run file uses in `strategy.type`.
    public let name: String
    /// One line on what the strategy does (`backtest strategies`).
    public let summary: String
    /// The parameters' descriptions, made when asked for: a run configures
    /// one strategy, and making every strategy's on opening the catalog took
    /// 3.9% of a 2,000-bar run's CPU (0.5% now, by `perf`).
    public var parameters: [ParameterInfo] { info() }
    @usableFromInline let info: @Sendable () -> [ParameterInfo]
    @usableFromInline let configure: @Sendable (ConfigTable) throws -> ConfiguredStrategy

    /// The entry of the strategy type `S`.
    @inlinable
    public init<S: Strategy>(_ type: S.Type) {
      name = S.name
      summary = S.summary
      info = { S.Parameters.info }
      configure = { try ConfiguredStrategy.configure(S.self, table: $0) }
    }
  }

  /// One allocation strategy type, opened once.
  public struct AllocationEntry: Sendable {
    /// The name a run file uses in `strategy.type`.
    public let name: String
    /// One line on what the strategy does (`backtest strategies`).
    public let summary: String
    /// The parameters' descriptions, made when asked for.
    public var parameters: [ParameterInfo] { info() }
    @usableFromInline let info: @Sendable () -> [ParameterInfo]
    @usableFromInline let configure: @Sendable (ConfigTable, [String]) throws -> ConfiguredAllocation
    /// The parameters a `strategy:` section declares (a rotation's `params` among them), read without checking them
    /// against the assets.
    @usableFromInline let declared: @Sendable (ConfigTable) throws -> [ParameterInfo]

    /// The entry of the allocation strategy type `S`, its parameters checked against the run's symbols.
    @inlinable
    public init<S: AllocationStrategy>(_ type: S.Type) {
      self.init(type) { try ConfiguredAllocation.configure(S.self, table: $0, symbols: $1) }
    }

    /// An entry whose `strategy:` section is read by `configure` (fixed weights read theirs with the assets they name).
    @inlinable
    public init<S: AllocationStrategy>(_ type: S.Type, configure: @escaping @Sendable (ConfigTable, [String]) throws -> ConfiguredAllocation) {
      name = S.name
      summary = S.summary
      info = { S.Parameters.info }
      self.configure = configure
      declared = { try S.Parameters.read(from: $0).parameterInfo }
    }
  }

  /// The strategies over one asset.
  public var entries: [Entry]
  /// The strategies over several assets (`data.assets`).
  public var allocations: [AllocationEntry]

  /// A catalog of these single-asset and allocation strategies.
  public init(_ entries: [Entry], allocations: [AllocationEntry] = []) {
    self.entries = entries
    self.allocations = allocations
  }

  /// The catalog with `type` added (replacing a built-in of the same name).
  @inlinable
  public func adding<S: Strategy>(_ type: S.Type) -> StrategyCatalog {
    StrategyCatalog(entries.filter { $0.name != S.name } + [Entry(type)], allocations: allocations.filter { $0.name != S.name })
  }

  /// The catalog with the allocation strategy `type` added (replacing a built-in of the same name).
  @inlinable
  public func adding<S: AllocationStrategy>(_ type: S.Type) -> StrategyCatalog {
    StrategyCatalog(entries.filter { $0.name != S.name }, allocations: allocations.filter { $0.name != S.name } + [AllocationEntry(type)])
  }

  /// The single-asset strategies' names.
  public var names: [String] { entries.map(\.name) }
  /// Every strategy's name: the single-asset ones, then those over several assets.
  public var allNames: [String] { names + allocations.map(\.name) }

  /// The single-asset strategy named `name`, if any.
  public func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

  /// The allocation strategy named `name`, if any.
  public func allocation(named name: String) -> AllocationEntry? { allocations.first { $0.name == name } }

  /// Reads the `strategy:` section of a run over several assets with these `symbols`.
  ///
  /// - Throws: `InputError` for an unknown type or a bad parameter.
  public func configureAllocation(_ table: ConfigTable, symbols: [String]) throws -> ConfiguredAllocation {
    guard let typeName = try table.string("type"), let entry = allocation(named: typeName) else {
      let typeName = try table.string("type") ?? ""
      let hint = closestMatch(to: typeName, in: allNames).map { "; did you mean '\($0)'?" } ?? ""
      throw InputError("unknown strategy '\(typeName)'\(hint); expected one of \(allocations.map(\.name).joined(separator: ", "))",
                       at: table.node("type")?.location ?? table.location)
    }
    return try entry.configure(table, symbols)
  }

  /// Reads the `strategy:` section: `type` picks the strategy, the rest are its parameters.
  ///
  /// - Throws: `InputError` for a missing or unknown type (suggesting the
  ///   closest name in this catalog) or a bad parameter.
  public func configure(_ table: ConfigTable) throws -> ConfiguredStrategy {
    guard let typeName = try table.string("type") else {
      throw InputError("missing 'strategy.type'; expected one of \(names.joined(separator: ", "))", at: table.location)
    }
    if let allocation = allocation(named: typeName) {
      throw InputError("the \(typeName) strategy (\(allocation.summary)) allocates among several assets; expected a strategy over one asset here: \(names.joined(separator: ", "))",
                       at: table.node("type")!.location)
    }
    guard let entry = entry(named: typeName) else {
      let hint = closestMatch(to: typeName, in: allNames).map { "; did you mean '\($0)'?" } ?? ""
      throw InputError("unknown strategy '\(typeName)'\(hint); expected one of \(names.joined(separator: ", "))",
                       at: table.node("type")!.location)
    }
    return try entry.configure(table)
  }
}

/// The built-in strategies.
public enum BuiltInStrategies {
  /// `bollinger_rsi`, `sma_cross`, `buy_and_hold`, `rules` and `signals` over one asset; fixed weights (`portfolio`) and
  /// `rotation` over several.
  public static let catalog = StrategyCatalog([.init(BollingerRSI.self), .init(SMACross.self), .init(BuyAndHold.self), .init(RulesStrategy.self),
                                                 .init(SignalsFile.self)],
                                                allocations: [.init(FixedWeights.self, configure: FixedWeights.configure), .init(Rotation.self)])
}
