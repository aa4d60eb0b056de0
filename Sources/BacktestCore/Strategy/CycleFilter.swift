/// The economic-cycle stage of every bar and what the filter does with it.
public struct CycleGate: Sendable {
  /// The stage each bar may use (point-in-time, spec §6).
  public var stages: ContiguousArray<CycleStage>
  /// Whether new entries are limited to `buyStages`.
  public var filterEntries: Bool
  public var buyStages: Set<CycleStage>
  public var exitStages: Set<CycleStage>

  public init(stages: ContiguousArray<CycleStage>, filterEntries: Bool, buyStages: Set<CycleStage>, exitStages: Set<CycleStage>) {
    self.stages = stages
    self.filterEntries = filterEntries
    self.buyStages = buyStages
    self.exitStages = exitStages
  }
}

/// Wraps any strategy: its buy signals pass only in the allowed stages
/// (`unknown` never), and an open position is closed (`CYCLE_EXIT`) when
/// the stage turns to one of the exit stages. Exits of the wrapped strategy
/// are never blocked.
public struct CycleFilter<Inner: BarDecider>: BarDecider {
  public var inner: Inner
  private let stages: ContiguousArray<CycleStage>
  private let allowed: [Bool]   // by CycleStage.allCases index
  private let exits: [Bool]
  /// Buy signals the filter blocked.
  public private(set) var blockedEntries = 0

  public init(_ inner: Inner, gate: CycleGate) {
    self.inner = inner
    stages = gate.stages
    allowed = CycleStage.allCases.map { $0 != .unknown && (!gate.filterEntries || gate.buyStages.contains($0)) }
    exits = CycleStage.allCases.map { gate.exitStages.contains($0) }
  }

  public var firstDecisionBar: Int { inner.firstDecisionBar }

  @inline(__always) private func index(_ s: CycleStage) -> Int {
    switch s {
    case .expansion: return 0
    case .peak: return 1
    case .contraction: return 2
    case .recovery: return 3
    case .unknown: return 4
    }
  }

  public mutating func decide(at i: Int, position: PositionView) -> Signal {
    let signal = inner.decide(at: i, position: position)
    switch signal {
    case .enterLong:
      if allowed[index(stages[i])] { return signal }
      blockedEntries += 1
      return .hold
    case .exitLong:
      return signal
    case .hold:
      // Forced exit when the stage has turned to an exit stage since the entry.
      if position.isOpen && exits[index(stages[i])] && !exits[index(stages[position.entryBar])] {
        return .exitLong(.cycleExit)
      }
      return .hold
    }
  }
}
