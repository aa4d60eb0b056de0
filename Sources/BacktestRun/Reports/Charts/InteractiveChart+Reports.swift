import BacktestCore
import Foundation

extension InteractiveChart {
  /// Volume is exact in charts of up to this many bars.
  static let exactVolumeBars = 250_000

  /// The chart of a run: the price with the strategy's overlays, the cycle
  /// stages and every trade; the strategy's panels; equity beside buy and
  /// hold; drawdown. Columns are drawn as the strategy declares them
  /// (`IndicatorColumn.plot`), whatever their names. `charts` are the run's
  /// static charts, whose drawdowns it shares.
  static func run(_ output: RunOutput, charts: RunCharts) -> InteractiveChart {
    let bars = output.bars, r = output.run.result
    let shown = output.run.overlayTitle
    var chart = InteractiveChart(title: "\(output.config.name): price\(shown.isEmpty ? "" : ", " + shown) and trades",
                                 timeline: bars, timeZone: output.config.data.timeZone)
    let ohlc = chart.data.addPrices(open: bars.open, high: bars.high, low: bars.low, close: bars.close)
    for (k, name) in ["open", "high", "low", "close"].enumerated() { chart.addTooltip(key: name, label: name, column: ohlc[k], format: .price) }
    // Overlays read at the price's precision (at least cents).
    let overlayPrecision = chart.data.decimals[ohlc[3]].map { ChartData.Precision.decimals(max(2, $0)) }
    // Each overlay in its own colour, in the strategy's order; packed, where they are, as moving averages of the
    // close and as bands about such a middle (`overlayColumns`).
    let shownOverlays = charts.overlays
    let overlayColumn = chart.addOverlays(shownOverlays.map(\.column.values), close: ohlc[3], closeValues: bars.close, precision: overlayPrecision)
    var overlays: [JSONValue] = []
    for (k, o) in shownOverlays.enumerated() {
      overlays.append(line(overlayColumn[k], o.label, o.color))
      chart.addTooltip(key: o.column.name, label: o.label, column: overlayColumn[k], format: .price)
    }
    var price: [(String, JSONValue)] = [("ohlc", .array(ohlc.map { .integer($0) })), ("trades", .bool(true))]
    if let stages = output.cycle?.gate.stages {
      var runs: [JSONValue] = []
      var start = 0
      for i in 1...bars.count where i == bars.count || stages[i] != stages[start] {
        if let color = stages[start].color { runs.append(.array([.integer(start), .integer(i), .string(color), .string(stages[start].rawValue)])) }
        start = i
      }
      price.append(("stages", .array(runs)))
    }
    chart.addPanel(id: "price", title: chart.title, height: 300, format: .price, lines: overlays, more: price)
    for p in charts.panels {
      var lines: [JSONValue] = []
      let span: Double
      if let range = p.panel.range {
        span = range.upperBound - range.lowerBound
      } else {
        var lo = Double.infinity, hi = -Double.infinity
        for c in p.columns { for v in c.column.values where v.isFinite { lo = min(lo, v); hi = max(hi, v) } }
        span = hi - lo
      }
      for c in p.columns {
        // Five significant digits of the panel's span: RSI 0–100 reads 34.56.
        let column = chart.data.add(c.column.values, precision: .significant(5, of: span))
        lines.append(line(column, c.column.name, c.color))
        chart.addTooltip(key: c.column.name, label: c.column.name, column: column, format: .plain)
      }
      chart.addPanel(id: p.panel.id, title: p.panel.title, height: 110, format: .plain, lines: lines, range: p.panel.range, levels: p.panel.levels)
    }
    // Volume under the price, when the bars have any: a bar per bar, or the most of a pixel column's bars. Exact up
    // to `exactVolumeBars` bars; beyond, to 3 significant digits of the largest (the hover box says so), which keeps a
    // million bars' page small.
    if bars.volume.count == bars.count, bars.volume.contains(where: { $0 > 0 }) {
      let exact = bars.count <= exactVolumeBars
      let precision: ChartData.Precision = exact ? .exact(maxDecimals: 4, otherwise: 6)
        : .significant(3, of: bars.volume.withUnsafeBufferPointer(ChartData.largestMagnitude))
      let volume = chart.data.add(bars.volume, precision: precision)
      chart.addPanel(id: "volume", title: exact ? "Volume" : "Volume (to 3 significant digits of the largest)", height: 70, format: .plain,
                     lines: [line(volume, "volume", "#90A4AE", bars: true)], zero: true)
      chart.addTooltip(key: "volume", label: exact ? "volume" : "volume ≈", column: volume, format: .plain)
    }
    // Equity is cash plus the position at the close: predicted as the position times the close, the cash what is left.
    let position = chart.data.add(r.shares, precision: .exact(maxDecimals: 6, otherwise: 8))
    let equity = chart.addEquity(r.equity, shares: position, close: ohlc[3])
    let benchmarkShares = chart.data.add(output.benchmark.shares, precision: .exact(maxDecimals: 6, otherwise: 8))
    let benchmark = chart.addEquity(output.benchmark.equity, shares: benchmarkShares, close: ohlc[3])
    let drawdown = chart.data.add(charts.equityDrawdowns.value, precision: .decimals(4))
    chart.addPanel(id: "equity", title: "Equity", height: 180, format: .money,
                   lines: [line(equity, "strategy", "#0071E3", width: 1.6), line(benchmark, "buy & hold", "#8e8e93", dash: true)],
                   more: [("scales", .bool(true)), ("marks", equityMarks(charts))])
    chart.addPanel(id: "drawdown", title: "Drawdown", height: 90, format: .percent, lines: [line(drawdown, "drawdown", "#FF3B30", area: true)], zero: true)
    chart.addTooltip(key: "equity", label: "equity", column: equity, format: .money)
    chart.addTooltip(key: "benchmark_equity", label: "buy & hold", column: benchmark, format: .money)
    chart.addTooltip(key: "drawdown", label: "drawdown", column: drawdown, format: .percent)
    chart.addTooltip(key: "position_shares", label: "position", column: position, format: .plain)
    chart.addTrades(r.trades, priceDecimals: RunCharts.priceDecimals(chart.data.decimals[ohlc[3]], bars: bars))
    return chart
  }

  /// Adds the overlays at `precision` (the price's decimals; `nil`: 7 significant digits) and returns their columns:
  /// a moving average of the close first, predicted as the mean of the close's steps; then a band mirrored about such
  /// a middle and another band as `2 × middle − other`, the other as its offset from the middle; the rest as they are.
  mutating func addOverlays(_ values: [ContiguousArray<Double>], close: Int, closeValues: ContiguousArray<Double>,
                            precision: ChartData.Precision?) -> [Int] {
    guard case .decimals(let d)? = precision else {
      return values.map { data.add($0, precision: precision ?? .significant(7, of: $0.withUnsafeBufferPointer(ChartData.largestMagnitude))) }
    }
    var column = [Int?](repeating: nil, count: values.count)
    var means: [Int] = []
    if data.addedDecimals(close) == d {
      for k in values.indices {
        if let period = ChartData.meanPeriod(of: values[k], over: closeValues, decimals: d) {
          column[k] = data.add(values[k], decimals: d, prediction: .mean(column: close, period: period))
          means.append(k)
        }
      }
    }
    for k in values.indices where column[k] == nil {
      // A band mirrored about a middle already added, by another band added already, or yet to come.
      var added: Int?
      for m in means {
        if let other = values.indices.first(where: { column[$0] != nil && $0 != m && ChartData.isMirror(values[k], values[m], values[$0], decimals: d) }) {
          added = data.add(values[k], decimals: d, prediction: .mirror(column[m]!, column[other]!))
        } else if values.indices.contains(where: { column[$0] == nil && $0 != k && ChartData.isMirror(values[$0], values[m], values[k], decimals: d) }) {
          added = data.add(values[k], decimals: d, prediction: .offset(column[m]!))
        }
        if added != nil { break }
      }
      column[k] = added ?? data.add(values[k], precision: .decimals(d))
    }
    return column.map { $0! }
  }

  /// Adds an equity column (in cents) predicted as `shares` times `close` (columns added before it).
  mutating func addEquity(_ equity: ContiguousArray<Double>, shares: Int, close: Int) -> Int {
    guard let s = data.addedDecimals(shares), let c = data.addedDecimals(close), s + c >= 2 else { return data.add(equity, precision: .decimals(2)) }
    return data.add(equity, decimals: 2, prediction: .product(shares, close, shift: s + c - 2))
  }

  /// The marks of the equity panel's first line: its peak and the maximum drawdown's trough (`RunCharts.equityMarks`).
  static func equityMarks(_ charts: RunCharts) -> JSONValue {
    let marks = charts.equityMarks, labels = charts.equityMarkLabels(marks)
    func mark(_ kind: String, _ bar: Int, _ label: String, _ color: String, below: Bool) -> JSONValue {
      .object([("kind", .string(kind)), ("line", .integer(0)), ("bar", .integer(bar)), ("label", .string(label)), ("color", .string(color)),
               ("below", .bool(below))])
    }
    return .array([mark("peak", marks.peak, labels.peak, "#16A34A", below: false)]
      + (marks.trough.map { [mark("trough", $0, labels.trough!, "#DC2626", below: true)] } ?? []))
  }

  /// Adds the trades for the price panel's markers and their hover box (P&L and return exact, prices shown with
  /// `priceDecimals`), with the shape of each exit reason's marker.
  mutating func addTrades(_ trades: [Trade], priceDecimals: Int) {
    let reasons = ExitReason.allCases
    func column(_ values: [Double], _ precision: ChartData.Precision) -> JSONValue { .integer(data.add(values, precision: precision)) }
    let exactOrRaw = ChartData.Precision.exact(maxDecimals: 8, otherwise: nil)
    extra.append(("trades", .object([
      ("entry", column(trades.map { Double($0.entryBar) }, .decimals(0))),
      ("exit", column(trades.map { Double($0.exitBar) }, .decimals(0))),
      ("entryPrice", column(trades.map(\.entryPrice), exactOrRaw)),
      ("exitPrice", column(trades.map(\.exitPrice), exactOrRaw)),
      ("shares", column(trades.map(\.shares), exactOrRaw)),
      ("pnl", column(trades.map(\.pnl), exactOrRaw)),
      ("ret", column(trades.map(\.returnFraction), exactOrRaw)),
      ("reason", column(trades.map { Double(reasons.firstIndex(of: $0.exitReason)!) }, .decimals(0))),
      ("reasons", .array(reasons.map { .string($0.rawValue) })),
      ("shapes", .array(reasons.map { .string(RunCharts.exitShape($0)) })),
      ("priceDecimals", .integer(priceDecimals)),
    ])))
  }

  /// The chart of a portfolio run: the growth of the initial cash beside its
  /// comparison, drawdown, allocation over time (stacked, cash included), and
  /// the account's value against the money put in.
  static func portfolio(_ output: PortfolioOutput) -> InteractiveChart {
    let r = output.result, n = r.timeline.count, charts = PortfolioReport.charts(output)
    var chart = InteractiveChart(title: "Portfolio: \(output.config.name)", timeline: r.timeline, timeZone: output.config.timeZone)
    let money = ChartData.Precision.decimals(2)
    let growth = chart.data.add(charts.equitySeries, precision: money)
    var lines = [line(growth, charts.names.equity, "#0071E3", width: 1.6)]
    chart.addTooltip(key: "growth", label: charts.names.equity, column: growth, format: .money)
    let comparisonIsValue = charts.comparisonSeries == r.equity
    if let comparison = charts.comparisonSeries {
      let column = chart.data.add(comparison, precision: money)
      lines.append(line(column, charts.names.comparison, "#8e8e93", dash: true))
      chart.addTooltip(key: "comparison", label: charts.names.comparison, column: column, format: .money)
    }
    chart.addPanel(id: "equity", title: "Growth", height: 200, format: .money, lines: lines,
                   more: [("scales", .bool(true)), ("marks", equityMarks(charts))])
    let drawdown = chart.data.add(drawdowns(r.timeWeightedIndex), precision: .decimals(4))
    chart.addPanel(id: "drawdown", title: "Drawdown (of the time-weighted return)", height: 90, format: .percent,
                   lines: [line(drawdown, "drawdown", "#FF3B30", area: true)], zero: true)
    chart.addTooltip(key: "drawdown", label: "drawdown", column: drawdown, format: .percent)
    // Allocation: each holding's value and the cash as fractions of the equity.
    var layers: [JSONValue] = []
    func fraction(_ value: (Int) -> Double) -> ContiguousArray<Double> {
      ContiguousArray((0..<n).map { i in r.equity[i] > 0 ? value(i) / r.equity[i] : 0 })
    }
    for (a, asset) in output.assets.enumerated() {
      let column = chart.data.add(fraction { r.shares[a][$0] == 0 ? 0 : r.shares[a][$0] * r.prices[a][$0] }, precision: .decimals(4))
      layers.append(line(column, asset.symbol, RunCharts.assetColor(a)))
      chart.addTooltip(key: "allocation_" + asset.symbol, label: asset.symbol, column: column, format: .percent)
    }
    let cash = chart.data.add(fraction { r.cash[$0] }, precision: .decimals(4))
    layers.append(line(cash, "cash", "#8e8e93"))
    chart.addTooltip(key: "allocation_cash", label: "cash", column: cash, format: .percent)
    chart.addPanel(id: "allocation", title: "Allocation", height: 130, format: .percent, range: 0...1, more: [("stack", .array(layers))])
    // Contributions against growth: the money put in (deposits less withdrawals) under the account's value.
    var contributed = ContiguousArray<Double>(repeating: 0, count: n), total = 0.0
    for i in 0..<n { total += r.flow[i]; contributed[i] = total }
    let value = chart.data.add(r.equity, precision: money)
    let contributions = chart.data.add(contributed, precision: money)
    let gain = chart.data.add(ContiguousArray((0..<n).map { r.equity[$0] - contributed[$0] }), precision: money)
    chart.addPanel(id: "contributions", title: "Contributions and growth", height: 150, format: .money,
                   lines: [line(contributions, "contributions", "#8e8e93", area: true), line(value, "account value", "#34C759", width: 1.6)],
                   zero: true)
    if !comparisonIsValue { chart.addTooltip(key: "equity", label: "account value", column: value, format: .money) }
    chart.addTooltip(key: "contributions", label: "contributions", column: contributions, format: .money)
    chart.addTooltip(key: "gain", label: "gain over contributions", column: gain, format: .money)
    return chart
  }

  /// The sweep heatmap's description: for each cell its value (as in the SVG)
  /// and its combinations, best first (at most `rowsPerCell`).
  static func heatmap(_ records: [SweepRecord], settings: SweepSettings, x: Int, y: Int, rowsPerCell: Int = 20) -> JSONValue {
    let columns = [settings.metric, "total_trades", "total_return", "max_drawdown"]
    let cells: [JSONValue] = SweepCharts.cells(records, settings: settings, x: x, y: y).map { cell in
      let rows: [JSONValue] = cell.combinations.prefix(rowsPerCell).map { r in
        .array(r.values.map { .string($0) } + [
          .string(SweepReport.formatMetric(r.metric(settings.metric))), .string(String(Int(r.metric("total_trades") ?? 0))),
          .string(HumanFormat.percent(r.metric("total_return"))), .string(HumanFormat.percent(r.metric("max_drawdown"))),
        ])
      }
      return .object([("x", .string(cell.x)), ("y", .string(cell.y)), ("value", .string(SweepReport.formatMetric(cell.value))),
                      ("count", .integer(cell.combinations.count)), ("rows", .array(rows))])
    }
    return .object([("heatmap", .bool(true)), ("x", .string(settings.parameters[x].name)), ("y", .string(settings.parameters[y].name)),
                    ("metric", .string(settings.metric)), ("parameters", .array(settings.parameters.map { .string($0.name) })),
                    ("columns", .array(columns.map { .string($0) })), ("cells", .array(cells))])
  }
}
