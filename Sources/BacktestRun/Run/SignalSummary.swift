import BacktestCore
import Foundation

/// What `backtest signal --state FILE` remembers of a single asset's signal between checks.
package typealias SignalState = WatchState<SignalSummary>

/// The parts of a single asset's signal a `signal --state FILE` check compares and notifies
/// (`SignalState`: schema `backtest.signal-state/1`, `last` = `{signal, exit_reason, reason, time, close, position, alerts_crossed}`).
package struct SignalSummary: WatchedSummary {
  package static let stateSchema = "backtest.signal-state/1"
  package static let stateKind = "signal"

  package var signal: LiveSignal.Action
  package var exitReason: String?
  package var reason: String
  /// The newest bar's time and close (shown, not compared).
  package var time: String
  package var close: Double
  package var position: Position?
  /// The alerts the newest close crossed: `above 27.5`.
  package var alertsCrossed: [PriceAlert]

  package struct Position: Sendable, Equatable {
    package var source: String
    package var entryPrice: Double
    package var shares: Double
    package var entryTime: String
  }

  package init(_ s: LiveSignal) {
    signal = s.action
    exitReason = s.exitReason?.rawValue
    reason = s.reason
    time = s.time
    close = s.close
    position = s.position.map { Position(source: $0.source, entryPrice: $0.entryPrice, shares: $0.shares, entryTime: $0.entryTime) }
    alertsCrossed = s.alerts.filter(\.crossed).map(\.alert)
  }

  init(signal: LiveSignal.Action, exitReason: String?, reason: String, time: String, close: Double, position: Position?,
       alertsCrossed: [PriceAlert]) {
    self.signal = signal
    self.exitReason = exitReason
    self.reason = reason
    self.time = time
    self.close = close
    self.position = position
    self.alertsCrossed = alertsCrossed
  }

  /// Whether a notification is due: the signal (with its exit reason), the position held or an alert crossed
  /// differs. The reason's wording, the bar and its close alone are no change.
  package func differs(from other: SignalSummary) -> Bool {
    signal != other.signal || exitReason != other.exitReason || position != other.position || alertsCrossed != other.alertsCrossed
  }

  package var json: JSONValue {
    .object([
      ("signal", .string(signal.rawValue)), ("exit_reason", exitReason.map { .string($0) } ?? .null), ("reason", .string(reason)),
      ("time", .string(time)), ("close", .number(close)),
      ("position", position.map { p in
        .object([("source", .string(p.source)), ("entry_price", .number(p.entryPrice)), ("shares", .number(p.shares)),
                 ("entry_time", .string(p.entryTime))])
      } ?? .null),
      ("alerts_crossed", .array(alertsCrossed.map { .object([("direction", .string($0.direction.rawValue)), ("level", .number($0.level))]) })),
    ])
  }

  /// Reads `last` of a state file.
  ///
  /// - Throws: `InputError` at a value of the wrong kind.
  package static func read(_ lastNode: JSONNode) throws -> SignalSummary {
    func fail(_ node: JSONNode, _ what: String) -> InputError { InputError("expected \(what), found \(node.typeDescription)", at: node.location) }
    guard let signalText = lastNode["signal"]?.string, let signal = LiveSignal.Action(rawValue: signalText) else {
      throw fail(lastNode["signal"] ?? lastNode, "'signal' BUY, SELL or HOLD")
    }
    var position: Position?
    if let p = lastNode["position"], !p.isNull {
      guard let source = p["source"]?.string, let price = p["entry_price"]?.number, let shares = p["shares"]?.number else {
        throw fail(p, "a position with source, entry_price and shares")
      }
      position = Position(source: source, entryPrice: price, shares: shares, entryTime: p["entry_time"]?.string ?? "")
    }
    let alerts = try (lastNode["alerts_crossed"]?.array ?? []).map { a -> PriceAlert in
      guard let d = a["direction"]?.string.flatMap(PriceAlert.Direction.init), let level = a["level"]?.number else {
        throw fail(a, "an alert {direction: above|below, level}")
      }
      return PriceAlert(direction: d, level: level)
    }
    return SignalSummary(signal: signal, exitReason: lastNode["exit_reason"]?.string, reason: lastNode["reason"]?.string ?? "",
                         time: lastNode["time"]?.string ?? "", close: lastNode["close"]?.number ?? .nan, position: position, alertsCrossed: alerts)
  }
}
