import BacktestCore
import Foundation

/// The stage table of spec §8 as CSV.
package enum CycleStageTable {
  package static let columns = "period,period_start,period_end,available_at,real_gdp,gdp_yoy,trend,gap,gap_change,direction,base_stage,unemployment_rate,unemployment_min_prior,unemployment_gap,unemployment_triggered,stage,reason,inflation_yoy,term_spread"

  package static func csv(_ rows: [QuarterRow]) -> String {
    func n(_ x: Double?) -> String { x.map { $0.description } ?? "" }
    var out = columns + "\n"
    for r in rows {
      let fields: [String] = [
        r.period, CivilDate.isoDate(days: r.firstDay), CivilDate.isoDate(days: r.lastDay), r.availableAt.map(isoInstant) ?? "",
        n(r.realGDP), n(r.gdpYoY), n(r.trend), n(r.gap), n(r.gapChange), r.rising.map { $0 ? "rising" : "falling" } ?? "",
        r.baseStage?.rawValue ?? "", n(r.unemploymentRate), n(r.unemploymentMinPrior), n(r.unemploymentGap),
        r.unemploymentTriggered.map { $0 ? "1" : "0" } ?? "", r.stage.rawValue, csvField(r.reason), n(r.inflationYoY), n(r.termSpread),
      ]
      out += fields.joined(separator: ",") + "\n"
    }
    return out
  }
}
