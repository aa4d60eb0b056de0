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
  public var details: StrategyDetails
  /// The position the decision was taken with.
  public var position: PositionView
  /// The stop-loss and profit-target fractions the strategy sets on an entry now.
  public var stopLoss: Double?
  public var profitTarget: Double?
}

/// A strategy with its parameters read, ready to run over any bars.
///
/// It holds the strategy type opened once, so running it dispatches
/// dynamically once per run and never per bar.
public struct ConfiguredStrategy: Sendable {
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
      var strategy = S(parameters: parameters, bars: bars)
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
  public var result: BacktestResult
  public var indicators: [IndicatorColumn]
  /// Buy signals the cycle filter blocked.
  public var blockedEntries: Int
  /// What the price chart shows besides prices and trades (`Bollinger Bands`).
  public var overlayTitle: String = ""
  /// The decision at the last close, when the run was asked to explain it.
  public var final: FinalDecision?

  public init(result: BacktestResult, indicators: [IndicatorColumn], blockedEntries: Int, overlayTitle: String = "",
              final: FinalDecision? = nil) {
    self.result = result
    self.indicators = indicators
    self.blockedEntries = blockedEntries
    self.overlayTitle = overlayTitle
    self.final = final
  }
}

/// The strategies a run file may name in `strategy.type`: a value passed to
/// configuration and commands (`backtest` passes the built-ins; an
/// executable of your own passes yours too).
public struct StrategyCatalog: Sendable {
  /// One strategy type, opened once.
  public struct Entry: Sendable {
    public let name: String
    public let summary: String
    /// The parameters' descriptions, made when asked for: a run configures
    /// one strategy, and making every strategy's on opening the catalog took
    /// 3.9% of a 2,000-bar run's CPU (0.5% now, by `perf`).
    public var parameters: [ParameterInfo] { info() }
    @usableFromInline let info: @Sendable () -> [ParameterInfo]
    @usableFromInline let configure: @Sendable (ConfigTable) throws -> ConfiguredStrategy

    @inlinable
    public init<S: Strategy>(_ type: S.Type) {
      name = S.name
      summary = S.summary
      info = { S.Parameters.info }
      configure = { try ConfiguredStrategy.configure(S.self, table: $0) }
    }
  }

  public var entries: [Entry]

  public init(_ entries: [Entry]) { self.entries = entries }

  /// The catalog with `type` added (replacing a built-in of the same name).
  @inlinable
  public func adding<S: Strategy>(_ type: S.Type) -> StrategyCatalog {
    StrategyCatalog(entries.filter { $0.name != S.name } + [Entry(type)])
  }

  public var names: [String] { entries.map(\.name) }

  public func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

  /// Reads the `strategy:` section: `type` picks the strategy, the rest are its parameters.
  ///
  /// - Throws: `InputError` for a missing or unknown type (suggesting the
  ///   closest name in this catalog) or a bad parameter.
  public func configure(_ table: ConfigTable) throws -> ConfiguredStrategy {
    guard let typeName = try table.string("type") else {
      throw InputError("missing 'strategy.type'; expected one of \(names.joined(separator: ", "))", at: table.location)
    }
    if typeName == "portfolio" || typeName == "rotation" {
      let what = typeName == "portfolio" ? "target weights, rebalancing" : "the top assets by a score, re-ranked each period"
      throw InputError("the \(typeName) strategy (\(what), dividends, cash flows) runs with 'backtest run', not with this command",
                       at: table.node("type")!.location)
    }
    guard let entry = entry(named: typeName) else {
      let hint = closestMatch(to: typeName, in: names + ["portfolio", "rotation"]).map { "; did you mean '\($0)'?" } ?? ""
      throw InputError("unknown strategy '\(typeName)'\(hint); expected one of \(names.joined(separator: ", "))",
                       at: table.node("type")!.location)
    }
    return try entry.configure(table)
  }
}

/// The built-in strategies.
public enum BuiltInStrategies {
  public static let catalog = StrategyCatalog([.init(BollingerRSI.self), .init(SMACross.self), .init(BuyAndHold.self), .init(RulesStrategy.self),
                                                 .init(SignalsFile.self)])
}
