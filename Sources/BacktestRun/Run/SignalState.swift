import BacktestCore
import Foundation

/// What `backtest signal --state FILE` remembers between checks: the last
/// signal (what a notification is about) and how often notifying it failed.
///
/// The file is JSON, schema `backtest.signal-state/1`:
/// `{"schema", "checked_at", "failed_attempts", "last": {signal, exit_reason, reason, time, close, position, alerts_crossed}}`.
package struct SignalState: Sendable, Equatable {
  package static let schema = "backtest.signal-state/1"
  /// Checks a failed notification is tried in before the change is given up (saved without being sent).
  package static let maximumAttempts = 3

  /// The parts of a signal a notification is about.
  package struct Summary: Sendable, Equatable {
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
    package func differs(from other: Summary) -> Bool {
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
  }

  /// The signal last notified (or seen, without a notifier); `nil` before the first check.
  package var last: Summary?
  /// Notifications of a change since `last` that failed (0 when none is pending).
  package var failedAttempts: Int
  /// When the state was written (seconds since 1970).
  package var checkedAt: Int64?

  package init(last: Summary?, failedAttempts: Int = 0, checkedAt: Int64? = nil) {
    self.last = last
    self.failedAttempts = failedAttempts
    self.checkedAt = checkedAt
  }

  /// The file's text (ends with a newline).
  package var text: String {
    JSONValue.object([
      ("schema", .string(Self.schema)), ("checked_at", checkedAt.map { .string(isoInstant($0)) } ?? .null),
      ("failed_attempts", .integer(failedAttempts)), ("last", last?.json ?? .null),
    ]).rendered() + "\n"
  }

  /// A state file's `failed_attempts`: a whole number from 0 to 1,000,000 (0 when absent).
  ///
  /// - Throws: `InputError` at the value for anything else (a negative, fractional or huge count).
  static func attempts(_ node: JSONNode?) throws -> Int {
    guard let node, !node.isNull else { return 0 }
    guard let n = node.number, n >= 0, n <= 1_000_000, n == n.rounded() else {
      let found = if case .number(let text) = node.kind { "'\(text)'" } else { node.typeDescription }
      throw InputError("expected 'failed_attempts' to be a whole number from 0 to 1000000, found \(found)", at: node.location)
    }
    return Int(n)
  }

  /// Reads a state file.
  ///
  /// - Throws: `InputError` for anything but this schema (a file that is not a state file is never overwritten silently).
  package static func parse(_ data: Data, file: String) throws -> SignalState {
    let root = try JSONReader.parse(data, file: file)
    guard root["schema"]?.string == schema else {
      throw InputError("expected a signal state file (\"schema\": \"\(schema)\"); refusing to overwrite it", at: root.location)
    }
    func fail(_ node: JSONNode, _ what: String) -> InputError { InputError("expected \(what), found \(node.typeDescription)", at: node.location) }
    let attempts = try attempts(root["failed_attempts"])
    guard let lastNode = root["last"], !lastNode.isNull else { return SignalState(last: nil, failedAttempts: attempts) }
    guard let signalText = lastNode["signal"]?.string, let signal = LiveSignal.Action(rawValue: signalText) else {
      throw fail(lastNode["signal"] ?? lastNode, "'signal' BUY, SELL or HOLD")
    }
    var position: Summary.Position?
    if let p = lastNode["position"], !p.isNull {
      guard let source = p["source"]?.string, let price = p["entry_price"]?.number, let shares = p["shares"]?.number else {
        throw fail(p, "a position with source, entry_price and shares")
      }
      position = Summary.Position(source: source, entryPrice: price, shares: shares, entryTime: p["entry_time"]?.string ?? "")
    }
    let alerts = try (lastNode["alerts_crossed"]?.array ?? []).map { a -> PriceAlert in
      guard let d = a["direction"]?.string.flatMap(PriceAlert.Direction.init), let level = a["level"]?.number else {
        throw fail(a, "an alert {direction: above|below, level}")
      }
      return PriceAlert(direction: d, level: level)
    }
    let last = Summary(signal: signal, exitReason: lastNode["exit_reason"]?.string, reason: lastNode["reason"]?.string ?? "",
                       time: lastNode["time"]?.string ?? "", close: lastNode["close"]?.number ?? .nan, position: position, alertsCrossed: alerts)
    return SignalState(last: last, failedAttempts: attempts)
  }
}
