import Foundation

/// Several runs' figures side by side, with each one's difference from the
/// first (`backtest compare`): the summary of single runs and portfolios, and
/// for sweeps the same combinations' metric in each.
public struct RunComparison: Sendable {
  /// One figure across the runs.
  public struct Row: Sendable {
    public var key: String
    public var values: [Double?]
    /// `values[k] - values[0]`, `nil` where either is undefined (the first run's is always `nil`).
    public var differences: [Double?]
  }

  /// One sweep combination's ranking metric across the sweeps.
  public struct Combination: Sendable {
    public var values: [String]
    public var metric: [Double?]
    public var differences: [Double?]
  }

  /// The runs' names as given (their folders).
  public var names: [String]
  /// The settings that differ between the runs (strategy, each parameter, data), one text per run.
  public var facts: [(key: String, values: [String])]
  /// The settings all runs share, as `key value` texts.
  public var common: [String] = []
  public var rows: [Row]
  /// For sweeps: the parameter names, the metric, and the first sweep's top combinations in each.
  public var sweepParameters: [String] = []
  public var sweepMetric: String?
  public var combinations: [Combination] = []

  /// Compares `summary.json` documents: every numeric top-level figure of the first, in its order.
  public init(names: [String], summaries: [JSONNode]) {
    self.names = names
    var keys: [String] = []
    for s in summaries {
      for m in s.members ?? [] where m.value.number != nil || m.value.isNull {
        if !keys.contains(m.key) { keys.append(m.key) }
      }
    }
    rows = keys.map { key in Self.row(key, summaries.map { $0[key]?.number }) }
    // The runs' settings: the strategy, each parameter, the data; those that differ are rows, the rest one line.
    func text(_ node: JSONNode?) -> String { node?.string ?? node?.number.map(formatPlain) ?? "" }
    var settingKeys: [String] = ["strategy"], settings: [[String: String]] = []
    for s in summaries {
      var here = ["strategy": text(s["run"]?["strategy"]), "data": text(s["run"]?["data"]),
                  "bars": "\(text(s["run"]?["first_bar"])) → \(text(s["run"]?["last_bar"]))"]
      for m in s["run"]?["parameters"]?.members ?? [] {
        here[m.key] = text(m.value)
        if !settingKeys.contains(m.key) { settingKeys.append(m.key) }
      }
      settings.append(here)
    }
    settingKeys += ["data", "bars"]
    var facts: [(key: String, values: [String])] = [], common: [String] = []
    for key in settingKeys {
      let values = settings.map { $0[key] ?? "—" }
      if Set(values).count > 1 { facts.append((key, values)) } else if let v = values.first, !v.isEmpty, v != " → " { common.append("\(key) \(v)") }
    }
    self.facts = facts
    self.common = common
  }

  /// Compares sweeps (`results.csv` texts): the first sweep's `top` best combinations by `metric`, found in each.
  public init(names: [String], results: [String], metric: String, top: Int = 10) {
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
  public static func check(summary: JSONNode, file: String) throws {
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
  public static func check(results text: String, metric: String, file: String) throws {
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
  public var text: String {
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
  public var markdown: String {
    let (header, rows) = tableRows
    var md = common.isEmpty ? "" : "Same in all: " + common.map { "`\($0)`" }.joined(separator: ", ") + ".\n\n"
    md += "| " + header.joined(separator: " | ") + " |\n|" + header.indices.map { $0 == 0 ? "---|" : "---:|" }.joined() + "\n"
    for r in rows { md += "| " + r.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |\n" }
    return md
  }

  /// `backtest.compare/1`: full-precision values and differences.
  public var json: JSONValue {
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
