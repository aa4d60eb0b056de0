import BacktestCore
import BacktestRun
import Foundation

/// The reports of `backtest funds`: the performance table and `funds.html` with a NAV chart per fund.
package enum FundsReport {
  package static let conventions = "Periods start at the last NAV on or before the end date minus the period (calendar weeks, months, years); total return = end / start − 1; CAGR = (end / start)^(365 / days) − 1 for periods of a year or more; volatility = sample standard deviation of daily simple returns in (start, end] × √252; — where the history is too short."

  /// The table's header and one row per fund: name, latest NAV, day's change, 1W–5Y total returns, 3Y CAGR, 1Y volatility.
  package static func table(_ funds: [FundPerformance]) -> (header: [String], rows: [[String]]) {
    let header = ["Fund", "NAV", "Day"] + FundPerformance.Period.allCases.map(\.rawValue) + ["CAGR 3Y", "Vol 1Y"]
    let rows = funds.map { f -> [String] in
      [f.history.name, String(format: "%.4f", f.latest), HumanFormat.percent(f.dailyChangeFraction)]
        + f.rows.map { HumanFormat.percent($0.totalReturn) }
        + [HumanFormat.percent(f.rows.first { $0.period == .threeYears }?.cagr), HumanFormat.percent(f.rows.first { $0.period == .year }?.volatility)]
    }
    return (header, rows)
  }

  /// One self-contained page: the table (returns coloured by sign, each fund's
  /// name linking to its chart) and each fund's NAV chart with 1W, 1M, 6M, 1Y,
  /// 3Y and 5Y range buttons (a static SVG with scripts off).
  package static func html(_ funds: [FundPerformance]) -> String {
    func e(_ x: String) -> String { SVGBuilder.escape(x) }
    var h = HTMLReport.opening("Fund performance")
    let (header, rows) = table(funds)
    h += "<div class=\"card\"><table><tr>" + header.map { "<th>\(e($0))</th>" }.joined() + "</tr>"
    for (k, row) in rows.enumerated() {
      h += "<tr>"
      for (c, cell) in row.enumerated() {
        let returnColumn = c >= 2 && c < 3 + FundPerformance.Period.allCases.count
        let color = !returnColumn || cell == "—" ? "" : cell.hasPrefix("-") ? " style=\"color:#FF3B30\"" : " style=\"color:#34C759\""
        h += c == 0 ? "<td><a href=\"#fund-\(k + 1)\">\(e(cell))</a></td>" : "<td\(color)>\(e(cell))</td>"
      }
      h += "</tr>"
    }
    h += "</table><p class=\"note\">\(e(conventions))</p></div>\n"
    for (k, fund) in funds.enumerated() {
      let chart = InteractiveChart.fund(fund)
      chart.appendHTML(to: &h, id: "fund-\(k + 1)", fallback: RunCharts.navTimeline(fund.history).line(ContiguousArray(fund.history.navs), title: chart.title, id: "nav-\(k + 1)"))
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

extension InteractiveChart {
  /// A fund's NAV with range buttons: each starts at the period's start NAV
  /// (`FundPerformance.Row.startDay`), so the hover box's change from the
  /// first bar in view at the last NAV is the period's total return.
  static func fund(_ f: FundPerformance) -> InteractiveChart {
    let h = f.history
    var chart = InteractiveChart(title: h.name + ": NAV", days: h.days)
    let nav = chart.data.add(h.navs, precision: .exact(maxDecimals: 6, otherwise: 10))
    chart.addPanel(id: "nav", title: chart.title, height: 240, format: .price, lines: [line(nav, "NAV", "#0071E3", width: 1.6)])
    chart.addTooltip(key: "nav", label: "NAV", column: nav, format: .price)
    chart.addTooltip(key: "change", label: "since", column: nav, format: .percent, change: true)
    var ranges: [JSONValue] = []
    for row in f.rows {
      guard let start = row.startDay, let index = h.days.firstIndex(of: start) else { continue }
      ranges.append(.array([.string(row.period.rawValue), .integer(index)]))
    }
    ranges.append(.array([.string("All"), .integer(0)]))
    chart.extra.append(("ranges", .array(ranges)))
    return chart
  }
}
