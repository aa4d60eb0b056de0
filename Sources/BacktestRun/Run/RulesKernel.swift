import BacktestCore
import Foundation

extension RulesStrategy: SweepAccelerated {
  package typealias Kernel = RulesKernel
}

/// The sweep kernel of rule strategies: every combination's conditions are
/// computed once, in one evaluator, so that each distinct indicator and
/// condition (same function, input and periods after the params are put in)
/// is computed once for the whole sweep.
///
/// A combination whose exit does not read the position runs through the
/// fused loop of `SwingKernel` (its buys and sells are bits); one whose exit
/// reads `entry_price` or `bars_held`, or that has a trailing stop, a time
/// exit, short sales or limit or stop entries, runs through the general engine (`Engine.summarize`) with its compiled rule. Both give exactly what `backtest run` gives.
package struct RulesKernel: SweepKernel {
  private struct Key: Hashable {
    var entry: RuleExpression
    var exit: RuleExpression?
    var shortEntry: RuleExpression?
    var shortExit: RuleExpression?
    var order: RuleOrder
    /// Whether entries are market buys and exits only the rule's, the stop and the target (what the fused loop simulates).
    var plainOrders: Bool
    init(_ p: RulesStrategy.Parameters) {
      (entry, exit, shortEntry, shortExit, order, plainOrders) = (p.entry, p.exit, p.shortEntry, p.shortExit, p.order, p.plainOrders)
    }
  }
  private enum Compiled {
    case fused(SwingSignals)
    case engine(CompiledRule)
  }
  private let dayEndsBefore: ContiguousArray<Int>
  private let rules: [Key: Compiled]

  package init(bars: BarSeries, parameters: [RulesStrategy.Parameters]) {
    dayEndsBefore = SharedIndicators.dayEnds(bars)
    let evaluator = RuleEvaluator(bars: bars)
    Self.precompute(parameters.flatMap { [$0.entry] + [$0.exit, $0.shortEntry, $0.shortExit].compactMap { $0 } }, evaluator)
    var rules: [Key: Compiled] = [:]
    for p in parameters where rules[Key(p)] == nil {
      let rule = CompiledRule(p, evaluator: evaluator)
      rules[Key(p)] = rule.exit.kind == .program || !p.plainOrders ? .engine(rule)
        : .fused(SwingSignals(underBand: rule.entry, underRSI: rule.entry, firstBuy: rule.firstDecisionBar, bars: bars.count,
                              sell: rule.exit.bits))
    }
    self.rules = rules
  }

  /// Computes on all cores what the conditions `roots` read: first the
  /// functions of plain inputs (for the bands, their window's mean and
  /// deviation only), then every comparison and crossing (a band compared
  /// with a series is read from its window). What is left (`and`, `or`,
  /// `not`: a pass over words) is computed as the rules compile.
  private static func precompute(_ roots: [RuleExpression], _ evaluator: RuleEvaluator) {
    var seen: Set<RuleExpression> = []
    let parts = roots.flatMap(\.parts).filter { !$0.readsPosition && seen.insert($0).inserted }
    var groups: [[RuleExpression]] = [], windows: Set<RuleEvaluator.Window> = []
    // Functions computed from one another (`adx`, `plus_di`, `minus_di` of a period; `stoch_d` from `stoch_k`;
    // `macd_signal` and `macd_hist` from `macd`) go in one group, by the group's key.
    var families: [RuleExpression: Int] = [:]
    for case .function(let f, let xs, let periods) in parts where !f.isPointwise {
      let e = RuleExpression.function(f, xs, periods: periods)
      guard !xs.contains(where: { !$0.functionCalls.isEmpty }) else { continue }  // nested: computed after its inner calls
      let family: RuleExpression? = switch f {
      case .adx, .plusDI, .minusDI: .function(.adx, [], periods: periods)
      case .stochK, .stochD: .function(.stochK, [], periods: Array(periods.prefix(2)))
      case .macd, .macdSignal, .macdHistogram: .function(.macd, xs, periods: Array(periods.prefix(2)))
      default: nil
      }
      if let family {
        if let g = families[family] { groups[g].append(e) } else { families[family] = groups.count; groups.append([e]) }
        continue
      }
      guard [.std, .bollingerMiddle, .bollingerUpper, .bollingerLower].contains(f) else { groups.append([e]); continue }
      // The window once (through `std`, which is its deviation column).
      if windows.insert(RuleEvaluator.Window(input: xs[0], period: periods[0])).inserted {
        groups.append([.function(.std, [xs[0]], periods: periods)])
      }
    }
    evaluator.computeConcurrently(groups)
    evaluator.computeConcurrently(parts.filter {
      switch $0 { case .compare, .crosses: return true; default: return false }
    }.map { [$0] })
  }

  package func simulate(_ parameters: RulesStrategy.Parameters, bars: BarSeries, broker: BrokerSettings,
                       accumulator: inout SummaryAccumulator) {
    guard let compiled = rules[Key(parameters)] else { preconditionFailure("rule missing from the kernel") }
    switch compiled {
    case .fused(let signals):
      SwingKernel.simulate(bars: bars, dayEndsBefore: dayEndsBefore, signals: signals, stopLoss: parameters.stopLoss,
                           profitTarget: parameters.profitTarget, broker: broker, accumulator: &accumulator)
    case .engine(let rule):
      var strategy = RulesStrategy(parameters: parameters, rule: rule, bars: bars)
      _ = accumulator.summarize(bars: bars) { Engine.summarize(&strategy, bars: bars, broker: broker, marks: &$0, dayEnds: &$1) }
    }
  }
}
