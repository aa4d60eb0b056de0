import BacktestCore
import Foundation

/// One report file's name (inside the output folder) and content.
package struct ReportFile: Sendable, Equatable {
  package var name: String
  /// How the bytes are made: a large CSV is made a range of rows at a time as it is written.
  package var body: ReportBody

  package init(name: String, contents: String) {
    self.name = name
    body = .text(contents)
  }

  package init(name: String, body: ReportBody) {
    self.name = name
    self.body = body
  }

  /// The file's text (made now when it is made as it is written).
  package var contents: String {
    get { body.text }
    set { body = .text(newValue) }
  }

  package static func == (a: ReportFile, b: ReportFile) -> Bool { a.name == b.name && a.contents == b.contents }
}

/// Builds the report files of a run. Only formats text; writing is the caller's.
///
/// Machine-readable files (CSV, JSON) hold fractions and full-precision
/// numbers (shortest round-trip text), `\n` line ends, and a fixed column and
/// key order, so the same run always gives the same bytes.
package enum RunReport {
  /// The files of the run's report formats.
  package static func files(_ output: RunOutput) -> [ReportFile] { files(output, indicators: nil) }

  /// `files(output)`, with `indicators` (indicators.csv made before the run
  /// traded, `indicatorsFile`) in place of a new one.
  package static func files(_ output: RunOutput, indicators: ReportFile?) -> [ReportFile] {
    // Every file is made when its writer asks for it (each on its own thread); the two
    // per-bar CSV files in chunks on all cores, as they are written.
    func later(_ name: String, _ make: @escaping @Sendable () -> String) -> ReportFile {
      ReportFile(name: name, body: .deferred(DeferredText(make)))
    }
    var files: [ReportFile] = []
    let formats = output.config.report.formats
    if formats.contains(.csv) {
      files.append(ReportFile(name: "equity.csv", body: .rows(equityRows(output))))
      files.append(indicators ?? ReportFile(name: "indicators.csv", body: .rows(indicatorRows(output))))
      files.append(later("trades.csv") { tradesCSV(output) })
    }
    if formats.contains(.json) {
      files.append(later("summary.json") { summaryJSON(output).rendered() + "\n" })
    }
    // Each chart made once, for its SVG file and for the HTML report.
    let charts = MemoizedCharts(RunCharts(output))
    // report.md's text made once, for its file and for the HTML report's tables.
    let markdown = DeferredText { MarkdownReport.render(output) }
    if formats.contains(.markdown) {
      files.append(later("report.md") { markdown.text })
      files.append(later("price.svg") { charts.price() + "\n" })
      for (k, id) in charts.panelIDs.enumerated() {
        files.append(later(id + ".svg") { charts.panelChart(k) + "\n" })
      }
      files.append(later("equity.svg") { charts.equity() + "\n" })
      files.append(later("monthly.svg") { charts.monthly() + "\n" })
      files.append(later("returns.svg") { charts.tradeReturns() + "\n" })
    }
    if formats.contains(.html) {
      files.append(ReportFile(name: "report.html", body: .page { HTMLReport.page(output, charts: charts, markdown: markdown.text) }))
    }
    return files
  }

  package static let tradeColumns = "entry_time,entry_price,exit_time,exit_price,shares,pnl,return,exit_reason,bars_held,fees,ambiguous,dividends,side"

  package static func tradesCSV(_ output: RunOutput) -> String {
    let stages = output.cycle?.gate.stages
    let trades = output.run.result.trades
    var out = TextBuffer(capacity: 200 + trades.count * 170)
    out.append(tradeColumns + (stages == nil ? "\n" : ",entry_cycle,exit_cycle\n"))
    let bars = output.bars
    for t in trades {
      appendTrade(t, bars, to: &out)
      if let stages {
        out.append(byte: 44); out.append(stages[t.entryBar].rawValue)
        out.append(byte: 44); out.append(stages[t.exitBar].rawValue)
      }
      out.append(byte: 10)
    }
    return out.string
  }

  static func appendTrade(_ t: Trade, _ bars: BarSeries, to out: inout TextBuffer) {
    bars.appendLabel(t.entryBar, to: &out)
    out.append(byte: 44); out.append(t.entryPrice)
    out.append(byte: 44); bars.appendLabel(t.exitBar, to: &out)
    out.append(byte: 44); out.append(t.exitPrice)
    out.append(byte: 44); out.append(count: t.shares)
    out.append(byte: 44); out.append(t.pnl)
    out.append(byte: 44); out.append(t.returnFraction)
    out.append(byte: 44); out.append(t.exitReason.rawValue)
    out.append(byte: 44); out.append(integer: Int64(t.barsHeld))
    out.append(byte: 44); out.append(count: t.fees)
    out.append(byte: 44); out.append(byte: t.ambiguous ? 49 : 48)
    out.append(byte: 44); out.append(count: t.dividends)
    out.append(byte: 44); out.append(t.side.rawValue)
  }

  package static func equityCSV(_ output: RunOutput) -> String { equityRows(output).text }

  /// The threads that make each of equity.csv and indicators.csv: a run writes
  /// both at once, so each has half the cores (on two cores, one: its writer
  /// makes the rows itself, without chunk buffers to copy from).
  static let rowWorkers = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)

  /// equity.csv: one row per bar, made in chunks.
  package static func equityRows(_ output: RunOutput) -> RowChunks {
    let r = output.run.result
    let bars = output.bars
    // The drawdown as `drawdowns` computes it, bar by bar in each chunk from the
    // peak before it (the highest equity before every 1,024th bar, kept here).
    let peaks = runningPeaks(r.equity, every: 1024)
    let stages = output.cycle?.gate.stages
    let paid = r.carry.dividendCash
    let benchmark = output.benchmark.equity
    let stageLength = stageColumnLength(stages)
    return RowChunks(header: "time,equity,cash,position_shares,close,drawdown,benchmark_equity,flow,dividends" + (stages == nil ? "\n" : ",cycle\n"),
                     rowCount: bars.count, bytesPerRow: 110, workers: rowWorkers) { rows, out in
      var equity = RepeatedNumber(), cash = RepeatedNumber(), drawdown = RepeatedNumber(), flow = RepeatedNumber(), dividend = RepeatedNumber()
      var peak = peaks[rows.lowerBound / 1024]
      for i in (rows.lowerBound / 1024 * 1024)..<rows.lowerBound { peak = max(peak, r.equity[i]) }
      bars.withLabels { labels, ends in
        guard let last = rows.last else { return }
        var start = rows.lowerBound == 0 ? 0 : ends[rows.lowerBound - 1]
        // Room for the whole chunk at once: one capacity check per chunk, not per row.
        out.write(upTo: ends[last] - start + rows.count * (8 * (1 + ShortestDecimal.maximumLength) + stageLength + 1) + ShortestDecimal.writableLength) { row in
          for i in rows {
            peak = max(peak, r.equity[i])
            row.bytes(labels.baseAddress! + start, count: ends[i] - start)
            start = ends[i]
            row.byte(44); row.number(r.equity[i], repeating: &equity)
            row.byte(44); row.number(r.cash[i], repeating: &cash)
            row.byte(44)
            if r.shares[i] == 0 { row.byte(48) } else { row.count(r.shares[i]) }
            row.byte(44); row.price(bars.close[i])
            row.byte(44); row.number(r.equity[i] / peak - 1, repeating: &drawdown)
            row.byte(44); row.number(benchmark[i])
            row.byte(44); row.number(i == 0 ? r.initialCash : 0, repeating: &flow)
            row.byte(44); row.number(paid.isEmpty ? 0 : paid[i], repeating: &dividend)
            if let stages { row.byte(44); row.text(stages[i].rawValue) }
            row.byte(10)
          }
        }
      }
    }
  }

  /// The highest of `values` before every `stride`-th index: element `k` is the peak of `values[..<(k * stride)]`.
  static func runningPeaks(_ values: ContiguousArray<Double>, every stride: Int) -> [Double] {
    var out: [Double] = [-.infinity]
    var peak = -Double.infinity
    for (i, v) in values.enumerated() {
      if i > 0 && i % stride == 0 { out.append(peak) }
      peak = max(peak, v)
    }
    return out
  }

  package static func indicatorsCSV(_ output: RunOutput) -> String { indicatorRows(output).text }

  /// indicators.csv: one row per bar, made in chunks.
  package static func indicatorRows(_ output: RunOutput) -> RowChunks {
    indicatorRows(bars: output.bars, indicators: output.run.indicators, stages: output.cycle?.gate.stages)
  }

  /// indicators.csv from all it needs, which a run has before its bars trade
  /// (`ConfiguredStrategy.run`'s `indicatorsReady`).
  package static func indicatorsFile(bars: BarSeries, indicators: [IndicatorColumn], stages: ContiguousArray<CycleStage>?) -> ReportFile {
    ReportFile(name: "indicators.csv", body: .rows(indicatorRows(bars: bars, indicators: indicators, stages: stages)))
  }

  static func indicatorRows(bars: BarSeries, indicators: [IndicatorColumn], stages: ContiguousArray<CycleStage>?) -> RowChunks {
    let columns = indicators.map(\.values)
    let header = (["time", "close"] + indicators.map(\.name) + (stages == nil ? [] : ["cycle"])).joined(separator: ",") + "\n"
    let stageLength = stageColumnLength(stages)
    return RowChunks(header: header, rowCount: bars.count, bytesPerRow: 30 + 20 * columns.count, workers: rowWorkers) { rows, out in
      bars.withLabels { labels, ends in
        guard let last = rows.last else { return }
        var start = rows.lowerBound == 0 ? 0 : ends[rows.lowerBound - 1]
        // Room for the whole chunk at once: one capacity check per chunk, not per row.
        out.write(upTo: ends[last] - start + rows.count * ((1 + columns.count) * (1 + ShortestDecimal.maximumLength) + stageLength + 1)
                    + ShortestDecimal.writableLength) { row in
          for i in rows {
            row.bytes(labels.baseAddress! + start, count: ends[i] - start)
            start = ends[i]
            row.byte(44); row.price(bars.close[i])
            var k = 0
            while k &+ 4 <= columns.count {
              row.commaNumbers(columns[k][i], columns[k &+ 1][i], columns[k &+ 2][i], columns[k &+ 3][i])
              k &+= 4
            }
            while k < columns.count { row.byte(44); row.number(columns[k][i]); k &+= 1 }
            if let stages { row.byte(44); row.text(stages[i].rawValue) }
            row.byte(10)
          }
        }
      }
    }
  }

  /// The most bytes the `cycle` column adds to a row, its comma included; 0 without stages.
  static func stageColumnLength(_ stages: ContiguousArray<CycleStage>?) -> Int {
    stages == nil ? 0 : 1 + CycleStage.allCases.map(\.rawValue.utf8.count).max()!
  }

  static func metrics(_ s: PerformanceSummary) -> [(String, JSONValue)] {
    s.fields.map { key, value in
      guard let value else { return (key, .null) }
      return (key, PerformanceSummary.integerKeys.contains(key) ? .integer(Int(value)) : .optional(value))
    }
  }

  package static func summaryJSON(_ output: RunOutput) -> JSONValue {
    let c = output.config
    let bars = output.bars
    var byReason: [(String, JSONValue)] = []
    for reason in ExitReason.allCases {
      let n = output.run.result.trades.filter { $0.exitReason == reason }.count
      // The trailing-stop and time exits are listed when some trade had them (fields are only added).
      if n == 0 && (reason == .trailingStop || reason == .time) { continue }
      byReason.append((reason.rawValue, .integer(n)))
    }
    let r = output.run.result
    // Order counts and borrow fees are listed when some order or short had them (fields are only added).
    let orders: [(String, JSONValue)] = r.fills.expiredOrders == 0 && r.fills.unpricedOrders == 0 && r.carry.borrowFees == 0 && !r.trades.contains { $0.side == .short }
      ? [] : [("expired_orders", .integer(r.fills.expiredOrders)), ("unpriced_orders", .integer(r.fills.unpricedOrders)), ("borrow_fees", .number(r.carry.borrowFees))]
    let run: [(String, JSONValue)] = [
      ("name", .string(c.name)), ("strategy", .string(c.strategy.name)),
      ("parameters", .object(c.strategy.parameterSummary.map { ($0.name, .string($0.value)) })),
      ("data", .string(c.data.bars)), ("price", .string(c.data.adjustedPrices ? "adjusted" : "close")), ("first_bar", .string(bars.timeLabel(0))),
      ("last_bar", .string(bars.timeLabel(bars.count - 1))), ("bars_in_file", .integer(output.barsInFile)),
      ("initial_cash", .number(c.broker.initialCash)),
      // The settings that change figures without changing the rule: `backtest compare` names those that differ.
      ("sizing", .string(MarkdownReport.describe(c.broker.sizing))), ("commission", .string(MarkdownReport.describe(c.broker.commission))),
      ("slippage_bps", .number(c.broker.slippageBasisPoints)),
      ("timezone", .string(c.data.timeZone.identifier)), ("session", .string("\(c.data.session)")),
      ("resample", c.data.resample.map { .string("\($0)") } ?? .null), ("dividends", c.data.dividends.map { .string($0) } ?? .null),
      ("expense_ratio", .number(c.expenseRatio)), ("borrow_rate", .number(c.broker.borrowRate)),
      ("skipped_entries", .integer(output.run.result.fills.skippedEntries)),
    ] + orders + [
      ("intrabar_rule", .string(c.broker.intrabarRule.rawValue)),
      ("ambiguous_trades", .integer(output.run.result.trades.filter(\.ambiguous).count)),
      ("resolved_from_intrabar", .integer(output.run.result.fills.resolvedBars)),
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
    fields.append(("run", .object(run + [("manifest", output.manifest.json)])))
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
