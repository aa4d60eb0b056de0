import BacktestCore
import Foundation

/// The report files of a portfolio run: `equity.csv`, `orders.csv`,
/// `assets.csv`, `cashflow.csv` (with a ledger), `summary.json`, `report.md`
/// with its SVG charts, and `report.html`. Only formats text.
public enum PortfolioReport {
  package static func files(_ output: PortfolioOutput) -> [ReportFile] {
    var files: [ReportFile] = []
    let formats = output.config.report.formats
    if formats.contains(.csv) {
      files.append(ReportFile(name: "equity.csv", contents: equityCSV(output)))
      files.append(ReportFile(name: "orders.csv", contents: ordersCSV(output)))
      files.append(ReportFile(name: "assets.csv", contents: assetsCSV(output)))
      if let ledger = output.ledger { files.append(ReportFile(name: "cashflow.csv", contents: cashflowCSV(ledger))) }
      files.append(ReportFile(name: "targets.csv", contents: targetsCSV(output.result, symbols: output.assets.map(\.symbol))))
      if output.config.strategy.decides { files.append(ReportFile(name: "rotation.csv", contents: rotationCSV(output))) }
    }
    if formats.contains(.json) { files.append(ReportFile(name: "summary.json", contents: summaryJSON(output).rendered() + "\n")) }
    if formats.contains(.markdown) {
      let charts = self.charts(output)
      files.append(ReportFile(name: "report.md", contents: markdown(output)))
      files.append(ReportFile(name: "equity.svg", contents: charts.equity() + "\n"))
      files.append(ReportFile(name: "monthly.svg", contents: charts.monthly() + "\n"))
      if output.config.strategy.decides { files.append(ReportFile(name: "holdings.svg", contents: holdingsChart(output, charts) + "\n")) }
    }
    if formats.contains(.html) { files.append(ReportFile(name: "report.html", contents: html(output))) }
    return files
  }

  /// Equity charts: the growth of the initial cash at the time-weighted return
  /// (drawdowns and monthly returns from it), beside the account's value when
  /// money came and went, else beside the same portfolio left unrebalanced.
  package static func charts(_ output: PortfolioOutput) -> RunCharts {
    let r = output.result
    let hasFlows = r.flow.dropFirst().contains { $0 != 0 }
    let index = r.timeWeightedIndex
    let initial = output.config.settings.initialCash
    let growth = ContiguousArray(index.map { $0 * initial })
    if hasFlows {
      return RunCharts(timeline: r.timeline, equity: growth, comparison: r.equity,
                       names: ("growth of the initial cash (TWR)", "account value (with deposits)"), initialCash: initial)
    }
    return RunCharts(timeline: r.timeline, equity: growth, comparison: output.withoutRebalancingGrowth,
                     names: output.config.strategy.decides ? (output.config.strategy.name, "equal weights, held") : ("portfolio", "not rebalanced"),
                     initialCash: initial)
  }

  package static func equityCSV(_ output: PortfolioOutput) -> String {
    let r = output.result, bars = r.timeline
    let index = r.timeWeightedIndex
    let dd = drawdowns(index)
    var out = TextBuffer(capacity: bars.count * (90 + 40 * output.assets.count))
    out.append("time,equity,cash,flow,dividends,drawdown,twr_index")
    for a in output.assets { out.append(",shares_" + a.symbol + ",value_" + a.symbol) }
    out.append(byte: 10)
    for i in bars.indices {
      bars.appendLabel(i, to: &out)
      for v in [r.equity[i], r.cash[i], r.flow[i], r.dividends[i], dd[i], index[i]] { out.append(byte: 44); out.append(v) }
      for a in output.assets.indices {
        let shares = r.shares[a][i]
        out.append(byte: 44); out.append(count: shares)
        out.append(byte: 44); out.append(shares == 0 ? 0 : shares * r.prices[a][i])
      }
      out.append(byte: 10)
    }
    return out.string
  }

  package static func ordersCSV(_ output: PortfolioOutput) -> String {
    let r = output.result
    var out = "time,symbol,side,shares,price,value,fee,reason\n"
    for f in r.fills {
      out += r.timeline.timeLabel(f.bar) + "," + csvField(output.assets[f.asset].symbol) + "," + (f.shares > 0 ? "BUY" : "SELL") + ","
        + formatNumber(abs(f.shares)) + "," + f.price.description + "," + (abs(f.shares) * f.price).description + ","
        + formatNumber(f.fee) + "," + f.reason.rawValue + "\n"
    }
    return out
  }

  package static let assetColumns = "symbol,target_weight,shares,price,value,allocation,bought,sold,dividends,dividends_pending,fees,expense_drag,pnl,return,contribution,initial_investment,cost_basis,frequency,trailing_yield,yield_on_cost,forward_annual_dividend,next_ex_date_estimate"

  package static func assetsCSV(_ output: PortfolioOutput) -> String {
    var out = assetColumns + "\n"
    for a in output.summary.assets {
      let t = a.totals, p = a.dividendProfile
      let cells: [String] = [
        csvField(a.symbol), a.targetWeight.description, formatNumber(a.shares), formatCell(a.price), a.value.description, a.allocation.description,
        t.bought.description, t.sold.description, t.dividends.description, t.dividendsPending.description, t.fees.description,
        t.expenseDrag.description, a.pnl.description, a.returnOnInvested.map(\.description) ?? "", a.contribution.description,
        t.initialInvestment.description, t.costBasis.description, p.frequency.rawValue, a.trailingYield.map(\.description) ?? "",
        a.yieldOnCost.map(\.description) ?? "", p.forwardAnnual.map { ($0 * a.shares).description } ?? "",
        p.nextExDayEstimate.map { CivilDate.isoDate(days: $0) } ?? "",
      ]
      out += cells.joined(separator: ",") + "\n"
    }
    return out
  }

  package static func cashflowCSV(_ ledger: CashFlowLedger) -> String {
    var out = "month,income,expenses,net\n"
    for m in ledger.monthly {
      out += String(CivilDate.isoDate(days: m.month).prefix(7)) + "," + m.income.description + "," + m.expenses.description + "," + m.net.description + "\n"
    }
    return out
  }

  /// `targets.csv`: the target weights of every decision, one row per asset (`time,symbol,weight`): the weights held
  /// from the start at the first bar traded (fixed weights), then each decision at the close it was made at.
  public static func targetsCSV(_ r: PortfolioResult, symbols: [String]) -> String {
    var out = TextBuffer(capacity: 40 * (r.decisions.count + 1) * max(1, symbols.count) + 32)
    out.append("time,symbol,weight\n")
    func rows(_ bar: Int, _ weights: [Double]) {
      for (a, symbol) in symbols.enumerated() {
        out.append(r.timeline.timeLabel(bar - r.firstBar) + "," + csvField(symbol) + ",")
        out.append(weights[a])
        out.append(byte: 10)
      }
    }
    if !r.initialWeights.isEmpty { rows(r.firstBar, r.initialWeights) }
    for d in r.decisions { rows(d.bar, d.weights) }
    return out.string
  }

  /// `rotation.csv`: each ranking of a rotation, one row per asset: its score (empty without one), its rank
  /// (1 for the best; empty unranked) and the weight it was given.
  package static func rotationCSV(_ output: PortfolioOutput) -> String {
    let r = output.result
    var out = TextBuffer(capacity: 64 * r.decisions.count * max(1, output.assets.count) + 64)
    out.append("time,symbol,score,rank,target_weight\n")
    for d in r.decisions {
      for (a, asset) in output.assets.enumerated() {
        r.timeline.appendLabel(d.bar, to: &out)
        out.append("," + csvField(asset.symbol) + ",")
        if !d.scores[a].isNaN { out.append(d.scores[a]) }
        out.append(byte: 44)
        if d.ranks[a] >= 0 { out.append(count: Double(d.ranks[a] + 1)) }
        out.append(byte: 44)
        out.append(d.weights[a])
        out.append(byte: 10)
      }
    }
    return out.string
  }

  /// The holdings chart: each asset's value over the equity at each close.
  static func holdingsChart(_ output: PortfolioOutput, _ charts: RunCharts) -> String {
    let r = output.result
    let values = output.assets.indices.map { a in ContiguousArray(zip(r.shares[a], r.prices[a]).map { $0.0 == 0 ? 0 : $0.0 * $0.1 }) }
    return charts.holdings(symbols: output.assets.map(\.symbol), values: values, equity: r.equity)
  }

  /// One line for the strategy: the weights and rebalance rule, or the rotation's rule over its universe.
  package static func strategyText(_ output: PortfolioOutput) -> String {
    let c = output.config
    guard c.strategy.decides else { return "\(weightsText(output)), rebalance \(c.settings.rebalance)" }
    let symbols = output.assets.map(\.symbol).joined(separator: ", ")
    guard let rotation = c.rotation else {
      return "\(c.strategy.name) over \(symbols): " + c.strategy.parameterSummary.map { "\($0.name) \($0.value)" }.joined(separator: ", ")
    }
    let (score, rule) = (rotation.score, rotation.rule)
    return "rotation over \(symbols): the top \(rule.top) by \(score.text), "
      + "\(rule.period), \(rule.weighting == .equal ? "equal weights" : "weighted by score")"
  }

  /// What the comparison run is: the same weights left to drift, or (for a rotation) the universe at equal weights, held.
  package static func comparisonName(_ output: PortfolioOutput) -> String {
    output.config.strategy.decides ? "Equal weights, held" : "Without rebalancing"
  }

  static func longestDrawdown(_ p: PerformanceSummary) -> String {
    MarkdownReport.duration(Double(p.longestDrawdownBars), p.longestDrawdownDays.map(Double.init))
  }

  package static func summaryJSON(_ output: PortfolioOutput) -> JSONValue {
    let s = output.summary, p = s.performance, c = output.config, r = output.result
    let fields: [(String, JSONValue)] = [
      ("final_equity", .number(s.finalEquity)), ("deposited", .number(s.deposited)), ("withdrawn", .number(s.withdrawn)),
      ("total_pnl", .number(s.totalPnl)), ("twr", .number(s.twr)), ("xirr", .optional(s.xirr)),
      ("total_return", .number(p.totalReturn)), ("cagr", .optional(p.cagr)), ("max_drawdown", .number(p.maxDrawdown)),
      ("longest_drawdown_bars", .integer(p.longestDrawdownBars)), ("sharpe", .optional(p.sharpe)), ("sortino", .optional(p.sortino)),
      ("volatility", .optional(p.volatility)), ("calmar", .optional(p.calmar)), ("avg_drawdown_bars", .optional(p.averageDrawdownBars)),
      ("longest_drawdown_days", p.longestDrawdownDays.map { .integer($0) } ?? .null), ("avg_drawdown_days", .optional(p.averageDrawdownDays)),
      ("exposure", .number(p.exposure)), ("dividend_income", .number(s.dividendIncome)), ("dividends_pending", .number(s.dividendsPending)),
      ("fees", .number(s.fees)), ("commissions", .number(s.commissions)), ("expense_drag", .number(s.expenseDrag)),
      ("trailing_yield", .optional(s.trailingYield)), ("yield_on_cost", .optional(s.yieldOnCost)),
      ("forward_annual_dividend", .number(s.forwardAnnualDividend)), ("weighted_return", .optional(s.weightedReturn)),
      ("rebalances", .integer(s.rebalances)), ("fills", .integer(s.fills)), ("unpaid_withdrawals", .number(r.unpaidWithdrawals)),
      ("bars", .integer(p.bars)), ("days", .integer(p.days)),
    ]
    let assets: [JSONValue] = s.assets.map { a in
      let d = a.dividendProfile
      return .object([
        ("symbol", .string(a.symbol)), ("target_weight", .number(a.targetWeight)), ("shares", .number(a.shares)),
        ("value", .number(a.value)), ("allocation", .number(a.allocation)), ("pnl", .number(a.pnl)),
        ("return", .optional(a.returnOnInvested)), ("contribution", .number(a.contribution)),
        ("dividend_income", .number(a.totals.dividends)), ("fees", .number(a.totals.fees + a.totals.expenseDrag)),
        ("dividends", dividendJSON(d, shares: a.shares, trailingYield: a.trailingYield, yieldOnCost: a.yieldOnCost)),
      ])
    }
    let run: [(String, JSONValue)] = [
      ("name", .string(c.name)), ("strategy", .string(c.strategy.name)),
      ("rebalance", .string((c.rotation?.rule.period ?? c.settings.rebalance).description)),
      ("drip", .bool(c.settings.drip)), ("fractional_shares", .bool(c.settings.fractionalShares)),
      ("contributions", .string(describe(c.contributions))), ("initial_cash", .number(c.settings.initialCash)),
      ("commission", .string(MarkdownReport.describe(c.settings.commission))), ("slippage_bps", .number(c.settings.slippageBasisPoints)),
      ("first_bar", .string(r.timeline.timeLabel(0))), ("last_bar", .string(r.timeline.timeLabel(r.timeline.count - 1))),
    ]
    var all = fields + [("assets", .array(assets))]
    let lastTargets: JSONValue = .array(r.decisions.last.map { d in
      output.assets.indices.filter { d.weights[$0] > 0 }.map { .string(output.assets[$0].symbol) } } ?? [])
    if let rotation = c.rotation {
      let (score, rule) = (rotation.score, rotation.rule)
      all.append(("rotation", .object([
        ("score", .string(score.text)), ("params", .object(score.params.map { ($0.name, .number($0.value)) })),
        ("top", .integer(rule.top)), ("rebalance", .string(rule.period.description)), ("weighting", .string(rule.weighting.rawValue)),
        ("decisions", .integer(r.decisions.count)), ("turnover", .optional(s.turnover)), ("last_targets", lastTargets),
      ])))
    } else if c.strategy.decides {
      all.append(("allocation", .object([
        ("parameters", .object(c.strategy.parameterSummary.map { ($0.name, .string($0.value)) })),
        ("decisions", .integer(r.decisions.count)), ("turnover", .optional(s.turnover)), ("last_targets", lastTargets),
      ])))
    }
    if let b = output.withoutRebalancing {
      all.append((c.strategy.decides ? "equal_weight_held" : "without_rebalancing", .object([
        ("final_equity", .number(b.finalEquity)), ("twr", .number(b.twr)), ("xirr", .optional(b.xirr)),
        ("cagr", .optional(b.performance.cagr)), ("max_drawdown", .number(b.performance.maxDrawdown)),
        ("sharpe", .optional(b.performance.sharpe)), ("fees", .number(b.fees)),
      ])))
    }
    if let ledger = output.ledger {
      all.append(("cash_flows", .object([
        ("income", .number(ledger.entries.reduce(0) { $0 + max(0, $1.amount) })),
        ("expenses", .number(ledger.entries.reduce(0) { $0 + min(0, $1.amount) })),
        ("by_category", .object(ledger.byCategory.map { ($0.category, .number($0.net)) })),
      ])))
    }
    all.append(("run", .object(run + [("manifest", output.manifest.json)])))
    return .object(all)
  }

  /// The dividend figures of one holding; the estimates say so in their names.
  static func dividendJSON(_ d: DividendProfile, shares: Double, trailingYield: Double?, yieldOnCost: Double?) -> JSONValue {
    .object([
      ("frequency", .string(d.frequency.rawValue)), ("last_ex_date", d.last.map { .string(CivilDate.isoDate(days: $0.exDay)) } ?? .null),
      ("last_amount", .optional(d.last?.amount)), ("trailing_12m_per_share", .number(d.trailingTwelveMonths)),
      ("trailing_yield", .optional(trailingYield)), ("yield_on_cost", .optional(yieldOnCost)),
      ("forward_annual_per_share_estimate", .optional(d.forwardAnnual)),
      ("forward_annual_dividend_estimate", .optional(d.forwardAnnual.map { $0 * shares })),
      ("next_ex_date_estimate", d.nextExDayEstimate.map { .string(CivilDate.isoDate(days: $0)) } ?? .null),
    ])
  }

  static func describe(_ plan: ContributionPlan) -> String {
    switch plan {
    case .none: "none"
    case .ledger: "each month's ledger net, at the first bar of the next month"
    case .monthly(let amount, let day): "\(HumanFormat.money(amount)) on day \(day) of each month"
    }
  }

  static func weightsText(_ output: PortfolioOutput) -> String {
    output.assets.map { "\($0.symbol) \(formatPercentPlain($0.weight))" }.joined(separator: ", ")
  }

  package static func markdown(_ output: PortfolioOutput) -> String {
    let c = output.config, s = output.summary, p = s.performance, r = output.result, bars = r.timeline
    var md = "# Portfolio: \(c.name)\n\n"
    if let d = c.description { md += "> \(d)\n\n" }
    md += "## Run\n\n| | |\n|---|---|\n"
    md += c.strategy.decides ? "| Strategy | \(strategyText(output)) |\n" : "| Assets | \(weightsText(output)) |\n"
    for a in c.assets { md += "| \(a.symbol) | `\(a.bars)`\(a.dividends.map { ", dividends `\($0)`" } ?? "")\(a.expenseRatio > 0 ? ", expense ratio \(formatPercentPlain(a.expenseRatio))" : "") |\n" }
    md += "| Bars | \(HumanFormat.integer(bars.count)) (\(bars.timeLabel(0)) → \(bars.timeLabel(bars.count - 1))) |\n"
    md += c.rotation.map { "| Rebalance | \($0.rule.period): ranked at the close of each period's first bar, traded at the next open (sales first) |\n" }
      ?? (c.strategy.decides ? "| Rebalance | when \(c.strategy.name) sets new targets at a close, traded at the next open (sales first) |\n"
        : "| Rebalance | \(c.settings.rebalance) |\n")
    md += "| Dividends | \(c.settings.drip ? "reinvested (DRIP) at the first bar on or after the pay date" : "paid to cash") |\n"
    md += "| Shares | \(c.settings.fractionalShares ? "fractional (to a millionth)" : "whole") |\n"
    md += "| Initial cash | \(HumanFormat.money(c.settings.initialCash)) |\n"
    md += "| Contributions | \(describe(c.contributions)) |\n"
    md += "| Commission | \(MarkdownReport.describe(c.settings.commission)) |\n"
    md += "| Slippage | \(formatPlain(c.settings.slippageBasisPoints)) bps |\n\n"
    md += "## Charts\n\n![Equity and drawdown](equity.svg)\n\n![Monthly returns](monthly.svg)\n\n"
    if c.strategy.decides { md += "![Holdings](holdings.svg)\n\n" }

    let b = output.withoutRebalancing
    md += b == nil ? "## Performance\n\n| Metric | Value |\n|---|---:|\n" : "## Performance\n\n| Metric | Value | \(comparisonName(output)) |\n|---|---:|---:|\n"
    var rows: [(String, String, String?)] = []
    // Each row: the metric, this run's value, and the comparison's (split into calls: one array literal of them took
    // seconds to type-check).
    func row(_ name: String, _ value: String, _ other: ((PortfolioSummary) -> String)? = nil) { rows.append((name, value, other.flatMap { b.map($0) })) }
    row("Final equity", HumanFormat.money(s.finalEquity)) { HumanFormat.money($0.finalEquity) }
    row("Deposited (initial cash and deposits)", HumanFormat.money(s.deposited))
    row("Withdrawn", HumanFormat.money(s.withdrawn))
    row("Total P&L", HumanFormat.money(s.totalPnl)) { HumanFormat.money($0.totalPnl) }
    row("Time-weighted return (TWR)", HumanFormat.percent(s.twr)) { HumanFormat.percent($0.twr) }
    row("Money-weighted return (XIRR, a year)", HumanFormat.percent(s.xirr)) { HumanFormat.percent($0.xirr) }
    row("CAGR (of the TWR)", HumanFormat.percent(p.cagr)) { HumanFormat.percent($0.performance.cagr) }
    row("Max drawdown", HumanFormat.percent(p.maxDrawdown)) { HumanFormat.percent($0.performance.maxDrawdown) }
    row("Sharpe", HumanFormat.ratio(p.sharpe)) { HumanFormat.ratio($0.performance.sharpe) }
    row("Sortino", HumanFormat.ratio(p.sortino)) { HumanFormat.ratio($0.performance.sortino) }
    row("Volatility (a year)", HumanFormat.percent(p.volatility)) { HumanFormat.percent($0.performance.volatility) }
    row("Calmar", HumanFormat.ratio(p.calmar)) { HumanFormat.ratio($0.performance.calmar) }
    row("Longest drawdown", longestDrawdown(p)) { longestDrawdown($0.performance) }
    row("Dividend income", HumanFormat.money(s.dividendIncome)) { HumanFormat.money($0.dividendIncome) }
    row("Fees (commissions and expense drag)", HumanFormat.money(s.fees)) { HumanFormat.money($0.fees) }
    row("Commissions", HumanFormat.money(s.commissions))
    row("Expense-ratio drag", HumanFormat.money(s.expenseDrag))
    row("Weighted return by initial investment", HumanFormat.percent(s.weightedReturn))
    row("Rebalances", HumanFormat.integer(s.rebalances))
    row("Fills", HumanFormat.integer(s.fills)) { HumanFormat.integer($0.fills) }
    if c.strategy.decides { row("Turnover (a year)", HumanFormat.percent(s.turnover)) }
    for (name, value, other) in rows { md += "| \(name) | \(value) |" + (b == nil ? "\n" : " \(other ?? "") |\n") }
    md += "\nWith cash flows a plain total return counts deposits as gains: the TWR chains sub-periods split where each flow is invested "
    md += "(at its bar's open, the account valued at the fill prices), so a deposit earns its bar's move as new money; "
    md += "the XIRR is the annual rate that zeroes the deposits, withdrawals and final equity (actual/365). "
    md += "Drawdowns, Sharpe, Sortino, volatility and Calmar are those of the TWR."
    md += b == nil ? "\n\n" : !c.strategy.decides ? " Without rebalancing: the same assets, flows and dividends, bought at the initial weights and left to drift.\n\n"
      : " Equal weights, held: every asset of the universe bought at the first full bar at equal weights, with the same flows and dividends, never traded again."
        + " Turnover: the lesser of the rebalance purchases and sales over the mean equity, a year.\n\n"
    if output.assets.contains(where: { $0.expenseRatio > 0 }) { md += ExpenseRatioNote.explanation + "\n\n" }

    md += "## Assets\n\n| Asset | Target | Allocation | Shares | Value | Invested | Dividends | Fees | P&L | Return | Contribution |\n"
    md += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    for a in s.assets {
      md += "| \(a.symbol) | \(HumanFormat.percent(a.targetWeight)) | \(HumanFormat.percent(a.allocation)) | \(formatPlain(a.shares)) | "
      md += "\(HumanFormat.money(a.value)) | \(HumanFormat.money(a.totals.bought)) | \(HumanFormat.money(a.totals.dividends)) | "
      md += "\(HumanFormat.money(a.totals.fees + a.totals.expenseDrag)) | \(HumanFormat.money(a.pnl)) | \(HumanFormat.percent(a.returnOnInvested)) | "
      md += "\(HumanFormat.percent(a.contribution)) |\n"
    }
    md += "| Cash | | \(HumanFormat.percent(s.finalEquity > 0 ? r.cash[r.cash.count - 1] / s.finalEquity : nil)) | | \(HumanFormat.money(r.cash[r.cash.count - 1])) | | | | | | |\n\n"
    md += "Return is P&L over the money put into the asset; contribution is P&L over all the money deposited.\n\n"

    if output.assets.contains(where: { !$0.dividends.isEmpty }) {
      md += "## Dividends\n\n| Asset | Frequency | Last ex-date | Last amount | Trailing 12 m | Trailing yield | Yield on cost | Forward annual (estimate) | Next ex-date (estimate) |\n"
      md += "|---|---|---|---:|---:|---:|---:|---:|---|\n"
      for a in s.assets {
        let d = a.dividendProfile
        md += "| \(a.symbol) | \(d.frequency.rawValue) | \(d.last.map { CivilDate.isoDate(days: $0.exDay) } ?? "—") | "
        md += "\(d.last.map { formatPlain($0.amount) } ?? "—") | \(formatPlain(d.trailingTwelveMonths)) | \(HumanFormat.percent(a.trailingYield)) | "
        md += "\(HumanFormat.percent(a.yieldOnCost)) | \(d.forwardAnnual.map { HumanFormat.money($0 * a.shares) } ?? "—") | "
        md += "\(d.nextExDayEstimate.map { CivilDate.isoDate(days: $0) } ?? "—") |\n"
      }
      md += "\nPortfolio: trailing yield \(HumanFormat.percent(s.trailingYield)), yield on cost \(HumanFormat.percent(s.yieldOnCost)), "
      md += "forward annual dividend \(HumanFormat.money(s.forwardAnnualDividend)) (an estimate: the last amount × payments a year × shares held). "
      if s.dividendsPending > 0 { md += "\(HumanFormat.money(s.dividendsPending)) earned but paid after the last bar is not in the equity. " }
      md += "The frequency comes from the spacing of the ex-dates; the next ex-date adds that period to the last one.\n\n"
    }

    if c.strategy.decides { md += rotationMarkdown(output) }

    if let ledger = output.ledger {
      md += "## Cash flows\n\n| Month | Income | Expenses | Net |\n|---|---:|---:|---:|\n"
      for m in ledger.monthly {
        md += "| \(CivilDate.isoDate(days: m.month).prefix(7)) | \(HumanFormat.money(m.income)) | \(HumanFormat.money(m.expenses)) | \(HumanFormat.money(m.net)) |\n"
      }
      md += "\n| Category | Entries | Income | Expenses | Net |\n|---|---:|---:|---:|---:|\n"
      for k in ledger.byCategory {
        md += "| \(k.category) | \(k.entries) | \(HumanFormat.money(k.income)) | \(HumanFormat.money(k.expenses)) | \(HumanFormat.money(k.net)) |\n"
      }
      md += "\n"
    }

    md += "## Orders\n\n| # | Time | Asset | Side | Shares | Price | Value | Fee | Reason |\n|---:|---|---|---|---:|---:|---:|---:|---|\n"
    for (k, f) in r.fills.prefix(MarkdownReport.tradeListLimit).enumerated() {
      md += "| \(k + 1) | \(bars.timeLabel(f.bar)) | \(output.assets[f.asset].symbol) | \(f.shares > 0 ? "BUY" : "SELL") | \(formatPlain(abs(f.shares))) | "
      md += "\(HumanFormat.price(f.price)) | \(HumanFormat.money(abs(f.shares) * f.price)) | \(HumanFormat.money(f.fee)) | \(f.reason.rawValue) |\n"
    }
    if r.fills.count > MarkdownReport.tradeListLimit { md += "\nThe first \(MarkdownReport.tradeListLimit) of \(r.fills.count) fills; all are in orders.csv.\n" }
    return md
  }

  /// The rotation's rankings: when each was decided, what it chose (with scores) and what it sold.
  static func rotationRows(_ output: PortfolioOutput) -> [(decided: String, chosen: String, sold: String)] {
    let r = output.result, symbols = output.assets.map(\.symbol)
    var previous = [Double](repeating: 0, count: symbols.count)
    return r.decisions.map { d in
      let chosen = d.ranks.indices.filter { d.weights[$0] > 0 }.sorted { d.ranks[$0] < d.ranks[$1] }
        .map { "\(symbols[$0]) \(formatPlain(abs(d.scores[$0]) < 1e15 ? (d.scores[$0] * 10_000).rounded() / 10_000 : d.scores[$0])) (\(formatPercentPlain(d.weights[$0])))" }
      let sold = symbols.indices.filter { previous[$0] > 0 && d.weights[$0] == 0 }.map { symbols[$0] }
      previous = d.weights
      return (r.timeline.timeLabel(d.bar), chosen.isEmpty ? "— (" + noTargetReason(output, d) + ")" : chosen.joined(separator: ", "),
              sold.joined(separator: ", "))
    }
  }

  /// Why a ranking chose nothing: no asset had a score, or (weighting by score) none a positive one.
  package static func noTargetReason(_ output: PortfolioOutput, _ d: AllocationDecision) -> String {
    d.scores.contains { !$0.isNaN } ? "no asset with a positive score: all cash" : "no asset had a score: all cash"
  }

  static func rotationMarkdown(_ output: PortfolioOutput) -> String {
    let rows = rotationRows(output), s = output.summary
    var md = "## \(output.config.rotation == nil ? "Decisions" : "Rotation")\n\n\(rows.count) ranking(s); turnover \(HumanFormat.percent(s.turnover)) a year. Each asset's score, rank and "
    md += "target weight at every ranking are in rotation.csv; its shares and value at every close in equity.csv.\n\n"
    md += "| Ranked at the close of | Targets (score, weight), traded at the next full open | Dropped |\n|---|---|---|\n"
    for row in rows.prefix(MarkdownReport.tradeListLimit) { md += "| \(row.decided) | \(row.chosen) | \(row.sold) |\n" }
    if rows.count > MarkdownReport.tradeListLimit { md += "\nThe first \(MarkdownReport.tradeListLimit) of \(rows.count) rankings; all are in rotation.csv.\n" }
    return md + "\n"
  }

  package static func html(_ output: PortfolioOutput) -> String {
    let c = output.config, s = output.summary, p = s.performance, bars = output.result.timeline
    let charts = self.charts(output)
    func e(_ x: String) -> String { SVGBuilder.escape(x) }
    var h = HTMLReport.opening("Portfolio: \(c.name)")
    h += "<p class=\"note\">\(e(strategyText(output))), "
    h += "\(HumanFormat.integer(bars.count)) bars, \(e(bars.timeLabel(0))) → \(e(bars.timeLabel(bars.count - 1)))</p>\n"
    h += HTMLReport.description(c.description)
    let tiles: [(String, String, String)] = [
      ("Final equity", HumanFormat.money(s.finalEquity), "deposited " + HumanFormat.money(s.deposited)),
      ("TWR", HumanFormat.percent(s.twr), "CAGR " + HumanFormat.percent(p.cagr)
        + (output.withoutRebalancing.map { (c.strategy.decides ? "; equal weights held " : "; not rebalanced ") + HumanFormat.percent($0.twr) } ?? "")),
      ("XIRR", HumanFormat.percent(s.xirr), "money-weighted, a year"),
      ("Max drawdown", HumanFormat.percent(p.maxDrawdown), "Sharpe " + HumanFormat.ratio(p.sharpe)),
      ("Dividends", HumanFormat.money(s.dividendIncome), "yield on cost " + HumanFormat.percent(s.yieldOnCost)),
      ("Fees", HumanFormat.money(s.fees), "expense drag " + HumanFormat.money(s.expenseDrag)),
    ]
    h += HTMLReport.tiles(tiles)
    InteractiveChart.portfolio(output).appendHTML(to: &h, id: "portfolio-chart", fallback: charts.equity())
    h += "<div class=\"card\">\(charts.monthlyTable())</div>\n"
    h += charts.riskHTML()
    if c.strategy.decides { h += "<div class=\"card ic-wide\">\(holdingsChart(output, charts))</div>\n" }
    h += "<div class=\"card\"><h2>Assets</h2><table><tr><th>Asset</th><th>Target</th><th>Allocation</th><th>Value</th><th>Dividends</th><th>Fees</th><th>P&amp;L</th><th>Return</th><th>Contribution</th></tr>"
    for a in s.assets {
      h += "<tr><td>\(e(a.symbol))</td><td>\(HumanFormat.percent(a.targetWeight))</td><td>\(HumanFormat.percent(a.allocation))</td>"
      h += "<td>\(HumanFormat.money(a.value))</td><td>\(HumanFormat.money(a.totals.dividends))</td><td>\(HumanFormat.money(a.totals.fees + a.totals.expenseDrag))</td>"
      h += "<td>\(HumanFormat.money(a.pnl))</td><td>\(HumanFormat.percent(a.returnOnInvested))</td><td>\(HumanFormat.percent(a.contribution))</td></tr>"
    }
    h += "</table></div>\n"
    if c.strategy.decides {
      h += "<div class=\"card\"><h2>\(c.rotation == nil ? "Decisions" : "Rotation")</h2><p class=\"note\">Turnover \(HumanFormat.percent(s.turnover)) a year; every ranking is in rotation.csv.</p>"
      h += "<table><tr><th>Ranked at the close of</th><th>Targets (score, weight), traded at the next full open</th><th>Dropped</th></tr>"
      for row in rotationRows(output) { h += "<tr><td>\(e(row.decided))</td><td>\(e(row.chosen))</td><td>\(e(row.sold))</td></tr>" }
      h += "</table></div>\n"
    }
    if let ledger = output.ledger {
      h += "<div class=\"card\"><h2>Cash flows</h2><table><tr><th>Month</th><th>Income</th><th>Expenses</th><th>Net</th></tr>"
      for m in ledger.monthly {
        h += "<tr><td>\(CivilDate.isoDate(days: m.month).prefix(7))</td><td>\(HumanFormat.money(m.income))</td><td>\(HumanFormat.money(m.expenses))</td><td>\(HumanFormat.money(m.net))</td></tr>"
      }
      h += "</table><table><tr><th>Category</th><th>Entries</th><th>Net</th></tr>"
      for k in ledger.byCategory { h += "<tr><td>\(e(k.category))</td><td>\(k.entries)</td><td>\(HumanFormat.money(k.net))</td></tr>" }
      h += "</table></div>\n"
    }
    h += "<p class=\"note\">TWR chains each bar's (equity − flow) / previous equity; XIRR zeroes the dated flows and the final equity (actual/365). "
    h += "Every figure is in summary.json; every fill in orders.csv.</p>\n" + HTMLReport.closing
    return h
  }
}
