import BacktestCore
import BacktestRun
import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Collects elements of an SVG document.
final class SVGCollector: NSObject, XMLParserDelegate {
  var elements: [(name: String, attributes: [String: String])] = []
  func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
              attributes: [String: String] = [:]) {
    elements.append((name, attributes))
  }

  static func parse(_ text: String) -> SVGCollector? {
    let collector = SVGCollector()
    let parser = XMLParser(data: Data(text.utf8))
    parser.delegate = collector
    return parser.parse() ? collector : nil
  }
}

@Suite struct ChartTests {
  static let output = try! runBacktest("""
    name: c
    data: {bars: ../Data/GOOG.csv, timezone: America/New_York, end: 2009-12-31}
    strategy: {type: bollinger_rsi, profit_target: 3%}
    cycle: {macro_file: ../Data/us_macro_quarterly.csv, filter: false}
    """)

  @Test("integer axes for counts: the trade-return histogram of 5 trades, one per bin, labels its count axis 0 and 1 only")
  func countAxisIsWhole() throws {
    let output = try runBacktest("name: c\ndata: {bars: ../Data/GOOG.csv, timezone: America/New_York}\nstrategy: {type: sma_cross, fast: 50, slow: 200}\n")
    #expect(output.run.result.trades.count == 5)
    let svg = RunCharts(output).tradeReturns()
    // The count labels are the right-aligned ones left of the plot.
    let labels = svg.components(separatedBy: "text-anchor=\"end\">").dropFirst().map { $0.prefix { $0 != "<" } }
    #expect(labels == ["0", "1"])
  }

  @Test("every chart is well-formed XML (Foundation's XMLParser)")
  func wellFormed() {
    let charts = RunCharts(Self.output)
    for svg in [charts.price(), charts.panelCharts()[0].svg, charts.equity(), charts.monthly(), charts.tradeReturns()] {
      #expect(SVGCollector.parse(svg) != nil, "\(svg.prefix(120))")
    }
  }

  @Test("the price chart marks every trade in the colour of its result (green won, red lost), two markers a trade, the exit's shape by its kind; candles, bands and trades share no colour")
  func markers() throws {
    let text = RunCharts(Self.output).price()
    let svg = try #require(SVGCollector.parse(text))
    let trades = Self.output.run.result.trades
    let wins = trades.filter { $0.pnl > 0 }
    #expect(trades.count > 5 && wins.count > 0 && wins.count < trades.count)
    // One subpath per marker: count the moves in each marker path.
    func path(_ id: String) throws -> String {
      let path = try #require(svg.elements.first { $0.attributes["id"] == id })
      let d = path.attributes["d"]!
      #expect(String(d.filter { $0 == "M" }.count) == path.attributes["data-markers"])
      return d
    }
    let win = try path("markers-win"), loss = try path("markers-loss")
    #expect(win.filter { $0 == "M" }.count == 2 * wins.count)
    #expect(loss.filter { $0 == "M" }.count == 2 * (trades.count - wins.count))
    // Exits by their kind: a diamond for a stop, a square for a target, a triangle over the fill otherwise.
    func shapes(_ d: String, _ shape: String) -> Int { d.components(separatedBy: shape).count - 1 }
    for (group, d) in [(wins, win), (trades.filter { $0.pnl <= 0 }, loss)] {
      #expect(shapes(d, "l6 6l-6 6l-6 -6z") == group.filter { $0.exitReason == .stopLoss }.count)
      #expect(shapes(d, "h10v10h-10z") == group.filter { $0.exitReason == .profitTarget }.count)
      #expect(shapes(d, "l6 -11h-12z") == group.filter { $0.exitReason != .stopLoss && $0.exitReason != .profitTarget }.count)
      #expect(shapes(d, "l6 11h-12z") == group.count)  // the entries
    }
    #expect(trades.contains { $0.exitReason == .stopLoss } && trades.contains { $0.exitReason == .profitTarget })
    // The colours: each class's fill in the chart's style, and the bands' strokes.
    func fill(_ cls: String) throws -> String {
      let rule = try #require(text.components(separatedBy: "." + cls + "{").dropFirst().first)
      return String(rule.components(separatedBy: "fill:")[1].prefix(7))
    }
    #expect(try fill("win") == "#16A34A" && fill("loss") == "#DC2626")
    let bands = ["bb_upper", "bb_mid", "bb_lower"].map { name in svg.elements.first { $0.attributes["id"] == name }!.attributes["stroke"]! }
    let all = try [fill("up"), fill("down"), fill("win"), fill("loss")] + bands
    #expect(Set(all).count == all.count, "\(all)")
    #expect(svg.elements.contains { $0.attributes["data-stage"] == "Contraction" })
  }

  @Test("band values read back from the drawing equal the indicators at sampled points")
  func bandsMatchIndicators() throws {
    let svg = try #require(SVGCollector.parse(RunCharts(Self.output).price()))
    let root = svg.elements[0].attributes
    let x0 = Double(root["data-x0"]!)!, x1 = Double(root["data-x1"]!)!, n = Double(root["data-n"]!)!
    let top = Double(root["data-ytop"]!)!, bottom = Double(root["data-ybottom"]!)!
    let vmin = Double(root["data-vmin"]!)!, vmax = Double(root["data-vmax"]!)!
    let tolerance = (vmax - vmin) / (bottom - top) * 0.06 + 1e-9  // coordinates are written to 0.1 px
    for name in ["bb_upper", "bb_mid", "bb_lower"] {
      let line = try #require(svg.elements.first { $0.attributes["id"] == name })
      let points = line.attributes["points"]!.split(separator: " ").map { $0.split(separator: ",").map { Double($0)! } }
      let values = Self.output.run.indicators.first { $0.name == name }!.values
      #expect(points.count > 100)
      for p in points.enumerated().filter({ $0.offset % 37 == 0 }).map(\.element) {
        let index = Int(((p[0] - x0) / (x1 - x0) * (n - 1)).rounded())
        let value = vmin + (bottom - p[1]) / (bottom - top) * (vmax - vmin)
        #expect(abs(value - values[index]) <= tolerance + (vmax - vmin) / (x1 - x0) * 0.1, "\(name)[\(index)]: \(value) vs \(values[index])")
      }
    }
  }

  @Test("equity.svg rings the equity's peak and the maximum drawdown's trough, labelled with their value and day")
  func equityMarks() throws {
    let output = Self.output, charts = RunCharts(output)
    let svg = try #require(SVGCollector.parse(charts.equity()))
    let equity = output.run.result.equity
    let peak = equity.indices.first { equity[$0] == equity.max()! }!
    let dd = drawdowns(equity), trough = dd.indices.first { dd[$0] == dd.min()! }!
    #expect(dd[trough] < -0.01 && abs(dd[trough] - output.summary.maxDrawdown) < 1e-12, "\(dd[trough]) vs \(output.summary.maxDrawdown)")
    #expect(svg.elements.first { $0.attributes["id"] == "equity-peak" }?.attributes["data-bar"] == String(peak))
    #expect(svg.elements.first { $0.attributes["id"] == "drawdown-trough" }?.attributes["data-bar"] == String(trough))
    let text = charts.equity()
    #expect(text.contains(">peak \(HumanFormat.money(equity[peak])) on \(CivilDate.isoDate(days: Int(output.bars.day[peak])))</text>"))
    #expect(text.contains(">max drawdown \(HumanFormat.percent(output.summary.maxDrawdown)) on \(CivilDate.isoDate(days: Int(output.bars.day[trough])))</text>"))
  }

  @Test("the risk views: the worst drawdowns (the first is the maximum drawdown; dates and days), yearly returns that compound to the total returns, rolling volatility and Sharpe of each window's daily returns, every day with a change in the histogram")
  func riskViews() throws {
    let output = try runBacktest("""
      name: r
      data: {bars: ../Data/synthetic_gpix_30min.csv, timezone: America/New_York, session: regular}
      strategy: {type: bollinger_rsi, stop_loss: 2%}
      """)
    let charts = RunCharts(output), equity = output.run.result.equity, bars = output.bars
    // Drawdowns, found again from the drawdown series: each stretch below 0, its lowest point, deepest first.
    let dd = drawdowns(equity)
    var stretches: [(start: Int, end: Int, trough: Int)] = []
    var i = 0
    while i < dd.count {
      guard dd[i] < 0 else { i += 1; continue }
      var j = i, trough = i
      while j < dd.count && dd[j] < 0 { if dd[j] < dd[trough] { trough = j }; j += 1 }
      stretches.append((i, j, trough))
      i = j
    }
    stretches.sort { dd[$0.trough] < dd[$1.trough] }
    let periods = charts.drawdownPeriods()
    #expect(periods.count == 5 && stretches.count > 5)
    for (p, s) in zip(periods, stretches) {
      #expect(p.peak == s.start - 1 && p.trough == s.trough && p.recovery == (s.end < dd.count ? s.end : nil), "\(p) vs \(s)")
      #expect(abs(p.depth - dd[s.trough]) < 1e-12)
    }
    #expect(abs(periods[0].depth - output.summary.maxDrawdown) < 1e-12)
    let md = MarkdownReport.render(output), first = periods[0]
    let days = Int(bars.day[first.trough]) - Int(bars.day[first.peak])
    #expect(md.contains("| 1 | \(CivilDate.isoDate(days: Int(bars.day[first.peak]))) | \(CivilDate.isoDate(days: Int(bars.day[first.trough]))) | "
                        + "\(first.recovery.map { CivilDate.isoDate(days: Int(bars.day[$0])) } ?? "not yet") | \(HumanFormat.percent(first.depth)) | \(days) |"))
    // Yearly returns compound to the run's and to buy and hold's total return.
    let years = charts.yearlyReturns
    #expect(years.map(\.year) == Array(2021...2024))
    #expect(abs(years.reduce(1.0) { $0 * (1 + $1.value) } - 1 - output.summary.totalReturn) < 1e-12)
    #expect(abs(years.reduce(1.0) { $0 * (1 + $1.comparison!) } - 1 - output.benchmarkSummary.totalReturn) < 1e-12)
    // Rolling figures: the deviation and Sharpe ratio of the 126 daily returns up to a day, annualized.
    let daily = dailyReturns(equity: equity, day: bars.day)
    let window = try #require(charts.rollingWindow)
    #expect(window == 126 && daily.count > 500)
    let rolling = charts.rollingValues(window: window)
    for d in [126, 400, daily.count] {
      let slice = Array(daily[(d - window)..<d])
      #expect(abs(rolling.volatility[0][d] - sampleDeviation(slice)! * 252.0.squareRoot()) < 1e-9)
      #expect(abs(rolling.sharpe[0][d] - sharpeRatio(dailyReturns: slice)!) < 1e-6)
    }
    #expect(rolling.volatility[0][window - 1].isNaN)
    // The histogram counts every day with a change.
    let svg = try #require(SVGCollector.parse(charts.dailyReturnsChart()))
    let counted = svg.elements.compactMap { $0.attributes["data-count"].flatMap(Int.init) }.reduce(0, +)
    #expect(counted == daily.filter { $0 != 0 }.count)
    // All in report.html.
    let html = HTMLReport.render(output)
    for id in ["id=\"risk\"", "id=\"rolling\"", "<h2>Worst drawdowns</h2>", "id=\"yearly\"", "id=\"daily-returns\""] { #expect(html.contains(id), "\(id)") }
  }

  @Test("monthly returns compound to the total return")
  func monthly() {
    let months = RunCharts(Self.output).monthlyReturns
    let total = months.reduce(1.0) { $0 * (1 + $1.value) } - 1
    #expect(abs(total - Self.output.summary.totalReturn) < 1e-12)
  }

  @Test("the monthly heatmap: a month that reads 0.0% (out of the market) is neutral grey, gains green, losses red")
  func monthlyHeatIsNeutralAtZero() throws {
    let charts = RunCharts(Self.output)
    let months = charts.monthlyReturns
    let flat = months.filter { FixedDecimal.text(abs($0.value) * 100, decimals: 1) == "0.0" }
    #expect(flat.count >= 3, "months out of the market: \(flat.count)")
    let svg = try #require(SVGCollector.parse(charts.monthly()))
    let cells = svg.elements.filter { $0.name == "rect" && $0.attributes["fill"] != nil && $0.attributes["class"] == nil }
    // 12 cells a full year plus the year's total; the cells of the months, in order, are those not in the "Year" column.
    let fills = cells.map { $0.attributes["fill"]! }
    #expect(fills.filter { $0 == RunCharts.neutralHeat }.count >= flat.count)
    for m in months {
      let fill = RunCharts.heat(m.value)
      if FixedDecimal.text(abs(m.value) * 100, decimals: 1) == "0.0" { #expect(fill == "rgba(142,142,147,0.14)", "\(m)") }
      else { #expect(fill.hasPrefix(m.value > 0 ? "rgba(52,199,89," : "rgba(255,59,48,"), "\(m): \(fill)") }
    }
    #expect(RunCharts.heat(0.0004) == RunCharts.neutralHeat && RunCharts.heat(-0.0004) == RunCharts.neutralHeat)
    #expect(RunCharts.heat(0.0006).hasPrefix("rgba(52,199,89,") && RunCharts.heat(-0.0006).hasPrefix("rgba(255,59,48,"))
  }

  @Test("a report over a million bars stays under 15 MB with every bar's data and every trade, in the chart and its fallback, on 2- and 4-decimal prices",
        arguments: [2, 4])
  func millionBars(decimals: Int) throws {
    var bars = SyntheticBars.generate(count: 1_000_000, seed: 3)
    if decimals == 4 {
      // The same path at 4 decimals (a monotonic change keeps each bar's high and low around its open and close).
      for i in 0..<bars.count {
        func four(_ x: Double) -> Double { (x * 1.234567 * 10_000).rounded() / 10_000 }
        (bars.open[i], bars.high[i], bars.low[i], bars.close[i]) = (four(bars.open[i]), four(bars.high[i]), four(bars.low[i]), four(bars.close[i]))
      }
    }
    #expect(RunCharts.priceDecimals(bars: bars) == decimals)
    let config = try runConfig("name: big\ndata: {bars: ../Data/GOOG.csv}\nstrategy: {type: bollinger_rsi}\n")
    let output = Backtest.execute(config, RunInputs(bars: bars))
    let started = Date()
    let html = HTMLReport.render(output)
    let seconds = Date().timeIntervalSince(started)
    #expect(html.utf8.count < 15_000_000, "report.html is \(html.utf8.count) bytes")
    let trades = output.run.result.trades.count
    #expect(trades > 1000)
    #expect(html.contains("id=\"markers-win\" data-markers=\"\(2 * output.run.result.trades.filter { $0.pnl > 0 }.count)\""))
    // The chart's columns: the bars' (time, prices, indicators, equity...) and the trades'.
    #expect(html.contains("{\"at\":0,\"n\":1000000,\"dec\":0}"))
    #expect(html.contains(",\"n\":\(trades),"))
    #expect(SVGCollector.parse(RunCharts(output).price()) != nil)
    print("report.html of 1M bars at \(decimals) decimals: \(html.utf8.count) bytes in \(String(format: "%.2f", seconds)) s (debug build)")
  }

  @Test("LTTB keeps the ends and the extremes of a line")
  func lttb() {
    var y = ContiguousArray((0..<10_000).map { sin(Double($0) / 300) })
    y[5000] = 50
    let kept = largestTriangleThreeBuckets(y, threshold: 200)
    #expect(kept.count == 200 && kept.first == 0 && kept.last == 9999 && kept.contains(5000))
    // Undefined values only before the first defined one (a warm-up), and also between defined ones.
    var warm = y
    for i in 0..<300 { warm[i] = .nan }
    let fromWarm = largestTriangleThreeBuckets(warm, threshold: 200)
    #expect(fromWarm.count == 200 && fromWarm.first == 300 && fromWarm.last == 9999 && fromWarm.contains(5000))
    var gaps = warm
    for i in stride(from: 1000, to: 9000, by: 7) { gaps[i] = .nan }
    let fromGaps = largestTriangleThreeBuckets(gaps, threshold: 200)
    #expect(fromGaps.count == 200 && fromGaps.first == 300 && fromGaps.last == 9999 && fromGaps.contains(5000))
    #expect(fromGaps.allSatisfy { !gaps[$0].isNaN } && fromGaps == fromGaps.sorted())
    #expect(largestTriangleThreeBuckets(ContiguousArray(warm[0..<310]), threshold: 200) == Array(300..<310))
    #expect(niceTicks(low: 0.3, high: 9.7) == [2, 4, 6, 8])
  }

  @Test("LTTB picks what the plain algorithm picks, the first of equal areas included")
  func lttbSameAsPlain() {
    // The algorithm as published: one search per bucket, the first largest area wins.
    func plain(_ y: ContiguousArray<Double>, threshold: Int) -> [Int] {
      let defined = y.indices.filter { !y[$0].isNaN }, count = defined.count
      guard count > threshold, threshold >= 3 else { return defined }
      var out = [defined[0]], a = defined[0]
      let bucket = Double(count - 2) / Double(threshold - 2)
      for b in 0..<(threshold - 2) {
        let start = Int(Double(b) * bucket) + 1, end = min(Int(Double(b + 1) * bucket) + 1, count - 1)
        let nextStart = end, nextEnd = min(Int(Double(b + 2) * bucket) + 1, count)
        var avgX = 0.0, avgY = 0.0
        for k in nextStart..<max(nextEnd, nextStart + 1) where k < count { avgX += Double(defined[k]); avgY += y[defined[k]] }
        let n = Double(max(1, min(nextEnd, count) - nextStart))
        avgX /= n; avgY /= n
        var best = defined[start], bestArea = -1.0
        for k in start..<max(end, start + 1) {
          let i = defined[k]
          let area = abs((Double(a) - avgX) * (y[i] - y[a]) - (Double(a) - Double(i)) * (avgY - y[a]))
          if area > bestArea { bestArea = area; best = i }
        }
        out.append(best)
        a = best
      }
      return out + [defined[count - 1]]
    }
    var rng = SplitMix64(seed: 21)
    for round in 0..<200 {
      let n = 3 + Int(rng.next() % 3000), threshold = 3 + Int(rng.next() % 200)
      // Few distinct values (many equal areas), some steps to infinity, sometimes gaps.
      var y = ContiguousArray((0..<n).map { _ in Double(rng.next() % 4) })
      if round % 3 == 0 { for _ in 0..<(n / 50) { y[Int(rng.next() % UInt64(n))] = .nan } }
      if round % 5 == 0 { y[Int(rng.next() % UInt64(n))] = .infinity }
      #expect(largestTriangleThreeBuckets(y, threshold: threshold) == plain(y, threshold: threshold), "round \(round)")
    }
  }
}

@Suite struct SweepChartTests {
  @Test("each heatmap cell is the mean of the metric over the other parameters")
  func heatmap() throws {
    let settings = try SweepPlanTests.settings("sweep:\n  parameters:\n    bb_period: [10, 20]\n    bb_std: [1.5, 2.0]\n    oversold: [20, 30]\n")
    let keys = SweepReport.metricKeys
    let records = SweepPlan.combinations(settings).map { c -> SweepRecord in
      var metrics = [Double?](repeating: 0, count: keys.count)
      metrics[keys.firstIndex(of: "sharpe")!] = Double(c.index)   // sharpe = plan index
      metrics[keys.firstIndex(of: "total_trades")!] = 20
      return SweepRecord(values: c.values, metrics: metrics, fingerprint: "f")
    }
    let svg = try #require(SVGCollector.parse(SweepCharts.heatmap(records, settings: settings, x: 0, y: 1)))
    let cells = svg.elements.filter { $0.attributes["data-value"] != nil }
    #expect(cells.count == 4)
    // bb_period 10, bb_std 1.5 holds plan indices 0 and 1 (oversold 20, 30): mean 0.5.
    let cell = try #require(cells.first { $0.attributes["data-x"] == "10" && $0.attributes["data-y"] == "1.5" })
    #expect(cell.attributes["data-value"] == "0.5")
    let last = try #require(cells.first { $0.attributes["data-x"] == "20" && $0.attributes["data-y"] == "2.0" })
    #expect(last.attributes["data-value"] == "6.5")
  }
}

@Suite struct SVGCoordinateTests {
  @Test("coordinates are written as before: whole numbers bare, else %.1f of the value rounded to 0.1")
  func sameAsFormat() {
    func expected(_ x: Double) -> String {
      let r = (x * 10).rounded() / 10
      return r == r.rounded() ? String(Int(r)) : String(format: "%.1f", r)
    }
    var rng = SplitMix64(seed: 77)
    var values: [Double] = [0, -0.0, 0.05, -0.05, 0.04999, 0.15, -0.15, 1.25, -1.25, 2.45, 999.95, -999.95, 1e6 + 0.35, 123456789.06, .nan]
    for _ in 0..<20_000 { values.append((rng.unit() - 0.5) * pow(10, Double(rng.next() % 9))) }
    for x in values { #expect(SVGBuilder.coordinate(x) == expected(x), "\(x)") }
  }
}

@Suite struct SVGEscapeTests {
  @Test("escape writes &, <, > and \" as entities and leaves everything else, as four replacements would")
  func sameAsReplacements() {
    func expected(_ s: String) -> String {
      s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
    #expect(SVGBuilder.escape("AT&T <b>\"x\"</b>") == "AT&amp;T &lt;b&gt;&quot;x&quot;&lt;/b&gt;")
    let pieces = ["", "a", "&", "<", ">", "\"", "é", "€", "📈", " ", "&amp;", "'"]
    var rng = SplitMix64(seed: 5)
    for _ in 0..<5_000 {
      let s = (0..<Int(rng.next() % 8)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
      #expect(SVGBuilder.escape(s) == expected(s), "\(s)")
    }
  }
}

@Suite struct ReportHTMLTableTests {
  @Test("report.html carries report.md's tables (performance with trade and drawdown durations, exit reasons, intrabar ambiguity) and links the best and worst trades to their rows and the chart")
  func reportHTMLCarriesTheTables() throws {
    // Optimistic intrabar rule on the synthetic GPIX bars: some exits are ambiguous, so report.md has its ambiguity table.
    let output = try runBacktest("""
      name: t
      data: {bars: ../Data/synthetic_gpix_30min.csv, timezone: America/New_York, session: regular}
      strategy: {type: bollinger_rsi, stop_loss: 0.5%, profit_target: 0.75%}
      portfolio: {intrabar_rule: optimistic}
      """)
    let md = MarkdownReport.render(output), html = HTMLReport.render(output)
    #expect(md.contains("### Intrabar ambiguity"))
    for title in ["Performance", "Exit reasons"] { #expect(html.contains("<h2>\(title)</h2>")) }
    #expect(html.contains("<h3>Intrabar ambiguity</h3>"))
    #expect(html.contains("<td>Average trade</td>") && html.contains("<td>Longest drawdown</td>"))
    // Each exit-reason row of report.md is a row of report.html.
    let section = md.components(separatedBy: "## Exit reasons\n")[1]
    for line in section.split(separator: "\n").prefix(while: { !$0.hasPrefix("#") }) where line.hasPrefix("| ") && !line.hasPrefix("| Reason") {
      let cells = line.dropFirst(2).dropLast(2).components(separatedBy: " | ")
      #expect(html.contains("<tr>" + cells.map { "<td>\(SVGBuilder.escape($0))</td>" }.joined() + "</tr>"), "\(line)")
    }
    // The best and the worst trade by return, linked to their rows.
    let trades = output.run.result.trades
    let best = trades.indices.max { trades[$0].returnFraction < trades[$1].returnFraction }! + 1
    let worst = trades.indices.min { trades[$0].returnFraction < trades[$1].returnFraction }! + 1
    #expect(html.contains("<a href=\"#trade-\(best)\" data-zoom-trade=\"\(best - 1)\">Best trade #\(best) ("))
    #expect(html.contains("<a href=\"#trade-\(worst)\" data-zoom-trade=\"\(worst - 1)\">worst trade #\(worst) ("))
    #expect(html.contains("<tr id=\"trade-\(best)\" class=\"win\">") && html.contains("<tr id=\"trade-\(worst)\" class=\"loss\">"))
    // Prices at the bars' decimals (4 here): a stop's fill of 46.597922 shows as $46.5979, in report.md too.
    let first = try #require(trades.first { $0.exitReason == .stopLoss && "\($0.exitPrice)".count > 8 })
    let cells = "<td>$\(FixedDecimal.text(first.entryPrice, decimals: 4))</td><td>\(output.bars.timeLabel(first.exitBar))</td><td>$\(FixedDecimal.text(first.exitPrice, decimals: 4))</td>"
    #expect(FixedDecimal.text(first.exitPrice, decimals: 4).count == "\(first.exitPrice)".prefix { $0 != "." }.count + 5)
    #expect(html.contains(cells), "\(cells)")
    #expect(md.contains("| $\(FixedDecimal.text(first.exitPrice, decimals: 4)) |"))
    #expect(RunCharts.priceDecimals(bars: output.bars) == 4)
  }

  @Test("with more trades than the list shows, the best and the worst trade are listed after the first 500, in report.html and report.md")
  func bestAndWorstAlwaysListed() throws {
    let bars = SyntheticBars.generate(count: 300_000, seed: 5)
    let config = try runConfig("name: many\ndata: {bars: ../Data/GOOG.csv}\nstrategy: {type: bollinger_rsi}\n")
    let output = Backtest.execute(config, RunInputs(bars: bars))
    let trades = output.run.result.trades
    let best = trades.indices.max { trades[$0].returnFraction < trades[$1].returnFraction }!
    let worst = trades.indices.min { trades[$0].returnFraction < trades[$1].returnFraction }!
    let later = Set([best, worst]).filter { $0 >= 500 }
    #expect(trades.count > 600 && !later.isEmpty, "\(trades.count) trades, best #\(best + 1), worst #\(worst + 1)")
    let html = HTMLReport.render(output), md = MarkdownReport.render(output)
    for k in [best, worst] {
      #expect(html.contains("<tr id=\"trade-\(k + 1)\" class="))
      #expect(md.contains("\n| \(k + 1) | \(output.bars.timeLabel(trades[k].entryBar)) |"))
    }
    #expect(html.components(separatedBy: "<tr id=\"trade-").count - 1 == 500 + later.count)
    #expect(html.contains("The first 500 of \(HumanFormat.integer(trades.count)) trades, then the best and the worst; all are in trades.csv."))
    #expect(md.contains("Best trade #\(best + 1), worst trade #\(worst + 1) (listed after the first 500)."))
  }
}
