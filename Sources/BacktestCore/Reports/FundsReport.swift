import Foundation

/// The reports of `backtest funds`: the performance table and `funds.html` with a NAV chart per fund.
public enum FundsReport {
  public static let conventions = "Periods start at the last NAV on or before the end date minus the period (calendar weeks, months, years); total return = end / start − 1; CAGR = (end / start)^(365 / days) − 1 for periods of a year or more; volatility = sample standard deviation of daily simple returns in (start, end] × √252; — where the history is too short."

  /// The table's header and one row per fund: name, latest NAV, day's change, 1W–5Y total returns, 3Y CAGR, 1Y volatility.
  public static func table(_ funds: [FundPerformance]) -> (header: [String], rows: [[String]]) {
    let header = ["Fund", "NAV", "Day"] + FundPerformance.Period.allCases.map(\.rawValue) + ["CAGR 3Y", "Vol 1Y"]
    let rows = funds.map { f -> [String] in
      [f.history.name, String(format: "%.4f", f.latest), HumanFormat.percent(f.dailyChangeFraction)]
        + f.rows.map { HumanFormat.percent($0.totalReturn) }
        + [HumanFormat.percent(f.rows.first { $0.period == .threeYears }?.cagr), HumanFormat.percent(f.rows.first { $0.period == .year }?.volatility)]
    }
    return (header, rows)
  }

  /// One self-contained page: the table (returns coloured by sign) and each fund's NAV chart.
  public static func html(_ funds: [FundPerformance]) -> String {
    func e(_ x: String) -> String { SVGBuilder.escape(x) }
    var h = HTMLReport.opening("Fund performance")
    let (header, rows) = table(funds)
    h += "<div class=\"card\"><table><tr>" + header.map { "<th>\(e($0))</th>" }.joined() + "</tr>"
    for (f, row) in zip(funds, rows) {
      h += "<tr>"
      for (k, cell) in row.enumerated() {
        let returnColumn = k >= 2 && k < 3 + FundPerformance.Period.allCases.count
        let color = !returnColumn || cell == "—" ? "" : cell.hasPrefix("-") ? " style=\"color:#FF3B30\"" : " style=\"color:#34C759\""
        h += k == 0 ? "<td><a href=\"#\(chartID(f))\">\(e(cell))</a></td>" : "<td\(color)>\(e(cell))</td>"
      }
      h += "</tr>"
    }
    h += "</table><p class=\"note\">\(e(conventions))</p></div>\n"
    for f in funds { h += "<div class=\"card\">\(navChart(f))</div>\n" }
    h += "</main></body></html>\n"
    return h
  }

  static func chartID(_ f: FundPerformance) -> String {
    "nav-" + f.history.name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.reduce(into: "") { $0.append($1) }
  }

  /// NAV over the whole history, with a dashed line where each period of the table starts.
  static func navChart(_ f: FundPerformance) -> String {
    let h = f.history
    let width = RunCharts.width, height = 260.0, top = 44.0, bottom = 230.0, x0 = 70.0, x1 = width - 16
    let navs = ContiguousArray(h.navs)
    let (low, high) = (navs.min() ?? 0, navs.max() ?? 1)
    let pad = max((high - low) * 0.05, high * 0.001)
    let (vmin, vmax) = (low - pad, high + pad)
    let first = Double(h.days[0]), span = max(1, Double(h.days[h.days.count - 1]) - first)
    func x(_ day: Int) -> Double { x0 + (Double(day) - first) / span * (x1 - x0) }
    func y(_ v: Double) -> Double { bottom - (v - vmin) / (vmax - vmin) * (bottom - top) }
    var svg = SVGBuilder()
    let c = SVGBuilder.coordinate
    let title = "\(h.name): NAV \(CivilDate.isoDate(days: h.days[0])) → \(CivilDate.isoDate(days: h.days[h.days.count - 1]))"
    svg.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(c(width)) \(c(height))\" width=\"\(c(width))\" height=\"\(c(height))\" ")
    svg.raw("id=\"\(chartID(f))\" data-n=\"\(navs.count)\" data-vmin=\"\(vmin)\" data-vmax=\"\(vmax)\" role=\"img\"><title>\(SVGBuilder.escape(title))</title>" + RunCharts.style)
    svg.rect(x: 0, y: 0, width: width, height: height, attributes: "class=\"bg\"")
    svg.label(title, x: x0, y: 16, attributes: "class=\"title\"")
    for v in niceTicks(low: vmin, high: vmax) {
      svg.line(x0, y(v), x1, y(v), attributes: "class=\"grid\"")
      svg.label(RunCharts.priceText(v), x: x0 - 6, y: y(v) + 4, attributes: "class=\"label\" text-anchor=\"end\"")
    }
    svg.line(x0, bottom, x1, bottom, attributes: "class=\"axis\"")
    var lastYear = CivilDate.components(days: h.days[0]).year
    var lastX = -100.0
    for day in h.days {
      let year = CivilDate.components(days: day).year
      if year != lastYear && x(day) - lastX > 50 {
        svg.label(String(year), x: x(day), y: bottom + 16, attributes: "class=\"label\" text-anchor=\"middle\"")
        lastX = x(day)
      }
      lastYear = year
    }
    for row in f.rows where row.period.rawValue.hasSuffix("Y") {
      guard let start = row.startDay else { continue }
      svg.line(x(start), top, x(start), bottom, attributes: "stroke=\"#8e8e93\" stroke-dasharray=\"3 3\"")
      svg.label(row.period.rawValue + " " + HumanFormat.percent(row.totalReturn), x: x(start) + 3, y: top + 10)
    }
    let kept = largestTriangleThreeBuckets(navs, threshold: Int(x1 - x0) * 2)
    svg.polyline(kept.map { (x(h.days[$0]), y(navs[$0])) }, attributes: "stroke=\"#0071E3\" stroke-width=\"1.4\"")
    svg.raw("</svg>")
    return svg.text
  }
}
