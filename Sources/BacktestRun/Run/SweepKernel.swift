import BacktestCore
/// A fused simulation of one strategy for many parameter sets: an optional
/// acceleration of sweeps, which must give bit-identical statistics to
/// `Engine.run` with the strategy (a property test holds each kernel to that).
package protocol SweepKernel: Sendable {
  associatedtype Parameters: StrategyParameters
  /// Computes once what the parameter sets share (indicators, signals).
  init(bars: BarSeries, parameters: [Parameters])
  /// Simulates one parameter set, leaving its trades and marks in `accumulator`.
  func simulate(_ parameters: Parameters, bars: BarSeries, broker: BrokerSettings, accumulator: inout SummaryAccumulator)
}

/// A strategy that supplies a sweep kernel. Sweeps use it for combinations
/// without a cycle filter, dividends, an expense ratio or finer intrabar bars;
/// everything else runs through the general engine.
package protocol SweepAccelerated: Strategy {
  associatedtype Kernel: SweepKernel where Kernel.Parameters == Parameters
}

extension BollingerRSI: SweepAccelerated {
  package typealias Kernel = SwingKernel
}

/// The kernel of a sweep's jobs, opened once: which jobs it runs and how.
struct KernelDispatch: Sendable {
  /// Whether job `k` runs through the kernel.
  let covers: [Bool]
  let simulate: @Sendable (_ job: Int, _ accumulator: inout SummaryAccumulator) -> Void

  /// The kernel of the jobs' strategy, when it supplies one and some job can use it (jobs over bars without a cycle
  /// filter or dividends).
  init?(_ jobs: [SweepJob], bars: BarSeries) {
    guard let type = jobs.first?.config?.strategy.type as? any SweepAccelerated.Type else { return nil }
    guard let found = Self.open(type, jobs, bars) else { return nil }
    self = found
  }

  private init(covers: [Bool], simulate: @escaping @Sendable (Int, inout SummaryAccumulator) -> Void) {
    self.covers = covers
    self.simulate = simulate
  }

  private static func open<S: SweepAccelerated>(_: S.Type, _ jobs: [SweepJob], _ bars: BarSeries) -> KernelDispatch? {
    // The kernel sizes as the engine does except for a volatility target, which the engine's run computes.
    let parameters = jobs.map { job in
      job.config.flatMap { c -> S.Parameters? in
        if case .volatilityTarget = c.broker.sizing { return nil }
        return c.expenseRatio == 0 ? c.strategy.parameters as? S.Parameters : nil
      }
    }
    let used = parameters.compactMap { $0 }
    guard !used.isEmpty else { return nil }
    let kernel = S.Kernel(bars: bars, parameters: used)
    let brokers = jobs.map { $0.config?.broker ?? BrokerSettings() }
    return KernelDispatch(covers: parameters.map { $0 != nil }) { k, accumulator in
      kernel.simulate(parameters[k]!, bars: bars, broker: brokers[k], accumulator: &accumulator)
    }
  }
}
