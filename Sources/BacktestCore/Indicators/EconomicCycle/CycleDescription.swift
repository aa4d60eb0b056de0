import Foundation

/// Text for people about a quarter's classification inputs.
package enum CycleDescription {
  /// `2008Q2: GDP growth 1.60% (trend 2.95%), unemployment 5.4% (low 4.5%), inflation 4.31%, released 2008-08-04`.
  package static func inputs(_ row: QuarterRow?) -> String {
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
}
