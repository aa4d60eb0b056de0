/// One report file's name (inside the output folder) and content.
public struct ReportFile: Sendable, Equatable {
  public var name: String
  public var contents: String

  public init(name: String, contents: String) {
    self.name = name
    self.contents = contents
  }
}

/// Builds the report files of a run. Only formats text; writing is the caller's.
///
/// Machine-readable files (CSV, JSON) hold fractions and full-precision
/// numbers (shortest round-trip text), `\n` line ends, and a fixed column and
/// key order, so the same run always gives the same bytes.
public enum RunReport {
  public static func files(_ output: RunOutput) -> [ReportFile] {
    var files: [ReportFile] = []
    let formats = output.config.report.formats
    if formats.contains(.csv) {
      files.append(ReportFile(name: "trades.csv", contents: tradesCSV(output)))
      files.append(ReportFile(name: "equity.csv", contents: equityCSV(output)))
      files.append(ReportFile(name: "indicators.csv", contents: indicatorsCSV(output)))
    }
    if formats.contains(.json) {
      files.append(ReportFile(name: "summary.json", contents: summaryJSON(output).rendered() + "\n"))
    }
    if formats.contains(.markdown) {
      files.append(ReportFile(name: "report.md", contents: MarkdownReport.render(output)))
      let charts = RunCharts(output)
      files.append(ReportFile(name: "price.svg", contents: charts.price() + "\n"))
      for panel in charts.panelCharts() { files.append(ReportFile(name: panel.id + ".svg", contents: panel.svg + "\n")) }
      files.append(ReportFile(name: "equity.svg", contents: charts.equity() + "\n"))
      files.append(ReportFile(name: "monthly.svg", contents: charts.monthly() + "\n"))
      files.append(ReportFile(name: "returns.svg", contents: charts.tradeReturns() + "\n"))
    }
    if formats.contains(.html) {
      files.append(ReportFile(name: "report.html", contents: HTMLReport.render(output)))
    }
    return files
  }

  public static let tradeColumns = "entry_time,entry_price,exit_time,exit_price,shares,pnl,return,exit_reason,bars_held,fees,ambiguous,dividends,side"

  public static func tradesCSV(_ output: RunOutput) -> String {
    let stages = output.cycle?.gate.stages
    var out = tradeColumns + (stages == nil ? "\n" : ",entry_cycle,exit_cycle\n")
    let bars = output.bars
    for t in output.run.result.trades {
      if let stages {
        out += tradeLine(t, bars) + "," + stages[t.entryBar].rawValue + "," + stages[t.exitBar].rawValue + "\n"
      } else {
        out += tradeLine(t, bars) + "\n"
      }
    }
    return out
  }

  static func tradeLine(_ t: Trade, _ bars: BarSeries) -> String {
    bars.timeLabel(t.entryBar) + "," + t.entryPrice.description + "," + bars.timeLabel(t.exitBar) + ","
      + t.exitPrice.description + "," + formatNumber(t.shares) + "," + t.pnl.description + ","
      + t.returnFraction.description + "," + t.exitReason.rawValue + "," + String(t.barsHeld) + "," + formatNumber(t.fees)
      + "," + (t.ambiguous ? "1" : "0") + "," + formatNumber(t.dividends) + "," + t.side.rawValue
  }

  public static func equityCSV(_ output: RunOutput) -> String {
    let r = output.run.result
    let bars = output.bars
    let dd = drawdowns(r.equity)
    var out = TextBuffer(capacity: bars.count * 100)
    let stages = output.cycle?.gate.stages
    out.append("time,equity,cash,position_shares,close,drawdown,benchmark_equity,flow,dividends" + (stages == nil ? "\n" : ",cycle\n"))
    let paid = r.dividendCash
    for i in bars.indices {
      bars.appendLabel(i, to: &out)
      out.append(byte: 44); out.append(r.equity[i])
      out.append(byte: 44); out.append(r.cash[i])
      out.append(byte: 44); out.append(count: r.shares[i])
      out.append(byte: 44); out.append(bars.close[i])
      out.append(byte: 44); out.append(dd[i])
      out.append(byte: 44); out.append(output.benchmark.equity[i])
      out.append(byte: 44); out.append(i == 0 ? r.initialCash : 0)
      out.append(byte: 44); out.append(paid.isEmpty ? 0 : paid[i])
      if let stages { out.append(byte: 44); out.append(stages[i].rawValue) }
      out.append(byte: 10)
    }
    return out.string
  }

  public static func indicatorsCSV(_ output: RunOutput) -> String {
    let bars = output.bars
    let columns = output.run.indicators
    var out = TextBuffer(capacity: bars.count * 110)
    let stages = output.cycle?.gate.stages
    out.append((["time", "close"] + columns.map(\.name) + (stages == nil ? [] : ["cycle"])).joined(separator: ",") + "\n")
    for i in bars.indices {
      bars.appendLabel(i, to: &out)
      out.append(byte: 44); out.append(bars.close[i])
      for c in columns { out.append(byte: 44); out.append(c.values[i]) }
      if let stages { out.append(byte: 44); out.append(stages[i].rawValue) }
      out.append(byte: 10)
    }
    return out.string
  }

  static func metrics(_ s: PerformanceSummary) -> [(String, JSONValue)] {
    s.fields.map { key, value in
      guard let value else { return (key, .null) }
      return (key, PerformanceSummary.integerKeys.contains(key) ? .integer(Int(value)) : .optional(value))
    }
  }

  public static func summaryJSON(_ output: RunOutput) -> JSONValue {
    let c = output.config
    let bars = output.bars
    var byReason: [(String, JSONValue)] = []
    for reason in ExitReason.allCases {
      let n = output.run.result.trades.filter { $0.exitReason == reason }.count
      // The trailing-stop and time exits are listed when some trade had them (fields are only added).
      if n == 0 && (reason == .trailingStop || reason == .time) { continue }
      byReason.append((reason.rawValue, .integer(n)))
    }
    let run: [(String, JSONValue)] = [
      ("name", .string(c.name)), ("strategy", .string(c.strategy.name)),
      ("parameters", .object(c.strategy.parameterSummary.map { ($0.name, .string($0.value)) })),
      ("data", .string(c.data.bars)), ("first_bar", .string(bars.timeLabel(0))),
      ("last_bar", .string(bars.timeLabel(bars.count - 1))), ("bars_in_file", .integer(output.barsInFile)),
      ("initial_cash", .number(c.broker.initialCash)),
      ("skipped_entries", .integer(output.run.result.skippedEntries)),
      ("intrabar_rule", .string(c.broker.intrabarRule.rawValue)),
      ("ambiguous_trades", .integer(output.run.result.trades.filter(\.ambiguous).count)),
      ("resolved_from_intrabar", .integer(output.run.result.resolvedBars)),
    ]
    let b = output.benchmarkSummary
    let benchmark: [(String, JSONValue)] = [
      ("total_return", .number(b.totalReturn)), ("final_equity", .number(b.finalEquity)), ("cagr", .optional(b.cagr)),
      ("max_drawdown", .number(b.maxDrawdown)), ("sharpe", .optional(b.sharpe)), ("sortino", .optional(b.sortino)),
    ]
    var fields = metrics(output.summary) + [("exit_reasons", .object(byReason)), ("benchmark", .object(benchmark))]
    if let other = output.otherRule {
      let name = c.broker.intrabarRule == .conservative ? IntrabarRule.optimistic : .conservative
      fields.append(("other_intrabar_rule", .object([
        ("rule", .string(name.rawValue)), ("total_trades", .integer(other.totalTrades)), ("win_rate", .optional(other.winRate)),
        ("total_return", .number(other.totalReturn)), ("max_drawdown", .number(other.maxDrawdown)),
        ("sharpe", .optional(other.sharpe)), ("profit_factor", .optional(other.profitFactor)),
      ])))
    }
    if let cycle = output.cycle {
      let breakdown = CycleBreakdown(result: output.run.result, stages: cycle.gate.stages)
      fields.append(("by_cycle", .object(breakdown.rows.map { r in
        (r.stage.rawValue, .object([("bars", .integer(r.bars)), ("trades", .integer(r.trades)), ("win_rate", .optional(r.winRate)),
                                    ("avg_return", .optional(r.averageReturn)), ("total_return", .number(r.totalReturn))]))
      })))
      fields.append(("by_cycle_grouping", .object(CycleBreakdown.grouping.map { ($0.key, .string($0.meaning)) })))
      let last = bars.count - 1
      let row = cycle.timeline.row(at: bars.time[last])
      fields.append(("cycle", .object([
        ("filter", .bool(cycle.settings.filter)),
        ("buy_stages", .array(cycle.settings.buyStages.sorted().map { .string($0.rawValue) })),
        ("exit_stages", .array(cycle.settings.exitStages.sorted().map { .string($0.rawValue) })),
        ("blocked_entries", .integer(output.run.blockedEntries)),
        ("unfiltered_trades", cycle.unfiltered.map { .integer($0.totalTrades) } ?? .null),
        ("unfiltered_total_return", cycle.unfiltered.map { .number($0.totalReturn) } ?? .null),
        ("skipped_trades", cycle.skippedTrades.map { .integer($0) } ?? .null),
        ("current_stage", .string(cycle.gate.stages[last].rawValue)),
        ("current_period", row.map { .string($0.period) } ?? .null),
        ("current_released_at", row.flatMap { $0.availableAt }.map { .string(isoInstant($0)) } ?? .null),
        ("current_gdp_yoy", .optional(row?.gdpYoY)), ("current_unemployment_rate", .optional(row?.unemploymentRate)),
        ("current_inflation_yoy", .optional(row?.inflationYoY)),
        ("macro_files", .array(cycle.settings.macroFiles.map { .string($0) })),
      ])))
    }
    if let d = dividendFigures(output) {
      fields.append(("dividends", PortfolioReport.dividendJSON(d.profile, shares: d.shares, trailingYield: d.trailingYield, yieldOnCost: d.yieldOnCost)))
    }
    fields.append(("run", .object(run)))
    return .object(fields)
  }

  /// The dividend profile at the last bar, with the shares held then and the
  /// yields they give; `nil` when the run has no dividend file.
  static func dividendFigures(_ output: RunOutput) -> (profile: DividendProfile, shares: Double, trailingYield: Double?, yieldOnCost: Double?)? {
    guard !output.dividends.isEmpty else { return nil }
    let bars = output.bars, last = bars.count - 1, r = output.run.result
    let profile = DividendProfile(output.dividends, asOf: Int(bars.day[last]))
    let shares = r.shares[last]
    let open = r.trades.last.flatMap { $0.exitReason == .endOfData ? $0 : nil }
    let cost = open.map { $0.shares * $0.entryPrice + $0.entryFee }
    return (profile, shares, profile.trailingTwelveMonths / bars.close[last],
            cost.flatMap { c in profile.forwardAnnual.map { $0 * shares / c } })
  }
}
