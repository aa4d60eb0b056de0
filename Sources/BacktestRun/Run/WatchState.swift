import BacktestCore
import Foundation

/// What a `backtest signal --state FILE` check compares and notifies: a single asset's signal (`SignalSummary`) or an
/// allocation strategy's targets (`TargetsSummary`).
package protocol WatchedSummary: Sendable, Equatable {
  /// The state file's schema (`backtest.signal-state/1`).
  static var stateSchema: String { get }
  /// What the state file holds, for its errors (`signal`: "expected a signal state file").
  static var stateKind: String { get }
  /// Whether a notification is due when `self` follows `other`.
  func differs(from other: Self) -> Bool
  /// As the state file's `last` (and `--json`'s `previous`) writes it.
  var json: JSONValue { get }
  /// Reads a state file's `last`.
  ///
  /// - Throws: `InputError` at a value of the wrong kind.
  static func read(_ node: JSONNode) throws -> Self
}

/// What `backtest signal --state FILE` remembers between checks: the last summary (what a notification is about) and
/// how often notifying it failed. JSON: `{"schema", "checked_at", "failed_attempts", "last"}`, `last` as the summary
/// writes it (`null` before the first check).
package struct WatchState<Summary: WatchedSummary>: Sendable, Equatable {
  /// Checks a failed notification is tried in before the change is given up (saved without being sent).
  package static var maximumAttempts: Int { 3 }

  /// The summary last notified (or seen, without a notifier); `nil` before the first check.
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

  /// Whether `current` is a change from what was stored (always, before the first check).
  package func isChange(_ current: Summary) -> Bool { last.map { current.differs(from: $0) } ?? true }

  /// The file's text (ends with a newline).
  package var text: String {
    JSONValue.object([
      ("schema", .string(Summary.stateSchema)), ("checked_at", checkedAt.map { .string(isoInstant($0)) } ?? .null),
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
  /// - Throws: `InputError` for anything but this schema (a file that is not a state file is never overwritten
  ///   silently), or a value of the wrong kind.
  package static func parse(_ data: Data, file: String) throws -> WatchState {
    let root = try JSONReader.parse(data, file: file)
    guard root["schema"]?.string == Summary.stateSchema else {
      throw InputError("expected a \(Summary.stateKind) state file (\"schema\": \"\(Summary.stateSchema)\"); refusing to overwrite it",
                       at: root.location)
    }
    let attempts = try attempts(root["failed_attempts"])
    guard let last = root["last"], !last.isNull else { return WatchState(last: nil, failedAttempts: attempts) }
    return WatchState(last: try Summary.read(last), failedAttempts: attempts)
  }
}
