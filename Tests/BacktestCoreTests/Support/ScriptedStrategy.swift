import BacktestCore
import BacktestRun

/// A strategy that emits given signals at given bars, for broker tests.
struct ScriptedStrategy: Strategy {
  struct Parameters: StrategyParameters {
    var signals: [Int: Signal] = [:]
    static let declarations: [Parameter<Parameters>] = []
    static func == (a: Parameters, b: Parameters) -> Bool { a.signals == b.signals }
  }
  static let name = "scripted"
  static let summary = "test double"

  let parameters: Parameters
  /// Every (bar, position) the engine asked about.
  var asked: [(Int, PositionView)] = []
  init(parameters: Parameters, bars: BarSeries) { self.parameters = parameters }
  var firstDecisionBar: Int { 0 }
  mutating func decide(at i: Int, position: PositionView) -> Signal {
    asked.append((i, position))
    return parameters.signals[i] ?? .hold
  }
  var indicatorColumns: [IndicatorColumn] { [] }
}

/// Runs scripted signals over hand-made bars.
func runScripted(_ bars: BarSeries, _ signals: [Int: Signal], broker: BrokerSettings = BrokerSettings(),
                 account: AccountEvents? = nil)
  -> (result: BacktestResult, strategy: ScriptedStrategy)
{
  var s = ScriptedStrategy(parameters: .init(signals: signals), bars: bars)
  let result = Engine.run(&s, bars: bars, broker: broker, account: account)
  return (result, s)
}
