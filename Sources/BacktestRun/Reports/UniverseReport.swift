import BacktestCore
import Foundation

/// The report of a universe run: `universe.csv` (one row per symbol), `summary.json` (the figures across symbols),
/// `report.md` and `report.html` ranking the symbols, and each symbol's own report under `symbols/SYMBOL/`.
package enum UniverseReport {
  /// The columns of `universe.csv` after `symbol`: each run's summary metrics (as its `summary.json`), then buy and hold's.
  package static let columns = SweepRanking.metricKeys + ["benchmark_total_return", "benchmark_max_drawdown", "benchmark_sharpe"]
  /// The figures compared across symbols.
  static let acrossKeys = ["total_return", "cagr", "sharpe", "max_drawdown", "total_trades", "win_rate"]

  package static func files(_ u: UniverseOutput) -> [ReportFile] {
    let formats = u.config.report.formats
    var files: [ReportFile] = []
    if formats.contains(.csv) { files.append(ReportFile(name: "universe.csv", contents: csv(u))) }
    if formats.contains(.json) { files.append(ReportFile(name: "summary.json", contents: summaryJSON(u).rendered() + "\n")) }
    if formats.contains(.markdown) { files.append(ReportFile(name: "report.md", contents: markdown(u))) }
    if formats.contains(.html) { files.append(ReportFile(name: "report.html", contents: html(u))) }
    for (symbol, output) in u.members {
      for var file in RunReport.files(output) {
        file.name = "symbols/" + symbol + "/" + file.name
        files.append(file)
      }
    }
    return files
  }

  /// A symbol's row: its summary's metrics, then buy and hold's total return, max drawdown and Sharpe.
  static func row(_ o: RunOutput) -> [Double?] {
    o.summary.fields.map(\.value) + [o.benchmarkSummary.totalReturn, o.benchmarkSummary.maxDrawdown, o.benchmarkSummary.sharpe]
  }

  /// `universe.csv`: one row per symbol, in the universe's order.
  package static func csv(_ u: UniverseOutput) -> String {
    var out = TextBuffer(capacity: 64 + u.members.count * 512)
    out.append("symbol," + columns.joined(separator: ",") + "\n")
    let integer = columns.map { PerformanceSummary.integerKeys.contains($0) }
    for (symbol, output) in u.members {
      out.append(csvField(symbol))
      for (k, v) in row(output).enumerated() {
        out.append(byte: 44)
        SweepReport.appendMetric(v, integer: integer[k], to: &out)
      }
      out.append(byte: 10)
    }
    return out.string
  }

  /// The members' positions, best Sharpe first (undefined last, then by symbol).
  package static func ranking(_ u: UniverseOutput) -> [Int] {
    u.members.indices.sorted { a, b in
      let x = u.members[a].output.summary.sharpe, y = u.members[b].output.summary.sharpe
      switch (x, y) {
      case (let x?, let y?) where x != y: return x > y
      case (_?, nil): return true
      case (nil, _?): return false
      default: return u.members[a].symbol < u.members[b].symbol
      }
    }
  }

  /// Mean, median, worst and best of a figure over the symbols where it is defined (worst is the lowest, for a drawdown too).
  package static func across(_ u: UniverseOutput, _ key: String) -> (mean: Double, median: Double, worst: Double, best: Double)? {
    let values = u.members.compactMap { m in m.output.summary.fields.first { $0.key == key }?.value }.sorted()
    guard !values.isEmpty else { return nil }
    let n = values.count
    let median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2
    return (values.reduce(0, +) / Double(n), median, values[0], values[n - 1])
  }

  /// Symbols whose total return beat their own buy and hold's.
  package static func beatBuyAndHold(_ u: UniverseOutput) -> Int {
    u.members.filter { $0.output.summary.totalReturn > $0.output.benchmarkSummary.totalReturn }.count
  }

  package static func summaryJSON(_ u: UniverseOutput) -> JSONValue {
    let c = u.config
    let figures: [(String, JSONValue)] = acrossKeys.map { key in
      (key, across(u, key).map { a in .object([("mean", .number(a.mean)), ("median", .number(a.median)), ("worst", .number(a.worst)),
                                                ("best", .number(a.best))]) } ?? .null)
    }
    return .object([
      ("symbols", .integer(u.members.count)), ("across_symbols", .object(figures)),
      ("beat_buy_and_hold", .integer(beatBuyAndHold(u))),
      ("ranked_by_sharpe", .array(ranking(u).map { .string(u.members[$0].symbol) })),
      ("run", .object([
        ("name", .string(c.name)), ("strategy", .string(c.strategy.name)),
        ("parameters", .object(c.strategy.parameterSummary.map { ($0.name, .string($0.value)) })),
        ("universe", .array(c.universe.map { .string($0.bars) })), ("initial_cash", .number(c.broker.initialCash)),
      ])),
    ])
  }

  /// The ranking's rows for people: symbol, trades, win rate, total return, CAGR, max drawdown, Sharpe, buy and hold.
  static func rows(_ u: UniverseOutput) -> [[String]] {
    ranking(u).map { k in
      let (symbol, o) = u.members[k], s = o.summary
      return [symbol, HumanFormat.integer(s.totalTrades), HumanFormat.percent(s.winRate), HumanFormat.percent(s.totalReturn),
              HumanFormat.percent(s.cagr), HumanFormat.percent(s.maxDrawdown), HumanFormat.ratio(s.sharpe),
              HumanFormat.percent(o.benchmarkSummary.totalReturn)]
    }
  }

  static let rowTitles = ["Symbol", "Trades", "Win rate", "Total return", "CAGR", "Max drawdown", "Sharpe", "Buy & hold"]

  /// The figures across symbols for people.
  static func acrossRows(_ u: UniverseOutput) -> [[String]] {
    [("Total return", "total_return", true), ("CAGR", "cagr", true), ("Sharpe", "sharpe", false), ("Max drawdown", "max_drawdown", true),
     ("Trades", "total_trades", false), ("Win rate", "win_rate", true)].compactMap { name, key, percent in
      across(u, key).map { a in
        [name] + [a.mean, a.median, a.worst, a.best].map { percent ? HumanFormat.percent($0) : key == "total_trades" ? formatPlain(($0 * 10).rounded() / 10) : HumanFormat.ratio($0) }
      }
    }
  }

  package static func subtitle(_ u: UniverseOutput) -> String {
    let c = u.config
    return "\(c.strategy.name) (" + c.strategy.parameterSummary.map { "\($0.name) \($0.value)" }.joined(separator: ", ")
      + ") on each of \(u.members.count) symbols, each from \(HumanFormat.money(c.broker.initialCash))"
  }

  package static func markdown(_ u: UniverseOutput) -> String {
    var md = "# Universe: \(u.config.name)\n\n\(subtitle(u)).\n\n"
    if let d = u.config.data.description { md += "> \(d)\n\n" }
    md += "## Across symbols\n\n| Figure | Mean | Median | Worst | Best |\n|---|---:|---:|---:|---:|\n"
    for r in acrossRows(u) { md += "| " + r.joined(separator: " | ") + " |\n" }
    md += "\nThe strategy beat its symbol's buy and hold (total return) on \(beatBuyAndHold(u)) of \(u.members.count) symbols.\n\n"
    md += "## Symbols, best Sharpe first\n\n| # | " + rowTitles.joined(separator: " | ") + " | Report |\n"
    md += "|---:|---|" + String(repeating: "---:|", count: rowTitles.count - 1) + "---|\n"
    for (k, r) in rows(u).enumerated() {
      md += "| \(k + 1) | " + r.joined(separator: " | ") + " | [report](symbols/\(r[0])/report.md) |\n"
    }
    md += "\nEvery figure of every symbol is in universe.csv; each symbol's trades, equity and report are in symbols/SYMBOL/, "
      + "the same as `backtest run` with `--set data.bars=` that symbol's file.\n"
    return md
  }

  package static func html(_ u: UniverseOutput) -> String {
    func e(_ x: String) -> String { SVGBuilder.escape(x) }
    var h = HTMLReport.opening("Universe: \(u.config.name)")
    h += "<p class=\"note\">\(e(subtitle(u)))</p>\n" + HTMLReport.description(u.config.data.description)
    let sharpe = across(u, "sharpe"), total = across(u, "total_return")
    h += HTMLReport.tiles([
      ("Symbols", HumanFormat.integer(u.members.count), "beat buy & hold on \(beatBuyAndHold(u))"),
      ("Total return", HumanFormat.percent(total?.median), "median; worst " + HumanFormat.percent(total?.worst)),
      ("Sharpe", HumanFormat.ratio(sharpe?.median), "median; worst " + HumanFormat.ratio(sharpe?.worst)),
    ])
    h += "<div class=\"card\"><h2>Across symbols</h2><table><tr><th>Figure</th><th>Mean</th><th>Median</th><th>Worst</th><th>Best</th></tr>"
    for r in acrossRows(u) { h += "<tr>" + r.map { "<td>\(e($0))</td>" }.joined() + "</tr>" }
    // The ranking sorts by any column in the page (`table.ic-sortable`).
    h += "</table></div>\n<div class=\"card\"><h2>Symbols, best Sharpe first</h2><table class=\"ic-sortable\" id=\"symbols\"><thead><tr><th>#</th>"
      + rowTitles.map { "<th>\(e($0))</th>" }.joined() + "</tr></thead><tbody>"
    for (k, r) in rows(u).enumerated() {
      h += "<tr><td>\(k + 1)</td><td><a href=\"symbols/\(e(r[0]))/report.html\">\(e(r[0]))</a></td>"
        + r.dropFirst().map { "<td>\(e($0))</td>" }.joined() + "</tr>"
    }
    h += "</tbody></table></div>\n<p class=\"note\">Every figure is in universe.csv; each symbol's own report is in symbols/SYMBOL/; a heading sorts the symbols by its column.</p>\n"
    return h + HTMLReport.closing
  }
}

extension AnyRunOutput {
  /// Every report file of the run, as `backtest run` writes them.
  package var files: [ReportFile] {
    switch self {
    case .single(let o): RunReport.files(o)
    case .universe(let o): UniverseReport.files(o)
    case .portfolio(let o): PortfolioReport.files(o)
    }
  }
}
