/// The `--json` form of the live signal: schema `backtest.signal/1`
/// (documented in `Docs/signal.schema.json`). Fractions, never percents;
/// `null` where a value is undefined; `position` is `null` when flat.
public enum SignalJSON {
  public static let schema = "backtest.signal/1"

  /// Keys the schema's first version requires whatever the strategy: `null` when the strategy reports no such value.
  static let requiredStrategyKeys = ["bb_lower", "bb_mid", "bb_upper", "percent_b", "rsi", "rsi_zone", "distance_from_mean"]

  public static func render(_ s: LiveSignal, strategy: String, data: String) -> JSONValue {
    let position: JSONValue = s.position.map { p in
      .object([
        ("entry_price", .number(p.entryPrice)), ("entry_time", .string(p.entryTime)), ("shares", .number(p.shares)),
        ("unrealized_pnl", .number(p.unrealizedPnl)), ("unrealized_return", .number(p.unrealizedReturn)),
        ("stop", .optional(p.stopLevel)), ("target", .optional(p.targetLevel)),
        ("bars_held", p.barsHeld.map { .integer($0) } ?? .null),
        ("exit_condition", p.exitCondition.map { .string($0) } ?? .null), ("source", .string(p.source)),
      ])
    } ?? .null
    var values: [(String, JSONValue)] = s.details.values.map { ($0.key, .optional($0.value)) }
      + s.details.labels.map { ($0.key, $0.value.map { .string($0) } ?? .null) }
    func take(_ key: String) -> JSONValue {
      guard let k = values.firstIndex(where: { $0.0 == key }) else { return .null }
      return values.remove(at: k).1
    }
    let required = requiredStrategyKeys.map { ($0, take($0)) }
    return .object([
      ("schema", .string(schema)), ("signal", .string(s.action.rawValue)), ("reason", .string(s.reason)),
      ("time", .string(s.time)), ("close", .number(s.close)), ("day_change", .optional(s.dayChange)),
      ("day_change_fraction", .optional(s.dayChangeFraction))]
      + required + [
      ("cycle", s.cycle.map { .string($0.rawValue) } ?? .null),
      ("position", position),
      ("alerts", .array(s.alerts.map { .object([("direction", .string($0.alert.direction.rawValue)),
                                                ("level", .number($0.alert.level)), ("crossed", .bool($0.crossed))]) })),
      ("next_bar_close", s.nextBarClose.map { .string(isoInstant($0)) } ?? .null),
      ("seconds_to_next_bar_close", s.secondsToNextBarClose.map { .integer(Int($0)) } ?? .null),
      ("strategy", .string(strategy)), ("data", .string(data)),
      ("indicators", .object(s.indicators.map { ($0.name, .optional($0.value)) })),
    ] + values)
  }
}
