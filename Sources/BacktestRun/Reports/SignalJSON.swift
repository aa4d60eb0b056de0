import BacktestCore
/// The `--json` form of the live signal: schema `backtest.signal/1`
/// (documented in `Docs/signal.schema.json`). Fractions, never percents;
/// `null` where a value is undefined; `position` is `null` when flat.
package enum SignalJSON {
  package static let schema = "backtest.signal/1"

  /// Keys the schema's first version requires whatever the strategy: `null` when the strategy reports no such value.
  static let requiredStrategyKeys = ["bb_lower", "bb_mid", "bb_upper", "percent_b", "rsi", "rsi_zone", "distance_from_mean"]

  /// - Parameter state: with `--state`, whether the signal changed since the stored one and that stored one
  ///   (`SignalSummary.json`; `null` on the first check). Without, both keys are `null`.
  package static func render(_ s: LiveSignal, strategy: String, data: String, state: (changed: Bool, previous: JSONValue)? = nil) -> JSONValue {
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
      ("bar_age_seconds", s.barAgeSeconds.map { .integer(Int($0)) } ?? .null),
      ("stale", s.stale.map { .bool($0) } ?? .null),
      ("strategy", .string(strategy)), ("data", .string(data)),
      ("indicators", .object(s.indicators.map { ($0.name, .optional($0.value)) })),
      ("exit_reason", s.exitReason.map { .string($0.rawValue) } ?? .null),
      ("cycle_details", s.cycleDetails.map(cycleDetails) ?? .null),
      ("changed", state.map { .bool($0.changed) } ?? .null),
      ("previous", state?.previous ?? .null),
    ] + values)
  }

  /// The classifier's inputs: figures it computes in percent are written as fractions (`gdp_growth` 0.016 for 1.6%);
  /// each series' value is as written in the macro file.
  static func cycleDetails(_ d: LiveSignal.CycleDetails) -> JSONValue {
    let q = d.quarter
    func fraction(_ percent: Double?) -> JSONValue { .optional(percent.map { $0 / 100 }) }
    func text(_ x: String?) -> JSONValue { x.map { .string($0) } ?? .null }
    func flag(_ x: Bool?) -> JSONValue { x.map { .bool($0) } ?? .null }
    let series: [JSONValue] = d.series.map { r in
      let fields: [(String, JSONValue)] = [("name", .string(r.series.rawValue)), ("value", .number(r.value)), ("period", .string(r.period)),
                                           ("released", .string(isoInstant(r.releasedAt)))]
      return .object(fields)
    }
    var fields: [(String, JSONValue)] = [
      ("stage", .string(d.stage.rawValue)), ("quarter", text(q?.period)), ("released", text(q?.availableAt.map(isoInstant))),
      ("age_days", d.ageDays.map { .integer($0) } ?? .null), ("max_age_days", .integer(d.maxAgeDays)),
      ("stage_since", text(d.stageSince.map(isoInstant))), ("quarter_stage", text(q?.stage.rawValue)), ("reason", text(q?.reason)),
    ]
    fields += [
      ("gdp_growth", fraction(q?.gdpYoY)), ("trend_growth", fraction(q?.trend)), ("growth_gap", fraction(q?.gap)),
      ("momentum", fraction(q?.gapChange)), ("momentum_quarters", .integer(d.momentumQuarters)),
      ("direction", text(q?.rising.map { $0 ? "rising" : "falling" })),
    ]
    fields += [
      ("unemployment_rate", fraction(q?.unemploymentRate)), ("unemployment_low", fraction(q?.unemploymentMinPrior)),
      ("unemployment_rise", fraction(q?.unemploymentGap)), ("unemployment_rule_triggered", flag(q?.unemploymentTriggered)),
      ("inflation", fraction(q?.inflationYoY)), ("term_spread", fraction(q?.termSpread)), ("series", .array(series)),
    ]
    return .object(fields)
  }
}
