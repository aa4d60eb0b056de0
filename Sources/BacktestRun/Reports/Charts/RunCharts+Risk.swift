import BacktestCore
import Foundation

/// The risk views of a run's report: rolling volatility and Sharpe ratio, the worst drawdowns with their dates and
/// lengths, yearly returns against the comparison, and the distribution of daily returns. Daily figures are those of
/// the equity at each day's last bar, as the Sharpe ratio of the summary takes them.
extension RunCharts {
  /// The last bar of each calendar day.
  package var dayEnds: [Int] { (0..<n).filter { $0 == n - 1 || bars.day[$0 + 1] != bars.day[$0] } }

  /// One drawdown: from the peak (the last bar at the running high before it), through the trough, to the
  /// recovery (the first bar back at that high; `nil` when the equity never got back there).
  package struct DrawdownPeriod: Equatable, Sendable {
    package var peak: Int, trough: Int, recovery: Int?
    /// The equity at the trough over the peak's, less 1 (negative).
    package var depth: Double
  }

  /// The `count` deepest drawdowns of the equity over every bar, deepest first (the first is the maximum drawdown).
  package func drawdownPeriods(count: Int = 5) -> [DrawdownPeriod] {
    let equity = equitySeries
    var periods: [DrawdownPeriod] = []
    var peak = 0, i = 1
    while i < equity.count {
      if equity[i] >= equity[peak] { peak = i; i += 1; continue }
      // Below the high from `peak`: the period runs until the equity is back at it.
      var trough = i
      var k = i
      while k < equity.count && equity[k] < equity[peak] {
        if equity[k] < equity[trough] { trough = k }
        k += 1
      }
      periods.append(DrawdownPeriod(peak: peak, trough: trough, recovery: k < equity.count ? k : nil, depth: equity[trough] / equity[peak] - 1))
      peak = k < equity.count ? k : peak
      i = k + 1
    }
    return Array(periods.sorted { $0.depth < $1.depth || ($0.depth == $1.depth && $0.peak < $1.peak) }.prefix(count))
  }

  /// Calendar days from bar `a`'s day to bar `b`'s.
  func days(_ a: Int, _ b: Int) -> Int { Int(bars.day[b]) - Int(bars.day[a]) }
  func date(_ i: Int) -> String { CivilDate.isoDate(days: Int(bars.day[i])) }

  /// The worst drawdowns as a Markdown table: peak, trough, recovery (or not yet), depth, and their lengths in days.
  package func drawdownMarkdown() -> String {
    let periods = drawdownPeriods()
    guard !periods.isEmpty else { return "The equity never fell below a previous high.\n" }
    var md = "| # | Peak | Trough | Recovered | Depth | Days to the trough | Days under water |\n|---:|---|---|---|---:|---:|---:|\n"
    for (k, p) in periods.enumerated() {
      md += "| \(k + 1) | \(date(p.peak)) | \(date(p.trough)) | \(p.recovery.map(date) ?? "not yet") | \(HumanFormat.percent(p.depth)) | "
      md += "\(HumanFormat.integer(days(p.peak, p.trough))) | \(HumanFormat.integer(days(p.peak, p.recovery ?? (n - 1))))\(p.recovery == nil ? " so far" : "") |\n"
    }
    return md + "\nThe \(periods.count == 1 ? "drawdown" : "\(periods.count) deepest drawdowns") of the equity over every bar (the first is the maximum drawdown); days are calendar days from the peak.\n"
  }

  /// Returns by calendar year from year-end equity (the first year against the initial cash), and the comparison's.
  package var yearlyReturns: [(year: Int, value: Double, comparison: Double?)] {
    var out: [(Int, Double, Double?)] = []
    var previous = initialCash, previousComparison = comparisonSeries.map { _ in initialCash }
    for i in 0..<n where i == n - 1 || bars.day[i + 1] != bars.day[i] {  // a year ends with a day
      let year = CivilDate.components(days: Int(bars.day[i])).year
      guard i == n - 1 || CivilDate.components(days: Int(bars.day[i + 1])).year != year else { continue }
      let comparison = comparisonSeries.map { $0[i] }
      out.append((year, equitySeries[i] / previous - 1, comparison.flatMap { c in previousComparison.map { c / $0 - 1 } }))
      previous = equitySeries[i]
      previousComparison = comparison
    }
    return out.map { (year: $0.0, value: $0.1, comparison: $0.2) }
  }

  /// The yearly returns as a Markdown table, against the comparison.
  package func yearlyMarkdown() -> String {
    let years = yearlyReturns
    let other = comparisonSeries != nil
    var md = "| Year | \(names.equity) |" + (other ? " \(names.comparison) | Difference |\n|---|---:|---:|---:|\n" : "\n|---|---:|\n")
    for y in years {
      md += "| \(y.year) | \(HumanFormat.percent(y.value)) |"
      md += other ? " \(HumanFormat.percent(y.comparison)) | \(HumanFormat.percent(y.comparison.map { y.value - $0 })) |\n" : "\n"
    }
    return md + "\nThe first year from the initial cash, each later one from the equity at the last bar of the year before.\n"
  }

  /// The yearly returns as bars, the run's beside the comparison's.
  package func yearlyChart() -> String {
    let years = yearlyReturns
    let height = 240.0, top = 44.0, bottom = 200.0
    var vmin = 0.0, vmax = 0.0
    for y in years { vmin = min(vmin, y.value, y.comparison ?? 0); vmax = max(vmax, y.value, y.comparison ?? 0) }
    let pad = (vmax - vmin) * 0.08 + 1e-9
    vmin = vmin < 0 ? vmin - pad : 0; vmax += pad
    var svg = open(height, "Yearly returns: \(names.equity)\(comparisonSeries == nil ? "" : " and " + names.comparison)", top: top, bottom: bottom,
                   vmin: vmin, vmax: vmax, id: "yearly")
    axes(&svg, top: top, bottom: bottom, vmin: vmin, vmax: vmax, format: Self.percentText, dates: false)
    let slot = (x1 - x0) / Double(max(1, years.count)), zero = y(0, top, bottom, vmin, vmax)
    let width = min(28, slot * (comparisonSeries == nil ? 0.6 : 0.36))
    for (k, year) in years.enumerated() {
      let centre = x0 + slot * (Double(k) + 0.5)
      let bars: [(Double?, String, String)] = [(year.value, "#0071E3", "strategy")] + (comparisonSeries == nil ? [] : [(year.comparison, "#8e8e93", "comparison")])
      for (j, bar) in bars.enumerated() {
        guard let v = bar.0 else { continue }
        let left = centre + (bars.count == 1 ? -width / 2 : j == 0 ? -width - 1 : 1), yv = y(v, top, bottom, vmin, vmax)
        svg.rect(x: left, y: min(yv, zero), width: width, height: max(0.5, abs(yv - zero)),
                 attributes: "fill=\"\(bar.1)\" data-year=\"\(year.year)\" data-series=\"\(bar.2)\" data-value=\"\(v)\"")
        svg.label(FixedDecimal.text(v * 100, decimals: 1) + "%", x: left + width / 2, y: v >= 0 ? yv - 3 : yv + 11,
                  attributes: "class=\"label\" text-anchor=\"middle\" font-size=\"9\"")
      }
      svg.label(String(year.year), x: centre, y: bottom + 16, attributes: "class=\"label\" text-anchor=\"middle\"")
    }
    legend(&svg, at: x0 + 330)
    svg.raw("</svg>")
    return svg.text
  }

  /// The two lines' legend, from `at`.
  func legend(_ svg: inout SVGBuilder, at: Double) {
    svg.line(at, 30, at + 16, 30, attributes: "stroke=\"#0071E3\" stroke-width=\"2\""); svg.label(names.equity, x: at + 20, y: 34)
    if comparisonSeries != nil {
      let next = at + 30 + 6.5 * Double(names.equity.count)
      svg.line(next, 30, next + 16, 30, attributes: "stroke=\"#8e8e93\" stroke-width=\"2\" stroke-dasharray=\"5 3\""); svg.label(names.comparison, x: next + 20, y: 34)
    }
  }

  /// Rolling annualized volatility and Sharpe ratio of the daily returns over `window` days (`window(days)`: 126,
  /// half a year of trading days, or a quarter of the days when there are fewer than 504), for the run and the comparison.
  package func rollingValues(window: Int) -> (ends: [Int], volatility: [ContiguousArray<Double>], sharpe: [ContiguousArray<Double>]) {
    let ends = dayEnds
    var volatility: [ContiguousArray<Double>] = [], sharpe: [ContiguousArray<Double>] = []
    for series in [equitySeries] + (comparisonSeries.map { [$0] } ?? []) {
      var vol = ContiguousArray<Double>(repeating: .nan, count: ends.count), sr = vol
      var returns = [Double](repeating: 0, count: ends.count)
      for d in 1..<max(1, ends.count) { returns[d] = series[ends[d]] / series[ends[d - 1]] - 1 }
      var sum = 0.0, squares = 0.0
      for d in 1..<max(1, ends.count) {
        sum += returns[d]; squares += returns[d] * returns[d]
        if d > window { sum -= returns[d - window]; squares -= returns[d - window] * returns[d - window] }
        guard d >= window else { continue }
        let w = Double(window), m = sum / w, variance = max(0, (squares - w * m * m) / (w - 1))
        vol[d] = variance.squareRoot() * 252.0.squareRoot()
        sr[d] = variance > 1e-18 ? m / variance.squareRoot() * 252.0.squareRoot() : .nan
      }
      volatility.append(vol); sharpe.append(sr)
    }
    return (ends, volatility, sharpe)
  }

  /// The window of the rolling figures: 126 days, or a quarter of the days when there are fewer than 504; `nil` under 40 days.
  package var rollingWindow: Int? {
    let days = dayEnds.count
    return days < 40 ? nil : days >= 504 ? 126 : days / 4
  }

  /// The rolling volatility (above) and Sharpe ratio (below) as one chart; `nil` when there are too few days.
  package func rollingChart() -> String? {
    guard let window = rollingWindow else { return nil }
    let r = rollingValues(window: window)
    let height = 360.0, panels = [(top: 44.0, bottom: 180.0), (top: 214.0, bottom: 340.0)]
    var svg = open(height, "Rolling \(window)-day volatility and Sharpe ratio (annualized, of daily returns)", top: panels[0].top,
                   bottom: panels[1].bottom, vmin: 0, vmax: 0, id: "rolling")
    for p in 0..<2 {
      let (values, title) = p == 0 ? (r.volatility, "volatility") : (r.sharpe, "Sharpe ratio")
      let (top, bottom) = panels[p]
      var vmin = Double.infinity, vmax = -Double.infinity
      for line in values { for v in line where v.isFinite { vmin = min(vmin, v); vmax = max(vmax, v) } }
      if !(vmin < vmax) { vmin = (vmin.isFinite ? vmin : 0) - 1; vmax = vmin + 2 }
      if p == 0 { vmin = min(vmin, 0) }
      let pad = (vmax - vmin) * 0.05
      vmin -= p == 0 && vmin == 0 ? 0 : pad; vmax += pad
      axes(&svg, top: top, bottom: bottom, vmin: vmin, vmax: vmax, format: p == 0 ? Self.percentText : { FixedDecimal.text($0, decimals: 1) }, dates: p == 1)
      if p == 1 && vmin < 0 && vmax > 0 {
        let y0 = y(0, top, bottom, vmin, vmax)
        svg.line(x0, y0, x1, y0, attributes: "class=\"axis\"")
      }
      svg.label(title, x: x0 + 4, y: top + 12)
      for (k, line) in values.enumerated().reversed() {
        let picked = largestTriangleThreeBuckets(line, threshold: columns * 2)
        svg.polyline(picked.map { (x(r.ends[$0]), y(line[$0], top, bottom, vmin, vmax)) },
                     attributes: k == 0 ? "stroke=\"#0071E3\" stroke-width=\"1.4\" id=\"rolling-\(p == 0 ? "volatility" : "sharpe")\""
                       : "stroke=\"#8e8e93\" stroke-width=\"1.1\" stroke-dasharray=\"5 3\" id=\"rolling-\(p == 0 ? "volatility" : "sharpe")-comparison\"")
      }
    }
    legend(&svg, at: x0 + 560)
    svg.raw("</svg>")
    return svg.text
  }

  /// The distribution of the daily returns (days with no change left out: out of the market), with its figures.
  package func dailyReturnsChart() -> String {
    let ends = dayEnds
    var returns: [Double] = []
    var flat = 0
    for d in 1..<max(1, ends.count) {
      let r = equitySeries[ends[d]] / equitySeries[ends[d - 1]] - 1
      if r == 0 { flat += 1 } else if r.isFinite { returns.append(r) }
    }
    let height = 240.0, top = 56.0, bottom = 200.0
    guard let lo = returns.min(), let hi = returns.max() else {
      var svg = open(height, "Daily returns (no day with a change)", top: top, bottom: bottom, vmin: 0, vmax: 0, id: "daily-returns")
      svg.raw("</svg>")
      return svg.text
    }
    let histogram = Histogram(returns, low: lo, high: hi, ticks: 40, minimumWidth: 0.0005, fallbackWidth: 0.001)
    let m = mean(returns) ?? 0, sd = sampleDeviation(returns) ?? 0
    var svg = open(height, "Daily returns: \(HumanFormat.integer(returns.count)) days\(flat > 0 ? " (\(HumanFormat.integer(flat)) days without a change left out)" : "")",
                   top: top, bottom: bottom, vmin: 0, vmax: histogram.peak, id: "daily-returns")
    svg.label("mean \(HumanFormat.percent(m, decimals: 3)), deviation \(HumanFormat.percent(sd, decimals: 3)), worst \(HumanFormat.percent(lo)), best \(HumanFormat.percent(hi))",
              x: x0, y: 34)
    axes(&svg, top: top, bottom: bottom, vmin: 0, vmax: histogram.peak, format: { String(Int($0)) }, dates: false, integer: true)
    bars(histogram, into: &svg, top: top, bottom: bottom, gap: 1, labelDecimals: 2, attributes: "stroke-width=\"0\" ")
    svg.raw("</svg>")
    return svg.text
  }

  /// The risk cards of report.html: rolling figures, the worst drawdowns, yearly returns, daily returns.
  package func riskHTML() -> String {
    var h = "<h2 id=\"risk\" class=\"ic-section\">Risk</h2>\n"
    if let rolling = rollingChart() { h += "<div class=\"card ic-wide\">\(rolling)</div>\n" }
    h += "<div class=\"card\"><h2>Worst drawdowns</h2><div class=\"ic-scroll\">\(HTMLReport.markdownBlocks(drawdownMarkdown()))</div></div>\n"
    h += "<div class=\"card ic-wide\">\(yearlyChart())<div class=\"ic-scroll\">\(HTMLReport.markdownBlocks(yearlyMarkdown()))</div></div>\n"
    h += "<div class=\"card ic-wide\">\(dailyReturnsChart())</div>\n"
    return h
  }
}
