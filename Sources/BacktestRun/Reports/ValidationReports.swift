import BacktestCore
import Foundation

/// The walk-forward windows as `walkforward.csv` and a section of `sweep.md`.
extension WalkForward {
  package static func csv(_ r: Result, settings: SweepSettings, bars: BarSeries) -> String {
    var out = (["window", "train_start", "test_start", "test_end"] + settings.parameters.map(\.name)
      + ["is_\(settings.metric)", "is_cagr", "oos_total_return", "oos_cagr", "oos_sharpe", "oos_max_drawdown", "oos_trades", "efficiency"])
      .joined(separator: ",") + "\n"
    func text(_ v: Double?) -> String { v.map { $0.description } ?? "" }
    for (k, w) in r.windows.enumerated() {
      let cells: [String] = [String(k + 1), bars.timeLabel(w.trainStart), bars.timeLabel(w.testStart), bars.timeLabel(w.testEnd - 1)]
        + (w.best?.values ?? settings.parameters.map { _ in "" })
        + [text(w.best?.metric(settings.metric)), text(w.best?.metric("cagr")), text(w.outOfSample?.totalReturn), text(w.outOfSample?.cagr),
           text(w.outOfSample?.sharpe), text(w.outOfSample?.maxDrawdown), w.outOfSample.map { String($0.totalTrades) } ?? "", text(w.efficiency)]
      out += cells.joined(separator: ",") + "\n"
    }
    return out
  }

  /// The same section as an HTML card: the chained out-of-sample figures and the windows.
  static func html(_ r: Result, settings: SweepSettings, bars: BarSeries) -> String {
    func e(_ x: String) -> String { SVGBuilder.escape(x) }
    var h = "<div class=\"card\"><h2>Walk-forward</h2><p class=\"note\">Each window ranks the grid on its training part and runs the best "
      + "combination unchanged on its test part; the test parts, chained, give one out-of-sample curve: total return <b>"
      + "\(HumanFormat.percent(r.summary.totalReturn))</b>, CAGR \(HumanFormat.percent(r.summary.cagr)), Sharpe <b>\(HumanFormat.ratio(r.summary.sharpe))</b>, "
      + "max drawdown \(HumanFormat.percent(r.summary.maxDrawdown)), \(r.summary.totalTrades) trades; walk-forward efficiency <b>\(HumanFormat.ratio(r.efficiency))</b>."
      + " Every window is in walkforward.csv.</p><table><tr><th>#</th><th>test from</th><th>test to</th>"
      + settings.parameters.map { "<th>\(e($0.name))</th>" }.joined()
      + "<th>IS \(e(settings.metric))</th><th>OOS return</th><th>OOS sharpe</th><th>OOS trades</th><th>WFE</th></tr>"
    for (k, w) in r.windows.enumerated() {
      h += "<tr><td>\(k + 1)</td><td>\(e(bars.timeLabel(w.testStart)))</td><td>\(e(bars.timeLabel(w.testEnd - 1)))</td>"
        + (w.best?.values ?? settings.parameters.map { _ in "—" }).map { "<td>\(e($0))</td>" }.joined()
        + "<td>\(SweepReport.formatMetric(w.best?.metric(settings.metric)))</td><td>\(HumanFormat.percent(w.outOfSample?.totalReturn))</td>"
        + "<td>\(HumanFormat.ratio(w.outOfSample?.sharpe))</td><td>\(w.outOfSample.map { String($0.totalTrades) } ?? "—")</td>"
        + "<td>\(HumanFormat.ratio(w.efficiency))</td></tr>"
    }
    return h + "</table></div>\n"
  }

  package static func markdown(_ r: Result, settings: SweepSettings, bars: BarSeries) -> String {
    let wf = settings.walkForward
    var md = "\n## Walk-forward\n\nEach window ranks the grid on its training part ("
    md += wf?.anchored == true ? "anchored: from the first bar up to the test part" : "rolling: the same length before each test part"
    md += ") and runs the best combination unchanged on its test part, with indicators warmed by the bars before the test part and "
    md += wf?.account == .carry ? "the account carried over from the previous test part. " : "a fresh account per test part. "
    md += "The test parts, chained, give one out-of-sample equity curve: "
    md += "total return **\(HumanFormat.percent(r.summary.totalReturn))**, CAGR \(HumanFormat.percent(r.summary.cagr)), "
    md += "Sharpe **\(HumanFormat.ratio(r.summary.sharpe))**, max drawdown \(HumanFormat.percent(r.summary.maxDrawdown)), \(r.summary.totalTrades) trades. "
    let inSample = r.windows.compactMap { $0.best?.metric(settings.metric) }, outOfSample = r.windows.compactMap { $0.outOfSample?.sharpe }
    md += "Mean in-sample \(settings.metric) of the winners \(SweepReport.formatMetric(mean(inSample))) against a mean out-of-sample Sharpe of "
    md += "\(SweepReport.formatMetric(mean(outOfSample))). Walk-forward efficiency (out-of-sample CAGR over the mean in-sample CAGR of the winners): "
    md += "**\(HumanFormat.ratio(r.efficiency))**.\n\n"
    md += "| # | test from | test to | " + settings.parameters.map(\.name).joined(separator: " | ")
    md += " | IS \(settings.metric) | IS CAGR | OOS return | OOS CAGR | OOS sharpe | OOS trades | WFE |\n"
    md += "|---:|---|---|" + String(repeating: "---:|", count: settings.parameters.count + 7) + "\n"
    for (k, w) in r.windows.enumerated() {
      md += "| \(k + 1) | \(bars.timeLabel(w.testStart)) | \(bars.timeLabel(w.testEnd - 1)) | "
      md += (w.best?.values ?? settings.parameters.map { _ in "—" }).joined(separator: " | ")
      md += " | \(SweepReport.formatMetric(w.best?.metric(settings.metric))) | \(HumanFormat.percent(w.best?.metric("cagr"))) | "
      md += "\(HumanFormat.percent(w.outOfSample?.totalReturn)) | \(HumanFormat.percent(w.outOfSample?.cagr)) | "
      md += "\(HumanFormat.ratio(w.outOfSample?.sharpe)) | \(w.outOfSample.map { String($0.totalTrades) } ?? "—") | \(HumanFormat.ratio(w.efficiency)) |\n"
    }
    return md
  }
}

/// The holdout rows as `validation.csv`, a section of `sweep.md` and `validation.svg`.
extension SweepValidation {
  package static let columns = ["total_return", "cagr", "max_drawdown", "sharpe", "total_trades", "win_rate"]

  package static func csv(_ rows: [ValidationRow], settings: SweepSettings) -> String {
    var out = (["rank"] + settings.parameters.map(\.name) + columns.map { "is_" + $0 } + columns.map { "oos_" + $0 }).joined(separator: ",") + "\n"
    for (k, row) in rows.enumerated() {
      let oos = Dictionary(uniqueKeysWithValues: row.outOfSample.fields.map { ($0.key, $0.value) })
      func text(_ key: String, _ v: Double?) -> String {
        guard let v else { return "" }
        return PerformanceSummary.integerKeys.contains(key) ? String(Int(v)) : v.description
      }
      let cells = [String(k + 1)] + row.values + columns.map { text($0, row.inSample.metric($0)) } + columns.map { text($0, oos[$0] ?? nil) }
      out += cells.joined(separator: ",") + "\n"
    }
    return out
  }

  /// A Markdown/HTML-ready table and an SVG chart of in-sample against out-of-sample Sharpe per rank.
  package static func markdown(_ rows: [ValidationRow], settings: SweepSettings, split: HoldoutSplit) -> String {
    var md = "\n## In-sample against out-of-sample\n\nHoldout: \(split.description). The top combinations in-sample, run unchanged out-of-sample "
    md += "(a fresh account from the first out-of-sample bar; the in-sample bars warm the indicators).\n\n"
    md += "![In-sample against out-of-sample](validation.svg)\n\n"
    md += "| # | " + settings.parameters.map(\.name).joined(separator: " | ") + " | IS sharpe | OOS sharpe | IS return | OOS return | IS max DD | OOS max DD | OOS trades |\n"
    md += "|---:|" + String(repeating: "---:|", count: settings.parameters.count + 7) + "\n"
    for (k, r) in rows.enumerated() {
      let o = r.outOfSample
      md += "| \(k + 1) | " + r.values.joined(separator: " | ")
      md += " | \(HumanFormat.ratio(r.inSample.metric("sharpe"))) | \(HumanFormat.ratio(o.sharpe)) | \(HumanFormat.percent(r.inSample.metric("total_return"))) | "
      md += "\(HumanFormat.percent(o.totalReturn)) | \(HumanFormat.percent(r.inSample.metric("max_drawdown"))) | \(HumanFormat.percent(o.maxDrawdown)) | \(o.totalTrades) |\n"
    }
    return md
  }

  package static func chart(_ rows: [ValidationRow]) -> String {
    let width = 700.0, height = 260.0, left = 60.0, right = 20.0, top = 40.0, bottom = 220.0
    let values = rows.flatMap { [$0.inSample.metric("sharpe"), $0.outOfSample.sharpe] }.compactMap { $0 }
    let lo = min(0, values.min() ?? 0), hi = max(0.1, values.max() ?? 1)
    var svg = SVGBuilder()
    let c = SVGBuilder.coordinate
    svg.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(c(width)) \(c(height))\" width=\"\(c(width))\" height=\"\(c(height))\" id=\"validation\">")
    svg.raw("<title>Sharpe in-sample and out-of-sample by in-sample rank</title>" + RunCharts.style)
    svg.rect(x: 0, y: 0, width: width, height: height, attributes: "class=\"bg\"")
    svg.label("Sharpe by in-sample rank: in-sample (blue) and out-of-sample (orange)", x: left, y: 20, attributes: "class=\"title\"")
    func y(_ v: Double) -> Double { bottom - (v - lo) / (hi - lo) * (bottom - top) }
    for v in niceTicks(low: lo, high: hi) {
      svg.line(left, y(v), width - right, y(v), attributes: "class=\"grid\"")
      svg.label(String(format: "%.2f", v), x: left - 6, y: y(v) + 4, attributes: "class=\"label\" text-anchor=\"end\"")
    }
    svg.line(left, y(0), width - right, y(0), attributes: "class=\"axis\"")
    let slot = (width - left - right) / Double(max(1, rows.count))
    for (k, r) in rows.enumerated() {
      let x = left + slot * Double(k)
      for (j, (v, color)) in [(r.inSample.metric("sharpe"), "#0071E3"), (r.outOfSample.sharpe, "#FF9500")].enumerated() {
        guard let v else { continue }
        let y0 = y(0), y1 = y(v)
        svg.rect(x: x + slot * (0.15 + 0.35 * Double(j)), y: min(y0, y1), width: slot * 0.33, height: abs(y1 - y0),
                 attributes: "fill=\"\(color)\" data-rank=\"\(k + 1)\" data-\(j == 0 ? "is" : "oos")=\"\(v)\"")
      }
      svg.label(String(k + 1), x: x + slot / 2, y: bottom + 16, attributes: "class=\"label\" text-anchor=\"middle\"")
    }
    svg.raw("</svg>")
    return svg.text
  }
}

/// The significance tests as a section of `sweep.md` and `sweep.html`.
extension SweepSignificance {
  static let heading = "Is the best combination believable?"

  package var markdown: String { "\n## \(Self.heading)\n\n" + paragraphs.joined(separator: "\n\n") + "\n" }

  /// The same section as an HTML card.
  var html: String {
    "<div class=\"card\"><h2>\(Self.heading)</h2>"
      + paragraphs.map { p in
        // `**x**` (Markdown bold) as <b>x</b>.
        "<p>" + SVGBuilder.escape(p).components(separatedBy: "**").enumerated().map { $0.offset % 2 == 1 ? "<b>\($0.element)</b>" : $0.element }.joined() + "</p>"
      }.joined() + "</div>\n"
  }

  /// The verdicts, one paragraph per test, figures in Markdown bold.
  var paragraphs: [String] {
    var md = "Probabilistic Sharpe ratio (probability that the true Sharpe exceeds 0): **\(String(format: "%.3f", psr))**. "
    md += "Deflated Sharpe ratio (the same against the best Sharpe expected from \(trials) trials with no skill, "
    md += "\(String(format: "%.3f", expectedMaximum * 252.0.squareRoot())) annualized): **\(String(format: "%.3f", dsr))**. "
    md += "Inputs: \(observations) daily returns of the best combination, skewness \(String(format: "%.2f", skewness)), kurtosis \(String(format: "%.2f", kurtosis)), "
    md += "variance of the trials' daily Sharpe ratios \(String(format: "%.3g", variance)). "
    md += "Bailey & López de Prado (2012, 2014); below 0.95 the winner may be luck of the search."
    guard let o = overfitting else { return [md] }
    var pbo = "Probability of backtest overfitting (combinatorially symmetric cross-validation over \(o.blocks) blocks of days, \(o.logits.count) splits): "
    pbo += "**\(String(format: "%.2f", o.probability))**, the share of splits where the in-sample best combination ranks at or below the median out of sample "
    pbo += "(Bailey, Borwein, López de Prado & Zhu 2017; near 0.5 or above: the ranking carries no information)."
    return [md, pbo]
  }
}
