/// An economic-cycle stage (`Docs/spec/economic-cycle.md` §1). The raw
/// value is the spec's exact, case-sensitive spelling.
public enum CycleStage: String, Sendable, CaseIterable, Comparable {
  /// The output gap at or above trend and rising.
  case expansion = "Expansion"
  /// The output gap at or above trend and falling; also a contraction that the unemployment rule, when on, does not
  /// confirm.
  case peak = "Peak"
  /// The output gap below trend and falling (confirmed by the unemployment rule when it is on).
  case contraction = "Contraction"
  /// The output gap below trend and rising.
  case recovery = "Recovery"
  /// Not classifiable: too little data, or the latest classification is older than allowed.
  case unknown = "unknown"

  /// The app color of the stage (none for `unknown`).
  package var color: String? {
    switch self {
    case .expansion: return "#34C759"
    case .peak: return "#FF9500"
    case .contraction: return "#FF3B30"
    case .recovery: return "#0071E3"
    case .unknown: return nil
    }
  }

  /// Reads a stage name in any case (`expansion`, `Expansion`).
  package init?(name: String) {
    guard let s = CycleStage.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else { return nil }
    self = s
  }

  public static func < (a: CycleStage, b: CycleStage) -> Bool {
    allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
  }
}

/// The classifier's parameters (§9), with the spec's defaults.
package struct CycleSettings: Sendable, Equatable {
  package enum Trend: String, Sendable { case trailing, fixed }
  package enum UnemploymentRule: String, Sendable { case require, off }
  package var trend = Trend.trailing
  package var trendWindowQuarters = 40
  package var trendMinQuarters = 8
  package var fixedTrendPct = 3.0
  package var momentumQuarters = 2
  package var unemploymentRule = UnemploymentRule.require
  package var unemploymentThresholdPP = 0.5
  package var unemploymentLookbackQuarters = 4
  package var releaseLagDays: [MacroSeries: Int] = Dictionary(uniqueKeysWithValues: MacroSeries.allCases.map { ($0, $0.defaultReleaseLagDays) })
  package var maxStageAgeDays = 190

  package init() {}
}

/// One quarter of the classification: the spec's stage table row (§8).
package struct QuarterRow: Sendable, Equatable {
  /// `year * 4 + quarter - 1`.
  package var quarter: Int
  /// When the row's stage may be used (§3.2), seconds since 1970 UTC; `nil` when not released.
  package var availableAt: Int64?
  package var realGDP: Double?
  package var gdpYoY: Double?
  package var trend: Double?
  package var gap: Double?
  package var gapChange: Double?
  /// `true` for rising, `false` for falling.
  package var rising: Bool?
  package var baseStage: CycleStage?
  package var unemploymentRate: Double?
  package var unemploymentMinPrior: Double?
  package var unemploymentGap: Double?
  package var unemploymentTriggered: Bool?
  package var stage: CycleStage
  package var reason: String
  package var inflationYoY: Double?
  package var termSpread: Double?

  package var year: Int { quarter / 4 }
  package var quarterOfYear: Int { quarter % 4 + 1 }
  /// `2008Q4`.
  package var period: String { "\(year)Q\(quarterOfYear)" }
  package var firstDay: Int { CivilDate.days(year: year, month: 3 * quarterOfYear - 2, day: 1) }
  package var lastDay: Int {
    CivilDate.days(year: year, month: 3 * quarterOfYear, day: CivilDate.daysInMonth(year: year, month: 3 * quarterOfYear))
  }
}

/// The four-stage growth-cycle classifier with the unemployment (Sahm-style)
/// confirmation, exactly as `Docs/spec/economic-cycle.md` §3–§5 defines it.
///
/// Arithmetic follows the spec's order of operations (sums left to right in
/// quarter order from 0.0; comparisons with `EPS = 1e-9`), so the numbers
/// are bit-identical to the reference implementation's.
package enum CycleClassifier {
  package static let eps = 1e-9

  /// A series reduced to quarters: value and release instant.
  typealias Quarterly = [Int: (value: Double, availableAt: Int64)]

  static func quarterIndex(day: Int) -> Int {
    let c = CivilDate.components(days: day)
    return c.year * 4 + (c.month - 1) / 3
  }

  static func monthIndex(day: Int) -> Int {
    let c = CivilDate.components(days: day)
    return c.year * 12 + c.month - 1
  }

  static func midnight(_ day: Int) -> Int64 { Int64(day) * 86_400 }

  /// Whether a series is monthly: some quarter holds more than one of its observations (§3.1).
  static func isMonthly(_ observations: [MacroObservation]) -> Bool {
    var seen = Set<Int>()
    return observations.contains { !seen.insert(quarterIndex(day: $0.day)).inserted }
  }

  /// The last day of an observation's period: its month when the series is monthly, else its quarter.
  static func periodEnd(_ o: MacroObservation, monthly: Bool) -> Int {
    let c = CivilDate.components(days: o.day)
    let month = monthly ? c.month : 3 * ((c.month - 1) / 3 + 1)
    return CivilDate.days(year: c.year, month: month, day: CivilDate.daysInMonth(year: c.year, month: month))
  }

  /// When an observation may be used (§3.2): its own release instant, else midnight UTC `lag` days after its period ends.
  static func release(_ o: MacroObservation, monthly: Bool, lag: Int) -> Int64 {
    o.availableAt ?? midnight(periodEnd(o, monthly: monthly) + lag)
  }

  /// Reduces one series to quarterly values and release instants (§3.1, §3.2).
  static func toQuarterly(_ name: MacroSeries, _ observations: [MacroObservation], lag: Int) throws -> Quarterly {
    var byQuarter: [Int: [MacroObservation]] = [:]
    for o in observations { byQuarter[quarterIndex(day: o.day), default: []].append(o) }
    let monthly = isMonthly(observations)
    if monthly && name == .realGDP {
      let second = byQuarter.sorted { $0.key < $1.key }.first { $0.value.count > 1 }!.value[1]
      throw InputError("a second real_gdp value in one quarter; expected quarterly real GDP", at: second.location)
    }
    func release(_ o: MacroObservation) -> Int64 { Self.release(o, monthly: monthly, lag: lag) }
    // Within one series, releases must not go back in time from one period to the next (§2.3).
    let ordered = observations.enumerated().sorted {
      let a = monthly ? monthIndex(day: $0.element.day) : quarterIndex(day: $0.element.day)
      let b = monthly ? monthIndex(day: $1.element.day) : quarterIndex(day: $1.element.day)
      return a != b ? a < b : $0.offset < $1.offset
    }.map(\.element)
    for (previous, o) in zip(ordered, ordered.dropFirst()) {
      if monthly && monthIndex(day: previous.day) == monthIndex(day: o.day) {
        let c = CivilDate.components(days: o.day)
        throw InputError("a second \(name.rawValue) value for \(c.year)-\(CivilDate.pad(c.month, 2)); expected one per month",
                         at: o.location)
      }
      if !monthly && quarterIndex(day: previous.day) == quarterIndex(day: o.day) {
        throw InputError("a second \(name.rawValue) value in one quarter", at: o.location)
      }
      if release(o) < release(previous) {
        throw InputError(
          "\(name.rawValue) is released at \(isoInstant(release(o))), before the previous period's value (\(isoInstant(release(previous))), line \(previous.location.line)); expected release times that do not decrease",
          at: o.location)
      }
    }
    var out: Quarterly = [:]
    for (q, list) in byQuarter {
      if !monthly {
        out[q] = (list[0].value, release(list[0]))
        continue
      }
      let months = Dictionary(uniqueKeysWithValues: list.map { (CivilDate.components(days: $0.day).month, $0) })
      let wanted = [3 * (q % 4) + 1, 3 * (q % 4) + 2, 3 * (q % 4) + 3]
      guard wanted.allSatisfy({ months[$0] != nil }) else { continue }  // an incomplete quarter has no value
      var sum = 0.0
      for m in wanted { sum += months[m]!.value }
      out[q] = (sum / 3.0, wanted.map { release(months[$0]!) }.max()!)
    }
    return out
  }

  /// Classifies every quarter from the first to the last with real GDP.
  ///
  /// - Throws: `InputError` for bad input (§2.3): no real GDP, no unemployment
  ///   when the rule needs it, inconsistent periods or release times.
  package static func classify(_ data: MacroData, settings s: CycleSettings) throws -> [QuarterRow] {
    let file = data.files.first ?? "macro"
    guard let gdpObservations = data.series[.realGDP], !gdpObservations.isEmpty else {
      throw InputError("no real_gdp series; expected a realgdp, real_gdp or GDPC1 column or series", file: file)
    }
    let useUnemployment = s.unemploymentRule == .require
    if useUnemployment && (data.series[.unemploymentRate]?.isEmpty ?? true) {
      throw InputError("no unemployment_rate series; expected unemp, unemployment_rate or UNRATE (or cycle.unemployment_rule: off)",
                       file: file)
    }
    var quarterly: [MacroSeries: Quarterly] = [:]
    for (name, observations) in data.series.sorted(by: { $0.key < $1.key }) {
      quarterly[name] = try toQuarterly(name, observations, lag: s.releaseLagDays[name] ?? name.defaultReleaseLagDays)
    }
    let gdp = quarterly[.realGDP]!
    let unemployment = useUnemployment ? quarterly[.unemploymentRate] ?? [:] : [:]
    let cpi = quarterly[.cpi] ?? [:], shortRate = quarterly[.shortRate] ?? [:], longRate = quarterly[.longRate] ?? [:]
    let first = gdp.keys.min()!, last = gdp.keys.max()!

    // §4.1 year-over-year growth.
    var growth: [Int: Double] = [:]
    for q in first...last {
      if let now = gdp[q], let before = gdp[q - 4] { growth[q] = (now.value / before.value - 1.0) * 100.0 }
    }
    // §3.2 release time of a quarter: running maximum over the deciding series.
    var release: [Int: Int64] = [:]
    for source in [gdp, unemployment] {
      for (q, v) in source { release[q] = max(release[q] ?? .min, v.availableAt) }
    }
    var runningRelease: [Int: Int64] = [:]
    var current = Int64.min
    for q in release.keys.sorted() {
      current = max(current, release[q]!)
      runningRelease[q] = current
    }
    let releasedQuarters = runningRelease.keys.sorted()

    var rows: [QuarterRow] = []
    var gaps: [Int: Double] = [:]
    var directions: [Int: Bool] = [:]
    for q in first...last {
      var row = QuarterRow(quarter: q, stage: .unknown, reason: "")
      if let g = gdp[q] {
        row.realGDP = g.value
        if !useUnemployment || unemployment[q] != nil {
          let latest = releasedQuarters.last { $0 <= q }!
          row.availableAt = runningRelease[latest]
        }
      }
      // §4.2–4.3 trend and gap.
      var gap: Double?
      if let g = growth[q] {
        row.gdpYoY = g
        var trend: Double?
        switch s.trend {
        case .fixed: trend = s.fixedTrendPct
        case .trailing:
          var sum = 0.0, n = 0
          for j in (q - s.trendWindowQuarters)..<q {
            if let x = growth[j] { sum += x; n += 1 }
          }
          if n >= s.trendMinQuarters { trend = sum / Double(n) }
        }
        if let trend {
          row.trend = trend
          gap = g - trend
          row.gap = gap
          gaps[q] = gap
        } else {
          row.reason = "not enough growth history for the trend"
        }
      } else {
        row.reason = "no real_gdp for this quarter or for 4 quarters earlier"
      }
      // §4.4 direction.
      if let gap {
        if let previous = gaps[q - s.momentumQuarters] {
          let change = gap - previous
          row.gapChange = change
          let rising = change > eps ? true : change < -eps ? false : (directions[q - 1] ?? true)
          directions[q] = rising
          row.rising = rising
        } else {
          row.reason = "no gap \(s.momentumQuarters) quarter(s) earlier"
        }
      }
      // §4.5 base stage.
      if let gap, let rising = row.rising {
        let above = gap >= -eps
        row.baseStage = above ? (rising ? .expansion : .peak) : (rising ? .recovery : .contraction)
      }
      // §5 unemployment rule and final stage.
      var triggered: Bool?
      if useUnemployment {
        if let u = unemployment[q] {
          row.unemploymentRate = u.value
          let lookback = s.unemploymentLookbackQuarters
          if ((q - lookback)..<q).allSatisfy({ unemployment[$0] != nil }) {
            var lowest = unemployment[q - lookback]!.value
            for j in (q - lookback + 1)..<q where unemployment[j]!.value < lowest { lowest = unemployment[j]!.value }
            let rise = u.value - lowest
            triggered = rise >= s.unemploymentThresholdPP - eps
            row.unemploymentMinPrior = lowest
            row.unemploymentGap = rise
            row.unemploymentTriggered = triggered
          }
        }
        if triggered == nil && row.baseStage != nil { row.reason = "not enough unemployment history" }
      }
      if let base = row.baseStage, !useUnemployment || triggered != nil {
        row.stage = base
        row.reason = reasonText(base)
        if useUnemployment && base == .contraction {
          if triggered! {
            row.reason += "; unemployment rule triggered"
          } else {
            row.stage = .peak
            row.reason += "; unemployment rule not triggered -> Peak"
          }
        }
      }
      if let c = cpi[q], let before = cpi[q - 4] { row.inflationYoY = (c.value / before.value - 1.0) * 100.0 }
      if let short = shortRate[q], let long = longRate[q] { row.termSpread = long.value - short.value }
      rows.append(row)
    }
    return rows
  }

  /// The newest value of each series released by `t` (the value a decision at `t` may read), in series order.
  package static func latestReleased(_ data: MacroData, settings s: CycleSettings, at t: Int64) -> [MacroRelease] {
    data.series.sorted { $0.key < $1.key }.compactMap { name, observations in
      let monthly = isMonthly(observations)
      let lag = s.releaseLagDays[name] ?? name.defaultReleaseLagDays
      guard let o = observations.filter({ release($0, monthly: monthly, lag: lag) <= t }).max(by: { $0.day < $1.day }) else { return nil }
      let c = CivilDate.components(days: o.day)
      let period = monthly ? "\(c.year)-\(CivilDate.pad(c.month, 2))" : "\(c.year)Q\((c.month - 1) / 3 + 1)"
      return MacroRelease(series: name, value: o.value, period: period, releasedAt: release(o, monthly: monthly, lag: lag))
    }
  }

  static func reasonText(_ base: CycleStage) -> String {
    switch base {
    case .expansion: return "gap above trend and rising"
    case .peak: return "gap above trend and falling"
    case .contraction: return "gap below trend and falling"
    case .recovery: return "gap below trend and rising"
    case .unknown: return ""
    }
  }
}

/// One released value of a macro series, as read from the file.
package struct MacroRelease: Sendable, Equatable {
  package var series: MacroSeries
  /// In the file's units (`unemployment_rate` 4.1 is 4.1%).
  package var value: Double
  /// `2024Q2` for a quarterly series, `2024-06` for a monthly one.
  package var period: String
  /// Seconds since 1970 UTC.
  package var releasedAt: Int64
}

/// Formats an instant as `YYYY-MM-DDTHH:MM:SSZ`.
package func isoInstant(_ t: Int64) -> String { CivilDate.isoDateTime(seconds: t, offset: 0) }
