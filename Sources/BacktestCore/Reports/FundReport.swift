import Foundation

/// `funds.html`: the performance table and, for each fund, its NAV chart
/// with 1W, 1M, 6M, 1Y, 3Y and 5Y range buttons (static SVG with scripts off).
public enum FundReport {
  /// The page: `header` and `rows` are the table the command prints, `conventions` how its figures are computed.
  public static func html(_ funds: [FundPerformance], header: [String], rows: [[String]], conventions: String) -> String {
    func e(_ x: String) -> String { SVGBuilder.escape(x) }
    var h = HTMLReport.opening("Fund performance")
    h += "<div class=\"card\"><table><tr>" + header.map { "<th>\(e($0))</th>" }.joined() + "</tr>"
    for row in rows { h += "<tr>" + row.map { "<td>\(e($0))</td>" }.joined() + "</tr>" }
    h += "</table><p class=\"note\">\(e(conventions))</p></div>\n"
    for (k, fund) in funds.enumerated() {
      let chart = InteractiveChart.fund(fund)
      h += chart.html(id: "fund-\(k + 1)", fallback: RunCharts.navTimeline(fund.history).line(ContiguousArray(fund.history.navs), title: chart.title, id: "nav-\(k + 1)"))
    }
    h += "<p class=\"note\">A range button shows the period from its start NAV (the last on or before the end date less the period) to the last; "
    h += "hover the last NAV for the period's total return.</p>\n"
    return h + HTMLReport.closing
  }
}

extension RunCharts {
  /// Charts over a fund's NAV dates.
  static func navTimeline(_ history: NAVHistory) -> RunCharts {
    var bars = BarSeries(source: history.name, capacity: history.days.count)
    for (day, nav) in zip(history.days, history.navs) {
      bars.append(time: Int64(day) * 86_400, day: Int32(day), open: nav, high: nav, low: nav, close: nav, volume: 0,
                  label: CivilDate.isoDate(days: day).utf8)
    }
    let navs = ContiguousArray(history.navs)
    return RunCharts(timeline: bars, equity: navs, comparison: nil, names: ("NAV", ""), initialCash: navs.first ?? 1)
  }
}
