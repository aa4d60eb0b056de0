import BacktestCore
import Foundation

/// What an allocation strategy holds now (`backtest signal` on a portfolio or
/// rotation run file): the targets of its newest decision (or its fixed
/// weights), each asset's score and rank at that decision, and what the run's
/// account holds at the newest close.
package struct AllocationSignal: Sendable {
  /// One asset: its target, score and rank at the decision in force, and the account's holding now.
  package struct Target: Sendable, Equatable {
    package var symbol: String
    package var weight: Double
    /// NaN where the asset had no score (or the strategy does not score).
    package var score: Double
    /// 1 for the best; `nil` unranked.
    package var rank: Int?
    /// The share of the account's value the asset holds at the newest close.
    package var held: Double
    /// Its newest close (its last one before, when it has no bar at the newest close); NaN before its first bar.
    package var close: Double
  }

  package var name: String
  package var strategy: String
  /// The newest close of the timeline.
  package var time: String
  /// The close the targets were decided at; `nil` for fixed weights, held from the start.
  package var decidedAt: String?
  /// Whether the targets were decided at the newest close: the account trades to them at the next full bar's open.
  package var newDecision: Bool
  package var targets: [Target]
  /// The targets before this decision (the same as `targets`' weights without a decision).
  package var previousWeights: [Double]
  /// One line for people: what the strategy does.
  package var description: String

  /// The signal of a finished run.
  package init(_ output: PortfolioOutput, description: String) {
    let r = output.result, last = r.timeline.count - 1, symbols = output.assets.map(\.symbol)
    let decision = r.decisions.last
    let weights = decision?.weights ?? (r.initialWeights.isEmpty ? symbols.map { _ in 0 } : r.initialWeights)
    name = output.config.name
    strategy = output.config.strategy.name
    time = r.timeline.timeLabel(last)
    decidedAt = decision.map { r.timeline.timeLabel($0.bar - r.firstBar) }
    newDecision = decision.map { $0.bar - r.firstBar == last } ?? false
    switch r.decisions.count {
    case 0: previousWeights = weights
    case 1: previousWeights = r.initialWeights.isEmpty ? symbols.map { _ in 0 } : r.initialWeights
    default: previousWeights = r.decisions[r.decisions.count - 2].weights
    }
    let equity = r.equity[last]
    targets = symbols.indices.map { a in
      let shares = r.shares[a][last], price = r.prices[a][last]
      return Target(symbol: symbols[a], weight: weights[a], score: decision?.scores[a] ?? .nan,
                    rank: decision.flatMap { $0.ranks[a] >= 0 ? $0.ranks[a] + 1 : nil },
                    held: shares != 0 && equity > 0 ? shares * price / equity : 0, close: price)
    }
    self.description = description
  }

  /// The schema of `--json`.
  package static let schema = "backtest.targets/1"

  /// The `--json` form: fractions, `null` where undefined. With `state`: whether the targets changed since the stored
  /// ones, and those (`null` on the first check).
  package func json(state: (changed: Bool, previous: JSONValue)? = nil) -> JSONValue {
    .object([
      ("schema", .string(Self.schema)), ("name", .string(name)), ("strategy", .string(strategy)), ("description", .string(description)),
      ("time", .string(time)), ("decided_at", decidedAt.map { .string($0) } ?? .null), ("new_decision", .bool(newDecision)),
      ("targets", .array(targets.map { t in
        .object([("symbol", .string(t.symbol)), ("weight", .number(t.weight)), ("score", .optional(t.score.isNaN ? nil : t.score)),
                 ("rank", t.rank.map { .integer($0) } ?? .null), ("held", .number(t.held)), ("close", .optional(t.close.isNaN ? nil : t.close))])
      })),
      ("previous_weights", .object(zip(targets, previousWeights).map { ($0.symbol, .number($1)) })),
      ("changed", state.map { .bool($0.changed) } ?? .null),
      ("previous", state?.previous ?? .null),
    ])
  }
}

/// What `backtest signal --state FILE` remembers of an allocation strategy's targets between checks.
package typealias TargetsState = WatchState<TargetsSummary>

/// The targets a `signal --state FILE` check of an allocation strategy compares and notifies (`TargetsState`: schema
/// `backtest.targets-state/1`, `last` = `{time, decided_at, targets: {SYMBOL: weight}}`).
package struct TargetsSummary: WatchedSummary {
  package static let stateSchema = "backtest.targets-state/1"
  package static let stateKind = "targets"

  package var time: String
  package var decidedAt: String?
  package var weights: [(symbol: String, weight: Double)]

  package init(_ s: AllocationSignal) {
    time = s.time
    decidedAt = s.decidedAt
    weights = s.targets.map { ($0.symbol, $0.weight) }
  }

  init(time: String, decidedAt: String?, weights: [(symbol: String, weight: Double)]) {
    self.time = time
    self.decidedAt = decidedAt
    self.weights = weights
  }

  /// Whether a notification is due: some asset's target weight differs (a new decision that keeps the targets is no change).
  package func differs(from other: TargetsSummary) -> Bool {
    weights.count != other.weights.count || zip(weights, other.weights).contains { $0.symbol != $1.symbol || $0.weight != $1.weight }
  }

  package static func == (a: TargetsSummary, b: TargetsSummary) -> Bool {
    a.time == b.time && a.decidedAt == b.decidedAt && !a.differs(from: b)
  }

  package var json: JSONValue {
    .object([("time", .string(time)), ("decided_at", decidedAt.map { .string($0) } ?? .null),
             ("targets", .object(weights.map { ($0.symbol, .number($0.weight)) }))])
  }

  /// Reads `last` of a state file.
  ///
  /// - Throws: `InputError` at a value of the wrong kind.
  package static func read(_ last: JSONNode) throws -> TargetsSummary {
    guard let time = last["time"]?.string, let targets = last["targets"], case .object(let members) = targets.kind else {
      throw InputError("expected 'last' with time and targets {SYMBOL: weight}", at: last.location)
    }
    let weights = try members.map { m -> (symbol: String, weight: Double) in
      guard let w = m.value.number else { throw InputError("expected a weight for '\(m.key)', found \(m.value.typeDescription)", at: m.value.location) }
      return (m.key, w)
    }
    return TargetsSummary(time: time, decidedAt: last["decided_at"]?.string, weights: weights)
  }
}
