/// The economic-cycle stage of every bar and what the filter does with it.
public struct CycleGate: Sendable {
  /// The stage each bar may use (point-in-time, spec §6).
  public var stages: ContiguousArray<CycleStage>
  /// Whether the filter acts (`cycle.filter`): entries only in `buyStages`,
  /// exits in `exitStages`. When false the stages are only reported and no
  /// decision changes (spec §6, v1.1).
  public var filter: Bool
  /// The stages in which a buy signal passes when `filter` is on (`unknown` never does).
  public var buyStages: Set<CycleStage>
  /// The stages that close an open position when `filter` is on (`unknown` never does).
  public var exitStages: Set<CycleStage>

  /// Creates a gate with one stage per bar.
  public init(stages: ContiguousArray<CycleStage>, filter: Bool, buyStages: Set<CycleStage>, exitStages: Set<CycleStage>) {
    self.stages = stages
    self.filter = filter
    self.buyStages = buyStages
    self.exitStages = exitStages
  }

  /// The gate of the bars `range` of the bars it was made for (a sweep's training part, a prefix).
  public func slice(_ range: Range<Int>) -> CycleGate {
    CycleGate(stages: ContiguousArray(stages[range]), filter: filter, buyStages: buyStages, exitStages: exitStages)
  }

  /// The stages in which a buy signal passes, as a mask of `bit(_:)`: every
  /// stage with the filter off, else `buyStages` without `unknown`.
  var entryMask: UInt8 {
    filter ? Self.mask(buyStages) & ~Self.bit(.unknown) : .max
  }

  /// The stages that close an open position, as a mask of `bit(_:)`: none
  /// with the filter off, else `exitStages` without `unknown`.
  var exitMask: UInt8 {
    filter ? Self.mask(exitStages) & ~Self.bit(.unknown) : 0
  }

  /// Whether a buy signal decided at the close of bar `i` passes the filter.
  public func allowsEntry(at i: Int) -> Bool { entryMask & Self.bit(stages[i]) != 0 }

  @inline(__always) static func bit(_ stage: CycleStage) -> UInt8 {
    switch stage {
    case .expansion: return 1
    case .peak: return 2
    case .contraction: return 4
    case .recovery: return 8
    case .unknown: return 16
    }
  }

  static func mask(_ stages: Set<CycleStage>) -> UInt8 { stages.reduce(0) { $0 | bit($1) } }
}

/// Wraps any strategy with the cycle filter (spec §6, v1.1).
///
/// At the close of bar `i`: a buy signal passes only when the bar's stage is a
/// buy stage (`unknown` never); an open position (also one bought at this
/// bar's open) is sold at the next open with `CYCLE_EXIT` whenever the bar's
/// stage is an exit stage (`unknown` never), unless the strategy exits at the
/// same close, whose reason then stands. Exits of the wrapped strategy are
/// never blocked. With `gate.filter` off every signal passes unchanged.
public struct CycleFilter<Inner: BarDecider>: BarDecider {
  /// The wrapped strategy.
  public var inner: Inner
  private let stages: ContiguousArray<CycleStage>
  private let entryMask: UInt8
  private let exitMask: UInt8
  /// Buy signals the filter blocked.
  public private(set) var blockedEntries = 0

  /// Wraps `inner` with `gate`, which must hold a stage for every bar decided on.
  public init(_ inner: Inner, gate: CycleGate) {
    self.inner = inner
    stages = gate.stages
    entryMask = gate.entryMask
    exitMask = gate.exitMask
  }

  public var firstDecisionBar: Int { inner.firstDecisionBar }

  public mutating func decide(at i: Int, position: PositionView) -> Signal {
    let signal = inner.decide(at: i, position: position)
    let stage = CycleGate.bit(stages[i])
    if position.isOpen {
      if signal.isExit { return signal }
      return exitMask & stage != 0 ? (position.isShort ? .exitShort(.cycleExit) : .exitLong(.cycleExit)) : signal
    }
    if signal.isEntry && entryMask & stage == 0 {
      blockedEntries += 1
      return .hold
    }
    return signal
  }
}
