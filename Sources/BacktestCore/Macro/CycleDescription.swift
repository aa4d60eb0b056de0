import Foundation

/// Text for people about a quarter's classification inputs.
public enum CycleDescription {
  /// `2008Q2: GDP growth 1.60% (trend 2.95%), unemployment 5.4% (low 4.5%), inflation 4.31%, released 2008-08-04`.
  public static func inputs(_ row: QuarterRow?) -> String {
    guard let r = row else { return "(no release within the staleness limit)" }
    var parts: [String] = []
    if let g = r.gdpYoY { parts.append("GDP growth \(String(format: "%.2f", g))%" + (r.trend.map { " (trend \(String(format: "%.2f", $0))%)" } ?? "")) }
    if let u = r.unemploymentRate {
      parts.append("unemployment \(String(format: "%.1f", u))%" + (r.unemploymentMinPrior.map { " (low \(String(format: "%.1f", $0))%)" } ?? ""))
    }
    if let i = r.inflationYoY { parts.append("inflation \(String(format: "%.2f", i))%") }
    if let t = r.termSpread { parts.append("term spread \(String(format: "%.2f", t))") }
    let released = r.availableAt.map { ", released \(CivilDate.isoDate(days: CivilDate.day(ofSeconds: $0)))" } ?? ""
    return "\(r.period): " + parts.joined(separator: ", ") + released
  }

  /// Lines for people about the classifier's inputs at the newest bar: the quarter in force and its age,
  /// growth against trend with the gap and momentum, unemployment, inflation, the term spread, each series.
  public static func details(_ d: LiveSignal.CycleDetails) -> [String] {
    func p(_ x: Double) -> String { String(format: "%.2f", x) }
    var lines: [String] = []
    guard let q = d.quarter else { return ["no macro release yet at the newest bar"] }
    let released = q.availableAt.map { CivilDate.isoDate(days: CivilDate.day(ofSeconds: $0)) } ?? "?"
    var head = "\(q.period) released \(released)" + (d.ageDays.map { ", \($0) days ago (stale after \(d.maxAgeDays))" } ?? "")
    if let since = d.stageSince { head += "; stage since \(CivilDate.isoDate(days: CivilDate.day(ofSeconds: since)))" }
    lines.append(head + (q.reason.isEmpty ? "" : ": " + q.reason))
    if let g = q.gdpYoY {
      var line = "GDP growth \(p(g))%"
      if let t = q.trend, let gap = q.gap { line += " vs trend \(p(t))% (gap \(p(gap)) pp" + (q.gapChange.map { ", momentum \(p($0)) pp over \(d.momentumQuarters) quarters" } ?? "") + ")" }
      if let rising = q.rising { line += ", \(rising ? "rising" : "falling")" }
      lines.append(line)
    }
    if let u = q.unemploymentRate {
      var line = "unemployment \(String(format: "%.1f", u))%"
      if let low = q.unemploymentMinPrior, let rise = q.unemploymentGap {
        line += " (low \(String(format: "%.1f", low))%, up \(p(rise)) pp: rule \(q.unemploymentTriggered == true ? "triggered" : "not triggered"))"
      }
      lines.append(line)
    }
    var other: [String] = []
    if let i = q.inflationYoY { other.append("inflation \(p(i))%") }
    if let t = q.termSpread { other.append("term spread \(p(t)) pp") }
    if !other.isEmpty { lines.append(other.joined(separator: ", ")) }
    if !d.series.isEmpty {
      lines.append("latest: " + d.series.map { "\($0.series.rawValue) \(formatPlain($0.value)) (\($0.period), released \(CivilDate.isoDate(days: CivilDate.day(ofSeconds: $0.releasedAt))))" }
        .joined(separator: ", "))
    }
    return lines
  }
}
