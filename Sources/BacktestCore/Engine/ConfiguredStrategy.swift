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
  @usableFromInline package let summarize: @Sendable (BarSeries, BrokerSettings, CycleGate?, AccountEvents?, IndicatorStore, inout EquityMarks,
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
          Self.final(strategy, question, result: result, signal: probe == nil ? result.lastClose.signal : result.lastClose.probeSignal,
                     unfiltered: probe == nil ? result.lastClose.signal : result.lastClose.probeSignal, position: probe ?? result.lastClose.position)
        }
        return StrategyRun(result: result, indicators: strategy.indicatorColumns, blockedEntries: 0, overlayTitle: strategy.overlayTitle,
                           final: final)
      }
      var filtered = CycleFilter(strategy, gate: gate)
      let result = Engine.run(&filtered, bars: bars, broker: broker, intrabar: intrabar, account: account, trading: range, probe: probe)
      let final = question.map { question in
        let position = probe ?? result.lastClose.position
        var inner = filtered.inner
        let unfiltered = inner.decide(at: result.firstBar + result.equity.count - 1, position: position)
        return Self.final(filtered.inner, question, result: result, signal: probe == nil ? result.lastClose.signal : result.lastClose.probeSignal,
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
