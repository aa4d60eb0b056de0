import BacktestCore
import Foundation

/// Charts of a sweep.
package enum SweepCharts {
  /// The ranking metric over two parameters: each cell is the mean over the
  /// other parameters' values (combinations meeting the constraints only).
  package static func heatmap(_ records: [SweepRecord], settings: SweepSettings, x: Int, y: Int) -> String {
    let xs = settings.parameters[x].values, ys = settings.parameters[y].values
    var cells: [[Double?]] = Array(repeating: Array(repeating: nil, count: xs.count), count: ys.count)
    for (k, cell) in self.cells(records, settings: settings, x: x, y: y).enumerated() { cells[k / xs.count][k % xs.count] = cell.value }
    let all = cells.flatMap { $0 }.compactMap { $0 }
    let lo = all.min() ?? 0, hi = all.max() ?? 1
    let cellWidth = min(110.0, 860.0 / Double(xs.count)), cellHeight = 34.0, left = 90.0, top = 60.0
    // Wide enough for the title (about 7 px a character at the title's size) on a narrow grid.
    let width = max(left + cellWidth * Double(xs.count) + 20, 16 + 7.2 * Double(heatmapTitle(settings, x: x, y: y).count))
    let height = top + cellHeight * Double(ys.count) + 50
    var svg = SVGBuilder()
    let c = SVGBuilder.coordinate
    svg.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(c(width)) \(c(height))\" width=\"\(c(width))\" height=\"\(c(height))\" id=\"heatmap\">")
    svg.raw("<title>\(settings.metric) by \(settings.parameters[x].name) and \(settings.parameters[y].name)</title>" + RunCharts.style)
    svg.rect(x: 0, y: 0, width: width, height: height, attributes: "class=\"bg\"")
    svg.label(heatmapTitle(settings, x: x, y: y), x: 8, y: 20, attributes: "class=\"title\"")
    for (i, xv) in xs.enumerated() {
      svg.label(xv, x: left + cellWidth * (Double(i) + 0.5), y: top - 8, attributes: "class=\"label\" text-anchor=\"middle\"")
    }
    svg.label(settings.parameters[x].name, x: left + cellWidth * Double(xs.count) / 2, y: top - 26, attributes: "class=\"label\" text-anchor=\"middle\" font-weight=\"600\"")
    svg.label(settings.parameters[y].name, x: 8, y: top - 8, attributes: "class=\"label\" font-weight=\"600\"")
    for (j, yv) in ys.enumerated() {
      svg.label(yv, x: left - 8, y: top + cellHeight * (Double(j) + 0.5) + 4, attributes: "class=\"label\" text-anchor=\"end\"")
      for i in xs.indices {
        let v = cells[j][i]
        let t = v.map { hi > lo ? ($0 - lo) / (hi - lo) : 0.5 } ?? 0
        let fill = v == nil ? "#8e8e93\" fill-opacity=\"0.15" : "rgb(\(Int(255 - 203 * t)),\(Int(59 + 140 * t)),\(Int(48 + 41 * t)))"
        svg.rect(x: left + cellWidth * Double(i) + 1, y: top + cellHeight * Double(j) + 1, width: cellWidth - 2, height: cellHeight - 2,
                 attributes: "fill=\"\(fill)\" data-x=\"\(SVGBuilder.escape(xs[i]))\" data-y=\"\(SVGBuilder.escape(yv))\" data-value=\"\(v.map { String($0) } ?? "")\"")
        svg.label(v.map { String(format: "%.2f", $0) } ?? "—", x: left + cellWidth * (Double(i) + 0.5), y: top + cellHeight * (Double(j) + 0.5) + 4,
                  attributes: "class=\"label\" text-anchor=\"middle\" style=\"fill:#1c1c1e\"")
      }
    }
    svg.raw("</svg>")
    return svg.text
  }

  /// `sharpe by bb_period and oversold`, with `(mean over the other parameters)` when there are others.
  static func heatmapTitle(_ settings: SweepSettings, x: Int, y: Int) -> String {
    settings.metric + (settings.parameters.count > 2 ? " (mean over the other parameters)" : "")
      + " by \(settings.parameters[x].name) and \(settings.parameters[y].name)"
  }

  /// The heatmap's cells, row by row (`y`), then column by column (`x`): the
  /// combinations meeting the constraints with those two values, best first,
  /// and the mean of their metric.
  static func cells(_ records: [SweepRecord], settings: SweepSettings, x: Int, y: Int)
    -> [(x: String, y: String, combinations: [SweepRecord], value: Double?)] {
    let ranked = SweepRanking.ranking(records, settings: settings)
    let xs = settings.parameters[x].values, ys = settings.parameters[y].values
    let xIndex = Dictionary(xs.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
    let yIndex = Dictionary(ys.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
    // One pass over the ranking, each record into its cell in ranking order (a filter per cell was cells × records).
    var groups = [[SweepRecord]](repeating: [], count: xs.count * ys.count)
    for r in ranked {
      guard let i = xIndex[r.values[x]], let j = yIndex[r.values[y]] else { continue }
      groups[j * xs.count + i].append(r)
    }
    return ys.indices.flatMap { j in
      xs.indices.map { i in
        let group = groups[j * xs.count + i]
        return (xs[i], ys[j], group, mean(group.compactMap { $0.metric(settings.metric) }))
      }
    }
  }

  /// `sweep.html`: the heatmap and the top combinations, self-contained.
  package static func html(_ records: [SweepRecord], settings: SweepSettings, title: String, total: Int, x: Int, y: Int,
                          validation: (rows: [ValidationRow], split: HoldoutSplit)? = nil, significance: SweepSignificance? = nil,
                          walkForward: (result: WalkForward.Result, bars: BarSeries)? = nil) -> String {
    let ranked = SweepRanking.ranking(records, settings: settings)
    var h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
      + "<title>Sweep: \(SVGBuilder.escape(title))</title><style>\(HTMLReport.css)</style></head><body><main>\n"
    h += "<h1>Sweep: \(SVGBuilder.escape(title))</h1><p class=\"note\">\(records.count) of \(total) combinations; \(ranked.count) meet the constraints; ranked by \(settings.metric).</p>\n"
    h += InteractiveChart.section(id: "heatmap-chart", fallback: heatmap(records, settings: settings, x: x, y: y),
                                  spec: InteractiveChart.heatmap(records, settings: settings, x: x, y: y), data: nil)
    h += "<div class=\"card\"><h2>Top \(min(settings.top, ranked.count))</h2><table><tr><th>#</th>"
    h += settings.parameters.map { "<th>\(SVGBuilder.escape($0.name))</th>" }.joined() + "<th>\(settings.metric)</th><th>trades</th><th>total return</th><th>max drawdown</th></tr>"
    for (k, r) in ranked.prefix(settings.top).enumerated() {
      h += "<tr><td>\(k + 1)</td>" + r.values.map { "<td>\(SVGBuilder.escape($0))</td>" }.joined()
      h += "<td>\(SweepReport.formatMetric(r.metric(settings.metric)))</td><td>\(Int(r.metric("total_trades") ?? 0))</td>"
      h += "<td>\(HumanFormat.percent(r.metric("total_return")))</td><td>\(HumanFormat.percent(r.metric("max_drawdown")))</td></tr>"
    }
    h += "</table></div>\n"
    let across = SweepRanking.acrossSymbols(records, settings: settings)
    if !across.isEmpty {
      h += "<div class=\"card\"><h2>Across symbols</h2><p class=\"note\">Each combination's \(settings.metric) over the symbols, best mean first: the robust choice.</p><table><tr><th>#</th>"
      h += settings.parameters.dropFirst().map { "<th>\(SVGBuilder.escape($0.name))</th>" }.joined() + "<th>symbols</th><th>mean</th><th>median</th><th>worst</th></tr>"
      for (k, r) in across.prefix(settings.top).enumerated() {
        h += "<tr><td>\(k + 1)</td>" + r.values.map { "<td>\(SVGBuilder.escape($0))</td>" }.joined()
        h += "<td>\(r.symbols)</td><td>\(SweepReport.formatMetric(r.mean))</td><td>\(SweepReport.formatMetric(r.median))</td><td>\(SweepReport.formatMetric(r.worst))</td></tr>"
      }
      h += "</table></div>\n"
    }
    if let significance { h += significance.html }
    if let v = validation {
      h += "<div class=\"card\"><h2>In-sample against out-of-sample</h2><p class=\"note\">Holdout: \(SVGBuilder.escape(v.split.description)); the top combinations in-sample, run unchanged out-of-sample.</p>"
      h += SweepValidation.chart(v.rows) + "<table><tr><th>#</th>" + settings.parameters.map { "<th>\(SVGBuilder.escape($0.name))</th>" }.joined()
      h += "<th>IS sharpe</th><th>OOS sharpe</th><th>IS return</th><th>OOS return</th><th>OOS trades</th></tr>"
      for (k, r) in v.rows.enumerated() {
        h += "<tr><td>\(k + 1)</td>" + r.values.map { "<td>\(SVGBuilder.escape($0))</td>" }.joined()
        h += "<td>\(HumanFormat.ratio(r.inSample.metric("sharpe")))</td><td>\(HumanFormat.ratio(r.outOfSample.sharpe))</td>"
        h += "<td>\(HumanFormat.percent(r.inSample.metric("total_return")))</td><td>\(HumanFormat.percent(r.outOfSample.totalReturn))</td><td>\(r.outOfSample.totalTrades)</td></tr>"
      }
      h += "</table></div>\n"
    } else if let wf = walkForward {
      h += WalkForward.html(wf.result, settings: settings, bars: wf.bars)
    } else {
      h += "<p class=\"note\">Add sweep.validation: {mode: holdout, split: DATE or FRACTION} or {mode: walk_forward, train: 1y, test: 6m} "
        + "for an out-of-sample check.</p>\n"
    }
    h += HTMLReport.closing
    return h
  }
}
