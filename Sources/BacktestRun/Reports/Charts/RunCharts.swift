import BacktestCore
import Foundation

/// The charts of one run, as standalone SVG documents.
///
/// Every chart maps bar index to x linearly over the plot area, and records
/// its mapping in `data-` attributes on the root element (`data-x0`,
/// `data-x1`, `data-n`, `data-ytop`, `data-ybottom`, `data-vmax`, `data-vmin`)
/// so a reader can turn coordinates back into values. Dense series are
/// reduced for display (price: one OHLC bar per pixel column; lines: LTTB),
/// while every trade marker is kept.
package struct RunCharts {
  package static let width = 1000.0
  static let left = 70.0, right = 16.0

  /// The run, for the charts of prices, indicators and trades (`nil` for a portfolio).
  let run: RunOutput?
  /// The bars whose dates the x axis shows.
  let bars: BarSeries
  /// The equity line, the comparison line, and what the legend calls them.
  let equitySeries: ContiguousArray<Double>
  let comparisonSeries: ContiguousArray<Double>?
  /// The equity line's drawdowns, made once for the SVG chart and the HTML report's chart (copies share them).
  let equityDrawdowns: Deferred<ContiguousArray<Double>>
  let names: (equity: String, comparison: String)
  let initialCash: Double
  var n: Int { bars.count }
  var output: RunOutput { run! }
  var x0: Double { Self.left }
  var x1: Double { Self.width - Self.right }
  var columns: Int { Int(x1 - x0) }

  package init(_ output: RunOutput) {
    run = output
    bars = output.bars
    let equity = output.run.result.equity
    equitySeries = equity
    comparisonSeries = output.benchmark.equity
    equityDrawdowns = Deferred { drawdowns(equity) }
    names = ("strategy", "buy & hold")
    initialCash = output.run.result.initialCash
  }

  /// Equity and monthly charts over a timeline, without prices or trades.
  package init(timeline: BarSeries, equity: ContiguousArray<Double>, comparison: ContiguousArray<Double>?,
              names: (equity: String, comparison: String), initialCash: Double) {
    run = nil
    bars = timeline
    equitySeries = equity
    comparisonSeries = comparison
    equityDrawdowns = Deferred { drawdowns(equity) }
    self.names = names
    self.initialCash = initialCash
  }

  func x(_ i: Int) -> Double { n <= 1 ? x0 : x0 + Double(i) / Double(n - 1) * (x1 - x0) }

  /// The style every chart carries, so SVG files read well on their own, in light and dark themes.
  package static let style = """
    <style>
    .axis{stroke:#8e8e93;stroke-width:1}.grid{stroke:#8e8e93;stroke-opacity:.18;stroke-width:1}
    .label{font:11px -apple-system,Helvetica,Arial,sans-serif;fill:#3a3a3c}.title{font:600 13px -apple-system,Helvetica,Arial,sans-serif;fill:#1c1c1e}
    .up{stroke:#26A69A;fill:#26A69A}.down{stroke:#90A4AE;fill:#90A4AE}.bg{fill:#ffffff}
    .win{fill:#16A34A;stroke:#ffffff;stroke-width:.8}.loss{fill:#DC2626;stroke:#ffffff;stroke-width:.8}
    @media (prefers-color-scheme: dark){.label{fill:#d1d1d6}.title{fill:#f2f2f7}.bg{fill:#1c1c1e}.win,.loss{stroke:#1c1c1e}}
    </style>
    """

  func open(_ height: Double, _ title: String, top: Double, bottom: Double, vmin: Double, vmax: Double, id: String) -> SVGBuilder {
    var svg = SVGBuilder()
    let c = SVGBuilder.coordinate
    svg.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(c(Self.width)) \(c(height))\" width=\"\(c(Self.width))\" height=\"\(c(height))\" ")
    svg.raw("id=\"\(id)\" data-x0=\"\(c(x0))\" data-x1=\"\(c(x1))\" data-n=\"\(n)\" data-ytop=\"\(c(top))\" data-ybottom=\"\(c(bottom))\" ")
    svg.raw("data-vmin=\"\(vmin)\" data-vmax=\"\(vmax)\" role=\"img\"><title>\(SVGBuilder.escape(title))</title>" + Self.style)
    svg.rect(x: 0, y: 0, width: Self.width, height: height, attributes: "class=\"bg\"")
    svg.label(title, x: x0, y: 16, attributes: "class=\"title\"")
    return svg
  }

  /// Horizontal grid with value labels, and date labels along the bottom.
  /// The value axis (ticks at round values; whole numbers only for counts, `integer`) and, with `dates`, the time axis.
  func axes(_ svg: inout SVGBuilder, top: Double, bottom: Double, vmin: Double, vmax: Double, format: (Double) -> String, dates: Bool,
            integer: Bool = false) {
    for v in niceTicks(low: vmin, high: vmax) where !integer || v == v.rounded() {
      let y = bottom - (v - vmin) / (vmax - vmin) * (bottom - top)
      svg.line(x0, y, x1, y, attributes: "class=\"grid\"")
      svg.label(format(v), x: x0 - 6, y: y + 4, attributes: "class=\"label\" text-anchor=\"end\"")
    }
    svg.line(x0, bottom, x1, bottom, attributes: "class=\"axis\"")
    guard dates, n > 1 else { return }
    let spanDays = Int(bars.day[n - 1]) - Int(bars.day[0])
    // A label per year, month or day: the key can change only where the day does,
    // and the label's text is made only where it is drawn.
    var lastKey = Int.min, lastDay = Int32.min
    var lastX = -100.0
    for i in 0..<n where bars.day[i] != lastDay {
      lastDay = bars.day[i]
      let c = CivilDate.components(days: Int(lastDay))
      let key = spanDays > 3 * 365 ? c.year : spanDays > 60 ? c.year * 100 + c.month : Int(lastDay)
      if key != lastKey {
        let xi = x(i)
        if i > 0 && xi - lastX > 60 {
          let label = spanDays > 3 * 365 ? "\(c.year)" : spanDays > 60 ? "\(c.year)-\(CivilDate.pad(c.month, 2))" : CivilDate.isoDate(days: Int(lastDay))
          svg.line(xi, bottom, xi, bottom + 4, attributes: "class=\"axis\"")
          svg.label(label, x: xi, y: bottom + 16, attributes: "class=\"label\" text-anchor=\"middle\"")
          lastX = xi
        }
        lastKey = key
      }
    }
  }

  func y(_ v: Double, _ top: Double, _ bottom: Double, _ vmin: Double, _ vmax: Double) -> Double {
    bottom - (v - vmin) / (vmax - vmin) * (bottom - top)
  }

  func lineSeries(_ values: ContiguousArray<Double>, top: Double, bottom: Double, vmin: Double, vmax: Double) -> [(Double, Double)] {
    largestTriangleThreeBuckets(values, threshold: columns * 2).map { (x($0), y(values[$0], top, bottom, vmin, vmax)) }
  }

  /// The strategy's columns drawn over the price, with their legend labels and colours.
  var overlays: [(column: IndicatorColumn, label: String, color: String)] {
    output.run.indicators.compactMap { if case .overlay(let label, let color) = $0.plot { ($0, label, color) } else { nil } }
  }

  /// The strategy's panels under the price chart, in the order their first column comes, with their columns.
  package var panels: [(panel: IndicatorPanel, columns: [(column: IndicatorColumn, color: String)])] {
    var out: [(panel: IndicatorPanel, columns: [(column: IndicatorColumn, color: String)])] = []
    for c in output.run.indicators {
      guard case .panel(let panel, let color) = c.plot else { continue }
      if let k = out.firstIndex(where: { $0.panel.id == panel.id }) { out[k].columns.append((c, color)) } else { out.append((panel, [(c, color)])) }
    }
    return out
  }

  /// The decimals of the bars' prices, 2 to 6, for showing prices at the instrument's precision: those of the close
  /// when known (`closeDecimals`, the chart's data finds them), else the fewest that hold every close exactly, else 6.
  package static func priceDecimals(_ closeDecimals: Int? = nil, bars: BarSeries) -> Int {
    let exact = closeDecimals ?? bars.close.withUnsafeBufferPointer { ChartData.exactDecimals($0, maxDecimals: 6)?.decimals } ?? 6
    return min(6, max(2, exact))
  }

  /// The shape of an exit's marker: a diamond for a stop, a square for a target, else a triangle.
  package static func exitShape(_ reason: ExitReason) -> String {
    switch reason {
    case .stopLoss, .trailingStop: "diamond"
    case .profitTarget: "square"
    default: "triangle"
    }
  }

  static func priceText(_ v: Double) -> String { FixedDecimal.text(v, decimals: v >= 100 ? 0 : v >= 1 ? 2 : 4) }
  static func percentText(_ v: Double) -> String { FixedDecimal.text(v * 100, decimals: 0) + "%" }

  // MARK: Price

  package func price() -> String {
    let bars = output.bars
    let height = 400.0, top = 44.0, bottom = 370.0
    var vmin = Double.infinity, vmax = -Double.infinity
    for i in 0..<n { vmin = min(vmin, bars.low[i]); vmax = max(vmax, bars.high[i]) }
    for o in overlays { for v in o.column.values where !v.isNaN { vmin = min(vmin, v); vmax = max(vmax, v) } }
    let pad = (vmax - vmin) * 0.04 + 1e-9
    vmin -= pad; vmax += pad
    let shown = output.run.overlayTitle
    var svg = open(height, "\(output.config.name): price\(shown.isEmpty ? "" : ", " + shown) and trades", top: top, bottom: bottom, vmin: vmin, vmax: vmax, id: "price")
    // Economic-cycle stages as background bands.
    if let stages = output.cycle?.gate.stages {
      var start = 0
      for i in 1...n where i == n || stages[i] != stages[start] {
        if let color = stages[start].color {
          svg.rect(x: x(start), y: top, width: x(i - 1) - x(start) + 1, height: bottom - top,
                   attributes: "fill=\"\(color)\" fill-opacity=\"0.10\" class=\"stage\" data-stage=\"\(stages[start].rawValue)\"")
        }
        start = i
      }
    }
    axes(&svg, top: top, bottom: bottom, vmin: vmin, vmax: vmax, format: Self.priceText, dates: true)
    let Y = { (v: Double) in self.y(v, top, bottom, vmin, vmax) }
    if n <= columns / 3 {
      // Candlesticks.
      let w = max(1, (x1 - x0) / Double(max(n, 1)) * 0.6)
      for i in 0..<n {
        let up = bars.close[i] >= bars.open[i]
        svg.line(x(i), Y(bars.high[i]), x(i), Y(bars.low[i]), attributes: "class=\"\(up ? "up" : "down")\"")
        let yTop = Y(max(bars.open[i], bars.close[i])), yBottom = Y(min(bars.open[i], bars.close[i]))
        svg.rect(x: x(i) - w / 2, y: yTop, width: w, height: max(1, yBottom - yTop), attributes: "class=\"\(up ? "up" : "down")\"")
      }
    } else {
      // One OHLC bar per pixel column: high–low line, open tick left, close tick right.
      var up = TextBuffer(capacity: 64 * columns), down = TextBuffer(capacity: 64 * columns)
      let perColumn = Double(n) / Double(columns)
      for col in 0..<columns {
        let a = Int(Double(col) * perColumn), b = min(n, max(a + 1, Int(Double(col + 1) * perColumn)))
        if a >= n { break }
        var high = -Double.infinity, low = Double.infinity
        for i in a..<b { high = max(high, bars.high[i]); low = min(low, bars.low[i]) }
        let xc = x0 + Double(col) + 0.5
        func draw(_ d: inout TextBuffer) {
          d.append(path: "M", xc, Y(high)); d.append(path: "V", Y(low))
          d.append(path: "M", xc - 1, Y(bars.open[a])); d.append(path: "h1M", xc, Y(bars.close[b - 1])); d.append("h1")
        }
        if bars.close[b - 1] >= bars.open[a] { draw(&up) } else { draw(&down) }
      }
      svg.raw("<path class=\"up\" fill=\"none\" d=\""); svg.raw(up)
      svg.raw("\"/><path class=\"down\" fill=\"none\" d=\""); svg.raw(down); svg.raw("\"/>")
    }
    for o in overlays {
      svg.polyline(lineSeries(o.column.values, top: top, bottom: bottom, vmin: vmin, vmax: vmax),
                   attributes: "stroke=\"\(o.color)\" stroke-width=\"1.2\" id=\"\(SVGBuilder.escape(o.column.name))\"")
    }
    // Every trade, green when it made money and red when it lost: a triangle under the entry fill and at the exit
    // fill a shape for the exit's kind (a triangle over it for a signal's exit, a diamond for a stop, a square for a
    // target). Each colour is one path with a subpath per marker (`data-markers` counts them): light for the
    // browser even with thousands of trades.
    let trades = output.run.result.trades
    var win = TextBuffer(capacity: 80 * trades.count), loss = TextBuffer(capacity: 80 * trades.count)
    var counts = (win: 0, loss: 0)
    var shapes = Set<String>()
    func mark(_ t: Trade, _ d: inout TextBuffer) {
      let xe = x(t.entryBar), ye = Y(t.entryPrice) + 9
      d.append(path: "M", xe, ye - 7); d.append("l6 11h-12z")
      let xx = x(t.exitBar), yx = Y(t.exitPrice)
      let shape = Self.exitShape(t.exitReason)
      shapes.insert(shape)
      switch shape {
      case "diamond": d.append(path: "M", xx, yx - 6); d.append("l6 6l-6 6l-6 -6z")
      case "square": d.append(path: "M", xx - 5, yx - 5); d.append("h10v10h-10z")
      default: d.append(path: "M", xx, yx - 2); d.append("l6 -11h-12z")
      }
    }
    for t in trades {
      if t.pnl > 0 { mark(t, &win); counts.win += 2 } else { mark(t, &loss); counts.loss += 2 }
    }
    svg.raw("<path class=\"win\" id=\"markers-win\" data-markers=\"\(counts.win)\" d=\""); svg.raw(win); svg.raw("\"/>")
    svg.raw("<path class=\"loss\" id=\"markers-loss\" data-markers=\"\(counts.loss)\" d=\""); svg.raw(loss); svg.raw("\"/>")
    // Legend: the overlays, the two colours of trades, the shapes, the cycle stages and the current stage badge.
    var lx = x0
    for o in overlays {
      svg.line(lx, 30, lx + 16, 30, attributes: "stroke=\"\(o.color)\" stroke-width=\"2\"")
      svg.label(o.label, x: lx + 20, y: 34)
      lx += max(70, 28 + 7 * Double(o.label.count))
    }
    svg.rect(x: lx, y: 24, width: 10, height: 10, attributes: "class=\"win\""); svg.label("winning trade", x: lx + 14, y: 34); lx += 104
    svg.rect(x: lx, y: 24, width: 10, height: 10, attributes: "class=\"loss\""); svg.label("losing trade", x: lx + 14, y: 34); lx += 98
    let note = ["▲ entry"] + [("triangle", "▼ exit"), ("diamond", "◆ stop"), ("square", "■ target")].filter { shapes.contains($0.0) }.map(\.1)
    svg.label(note.joined(separator: " · "), x: lx, y: 34)
    lx += 9 + 6.2 * Double(note.joined(separator: " · ").count)
    if let cycle = output.cycle {
      for stage in CycleStage.allCases where stage != .unknown {
        svg.rect(x: lx, y: 24, width: 12, height: 10, attributes: "fill=\"\(stage.color!)\" fill-opacity=\"0.35\"")
        svg.label(stage.rawValue, x: lx + 16, y: 34)
        lx += 92
      }
      let current = cycle.gate.stages[n - 1]
      svg.rect(x: x1 - 150, y: 4, width: 150, height: 18, attributes: "rx=\"9\" fill=\"\(current.color ?? "#8e8e93")\"")
      svg.label("now: \(current.rawValue)", x: x1 - 75, y: 17, attributes: "class=\"label\" text-anchor=\"middle\" style=\"fill:#fff\"")
    }
    svg.raw("</svg>")
    return svg.text
  }

  // MARK: Indicator panels

  /// One chart per panel the strategy declares (`rsi.svg`), as (file name without `.svg`, SVG text).
  package func panelCharts() -> [(id: String, svg: String)] {
    panels.map { ($0.panel.id, panel($0.panel, $0.columns)) }
  }

  func panel(_ panel: IndicatorPanel, _ columns: [(column: IndicatorColumn, color: String)]) -> String {
    let height = 170.0, top = 28.0, bottom = 148.0
    var vmin = panel.range?.lowerBound ?? .infinity, vmax = panel.range?.upperBound ?? -.infinity
    if panel.range == nil {
      for c in columns { for v in c.column.values where !v.isNaN { vmin = min(vmin, v); vmax = max(vmax, v) } }
      for v in panel.levels { vmin = min(vmin, v); vmax = max(vmax, v) }
      if !(vmin < vmax) { vmin = (vmin.isFinite ? vmin : 0) - 1; vmax = vmin + 2 }
      let pad = (vmax - vmin) * 0.05
      vmin -= pad; vmax += pad
    }
    let wide = vmax - vmin >= 10
    var svg = open(height, panel.title, top: top, bottom: bottom, vmin: vmin, vmax: vmax, id: SVGBuilder.escape(panel.id))
    axes(&svg, top: top, bottom: bottom, vmin: vmin, vmax: vmax, format: { wide ? formatNumber($0.rounded(.towardZero)) : FixedDecimal.text($0, decimals: 2) }, dates: true)
    let levelColor = columns.first?.color ?? "#8e8e93"
    for level in panel.levels {
      let yl = y(level, top, bottom, vmin, vmax)
      svg.line(x0, yl, x1, yl, attributes: "stroke=\"\(levelColor)\" stroke-dasharray=\"4 3\" stroke-opacity=\"0.7\"")
    }
    for c in columns {
      svg.polyline(lineSeries(c.column.values, top: top, bottom: bottom, vmin: vmin, vmax: vmax),
                   attributes: "stroke=\"\(c.color)\" stroke-width=\"1.2\" id=\"\(SVGBuilder.escape(c.column.name))-line\"")
    }
    svg.raw("</svg>")
    return svg.text
  }

  // MARK: Equity and drawdown

  /// The bar of the equity's peak (its highest value, the first such bar), and of the maximum drawdown's trough
  /// (`nil` without a drawdown).
  package var equityMarks: (peak: Int, trough: Int?) {
    let equity = equitySeries, dd = equityDrawdowns.value
    var peak = 0, trough = 0
    for i in equity.indices where equity[i] > equity[peak] { peak = i }
    for i in dd.indices where dd[i] < dd[trough] { trough = i }
    return (peak, dd.isEmpty || dd[trough] >= 0 ? nil : trough)
  }

  /// The labels of the equity's marks: `peak $124,679.23 on 2024-10-14`, `max drawdown -13.45% on 2022-03-08`.
  package func equityMarkLabels(_ marks: (peak: Int, trough: Int?)) -> (peak: String, trough: String?) {
    func day(_ i: Int) -> String { CivilDate.isoDate(days: Int(bars.day[i])) }
    return ("peak \(HumanFormat.money(equitySeries[marks.peak])) on \(day(marks.peak))",
            marks.trough.map { "max drawdown \(HumanFormat.percent(equityDrawdowns.value[$0])) on \(day($0))" })
  }

  package func equity() -> String {
    let height = 330.0, top = 44.0, bottom = 220.0, ddTop = 240.0, ddBottom = 310.0
    var vmin = Double.infinity, vmax = -Double.infinity
    for e in equitySeries { vmin = min(vmin, e); vmax = max(vmax, e) }
    for e in comparisonSeries ?? [] { vmin = min(vmin, e); vmax = max(vmax, e) }
    let pad = (vmax - vmin) * 0.05 + 1
    vmin -= pad; vmax += pad
    var svg = open(height, "Equity (\(names.equity)\(comparisonSeries == nil ? "" : " and " + names.comparison)) and drawdown", top: top, bottom: bottom, vmin: vmin, vmax: vmax, id: "equity")
    axes(&svg, top: top, bottom: bottom, vmin: vmin, vmax: vmax, format: { let m = HumanFormat.money($0); return m.hasSuffix(".00") ? String(m.dropLast(3)) : m }, dates: false)
    if let comparison = comparisonSeries {
      svg.polyline(lineSeries(comparison, top: top, bottom: bottom, vmin: vmin, vmax: vmax),
                   attributes: "stroke=\"#8e8e93\" stroke-width=\"1.2\" stroke-dasharray=\"5 3\" id=\"benchmark\"")
    }
    svg.polyline(lineSeries(equitySeries, top: top, bottom: bottom, vmin: vmin, vmax: vmax), attributes: "stroke=\"#0071E3\" stroke-width=\"1.6\" id=\"equity-line\"")
    // The equity's peak and the maximum drawdown's trough, ringed and labelled.
    let marks = equityMarks, labels = equityMarkLabels(marks)
    for (id, bar, label, color, below) in [("equity-peak", marks.peak, labels.peak, "#16A34A", false)]
      + (marks.trough.map { [("drawdown-trough", $0, labels.trough!, "#DC2626", true)] } ?? []) {
      let px = x(bar), py = y(equitySeries[bar], top, bottom, vmin, vmax), right = px > x1 - 200
      svg.raw("<circle id=\"\(id)\" data-bar=\"\(bar)\" cx=\"\(SVGBuilder.coordinate(px))\" cy=\"\(SVGBuilder.coordinate(py))\" r=\"4.5\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>")
      svg.label(label, x: px + (right ? -8 : 8), y: py + (below ? 16 : -8),
                attributes: "class=\"label\" font-weight=\"600\" style=\"fill:\(color)\"" + (right ? " text-anchor=\"end\"" : ""))
    }
    let dd = equityDrawdowns.value
    let worst = min(-0.01, dd.min() ?? 0)
    axes(&svg, top: ddTop, bottom: ddBottom, vmin: worst, vmax: 0, format: Self.percentText, dates: true)
    var area = lineSeries(dd, top: ddTop, bottom: ddBottom, vmin: worst, vmax: 0)
    if let first = area.first, let last = area.last { area = [(first.0, ddTop)] + area + [(last.0, ddTop)] }
    svg.raw("<polygon fill=\"#FF3B30\" fill-opacity=\"0.25\" stroke=\"#FF3B30\" stroke-width=\"1\" points=\"")
    svg.points(area)
    svg.raw("\"/>")
    svg.line(x0 + 300, 30, x0 + 316, 30, attributes: "stroke=\"#0071E3\" stroke-width=\"2\""); svg.label(names.equity, x: x0 + 320, y: 34)
    if comparisonSeries != nil {
      let at = x0 + 330 + 6.5 * Double(names.equity.count)
      svg.line(at, 30, at + 16, 30, attributes: "stroke=\"#8e8e93\" stroke-width=\"2\" stroke-dasharray=\"5 3\""); svg.label(names.comparison, x: at + 20, y: 34)
    }
    svg.label("drawdown", x: x0 + 4, y: ddBottom - 4)
    svg.raw("</svg>")
    return svg.text
  }

  /// One line over the timeline (a fund's NAV), titled `title`, with an element id `id`.
  package func line(_ values: ContiguousArray<Double>, title: String, id: String) -> String {
    let height = 260.0, top = 36.0, bottom = 230.0
    var vmin = Double.infinity, vmax = -Double.infinity
    for v in values where v.isFinite { vmin = min(vmin, v); vmax = max(vmax, v) }
    if !(vmin < vmax) { vmin = (vmin.isFinite ? vmin : 0) - 1; vmax = vmin + 2 }
    let pad = (vmax - vmin) * 0.05
    vmin -= pad; vmax += pad
    var svg = open(height, title, top: top, bottom: bottom, vmin: vmin, vmax: vmax, id: id)
    axes(&svg, top: top, bottom: bottom, vmin: vmin, vmax: vmax, format: Self.priceText, dates: true)
    svg.polyline(lineSeries(values, top: top, bottom: bottom, vmin: vmin, vmax: vmax), attributes: "stroke=\"#0071E3\" stroke-width=\"1.6\" id=\"\(id)-line\"")
    svg.raw("</svg>")
    return svg.text
  }

  // MARK: Monthly returns

  /// Returns by (year, month) from month-end equity; the first month is against the initial cash.
  package var monthlyReturns: [(year: Int, month: Int, value: Double)] {
    let equity = equitySeries
    var out: [(Int, Int, Double)] = []
    var previous = initialCash
    for i in 0..<n where i == n - 1 || bars.day[i + 1] != bars.day[i] {  // a month ends with a day
      let c = CivilDate.components(days: Int(bars.day[i]))
      let last = i == n - 1 || { let d = CivilDate.components(days: Int(bars.day[i + 1])); return d.month != c.month || d.year != c.year }()
      if last {
        out.append((c.year, c.month, equity[i] / previous - 1))
        previous = equity[i]
      }
    }
    return out.map { (year: $0.0, month: $0.1, value: $0.2) }
  }

  /// The fill of a month's cell: green for a gain, red for a loss, neutral grey for a month that reads 0.0%
  /// (a month out of the market is neither).
  package static let neutralHeat = "rgba(142,142,147,0.14)"

  package static func heat(_ v: Double) -> String {
    if FixedDecimal.text(abs(v) * 100, decimals: 1) == "0.0" { return neutralHeat }
    let a = min(1, abs(v) / 0.08) * 0.75 + 0.08
    return v >= 0 ? "rgba(52,199,89,\(FixedDecimal.text(a, decimals: 2)))" : "rgba(255,59,48,\(FixedDecimal.text(a, decimals: 2)))"
  }

  package func monthly() -> String {
    let months = monthlyReturns
    let years = Array(Set(months.map(\.year))).sorted()
    let cell = 62.0, rowHeight = 22.0, top = 44.0
    let height = top + rowHeight * Double(years.count + 1) + 12
    var svg = open(height, "Monthly returns", top: top, bottom: height - 12, vmin: 0, vmax: 0, id: "monthly")
    let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "Year"]
    for (k, name) in names.enumerated() {
      svg.label(name, x: x0 + 10 + cell * Double(k) + cell / 2, y: top, attributes: "class=\"label\" text-anchor=\"middle\"")
    }
    for (row, year) in years.enumerated() {
      let yy = top + 8 + rowHeight * Double(row)
      svg.label(String(year), x: x0, y: yy + 15, attributes: "class=\"label\" text-anchor=\"end\"")
      var compounded = 1.0
      for m in months where m.year == year {
        compounded *= 1 + m.value
        let xx = x0 + 10 + cell * Double(m.month - 1)
        svg.rect(x: xx + 1, y: yy, width: cell - 2, height: rowHeight - 2, attributes: "fill=\"\(Self.heat(m.value))\"")
        svg.label(FixedDecimal.text(m.value * 100, decimals: 1) + "%", x: xx + cell / 2, y: yy + 15, attributes: "class=\"label\" text-anchor=\"middle\"")
      }
      let xx = x0 + 10 + cell * 12
      svg.rect(x: xx + 1, y: yy, width: cell - 2, height: rowHeight - 2, attributes: "fill=\"\(Self.heat(compounded - 1))\"")
      svg.label(FixedDecimal.text((compounded - 1) * 100, decimals: 1) + "%", x: xx + cell / 2, y: yy + 15, attributes: "class=\"label\" text-anchor=\"middle\" font-weight=\"600\"")
    }
    svg.raw("</svg>")
    return svg.text
  }

  /// The monthly returns as an HTML table for report.html (the same figures and colours as `monthly()`): text at
  /// the page's size on any screen, the table scrolling sideways where it is wider than the screen.
  package func monthlyTable() -> String {
    let months = monthlyReturns
    let years = Array(Set(months.map(\.year))).sorted()
    let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "Year"]
    var h = "<h2>Monthly returns</h2><div class=\"ic-scroll\"><table class=\"ic-heat\" id=\"monthly-table\"><thead><tr><th></th>"
    h += names.map { "<th>\($0)</th>" }.joined() + "</tr></thead><tbody>"
    func cell(_ v: Double, year: Bool = false) -> String {
      "<td\(year ? " class=\"ic-year\"" : "") style=\"background:\(Self.heat(v))\">\(FixedDecimal.text(v * 100, decimals: 1))%</td>"
    }
    for year in years {
      h += "<tr><th>\(year)</th>"
      var compounded = 1.0, month = 1
      for m in months where m.year == year {
        h += String(repeating: "<td></td>", count: m.month - month)
        compounded *= 1 + m.value
        h += cell(m.value)
        month = m.month + 1
      }
      h += String(repeating: "<td></td>", count: 13 - month) + cell(compounded - 1, year: true) + "</tr>"
    }
    return h + "</tbody></table></div>"
  }

  // MARK: Trade returns

  package func tradeReturns() -> String {
    let returns = output.run.result.trades.map(\.returnFraction)
    let height = 220.0, top = 40.0, bottom = 190.0
    guard let lo = returns.min(), let hi = returns.max() else {
      var svg = open(height, "Trade returns (no trades)", top: top, bottom: bottom, vmin: 0, vmax: 0, id: "returns")
      svg.raw("</svg>")
      return svg.text
    }
    let histogram = Histogram(returns, low: lo, high: hi, ticks: 24, minimumWidth: 0.0025, fallbackWidth: 0.01)
    var svg = open(height, "Trade returns (\(returns.count) trades)", top: top, bottom: bottom, vmin: 0, vmax: histogram.peak, id: "returns")
    axes(&svg, top: top, bottom: bottom, vmin: 0, vmax: histogram.peak, format: { String(Int($0)) }, dates: false, integer: true)
    bars(histogram, into: &svg, top: top, bottom: bottom, gap: 2, labelDecimals: 1)
    svg.raw("</svg>")
    return svg.text
  }

  /// Draws `histogram`'s bins as bars between `top` and `bottom` (green from 0 up, red below; `gap` pixels between
  /// bars, with `attributes` added to each) and labels the lower edge of every eighth bin as a percentage.
  func bars(_ histogram: Histogram, into svg: inout SVGBuilder, top: Double, bottom: Double, gap: Double, labelDecimals: Int,
            attributes: String = "") {
    let binWidth = (x1 - x0) / Double(histogram.counts.count)
    for (k, count) in histogram.counts.enumerated() where count > 0 {
      let start = (histogram.first + Double(k)) * histogram.width, h = Double(count) / histogram.peak * (bottom - top)
      svg.rect(x: x0 + binWidth * Double(k) + gap / 2, y: bottom - h, width: max(0.5, binWidth - gap), height: h,
               attributes: "class=\"\(start >= 0 ? "win" : "loss")\" \(attributes)fill-opacity=\"0.8\" data-count=\"\(count)\"")
    }
    for k in stride(from: 0, through: histogram.counts.count, by: max(1, histogram.counts.count / 8)) {
      svg.label(FixedDecimal.text((histogram.first + Double(k)) * histogram.width * 100, decimals: labelDecimals) + "%",
                x: x0 + binWidth * Double(k), y: bottom + 16, attributes: "class=\"label\" text-anchor=\"middle\"")
    }
  }
}

/// Values counted in bins of a round width: about `ticks` bins across their range, at least `minimumWidth` wide.
struct Histogram {
  /// The bins' width; bin `k` holds the values from `(first + k) × width` up to the next bin.
  var width: Double
  var first: Double
  var counts: [Int]
  /// The largest count.
  var peak: Double

  /// The bins of `values`, whose smallest is `low` and largest `high`; `fallbackWidth` when no round step fits.
  init(_ values: [Double], low: Double, high: Double, ticks: Int, minimumWidth: Double, fallbackWidth: Double) {
    width = max(minimumWidth, niceTicks(low: low, high: max(high, low + 1e-9), count: ticks).adjacentDifference ?? fallbackWidth)
    first = (low / width).rounded(.down)
    let bins = Int((high / width).rounded(.down) - first) + 1
    counts = [Int](repeating: 0, count: bins)
    for v in values { counts[min(bins - 1, max(0, Int((v / width).rounded(.down) - first)))] += 1 }
    peak = Double(counts.max() ?? 1)
  }
}

extension Array where Element == Double {
  /// The step between the first two values, if there are two.
  var adjacentDifference: Double? { count > 1 ? self[1] - self[0] : nil }
}
