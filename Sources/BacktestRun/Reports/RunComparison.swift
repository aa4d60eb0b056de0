import BacktestCore
import Foundation

/// Several runs' figures side by side, with each one's difference from the
/// first (`backtest compare`): the summary of single runs and portfolios, and
/// for sweeps the same combinations' metric in each.
package struct RunComparison: Sendable {
  /// One figure across the runs.
  package struct Row: Sendable {
    package var key: String
    package var values: [Double?]
    /// `values[k] - values[0]`, `nil` where either is undefined (the first run's is always `nil`).
    package var differences: [Double?]
  }

  /// One sweep combination's ranking metric across the sweeps.
  package struct Combination: Sendable {
    package var values: [String]
    package var metric: [Double?]
    package var differences: [Double?]
  }

  /// The runs' names as given (their folders).
  package var names: [String]
  /// The settings that differ between the runs (strategy, each parameter, data), one text per run.
  package var facts: [(key: String, values: [String])]
  /// The settings all runs share, as `key value` texts.
  package var common: [String] = []
  package var rows: [Row]
  /// For sweeps: the parameter names, the metric, and the first sweep's top combinations in each.
  package var sweepParameters: [String] = []
  package var sweepMetric: String?
  package var combinations: [Combination] = []

  /// Compares `summary.json` documents: every numeric top-level figure of the first, in its order.
  package init(names: [String], summaries: [JSONNode]) {
    self.names = names
    var keys: [String] = []
    for s in summaries {
      for m in s.members ?? [] where m.value.number != nil || m.value.isNull {
        if !keys.contains(m.key) { keys.append(m.key) }
      }
    }
    rows = keys.map { key in Self.row(key, summaries.map { $0[key]?.number }) }
    // The runs' settings: the strategy, each parameter, the data, and every other setting of the run section (fees,
    // slippage, sizing, price, DRIP, ...; not the run's name, its manifest or what it counted); those that differ are
    // rows, the rest one line. A setting one run's summary lacks (written before it was) reads "—".
    func text(_ node: JSONNode?) -> String {
      guard let node else { return "" }
      if node.isNull { return "none" }
      if case .bool(let b) = node.kind { return b ? "yes" : "no" }
      return node.string ?? node.number.map(formatPlain) ?? ""
    }
    var settingKeys: [String] = ["strategy"], settings: [[String: String]] = [], others: [String] = []
    // A run setting named like a strategy parameter (a rules param called `price`) is shown as `run.price`.
    let parameterNames = Set(summaries.flatMap { ($0["run"]?["parameters"]?.members ?? []).map(\.key) })
    for s in summaries {
      var here = ["strategy": text(s["run"]?["strategy"]), "data": text(s["run"]?["data"]),
                  "bars": "\(text(s["run"]?["first_bar"])) → \(text(s["run"]?["last_bar"]))"]
      for m in s["run"]?["parameters"]?.members ?? [] {
        here[m.key] = text(m.value)
        if !settingKeys.contains(m.key) { settingKeys.append(m.key) }
      }
      for m in s["run"]?.members ?? [] where !Self.notSettings.contains(m.key) && m.value.members == nil && m.value.array == nil {
        let key = parameterNames.contains(m.key) ? "run." + m.key : m.key
        here[key] = text(m.value)
        if !others.contains(key) { others.append(key) }
      }
      settings.append(here)
    }
    settingKeys += ["data", "bars"] + others.filter { !settingKeys.contains($0) }
    var facts: [(key: String, values: [String])] = [], common: [String] = []
    for key in settingKeys {
      let values = settings.map { $0[key] ?? "—" }
      if Set(values).count > 1 { facts.append((key, values)) } else if let v = values.first, !v.isEmpty, v != " → " { common.append("\(key) \(v)") }
    }
    self.facts = facts
    self.common = common
  }

  /// Members of a summary's run section that are not settings: its name, where it read, and what it counted.
  static let notSettings: Set<String> = ["name", "strategy", "data", "first_bar", "last_bar", "bars_in_file", "skipped_entries", "expired_orders",
                                         "unpriced_orders", "borrow_fees", "ambiguous_trades", "resolved_from_intrabar", "manifest"]

  /// Compares sweeps (`results.csv` texts): the first sweep's `top` best combinations by `metric`, found in each.
  package init(names: [String], results: [String], metric: String, top: Int = 10) {
    self.names = names
    facts = []
    rows = []
    sweepMetric = metric
    let tables = results.map(Self.table)
    guard let first = tables.first else { return }
    let metricKeys = Set(SweepRanking.metricKeys + ["fingerprint"])
    sweepParameters = first.header.prefix { !metricKeys.contains($0) }.map { $0 }
    let p = sweepParameters.count
    func lookup(_ t: (header: [String], rows: [[String]])) -> [String: Double?] {
      guard let column = t.header.firstIndex(of: metric) else { return [:] }
      var out: [String: Double?] = [:]
      for r in t.rows where r.count > column { out[r.prefix(p).joined(separator: "\u{1F}")] = Double(r[column]) }
      return out
    }
    let maps = tables.map(lookup)
    func firstMetric(_ r: [String]) -> Double {
      let value: Double?? = maps[0][r.prefix(p).joined(separator: "\u{1F}")]
      return (value ?? nil) ?? -.infinity
    }
    // The first sweep's ranking: best first, undefined last, then plan order (stable).
    let candidates = first.rows.filter { $0.count >= p }
    let order = candidates.indices.sorted { a, b in
      let x = firstMetric(candidates[a]), y = firstMetric(candidates[b])
      return x != y ? x > y : a < b
    }
    let ranked = order.prefix(top).map { candidates[$0] }
    combinations = ranked.map { r in
      let key = r.prefix(p).joined(separator: "\u{1F}")
      let row = Self.row(metric, maps.map { $0[key] ?? nil })
      return Combination(values: Array(r.prefix(p)), metric: row.values, differences: row.differences)
    }
  }

  /// Checks that `summary` is a run's `summary.json`: an object whose known figures are numbers (or null), holding at
  /// least one of them (a universe's holds its figures across symbols).
  ///
  /// - Throws: `InputError` at the value that is not what a run writes.
  package static func check(summary: JSONNode, file: String) throws {
    guard let members = summary.members else {
      throw InputError("expected the summary.json of a run (a JSON object of figures), found \(summary.typeDescription)", at: summary.location)
    }
    let known = Set(SweepRanking.metricKeys + ["deposited", "withdrawn", "dividends_pending", "commissions", "rebalances", "fills"])
    for m in members where known.contains(m.key) && m.value.number == nil && !m.value.isNull {
      throw InputError("expected a number or null for '\(m.key)', found \(m.value.typeDescription)", at: m.value.location)
    }
    guard members.contains(where: { known.contains($0.key) && $0.value.number != nil }) || summary["across_symbols"]?.members != nil else {
      throw InputError("expected the summary.json of a run (final_equity, total_return, …), found none of its figures", at: summary.location)
    }
  }

  /// Checks that `text` is a sweep's `results.csv` ranked by `metric`: every row has the header's fields.
  ///
  /// - Throws: `InputError` at a torn row, or without the metric's column.
  package static func check(results text: String, metric: String, file: String) throws {
    let t = table(text)
    guard t.header.contains(metric) else {
      throw InputError("expected a results.csv with a '\(metric)' column, found none", at: SourceLocation(file: file, line: 1, column: 1))
    }
    if let k = t.rows.firstIndex(where: { $0.count != t.header.count }) {
      throw InputError("expected \(t.header.count) fields as the header has, found \(t.rows[k].count) (a line cut short?)",
                       at: SourceLocation(file: file, line: k + 2, column: 1))
    }
  }

  static func row(_ key: String, _ values: [Double?]) -> Row {
    Row(key: key, values: values, differences: values.enumerated().map { k, v in
      guard k > 0, let v, let base = values[0] else { return nil }
      return v - base
    })
  }

  /// A CSV text as header and rows (quoted fields with commas are kept whole).
  static func table(_ text: String) -> (header: [String], rows: [[String]]) {
    func fields(_ line: Substring) -> [String] {
      var out: [String] = [], field = "", quoted = false
      for c in line {
        if c == "\"" { quoted.toggle(); continue }
        if c == "," && !quoted { out.append(field); field = ""; continue }
        field.append(c)
      }
      out.append(field)
      return out
    }
    let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
    guard let head = lines.first else { return ([], []) }
    return (fields(head), lines.dropFirst().map(fields))
  }

  // MARK: Text

  /// How a figure reads for people: fractions as percentages, money, ratios, counts.
  static func format(_ key: String, _ v: Double?, difference: Bool = false) -> String {
    guard let v, v.isFinite else { return "—" }
    let sign = difference && v > 0 ? "+" : ""
    let fractions: Set<String> = ["total_return", "cagr", "max_drawdown", "win_rate", "avg_win", "avg_loss", "best_trade", "worst_trade",
                                  "exposure", "twr", "xirr"]
    let money: Set<String> = ["total_pnl", "final_equity", "fees", "dividend_income", "expense_drag"]
    if fractions.contains(key) {
      // Percentage points as a percentage reads them (1e308 is 1.00e+310, not inf).
      return difference ? sign + HumanFormat.percent(v).dropLast().replacingOccurrences(of: ",", with: "") + " pts" : HumanFormat.percent(v)
    }
    if money.contains(key) { return sign + HumanFormat.money(v) }
    if v == v.rounded() && abs(v) < 1e15 { return sign + HumanFormat.integer(Int(v)) }
    return sign + String(format: "%.4g", v)
  }

  /// Columns: the figure, each run's value, and each later run's difference from the first.
  var tableRows: (header: [String], rows: [[String]]) {
    var header = ["figure"] + names
    if names.count > 1 { header += names.dropFirst().map { "Δ " + $0 } }
    var out: [[String]] = facts.map { [$0.key] + $0.values + Array(repeating: "", count: max(0, names.count - 1)) }
    for r in rows {
      out.append([r.key] + r.values.map { Self.format(r.key, $0) } + r.differences.dropFirst().map { Self.format(r.key, $0, difference: true) })
    }
    if let metric = sweepMetric {
      header = sweepParameters + names.map { "\(metric) \($0)" } + names.dropFirst().map { "Δ " + $0 }
      out = combinations.map { c in c.values + c.metric.map { Self.format(metric, $0) } + c.differences.dropFirst().map { Self.format(metric, $0, difference: true) } }
    }
    return (header, out)
  }

  /// Aligned columns for a terminal, after a line of the settings all runs share.
  package var text: String {
    let (header, rows) = tableRows
    let all = [header] + rows
    let shared = common.isEmpty ? "" : "same in all: " + common.joined(separator: ", ") + "\n\n"
    let widths = header.indices.map { k in all.map { $0.indices.contains(k) ? $0[k].count : 0 }.max() ?? 0 }
    return shared + all.map { row in
      row.enumerated().map { k, cell in k == 0 ? cell.padding(toLength: widths[k], withPad: " ", startingAt: 0)
        : String(repeating: " ", count: widths[k] - cell.count) + cell }.joined(separator: "  ")
    }.joined(separator: "\n") + "\n"
  }

  /// A Markdown table, after a line of the settings all runs share.
  package var markdown: String {
    let (header, rows) = tableRows
    var md = common.isEmpty ? "" : "Same in all: " + common.map { "`\($0)`" }.joined(separator: ", ") + ".\n\n"
    md += "| " + header.joined(separator: " | ") + " |\n|" + header.indices.map { $0 == 0 ? "---|" : "---:|" }.joined() + "\n"
    for r in rows { md += "| " + r.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |\n" }
    return md
  }

  /// `backtest.compare/1`: full-precision values and differences.
  package var json: JSONValue {
    var fields: [(String, JSONValue)] = [("schema", .string("backtest.compare/1")), ("runs", .array(names.map { .string($0) }))]
    fields.append(("settings", .object(facts.map { ($0.key, .array($0.values.map { .string($0) })) })))
    fields.append(("same", .array(common.map { .string($0) })))
    fields.append(("figures", .array(rows.map { r in
      .object([("key", .string(r.key)), ("values", .array(r.values.map { .optional($0) })),
               ("differences", .array(r.differences.map { .optional($0) }))])
    })))
    if let metric = sweepMetric {
      fields.append(("metric", .string(metric)))
      fields.append(("parameters", .array(sweepParameters.map { .string($0) })))
      fields.append(("combinations", .array(combinations.map { c in
        .object([("values", .array(c.values.map { .string($0) })), (metric, .array(c.metric.map { .optional($0) })),
                 ("differences", .array(c.differences.map { .optional($0) }))])
      })))
    }
    return .object(fields)
  }
}

// MARK: compare.html

extension RunComparison {
  /// One run's equity over time, from its `equity.csv`: each row's time as days since 1970 (the time of day as a
  /// fraction; the clock as written, offsets aside) and its equity.
  package struct EquityCurve: Sendable {
    package var days: [Double]
    package var equity: [Double]
  }

  /// The curve of an `equity.csv` text (columns `time` and `equity`); `nil` without them or without a row.
  package static func equityCurve(csv text: String) -> EquityCurve? {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true).makeIterator()
    guard let header = lines.next()?.split(separator: ",", omittingEmptySubsequences: false),
          let t = header.firstIndex(of: "time"), let e = header.firstIndex(of: "equity") else { return nil }
    var curve = EquityCurve(days: [], equity: [])
    while let line = lines.next() {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false)
      guard fields.count > max(t, e), let value = Double(fields[e]), let day = day(fields[t]) else { continue }
      curve.days.append(day)
      curve.equity.append(value)
    }
    return curve.days.isEmpty ? nil : curve
  }

  /// `2024-01-02` or `2024-01-02T09:30:00-05:00` as days since 1970-01-01, the time of day a fraction.
  static func day(_ text: Substring) -> Double? {
    let u = Array(text.utf8)
    func number(_ range: Range<Int>) -> Int? {
      guard range.upperBound <= u.count else { return nil }
      var v = 0
      for k in range { guard u[k] >= 48 && u[k] <= 57 else { return nil }; v = v * 10 + Int(u[k] - 48) }
      return v
    }
    guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), (1...12).contains(m), (1...31).contains(d) else { return nil }
    var day = Double(CivilDate.days(year: y, month: m, day: d))
    if u.count >= 16, u[10] == UInt8(ascii: "T") || u[10] == UInt8(ascii: " "), let h = number(11..<13), let min = number(14..<16) {
      day += (Double(h) + Double(min) / 60) / 24
    }
    return day
  }

  /// `compare.html`: the comparison's table and the runs' equity overlaid (in dollars, and as the return since each
  /// run's start), one colour a run; a run without an equity curve (`nil`) is named as missing. One self-contained page.
  package func html(curves: [EquityCurve?]) -> String {
    func e(_ x: String) -> String { SVGBuilder.escape(x) }
    var h = HTMLReport.opening("Compare: " + names.joined(separator: ", "))
    h += "<div class=\"card\"><h2>Figures</h2><div class=\"ic-scroll\">\(HTMLReport.markdownBlocks(markdown))</div></div>\n"
    let drawn = curves.enumerated().compactMap { k, c in c.map { (k, $0) } }
    if !drawn.isEmpty {
      h += "<div class=\"card ic-wide\">\(Self.equityChart(drawn, names: names, percent: false))</div>\n"
      h += "<div class=\"card ic-wide\">\(Self.equityChart(drawn, names: names, percent: true))</div>\n"
    }
    let missing = curves.indices.filter { curves[$0] == nil }
    if !missing.isEmpty {
      h += "<p class=\"note\">No equity.csv in \(missing.map { "<code>\(e(names[$0]))</code>" }.joined(separator: ", ")): not drawn.</p>\n"
    }
    h += "<p class=\"note\">Each run's equity from its equity.csv; the figures from each summary.json; the settings that differ are the table's first rows.</p>\n"
    return h + HTMLReport.closing
  }

  /// The runs' equity over calendar time, in dollars or as the return since each run's first value.
  static func equityChart(_ curves: [(index: Int, curve: EquityCurve)], names: [String], percent: Bool) -> String {
    let width = RunCharts.width, left = 78.0, right = 16.0, top = 44.0, bottom = 300.0, height = 330.0
    let series: [(index: Int, days: [Double], values: [Double])] = curves.map { k, c in
      (k, c.days, percent ? c.equity.map { $0 / (c.equity.first { $0 != 0 } ?? 1) - 1 } : c.equity)
    }
    var d0 = Double.infinity, d1 = -Double.infinity, v0 = Double.infinity, v1 = -Double.infinity
    for s in series {
      d0 = min(d0, s.days.first!); d1 = max(d1, s.days.last!)
      for v in s.values where v.isFinite { v0 = min(v0, v); v1 = max(v1, v) }
    }
    if !(d1 > d0) { d1 = d0 + 1 }
    if !(v1 > v0) { v0 -= 1; v1 += 1 }
    let pad = (v1 - v0) * 0.05
    v0 -= pad; v1 += pad
    let x = { (d: Double) in left + (d - d0) / (d1 - d0) * (width - left - right) }
    let y = { (v: Double) in bottom - (v - v0) / (v1 - v0) * (bottom - top) }
    let c = SVGBuilder.coordinate
    var svg = SVGBuilder()
    let id = percent ? "compare-return" : "compare-equity"
    svg.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(c(width)) \(c(height))\" width=\"\(c(width))\" height=\"\(c(height))\" id=\"\(id)\" "
      + "data-x0=\"\(c(left))\" data-x1=\"\(c(width - right))\" data-day0=\"\(d0)\" data-day1=\"\(d1)\" data-ytop=\"\(c(top))\" data-ybottom=\"\(c(bottom))\" "
      + "data-vmin=\"\(v0)\" data-vmax=\"\(v1)\" role=\"img\"><title>\(percent ? "Return since each run's start" : "Equity")</title>" + RunCharts.style)
    svg.rect(x: 0, y: 0, width: width, height: height, attributes: "class=\"bg\"")
    svg.label(percent ? "Return since each run's start" : "Equity", x: left, y: 16, attributes: "class=\"title\"")
    for v in niceTicks(low: v0, high: v1) {
      svg.line(left, y(v), width - right, y(v), attributes: "class=\"grid\"")
      let text = percent ? FixedDecimal.text(v * 100, decimals: 0) + "%" : { let m = HumanFormat.money(v); return m.hasSuffix(".00") ? String(m.dropLast(3)) : m }()
      svg.label(text, x: left - 6, y: y(v) + 4, attributes: "class=\"label\" text-anchor=\"end\"")
    }
    svg.line(left, bottom, width - right, bottom, attributes: "class=\"axis\"")
    // A label a year (a month under two years), at least 60 px apart.
    let monthly = d1 - d0 < 730
    var lastX = -100.0, lastKey = Int.min
    for day in Int(d0.rounded(.down))...Int(d1.rounded(.down)) {
      let date = CivilDate.components(days: day), key = monthly ? date.year * 12 + date.month : date.year
      guard key != lastKey else { continue }
      lastKey = key
      let xd = x(Double(day))
      guard xd > left + 1, xd - lastX > 60 else { continue }
      svg.line(xd, bottom, xd, bottom + 4, attributes: "class=\"axis\"")
      svg.label(monthly ? "\(date.year)-\(CivilDate.pad(date.month, 2))" : "\(date.year)", x: xd, y: bottom + 16, attributes: "class=\"label\" text-anchor=\"middle\"")
      lastX = xd
    }
    for s in series {
      let color = RunCharts.assetColor(s.index)
      let picked = largestTriangleThreeBuckets(ContiguousArray(s.values), threshold: 2 * Int(width - left - right))
      svg.polyline(picked.map { (x(s.days[$0]), y(s.values[$0])) },
                   attributes: "stroke=\"\(color)\" stroke-width=\"1.4\" id=\"\(id)-\(s.index)\" data-points=\"\(s.values.count)\" data-last=\"\(s.values.last!)\"")
    }
    var lx = left
    for s in series {
      let name = names[s.index]
      svg.line(lx, 30, lx + 16, 30, attributes: "stroke=\"\(RunCharts.assetColor(s.index))\" stroke-width=\"2\"")
      svg.label(name, x: lx + 20, y: 34)
      lx += 40 + 6.5 * Double(name.count)
    }
    svg.raw("</svg>")
    return svg.text
  }
}
