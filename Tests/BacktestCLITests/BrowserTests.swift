import Foundation
import Testing

/// A CSV file as rows of named fields (no quoted fields: the report files have none).
struct CSVTable {
  var header: [String]
  var rows: [[String]]

  init(_ path: String) throws {
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    header = lines[0]
    rows = Array(lines.dropFirst())
  }

  func column(_ name: String) -> [String] {
    let k = header.firstIndex(of: name)!
    return rows.map { $0[k] }
  }

  func value(_ name: String, row: Int) -> String { rows[row][header.firstIndex(of: name)!] }
}

/// `report.html` of a run, opened in headless Chromium and used as a person would: wheel, drag, keys, hover.
@Suite(.serialized) struct BrowserTests {
  /// Where the screenshots go: a folder that outlives the test run.
  static let screenshots = CLI.root + "/.build/browser-test"

  @Test("report.html zooms, pans and resets with its panels linked; hovering a trade and a bar shows the figures of trades.csv and indicators.csv; no console error",
        .enabled(if: Chromium.executable != nil, "Chromium not found (apt-get install chromium, or set CHROMIUM=/path/to/chrome): the browser test is skipped"))
  func interactiveReport() throws {
    let out = try CLI.temporaryFolder()
    let run = try CLI.run(["run", "gpix.yaml", "--quiet", "--out", out])
    #expect(run.status == 0, "\(run.stderr)")
    let trades = try CSVTable(out + "/trades.csv"), indicators = try CSVTable(out + "/indicators.csv"), equity = try CSVTable(out + "/equity.csv")
    let times = indicators.column("time")
    let index = Dictionary(uniqueKeysWithValues: times.enumerated().map { ($1, $0) })
    try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)
    let browser = try Chromium()
    try browser.open(out + "/report.html")
    try browser.nextFrame()
    func shot(_ name: String) throws { try browser.screenshot(to: Self.screenshots + "/\(name).png") }
    try shot("1-loaded")

    /// The bars in view, as indices of `indicators.csv`, after checking that every panel shows the same ones.
    func view() throws -> ClosedRange<Int> {
      let ranges = try #require(try browser.evaluate("""
        JSON.stringify([document.querySelector('#run-chart'), ...document.querySelectorAll('#run-chart [data-panel]')]
          .map(e => [e.dataset.panel || 'chart', e.dataset.xStart, e.dataset.xEnd]))
        """) as? String)
      let panels = try #require(try JSONSerialization.jsonObject(with: Data(ranges.utf8)) as? [[String]])
      #expect(panels.map { $0[0] } == ["chart", "price", "rsi", "volume", "equity", "drawdown"])
      #expect(Set(panels.map { $0[1] + " " + $0[2] }).count == 1, "panels out of step: \(panels)")
      let start = try #require(index[panels[0][1]], "data-x-start \(panels[0][1]) is no bar's time")
      let end = try #require(index[panels[0][2]], "data-x-end \(panels[0][2]) is no bar's time")
      return start...end
    }
    #expect(try view() == 0...(times.count - 1))

    // Every bar's time, and every value the hover box can show, as the page decoded them: equal to the
    // CSVs (times, prices and shares exactly; the rest to the decimals the page shows).
    let columns = try #require(try browser.evaluate("""
      (() => { const c = backtestCharts[0];
        return JSON.stringify({time: Array.from({length: c.n}, (_, i) => c.iso(i)),
          rows: c.spec.tooltip.map(r => [r.key, c.spec.columns[r.col].dec, Array.from(c.col(r.col), v => isNaN(v) ? null : v)])}) })()
      """) as? String)
    let decoded = try #require(try JSONSerialization.jsonObject(with: Data(columns.utf8)) as? [String: Any])
    #expect(decoded["time"] as? [String] == times)
    let bars = try CSVTable(CLI.root + "/Data/synthetic_gpix_30min.csv")
    var checked: [String] = []
    for case let row as [Any] in try #require(decoded["rows"] as? [Any]) {
      let key = row[0] as! String, decimals = row[1] as! Int, values = row[2] as! [Any]
      let csv = [indicators, equity, bars].first { $0.header.contains(key) }
      guard let csv else { continue }
      let expected = csv.column(key).map(Double.init)
      let exact = ["open", "high", "low", "close", "volume", "position_shares"].contains(key)
      #expect(values.count == expected.count, "\(key)")
      let wrong = zip(values, expected).enumerated().filter { _, pair in
        guard let shown = pair.0 as? Double, let value = pair.1 else { return !(pair.0 is NSNull && pair.1 == nil) }
        return exact ? shown != value : !close(shown, value, decimals: decimals)
      }
      #expect(wrong.isEmpty, "\(key): \(wrong.count) bars differ, first \(wrong.first.map { "\($0.offset): \($0.element)" } ?? "")")
      checked.append(key)
    }
    #expect(checked == ["open", "high", "low", "close", "bb_lower", "bb_mid", "bb_upper", "rsi", "volume", "equity", "benchmark_equity", "drawdown", "position_shares"])

    // The price chart's plot area, in window coordinates.
    let box = try #require(try browser.evaluate("""
      (() => { const r = document.querySelector('[data-panel=price] .ic-box').getBoundingClientRect(); return [r.left, r.top, r.width, r.height] })()
      """) as? [Double])
    let (left, top, width) = (box[0] + 70, box[1], box[2] - 86)
    let middle = (x: left + width / 2, y: top + 60)

    // Wheel: zooms in around the pointer.
    try browser.wheel(x: middle.x, y: middle.y, deltaY: -800)
    try browser.nextFrame()
    let zoomed = try view()
    #expect(zoomed.count < times.count / 2 && zoomed.contains(times.count / 2), "after the wheel: \(zoomed)")
    try shot("2-wheel")

    // Drag to the left: later bars come into view.
    try browser.mouse("mouseMoved", x: middle.x, y: middle.y)
    try browser.mouse("mousePressed", x: middle.x, y: middle.y, buttons: 1)
    for step in 1...5 { try browser.mouse("mouseMoved", x: middle.x - Double(step) * 60, y: middle.y, buttons: 1) }
    try browser.mouse("mouseReleased", x: middle.x - 300, y: middle.y)
    try browser.nextFrame()
    let panned = try view()
    #expect(panned.lowerBound > zoomed.lowerBound && panned.upperBound > zoomed.upperBound, "\(zoomed) then \(panned)")
    #expect(abs(panned.count - zoomed.count) <= 1, "a pan keeps the width: \(zoomed) then \(panned)")
    try shot("3-drag")

    // Shift-drag selects a range to zoom to; keys zoom and reset.
    try browser.mouse("mousePressed", x: left + 100, y: middle.y, buttons: 1, modifiers: 8)
    try browser.mouse("mouseMoved", x: left + 300, y: middle.y, buttons: 1, modifiers: 8)
    try browser.mouse("mouseReleased", x: left + 300, y: middle.y, modifiers: 8)
    try browser.nextFrame()
    let selected = try view()
    #expect(selected.count < panned.count / 3 && selected.lowerBound > panned.lowerBound, "\(panned) then \(selected)")
    try browser.press("-")
    #expect(try view().count > selected.count)
    try browser.press("0")
    #expect(try view() == 0...(times.count - 1))

    // Prices show at the instrument's precision: the decimals of the bars (a stop's fill has more in trades.csv).
    let decimals = try #require(try browser.evaluate("backtestCharts[0].spec.trades.priceDecimals") as? Int)
    #expect(decimals == 4)
    func price(_ text: String) -> Double { let scale = pow(10, Double(decimals)); return (Double(text)! * scale).rounded() / scale }

    // Hover a trade's entry marker, then its exit marker: the box shows trades.csv's figures.
    let k = 5
    let entryBar = try #require(index[trades.value("entry_time", row: k)]), exitBar = try #require(index[trades.value("exit_time", row: k)])
    _ = try browser.evaluate("backtestCharts[0].setRange(\(entryBar - 30), \(exitBar + 30))")
    try browser.nextFrame()
    for exit in [false, true] {
      let point = try #require(try browser.evaluate("(() => { const p = backtestCharts[0].panels[0].markerPoint(\(k), \(exit)); return [p.x, p.y] })()") as? [Double])
      try browser.mouse("mouseMoved", x: point[0], y: point[1])
      let rows = try tooltip(browser)
      #expect(rows["trade"]?.hasPrefix("\(k + 1) of \(trades.rows.count)") == true, "\(rows)")
      #expect(rows["entry_time"] == trades.value("entry_time", row: k) && rows["exit_time"] == trades.value("exit_time", row: k))
      #expect(rows["exit_reason"] == trades.value("exit_reason", row: k))
      for field in ["entry_price", "exit_price"] { #expect(number(rows[field]) == price(trades.value(field, row: k)), "\(field): \(rows)") }
      #expect(number(rows["shares"]) == Double(trades.value("shares", row: k)), "\(rows)")
      #expect(rows["result"] == (Double(trades.value("pnl", row: k))! > 0 ? "win" : "loss"), "\(rows)")
      #expect(close(number(rows["pnl"]), Double(trades.value("pnl", row: k))!, decimals: 2), "\(rows)")
      #expect(close(number(rows["return"]).map { $0 / 100 }, Double(trades.value("return", row: k))!, decimals: 4), "\(rows)")
      try shot(exit ? "5-trade-exit" : "4-trade-entry")
    }

    // A stop's fill, 46.597922 in trades.csv, shows as 46.5979.
    let stopExit = try #require(index[trades.value("exit_time", row: 0)])
    _ = try browser.evaluate("backtestCharts[0].setRange(\(stopExit - 30), \(stopExit + 30))")
    try browser.nextFrame()
    let stop = try #require(try browser.evaluate("(() => { const p = backtestCharts[0].panels[0].markerPoint(0, true); return [p.x, p.y] })()") as? [Double])
    try browser.mouse("mouseMoved", x: stop[0], y: stop[1])
    #expect(trades.value("exit_price", row: 0) == "46.597922000000004")
    #expect(try tooltip(browser)["exit_price"] == "46.5979")

    // Profit and loss at a glance: each trade's markers in green when it made money, in red when it lost. Zoomed
    // in, full markers (the entry's triangle, read at its centre); in the full view, a small pair per trade joined
    // by a line (113 trades would hide the prices).
    let pnl = trades.column("pnl").map { Double($0)! }
    let win = try #require(pnl.firstIndex { $0 > 0 }), loss = try #require(pnl.firstIndex { $0 <= 0 })
    func pixel(_ k: Int) throws -> (compact: Bool, rgb: [Double]) {
      let read = try #require(try browser.evaluate("""
        (() => { const c = backtestCharts[0], p = c.panels[0], [x, y] = p.markerCentre(\(k), false);
          return [p.compact ? 1 : 0, ...p.ctx.getImageData(Math.round(x), Math.round(y), 1, 1).data] })()
        """) as? [Double])
      return (read[0] == 1, Array(read[1...3]))
    }
    func near(_ rgb: [Double], _ expected: [Double]) -> Bool { zip(rgb, expected).allSatisfy { abs($0 - $1) <= 12 } }
    let green: [Double] = [22, 163, 74], red: [Double] = [220, 38, 38]
    for (k, colour) in [(win, green), (loss, red)] {
      let entry = try #require(index[trades.value("entry_time", row: k)]), exit = try #require(index[trades.value("exit_time", row: k)])
      _ = try browser.evaluate("backtestCharts[0].setRange(\(entry - 30), \(exit + 30))")
      try browser.nextFrame()
      let seen = try pixel(k)
      #expect(!seen.compact && near(seen.rgb, colour), "trade \(k + 1) (P&L \(pnl[k])): \(seen)")
    }
    try shot("4b-pl-colours")
    try browser.press("0")
    try browser.nextFrame()
    for (k, colour) in [(win, green), (loss, red)] {
      let seen = try pixel(k)
      #expect(seen.compact && near(seen.rgb, colour), "full view, trade \(k + 1) (P&L \(pnl[k])): \(seen)")
    }
    try shot("4c-full-view")
    // The legend hides the losing trades: hovering one shows the bar's figures instead.
    #expect(try browser.evaluate("[...document.querySelectorAll('[data-panel=price] [data-series]')].map(b => b.dataset.series).join(' ')") as? String
            == "line0 line1 line2 win loss")
    _ = try browser.evaluate("document.querySelector('[data-panel=price] [data-series=loss]').click()")
    try browser.nextFrame()
    let lossPoint = try #require(try browser.evaluate("(() => { const p = backtestCharts[0].panels[0].markerPoint(\(loss), false); return [p.x, p.y] })()") as? [Double])
    try browser.mouse("mouseMoved", x: lossPoint[0], y: lossPoint[1])
    #expect(try tooltip(browser)["trade"] == nil)
    _ = try browser.evaluate("document.querySelector('[data-panel=price] [data-series=loss]').click()")
    try browser.mouse("mouseMoved", x: lossPoint[0], y: lossPoint[1])
    #expect(try tooltip(browser)["trade"] == "\(loss + 1) of \(trades.rows.count)")
    _ = try browser.evaluate("backtestCharts[0].setRange(\(entryBar - 30), \(exitBar + 30))")
    try browser.nextFrame()

    // Hover a bar (above the markers): the box shows its time and close as indicators.csv has them.
    let bar = (entryBar + exitBar) / 2
    let x = try #require(try browser.evaluate("(() => { const c = backtestCharts[0]; return c.panels[0].box.getBoundingClientRect().left + c.xOf(\(bar)) })()") as? Double)
    try browser.mouse("mouseMoved", x: x, y: top + 12)
    let rows = try tooltip(browser)
    #expect(rows["time"] == times[bar], "\(rows)")
    let i = try #require(index[rows["time"] ?? ""])
    #expect(number(rows["close"]) == Double(indicators.value("close", row: i)), "\(rows)")
    for name in ["bb_lower", "bb_mid", "bb_upper", "rsi"] { #expect(close(number(rows[name]), Double(indicators.value(name, row: i))!, decimals: 2), "\(name): \(rows)") }
    #expect(close(number(rows["equity"]), Double(equity.value("equity", row: i))!, decimals: 2), "\(rows)")
    #expect(number(rows["position_shares"]) == Double(equity.value("position_shares", row: i)), "\(rows)")
    #expect(number(rows["volume"]) == Double(bars.value("volume", row: i)), "\(rows)")
    try shot("6-bar")

    // A legend entry hides its series.
    _ = try browser.evaluate("document.querySelector('[data-panel=price] [data-series=line1]').click()")
    #expect(try browser.evaluate("document.querySelector('[data-panel=price] [data-series=line1]').getAttribute('aria-pressed')") as? String == "false")
    #expect(browser.errors.isEmpty, "\(browser.errors)")

    // The equity panel: enough ticks; marks at the equity's peak and at the maximum drawdown's trough (as equity.csv
    // has them); a log scale (ticks evenly spaced by their ratios) and the return since the first bar in view.
    try browser.press("0")
    try browser.nextFrame()
    let peak = equity.column("equity").map { Double($0)! }.enumerated().max { $0.element < $1.element || ($0.element == $1.element && $0.offset > $1.offset) }!.offset
    let trough = equity.column("drawdown").map { Double($0)! }.enumerated().min { $0.element < $1.element || ($0.element == $1.element && $0.offset < $1.offset) }!.offset
    let marks = try #require(try browser.evaluate("JSON.stringify(backtestCharts[0].panels.find(p => p.s.id === 'equity').s.marks.map(m => [m.kind, m.bar, m.label]))") as? String)
    let markList = try #require(try JSONSerialization.jsonObject(with: Data(marks.utf8)) as? [[Any]])
    #expect(markList.map { $0[0] as! String } == ["peak", "trough"])
    #expect(markList.map { $0[1] as! Int } == [peak, trough], "\(markList) vs peak \(peak), trough \(trough)")
    #expect((markList[1][2] as! String).hasPrefix("max drawdown -13.45% on "), "\(markList)")
    func ticks() throws -> [(y: Double, text: String)] {
      try browser.nextFrame()
      let json = try #require(try browser.evaluate("JSON.stringify(backtestCharts[0].panels.find(p => p.s.id === 'equity').ticks)") as? String)
      return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[Any]]).map { ($0[0] as! Double, $0[1] as! String) }
    }
    /// Whether the ticks' heights are `transform` of their values, to a tenth of a pixel: equal steps of the transformed value, equal steps in height.
    func evenlySpaced(_ ticks: [(y: Double, text: String)], _ transform: (Double) -> Double) -> Bool {
      let values = ticks.map { transform(number($0.text)!) }
      guard ticks.count >= 3 else { return false }
      let perUnit = (ticks[0].y - ticks[1].y) / (values[0] - values[1])
      return ticks.indices.allSatisfy { abs((ticks[$0].y - ticks[0].y) - perUnit * (values[$0] - values[0])) < 0.1 }
    }
    let linear = try ticks()
    #expect(linear.count >= 4 && linear.allSatisfy { $0.text.hasPrefix("$") } && evenlySpaced(linear) { $0 }, "\(linear)")
    _ = try browser.evaluate("document.querySelector('[data-panel=equity] [data-scale=log]').click()")
    let log = try ticks()
    #expect(log.count >= 4 && evenlySpaced(log) { Foundation.log($0) } && !evenlySpaced(log) { $0 }, "\(log)")
    try shot("8-equity-log")
    _ = try browser.evaluate("document.querySelector('[data-panel=equity] [data-scale=percent]').click()")
    let percent = try ticks()
    #expect(percent.count >= 4 && percent.allSatisfy { $0.text.hasSuffix("%") } && evenlySpaced(percent) { Foundation.log(1 + $0 / 100) }, "\(percent)")
    #expect(try browser.evaluate("[...document.querySelectorAll('[data-panel=equity] [data-scale]')].map(b => b.getAttribute('aria-pressed')).join()") as? String == "false,true,true")
    _ = try browser.evaluate("document.querySelector('[data-panel=equity] [data-scale=log]').click()")
    let percentLinear = try ticks()
    #expect(percentLinear.contains { $0.text == "0%" } && evenlySpaced(percentLinear) { $0 }, "\(percentLinear)")
    // Zoomed, the return is since the first bar in view: 0% is still on the axis.
    _ = try browser.evaluate("backtestCharts[0].setRange(\(times.count / 2), \(times.count / 2 + 800))")
    #expect(try ticks().contains { $0.text == "0%" })
    try shot("9-equity-percent")
    _ = try browser.evaluate("document.querySelector('[data-panel=equity] [data-scale=money]').click()")
    #expect(try ticks().allSatisfy { $0.text.hasPrefix("$") })
    #expect(browser.errors.isEmpty, "\(browser.errors)")

    // The trade table: every trade, prices at the bars' decimals, sortable and filterable; a row zooms the chart onto its trade.
    func table() throws -> [[String]] {
      let json = try #require(try browser.evaluate("JSON.stringify([...document.querySelectorAll('#trades tbody tr')].map(r => [r.dataset.trade, ...[...r.cells].map(c => c.textContent)]))") as? String)
      return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String]])
    }
    let all = try table()
    #expect(all.count == trades.rows.count && all.map { $0[1] } == (1...trades.rows.count).map(String.init))
    #expect(all[0][5] == "$46.5979" && all[0][3] == "$" + trades.value("entry_price", row: 0), "\(all[0])")
    let returns = trades.column("return").map { Double($0)! }
    let bestTrade = returns.indices.max { returns[$0] < returns[$1] }!, worstTrade = returns.indices.min { returns[$0] < returns[$1] }!
    _ = try browser.evaluate("document.querySelector('#trades th button[data-sort=\"7\"]').click()")
    let byReturn = try table()
    #expect(byReturn.first?[1] == String(bestTrade + 1) && byReturn.last?[1] == String(worstTrade + 1), "\(byReturn.prefix(2))")
    let shownReturns = byReturn.map { number($0[8])! }
    #expect(zip(shownReturns, shownReturns.dropFirst()).allSatisfy { $0 >= $1 }, "sorted by return, highest first")
    #expect(try browser.evaluate("document.querySelector('#trades th:nth-child(8)').getAttribute('aria-sort')") as? String == "descending")
    _ = try browser.evaluate("document.querySelector('#trades th button[data-sort=\"7\"]').click()")
    #expect(try table().first?[1] == String(worstTrade + 1))
    _ = try browser.evaluate("(() => { const s = document.querySelector('#trades select'); s.value = 'loss'; s.dispatchEvent(new Event('change')) })()")
    let losing = try table()
    #expect(losing.count == pnl.filter { $0 <= 0 }.count && losing.allSatisfy { number($0[7])! <= 0 }, "\(losing.count) losing rows")
    _ = try browser.evaluate("(() => { const s = document.querySelector('#trades input'); s.value = 'technical'; s.dispatchEvent(new Event('input')) })()")
    let losingTechnical = try table()
    let expected = trades.rows.indices.filter { pnl[$0] <= 0 && trades.value("exit_reason", row: $0) == "TECHNICAL" }
    #expect(losingTechnical.map { Int($0[0])! }.sorted() == expected && !expected.isEmpty, "\(losingTechnical.map { $0[1] })")
    #expect((try browser.evaluate("document.querySelector('#trades .note').textContent") as? String)?.hasPrefix("\(expected.count) of \(trades.rows.count) trades") == true)
    try shot("10-trade-table")
    // Clicking a row zooms the chart onto the trade and brings the chart into view.
    let row = expected[0]
    _ = try browser.evaluate("document.querySelector('#trades tbody tr[data-trade=\"\(row)\"] td').click()")
    try browser.nextFrame()
    let rowEntry = try #require(index[trades.value("entry_time", row: row)]), rowExit = try #require(index[trades.value("exit_time", row: row)])
    let around = try view()
    #expect(around.contains(rowEntry) && around.contains(rowExit) && around.count < 4 * (rowExit - rowEntry + 12), "trade \(row + 1): \(rowEntry)...\(rowExit) in \(around)")
    func chartInView() throws -> Bool {
      let top = try browser.evaluate("document.querySelector('#run-chart').getBoundingClientRect().top") as? Double
      let height = try browser.evaluate("innerHeight") as? Double
      return top.map { $0 > -2 && $0 < (height ?? 0) / 2 } ?? false
    }
    #expect(try chartInView())
    // The best trade's link zooms the chart too, and does not jump to its row.
    _ = try browser.evaluate("document.querySelector('#trades').scrollIntoView()")
    _ = try browser.evaluate("document.querySelector('#trades a[data-zoom-trade]').click()")
    try browser.nextFrame()
    let bestEntry = try #require(index[trades.value("entry_time", row: bestTrade)]), bestExit = try #require(index[trades.value("exit_time", row: bestTrade)])
    #expect(try view().contains(bestEntry) && view().contains(bestExit) && view().count < 200)
    #expect(try chartInView() && browser.evaluate("location.hash") as? String == "")
    try shot("11-best-trade")
    #expect(browser.errors.isEmpty, "\(browser.errors)")

    // In print, and with scripts off, the static charts show.
    try browser.call("Emulation.setEmulatedMedia", ["media": "print"])
    #expect(try browser.evaluate("JSON.stringify([document.querySelector('#run-chart .ic-static').offsetHeight > 800, document.querySelector('#run-chart .ic-live').offsetHeight])") as? String == "[true,0]")
    try browser.call("Emulation.setEmulatedMedia", ["media": ""])
    try browser.call("Emulation.setScriptExecutionDisabled", ["value": true])
    try browser.open(out + "/report.html")
    try browser.call("Emulation.setScriptExecutionDisabled", ["value": false])
    #expect(try browser.evaluate("JSON.stringify([document.querySelector('#run-chart .ic-static').offsetHeight > 800, document.querySelectorAll('.ic-live').length])") as? String == "[true,0]")
    #expect(try browser.evaluate("document.querySelectorAll('#trades tbody tr').length") as? Int == trades.rows.count)
    try shot("7-scripts-off")
    #expect(browser.errors.isEmpty, "\(browser.errors)")
  }

  @Test("on a phone (390 px wide, touch): a tap shows the hover box of a trade or of a bar; the monthly returns and the trade-return histogram keep readable text; zoomed to weeks or days, the time axis names the year; no console error",
        .enabled(if: Chromium.executable != nil, "Chromium not found (apt-get install chromium, or set CHROMIUM=/path/to/chrome): the browser test is skipped"))
  func phone() throws {
    let out = try CLI.temporaryFolder()
    let run = try CLI.run(["run", "gpix.yaml", "--quiet", "--out", out])
    #expect(run.status == 0, "\(run.stderr)")
    let trades = try CSVTable(out + "/trades.csv"), times = try CSVTable(out + "/indicators.csv").column("time")
    let index = Dictionary(uniqueKeysWithValues: times.enumerated().map { ($1, $0) })
    try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)
    let browser = try Chromium(width: 390, height: 844)
    try browser.call("Emulation.setDeviceMetricsOverride", ["width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true])
    try browser.call("Emulation.setTouchEmulationEnabled", ["enabled": true, "maxTouchPoints": 5])
    try browser.open(out + "/report.html")
    try browser.nextFrame()
    #expect(try browser.evaluate("document.querySelector('#run-chart .ic-live').getBoundingClientRect().width <= 390") as? Bool == true)

    // A tap on a trade's marker shows the trade; a tap on a bar, the bar.
    let k = 5
    let entryBar = try #require(index[trades.value("entry_time", row: k)]), exitBar = try #require(index[trades.value("exit_time", row: k)])
    _ = try browser.evaluate("backtestCharts[0].setRange(\(entryBar - 10), \(exitBar + 10))")
    _ = try browser.evaluate("document.querySelector('[data-panel=price]').scrollIntoView()")
    try browser.nextFrame()
    let point = try #require(try browser.evaluate("(() => { const p = backtestCharts[0].panels[0].markerPoint(\(k), false); return [p.x, p.y] })()") as? [Double])
    try browser.tap(x: point[0], y: point[1])
    try browser.nextFrame()
    let rows = try tooltip(browser)
    #expect(rows["trade"] == "\(k + 1) of \(trades.rows.count)" && rows["entry_time"] == trades.value("entry_time", row: k), "\(rows)")
    try browser.screenshot(to: Self.screenshots + "/phone-1-tap-trade.png")
    let bar = (entryBar + exitBar) / 2
    let x = try #require(try browser.evaluate("(() => { const c = backtestCharts[0]; return c.panels[0].box.getBoundingClientRect().left + c.xOf(\(bar)) })()") as? Double)
    let top = try #require(try browser.evaluate("document.querySelector('[data-panel=price] .ic-box').getBoundingClientRect().top") as? Double)
    try browser.tap(x: x, y: top + 12)
    try browser.nextFrame()
    let barRows = try tooltip(browser)
    #expect(barRows["time"] == times[bar] && barRows["trade"] == nil, "\(barRows)")
    try browser.screenshot(to: Self.screenshots + "/phone-2-tap-bar.png")

    // The time axis names the year on its first label, zoomed to two months, a week or a day.
    for bars in [560, 65, 13] {
      _ = try browser.evaluate("backtestCharts[0].setRange(\(times.count / 3), \(times.count / 3 + bars))")
      try browser.nextFrame()
      let labels = try #require(try browser.evaluate("JSON.stringify(backtestCharts[0].ticks.map(t => t[1]))") as? String)
      let first = try #require(try JSONSerialization.jsonObject(with: Data(labels.utf8)) as? [String]).first
      #expect(first?.range(of: #"^20\d\d-\d\d"#, options: .regularExpression) != nil, "\(bars) bars: \(labels)")
    }

    // The monthly returns are a table of 12 px text (scrolling sideways), the histogram's text at least 9 px high.
    let heat = try #require(try browser.evaluate("""
      (() => { const td = document.querySelector('#monthly-table td[style]'), r = td.getBoundingClientRect();
        return [parseFloat(getComputedStyle(td).fontSize), r.height, document.querySelector('#monthly-table').getBoundingClientRect().width] })()
      """) as? [Double])
    #expect(heat[0] >= 12 && heat[1] >= 16 && heat[2] > 390, "\(heat)")
    let label = try #require(try browser.evaluate("document.querySelector('svg#returns text.label').getBoundingClientRect().height") as? Double)
    #expect(label >= 9, "histogram label \(label) px high")
    _ = try browser.evaluate("document.querySelector('#monthly-table').scrollIntoView()")
    try browser.screenshot(to: Self.screenshots + "/phone-3-monthly.png")
    #expect(browser.errors.isEmpty, "\(browser.errors)")
  }

  @Test("a universe report's ranking sorts by any column (numbers as numbers, both ways), and a rotation report's page runs without a console error",
        .enabled(if: Chromium.executable != nil, "Chromium not found (apt-get install chromium, or set CHROMIUM=/path/to/chrome): the browser test is skipped"))
  func universeAndRotation() throws {
    let out = try CLI.temporaryFolder()
    #expect(try CLI.run(["run", "etf-universe", "--quiet", "--out", out + "/u"]).status == 0)
    let universe = try CSVTable(out + "/u/universe.csv")
    let browser = try Chromium()
    try browser.open(out + "/u/report.html")
    func column(_ k: Int) throws -> [String] {
      let json = try #require(try browser.evaluate("JSON.stringify([...document.querySelectorAll('#symbols tbody tr')].map(r => r.cells[\(k)].textContent))") as? String)
      return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String])
    }
    let sharpe = universe.column("sharpe").map { Double($0)! }, symbols = universe.column("symbol")
    #expect(try column(1) == symbols.indices.sorted { sharpe[$0] > sharpe[$1] }.map { symbols[$0] }, "ranked by Sharpe at first")
    // Total return (column 4), lowest first, then highest first; the symbols (column 1) by name.
    let total = universe.column("total_return").map { Double($0)! }
    _ = try browser.evaluate("document.querySelector('#symbols th button[data-sort=\"4\"]').click()")
    #expect(try column(1) == symbols.indices.sorted { total[$0] < total[$1] }.map { symbols[$0] })
    #expect(try browser.evaluate("document.querySelector('#symbols th:nth-child(5)').getAttribute('aria-sort')") as? String == "ascending")
    _ = try browser.evaluate("document.querySelector('#symbols th button[data-sort=\"4\"]').click()")
    #expect(try column(1) == symbols.indices.sorted { total[$0] > total[$1] }.map { symbols[$0] })
    _ = try browser.evaluate("document.querySelector('#symbols th button[data-sort=\"1\"]').click()")
    #expect(try column(1) == symbols.sorted())
    #expect(browser.errors.isEmpty, "\(browser.errors)")
    // A rotation run's page: its charts live, nothing failed.
    #expect(try CLI.run(["run", "etf-rotation.yaml", "--quiet", "--out", out + "/r"]).status == 0)
    try browser.open(out + "/r/report.html")
    try browser.nextFrame()
    #expect(try browser.evaluate("document.querySelectorAll('.ic-ready').length > 0 && document.querySelectorAll('.ic-failed').length === 0") as? Bool == true)
    #expect(try browser.evaluate("document.querySelectorAll('#rolling, #yearly, #daily-returns, #monthly-table').length") as? Int == 4)
    #expect(browser.errors.isEmpty, "\(browser.errors)")
  }

  @Test("a walk-forward sweep's page shows every window of walkforward.csv with its out-of-sample return, beside a live heatmap, without a console error",
        .enabled(if: Chromium.executable != nil, "Chromium not found (apt-get install chromium, or set CHROMIUM=/path/to/chrome): the browser test is skipped"))
  func walkForwardSweep() throws {
    // The committed reference (regress holds it to what `backtest sweep Strategies/gpix-walkforward.yaml` writes).
    let folder = CLI.root + "/Reports/reference/gpix-walkforward"
    let windows = try CSVTable(folder + "/walkforward.csv")
    let browser = try Chromium()
    try browser.open(folder + "/sweep.html")
    try browser.nextFrame()
    let json = try #require(try browser.evaluate("""
      (() => { const card = [...document.querySelectorAll('.card')].find(c => c.querySelector('h2')?.textContent === 'Walk-forward');
        return card ? JSON.stringify([...card.querySelectorAll('tr')].slice(1).map(r => [...r.cells].map(c => c.textContent))) : null })()
      """) as? String, "no walk-forward section")
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String]])
    #expect(rows.map { $0[0] } == windows.column("window"))
    // The out-of-sample return (column 6) is walkforward.csv's, as a percentage with two decimals.
    for (row, value) in zip(rows, windows.column("oos_total_return").map { Double($0)! }) {
      #expect(close(number(row[6]), value * 100, decimals: 2), "\(row)")
    }
    // The heatmap's script ran: its hover box exists and no chart failed.
    #expect(try browser.evaluate("document.querySelectorAll('[data-chart] .ic-tip').length > 0 && document.querySelectorAll('.ic-failed').length === 0") as? Bool == true)
    #expect(browser.errors.isEmpty, "\(browser.errors)")
  }

  /// The hover box's rows, by key; fails when it is hidden.
  func tooltip(_ browser: Chromium) throws -> [String: String] {
    let json = try #require(try browser.evaluate("""
      (() => { const t = document.querySelector('#run-chart [role=tooltip]');
        return t.hidden ? null : JSON.stringify(Object.fromEntries([...t.querySelectorAll('tr')].map(r => [r.dataset.key, r.cells[1].textContent]))) })()
      """) as? String, "no hover box")
    return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String])
  }

  /// The number a box shows (`$1,234.50`, `-2.00%`, `49.98`).
  func number(_ text: String?) -> Double? {
    text.flatMap { Double($0.replacingOccurrences(of: ",", with: "").replacingOccurrences(of: "$", with: "").replacingOccurrences(of: "%", with: "")) }
  }

  /// Whether `shown` is `value` written with `decimals` decimals.
  func close(_ shown: Double?, _ value: Double, decimals: Int) -> Bool {
    guard let shown else { return false }
    return abs(shown - value) <= 0.5 * pow(10, -Double(decimals)) + 1e-9
  }
}
