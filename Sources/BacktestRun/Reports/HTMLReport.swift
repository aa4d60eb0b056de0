import BacktestCore
/// `report.html`: one self-contained page (inline SVG, CSS and script,
/// nothing fetched), readable in light and dark themes. The time-series
/// charts are interactive (`InteractiveChart`); with scripts off, and in
/// print, their static SVG versions show instead.
package enum HTMLReport {
  static let css = baseCSS + "\n" + ChartScript.css
  static let baseCSS = """
    :root{color-scheme:light dark;--fg:#1c1c1e;--muted:#636366;--bg:#f2f2f7;--card:#fff;--line:#e5e5ea}
    @media (prefers-color-scheme: dark){:root{--fg:#f2f2f7;--muted:#aeaeb2;--bg:#000;--card:#1c1c1e;--line:#38383a}}
    body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 -apple-system,Helvetica,Arial,sans-serif}
    main{max-width:1040px;margin:0 auto;padding:20px}h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:0 0 10px}
    .note{color:var(--muted)}.synthetic{background:#FF9500;color:#fff;border-radius:6px;padding:2px 8px;font-weight:600}
    .card{background:var(--card);border-radius:12px;padding:14px 16px;margin:14px 0;overflow-x:auto}
    svg{max-width:100%;height:auto;display:block}table{border-collapse:collapse;width:100%}
    th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:right;white-space:nowrap}th:first-child,td:first-child{text-align:left}
    .badge{display:inline-block;border-radius:10px;padding:2px 10px;color:#fff;font-weight:600}
    .grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:8px}.metric b{display:block;font-size:18px}
    .ic-scroll{overflow-x:auto}.ic-section{margin:22px 0 0}.ic-heat{width:auto;font-variant-numeric:tabular-nums}.ic-heat th{font-weight:400;color:var(--muted);text-align:center}
    .ic-heat td{min-width:46px;text-align:center;padding:3px 4px;border:2px solid var(--card)}.ic-heat td.ic-year{font-weight:600}
    @media screen and (max-width:720px){main{padding:10px}.card{padding:12px 10px}.ic-wide svg{min-width:860px}}
    """

  /// The page's opening, through `<main>`, with `title` as its title and heading.
  package static func opening(_ title: String) -> String {
    let t = SVGBuilder.escape(title)
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
      + "<title>\(t)</title><style>\(css)</style></head><body><main>\n<h1>\(t)</h1>\n"
  }

  /// The page's end: the charts' script, once, after the content.
  package static let closing = "</main><script>" + ChartScript.script + "</script></body></html>\n"

  /// The data description, flagged when it says the data is synthetic.
  static func description(_ text: String?) -> String {
    guard let text else { return "" }
    return "<p>" + (text.uppercased().contains("SYNTHETIC") ? "<span class=\"synthetic\">synthetic data</span> " : "")
      + SVGBuilder.escape(text) + "</p>\n"
  }

  /// A card of headline figures: (name, value, note) each.
  package static func tiles(_ tiles: [(String, String, String)]) -> String {
    "<div class=\"card grid\">" + tiles.map { "<div class=\"metric\">\($0.0)<b>\($0.1)</b><span class=\"note\">\($0.2)</span></div>" }.joined() + "</div>\n"
  }

  package static func render(_ output: RunOutput) -> String {
    page(output, charts: MemoizedCharts(RunCharts(output)), markdown: MarkdownReport.render(output)).text
  }

  /// The page, with charts made already (or being made) for the SVG files,
  /// and `markdown`, report.md's text (`MarkdownReport.render(output)`), whose tables it shows;
  /// the chart's data is encoded as the page is written.
  package static func page(_ output: RunOutput, charts: MemoizedCharts, markdown md: @autoclosure () -> String) -> PagedText {
    let c = output.config, s = output.summary, b = output.benchmarkSummary, bars = output.bars
    func e(_ x: String) -> String { SVGBuilder.escape(x) }
    var h = PagedText(opening("Backtest: \(c.name)"))
    h += "<p class=\"note\">\(e(c.strategy.name)) on <code>\(e(c.data.bars))</code>, "
    h += "\(HumanFormat.integer(bars.count)) bars, \(e(bars.timeLabel(0))) → \(e(bars.timeLabel(bars.count - 1))), "
    h += (c.data.adjustedPrices ? "adjusted prices" : "prices as traded") + "</p>\n"
    h += description(c.data.description)
    if let cycle = output.cycle {
      let stage = cycle.gate.stages[bars.count - 1]
      h += "<p>Economic cycle now: <span class=\"badge\" style=\"background:\(stage.color ?? "#8e8e93")\">\(stage.rawValue)</span>"
      if cycle.settings.filter { h += " <span class=\"note\">\(output.run.blockedEntries) buy signal(s) skipped by the filter</span>" }
      h += "</p>\n"
    }
    let tiles: [(String, String, String)] = [
      ("Total return", HumanFormat.percent(s.totalReturn), "buy & hold " + HumanFormat.percent(b.totalReturn)),
      ("CAGR", HumanFormat.percent(s.cagr), "buy & hold " + HumanFormat.percent(b.cagr)),
      ("Max drawdown", HumanFormat.percent(s.maxDrawdown), "buy & hold " + HumanFormat.percent(b.maxDrawdown)),
      ("Sharpe", HumanFormat.ratio(s.sharpe), "buy & hold " + HumanFormat.ratio(b.sharpe)),
      ("Trades", HumanFormat.integer(s.totalTrades), "win rate " + HumanFormat.percent(s.winRate)),
      ("Final equity", HumanFormat.money(s.finalEquity), "from " + HumanFormat.money(c.broker.initialCash)),
    ]
    h += Self.tiles(tiles)
    InteractiveChart.run(output, charts: charts.charts).appendHTML(
      to: &h, id: "run-chart", fallback: ([charts.price()] + charts.panelCharts().map(\.svg) + [charts.equity()]).joined(separator: "\n"))
    h += "<div class=\"card\">\(charts.charts.monthlyTable())</div>\n"
    h += "<div class=\"card ic-wide\">\(charts.tradeReturns())</div>\n"
    h += charts.charts.riskHTML()
    // report.md's tables and notes (performance, exit reasons, intrabar ambiguity, cycle, dividends), from the same text.
    let md = md()
    for section in ["Performance", "Exit reasons", "Economic cycle", "Dividends"] {
      if let body = MarkdownReport.section(section, of: md) { h += "<div class=\"card\"><h2>\(e(section))</h2>\(markdownBlocks(body))</div>\n" }
    }
    h += "<div class=\"card\"><h2>Parameters</h2><table>"
    for p in c.strategy.parameterSummary { h += "<tr><td>\(e(p.name))</td><td>\(e(p.value))</td></tr>" }
    h += "</table></div>\n"
    h += tradesCard(output)
    h += "<p class=\"note\">The chart shows in every pixel column the true high and low of the bars it covers, candles once there is room, "
    h += "and every trade; hover a bar or a marker for its figures. With scripts off the static charts show, reduced for display "
    h += "(one OHLC bar per pixel column, lines by largest-triangle-three-buckets).</p>\n"
    h += closing
    return h
  }

  /// The trades card: links to the best and the worst trade, which zoom the chart onto them, and the trades, at
  /// the bars' decimals. Without scripts the first `MarkdownReport.tradeListLimit` trades show, and the best and the
  /// worst after them when they are later; the page's script turns the table into one of every trade, sortable and
  /// filterable, each row zooming the chart onto its trade (`data-trade-table` names the chart).
  static func tradesCard(_ output: RunOutput) -> String {
    let bars = output.bars, trades = output.run.result.trades, limit = MarkdownReport.tradeListLimit
    let decimals = RunCharts.priceDecimals(bars: bars)
    func e(_ x: String) -> String { SVGBuilder.escape(x) }
    var h = "<div class=\"card\" id=\"trades\" data-trade-table=\"run-chart\"><h2>Trades</h2>"
    let extremes = MarkdownReport.bestAndWorst(trades)
    if let (best, worst) = extremes {
      func link(_ k: Int, _ label: String) -> String {
        let t = trades[k]
        return "<a href=\"#trade-\(k + 1)\" data-zoom-trade=\"\(k)\">\(label) #\(k + 1) (\(HumanFormat.percent(t.returnFraction)), "
          + "\(e(bars.timeLabel(t.entryBar))) → \(e(bars.timeLabel(t.exitBar))))</a>"
      }
      h += "<p class=\"ic-extremes\">\(link(best, "Best trade")) · \(link(worst, "worst trade"))</p>"
    }
    h += "<table class=\"ic-trades\"><thead><tr><th>#</th><th>Entry</th><th>Entry price</th><th>Exit</th><th>Exit price</th><th>Shares</th>"
    h += "<th>P&amp;L</th><th>Return</th><th>Reason</th><th>Bars</th></tr></thead><tbody>"
    var rows = Array(trades.indices.prefix(limit))
    if let (best, worst) = extremes { for k in Set([best, worst]).sorted() where k >= limit { rows.append(k) } }
    for k in rows {
      let t = trades[k]
      h += "<tr id=\"trade-\(k + 1)\" class=\"\(t.pnl > 0 ? "win" : "loss")\"><td>\(k + 1)</td><td>\(e(bars.timeLabel(t.entryBar)))</td>"
      h += "<td>\(HumanFormat.price(t.entryPrice, decimals: decimals))</td><td>\(e(bars.timeLabel(t.exitBar)))</td>"
      h += "<td>\(HumanFormat.price(t.exitPrice, decimals: decimals))</td><td>\(HumanFormat.integer(t.shares))</td><td>\(HumanFormat.money(t.pnl))</td>"
      h += "<td>\(HumanFormat.percent(t.returnFraction))</td><td>\(t.exitReason.rawValue)</td><td>\(t.barsHeld)</td></tr>"
    }
    h += "</tbody></table>"
    if trades.count > limit {
      h += "<p class=\"note ic-trades-note\">The first \(limit) of \(HumanFormat.integer(trades.count)) trades"
      h += rows.count > limit ? ", then the best and the worst" : ""
      h += "; all are in trades.csv.</p>"
    }
    return h + "</div>\n"
  }

  /// Markdown paragraphs, `###` headings and pipe tables as HTML, for the text `MarkdownReport` writes
  /// (a table's lines start and end with `|`; `**bold**` and `` `code` `` within a line).
  static func markdownBlocks<S: StringProtocol>(_ text: S) -> String {
    var text = Substring(text)
    var h = TextBuffer(capacity: 2 * text.utf8.count + 64)
    text.withUTF8 { t in
      /// The line's bytes escaped, with `**` and `` ` `` opening and closing `<b>` and `<code>`.
      func inline(_ line: Range<Int>) {
        var bold = false, code = false, i = line.lowerBound
        while i < line.upperBound {
          if t[i] == UInt8(ascii: "*") && i + 1 < line.upperBound && t[i + 1] == UInt8(ascii: "*") {
            h.append(bold ? "</b>" : "<b>" as StaticString)
            bold.toggle()
            i += 2
            continue
          }
          if t[i] == UInt8(ascii: "`") {
            h.append(code ? "</code>" : "<code>" as StaticString)
            code.toggle()
          } else if let entity = SVGBuilder.entity(t[i]) {
            h.append(entity)
          } else {
            h.append(byte: t[i])
          }
          i += 1
        }
        if bold { h.append("</b>" as StaticString) }
        if code { h.append("</code>" as StaticString) }
      }
      /// A table row: its cells (between the `|`s, without spaces at either end) in `tag` elements.
      func row(_ line: Range<Int>, _ open: StaticString, _ close: StaticString) {
        h.append("<tr>" as StaticString)
        let end = max(line.lowerBound + 1, line.upperBound - 1)
        var start = line.lowerBound + 1
        while start <= end {
          let bar = t[start..<end].firstIndex(of: UInt8(ascii: "|")) ?? end
          var cell = start..<bar
          while !cell.isEmpty && (t[cell.lowerBound] == UInt8(ascii: " ") || t[cell.lowerBound] == UInt8(ascii: "\t")) { cell = cell.dropFirst() }
          while !cell.isEmpty && (t[cell.upperBound - 1] == UInt8(ascii: " ") || t[cell.upperBound - 1] == UInt8(ascii: "\t")) { cell = cell.dropLast() }
          h.append(open); inline(cell); h.append(close)
          start = bar + 1
        }
        h.append("</tr>" as StaticString)
      }
      var table: [Range<Int>] = []
      func flushTable() {
        guard let header = table.first else { return }
        h.append("<table>" as StaticString)
        row(header, "<th>", "</th>")
        for line in table.dropFirst(2) { row(line, "<td>", "</td>") }
        h.append("</table>" as StaticString)
        table = []
      }
      var start = 0
      while start <= t.count {
        let end = t[start...].firstIndex(of: UInt8(ascii: "\n")) ?? t.count
        let line = start..<end
        start = end + 1
        if !line.isEmpty && t[line.lowerBound] == UInt8(ascii: "|") { table.append(line); continue }
        flushTable()
        if line.count >= 4 && t[line.lowerBound..<line.lowerBound + 4].elementsEqual("### ".utf8) {
          h.append("<h3>" as StaticString); inline(line.dropFirst(4)); h.append("</h3>" as StaticString)
        } else if !line.isEmpty {
          h.append("<p>" as StaticString); inline(line); h.append("</p>" as StaticString)
        }
      }
      flushTable()
    }
    return h.string
  }
}
