import BacktestCore
import Foundation

/// The human-readable `report.md`: run settings, metrics against buy and
/// hold, the exit-reason breakdown and the trade list.
package enum MarkdownReport {
  /// Trades listed in full up to this many; the rest are in `trades.csv`.
  package static let tradeListLimit = 500

  /// The text under `## title` of a report, up to the next `## ` heading; `nil` without that section.
  static func section(_ title: String, of markdown: String) -> Substring? {
    // A search of the UTF-8 bytes: the String searches compare Characters.
    var text = markdown
    let range: Range<Int>? = text.withUTF8 { t in
      guard let heading = firstOffset(of: "\n## \(title)\n", in: t, from: 0) else { return nil }
      let start = heading + 5 + title.utf8.count
      return start..<(firstOffset(of: "\n## ", in: t, from: start) ?? t.count)
    }
    guard let range else { return nil }
    let utf8 = markdown.utf8
    return markdown[utf8.index(utf8.startIndex, offsetBy: range.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)]
  }

  /// Where `pattern`'s UTF-8 bytes first occur in `bytes` at or after `start`.
  private static func firstOffset(of pattern: String, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    var pattern = pattern
    return pattern.withUTF8 { p in
      guard let first = p.first, bytes.count >= p.count else { return nil }
      var i = start
      while i <= bytes.count - p.count {
        if bytes[i] == first && memcmp(bytes.baseAddress! + i, p.baseAddress!, p.count) == 0 { return i }
        i += 1
      }
      return nil
    }
  }

  package static func render(_ output: RunOutput) -> String {
    let c = output.config
    let bars = output.bars
    let s = output.summary
    let b = output.benchmarkSummary
    let trades = output.run.result.trades
    var md = "# Backtest: \(c.name)\n\n"
    if let description = c.data.description { md += "> \(description)\n\n" }

    md += "## Run\n\n| | |\n|---|---|\n"
    md += "| Strategy | `\(c.strategy.name)` |\n"
    for p in c.strategy.parameterSummary { md += "| \(p.name) | \(p.value) |\n" }
    md += "| Data | `\(c.data.bars)` |\n"
    md += "| Bars | \(HumanFormat.integer(bars.count)) (\(bars.timeLabel(0)) → \(bars.timeLabel(bars.count - 1))) |\n"
    if output.barsInFile != bars.count || c.data.resample != nil {
      md += "| Bars in file | \(HumanFormat.integer(output.barsInFile)) (session \(c.data.session)"
      md += c.data.resample.map { ", resampled to \($0)" } ?? ""
      md += ") |\n"
    }
    md += "| Prices | \(c.data.adjustedPrices ? "adjusted (data.price: adjusted: each bar scaled by Adj Close / Close)" : "as traded (data.price: close)") |\n"
    md += "| Time zone | \(c.data.timeZone.identifier), session \(c.data.session) |\n"
    md += "| Initial cash | \(HumanFormat.money(c.broker.initialCash)) |\n"
    md += "| Sizing | \(describe(c.broker.sizing)) |\n"
    md += "| Commission | \(describe(c.broker.commission)) |\n"
    md += "| Slippage | \(formatPlain(c.broker.slippageBasisPoints)) bps |\n\n"

    let shown = output.run.overlayTitle
    md += "## Charts\n\n![Price\(shown.isEmpty ? "" : ", " + shown) and trades](price.svg)\n\n"
    for p in RunCharts(output).panels { md += "![\(p.panel.name)](\(p.panel.id).svg)\n\n" }
    md += "![Equity and drawdown](equity.svg)\n\n![Monthly returns](monthly.svg)\n\n![Trade returns](returns.svg)\n\n"

    md += "## Performance\n\n| Metric | Strategy | Buy & hold |\n|---|---:|---:|\n"
    md += "| Final equity | \(HumanFormat.money(s.finalEquity)) | \(HumanFormat.money(b.finalEquity)) |\n"
    md += "| Total return | \(HumanFormat.percent(s.totalReturn)) | \(HumanFormat.percent(b.totalReturn)) |\n"
    md += "| CAGR | \(HumanFormat.percent(s.cagr)) | \(HumanFormat.percent(b.cagr)) |\n"
    md += "| Max drawdown | \(HumanFormat.percent(s.maxDrawdown)) | \(HumanFormat.percent(b.maxDrawdown)) |\n"
    md += "| Sharpe | \(HumanFormat.ratio(s.sharpe)) | \(HumanFormat.ratio(b.sharpe)) |\n"
    md += "| Sortino | \(HumanFormat.ratio(s.sortino)) | \(HumanFormat.ratio(b.sortino)) |\n"
    md += "| Volatility (a year) | \(HumanFormat.percent(s.volatility)) | \(HumanFormat.percent(b.volatility)) |\n"
    md += "| Calmar | \(HumanFormat.ratio(s.calmar)) | \(HumanFormat.ratio(b.calmar)) |\n"
    md += "| Exposure | \(HumanFormat.percent(s.exposure)) | \(HumanFormat.percent(b.exposure)) |\n"
    md += "| Trades | \(HumanFormat.integer(s.totalTrades)) | \(HumanFormat.integer(b.totalTrades)) |\n"
    md += "| Win rate | \(HumanFormat.percent(s.winRate)) | |\n"
    md += "| Average win | \(HumanFormat.percent(s.avgWin)) | |\n"
    md += "| Average loss | \(HumanFormat.percent(s.avgLoss)) | |\n"
    md += "| Best trade | \(HumanFormat.percent(s.bestTrade)) | |\n"
    md += "| Worst trade | \(HumanFormat.percent(s.worstTrade)) | |\n"
    md += "| Profit factor | \(HumanFormat.ratio(s.profitFactor)) | |\n"
    md += "| Expectancy (P&L a trade) | \(HumanFormat.money(s.expectancy)) | |\n"
    md += "| SQN | \(HumanFormat.ratio(s.sqn)) | |\n"
    md += "| Total P&L | \(HumanFormat.money(s.totalPnl)) | |\n"
    md += "| Fees | \(HumanFormat.money(s.fees)) | \(HumanFormat.money(b.fees)) |\n"
    md += "| Average trade | \(duration(s.averageBarsHeld, s.averageTradeDays)) | |\n"
    md += "| Longest trade | \(duration(s.longestBarsHeld.map(Double.init), s.longestTradeDays.map(Double.init))) | |\n"
    md += "| Average drawdown | \(duration(s.averageDrawdownBars, s.averageDrawdownDays)) | \(duration(b.averageDrawdownBars, b.averageDrawdownDays)) |\n"
    md += "| Longest drawdown | \(duration(Double(s.longestDrawdownBars), s.longestDrawdownDays.map(Double.init))) "
      + "| \(duration(Double(b.longestDrawdownBars), b.longestDrawdownDays.map(Double.init))) |\n\n"
    md += "Sharpe, Sortino and volatility: daily returns of the equity at each day's last bar, risk-free 0, × √252. "
    md += "Calmar: CAGR over the max drawdown; SQN: √trades × mean trade P&L over its standard deviation. "
    md += "A trade's days run from its entry's date to its exit's; a drawdown's bars are those below the previous high, "
    md += "its days from the high's date to the date back at or above it. "
    md += "Buy & hold buys at the open of the second bar with the same broker settings.\n\n"

    let charts = RunCharts(output)
    md += "## Drawdowns\n\n" + charts.drawdownMarkdown() + "\n"
    md += "## Yearly returns\n\n" + charts.yearlyMarkdown() + "\n"

    md += "## Exit reasons\n\n| Reason | Trades | Wins | Average return | Total P&L |\n|---|---:|---:|---:|---:|\n"
    for reason in ExitReason.allCases {
      let group = trades.filter { $0.exitReason == reason }
      if group.isEmpty { continue }
      let wins = group.filter { $0.pnl > 0 }.count
      let avg = mean(group.map(\.returnFraction))
      md += "| \(reason.rawValue) | \(group.count) | \(wins) | \(HumanFormat.percent(avg)) | "
      md += "\(HumanFormat.money(group.reduce(0) { $0 + $1.pnl })) |\n"
    }
    if trades.isEmpty { md += "| (no trades) | 0 | 0 | — | — |\n" }
    if output.run.result.fills.skippedEntries > 0 {
      md += "\n\(output.run.result.fills.skippedEntries) buy signal(s) could not buy a single share and were skipped.\n"
    }
    if output.run.result.fills.expiredOrders > 0 {
      md += "\n\(output.run.result.fills.expiredOrders) limit or stop entry order(s) expired before their price was reached.\n"
    }
    if output.run.result.fills.unpricedOrders > 0 {
      md += "\n\(output.run.result.fills.unpricedOrders) entry signal(s) placed no order: the order's price was undefined at the decision bar.\n"
    }
    if output.run.result.carry.borrowFees > 0 {
      md += "\nShort positions paid \(HumanFormat.money(output.run.result.carry.borrowFees)) in borrow fees.\n"
    }
    let ambiguous = trades.filter(\.ambiguous).count
    if output.run.result.fills.resolvedBars > 0 {
      md += "\n\(output.run.result.fills.resolvedBars) of \(output.run.result.fills.ambiguousBars) ambiguous exit bar(s) were settled from the finer bars in `\(c.data.intrabar ?? "")`.\n"
    }
    if ambiguous > 0, let other = output.otherRule {
      let rule = c.broker.intrabarRule
      md += "\n### Intrabar ambiguity\n\n\(ambiguous) of \(trades.count) trades exited on a bar whose order of events OHLC cannot tell "
      md += "(stop and target both touched without a gap\(output.run.result.fills.resolvedBars > 0 ? ", and not settled by the finer bars" : ""); "
      md += "`ambiguous` in trades.csv). The conservative rule takes the stop there, the optimistic rule the target; "
      md += "the rules differ at no other bar.\n\n"
      let (conservative, optimistic) = rule == .conservative ? (s, other) : (other, s)
      md += "| Rule | Trades | Win rate | Total return | Max drawdown | Sharpe |\n|---|---:|---:|---:|---:|---:|\n"
      for (name, x) in [("conservative" + (rule == .conservative ? " (this run)" : ""), conservative),
                        ("optimistic" + (rule == .optimistic ? " (this run)" : ""), optimistic)] {
        md += "| \(name) | \(x.totalTrades) | \(HumanFormat.percent(x.winRate)) | \(HumanFormat.percent(x.totalReturn)) | "
        md += "\(HumanFormat.percent(x.maxDrawdown)) | \(HumanFormat.ratio(x.sharpe)) |\n"
      }
    }

    if let cycle = output.cycle { md += cycleSection(output, cycle) }

    if let d = RunReport.dividendFigures(output) {
      let r = output.run.result
      md += "\n## Dividends\n\n| | Strategy | Buy & hold |\n|---|---:|---:|\n"
      md += "| Dividend income | \(HumanFormat.money(r.carry.dividendIncome)) | \(HumanFormat.money(output.benchmark.carry.dividendIncome)) |\n"
      if c.expenseRatio > 0 {
        md += "| Expense-ratio drag (\(formatPercentPlain(c.expenseRatio)) a year) | \(HumanFormat.money(r.carry.expenseDrag)) | \(HumanFormat.money(output.benchmark.carry.expenseDrag)) |\n"
      }
      md += "\nFrequency \(d.profile.frequency.rawValue); trailing-12-month dividends \(formatPlain(d.profile.trailingTwelveMonths)) a share "
      md += "(yield \(HumanFormat.percent(d.trailingYield)) at the last close); "
      md += d.yieldOnCost.map { "yield on cost of the position open at the end \(HumanFormat.percent($0)); " } ?? "no position open at the end (no yield on cost); "
      md += "forward annual dividend \(d.profile.forwardAnnual.map { formatPlain($0) } ?? "—") a share and next ex-date "
      md += "\(d.profile.nextExDayEstimate.map { CivilDate.isoDate(days: $0) } ?? "—"), both estimates from the last payment and the detected frequency. "
      md += "A trade earns the dividends of the ex-dates it held through (shares held at the close before the ex-date; `dividends` in trades.csv), and its return includes them.\n"
    }
    if c.expenseRatio > 0 { md += "\n" + ExpenseRatioNote.explanation + "\n" }

    md += "\n## Trades\n\n"
    if trades.count > tradeListLimit {
      md += "The first \(tradeListLimit) of \(HumanFormat.integer(trades.count)) trades; every trade is in `trades.csv`.\n\n"
    }
    // Prices at the bars' decimals; after the first trades, the best and the worst when they are later.
    let decimals = RunCharts.priceDecimals(bars: bars)
    var rows = Array(trades.indices.prefix(tradeListLimit))
    if let (best, worst) = bestAndWorst(trades) {
      if trades.count > tradeListLimit { md += "Best trade #\(best + 1), worst trade #\(worst + 1)\(max(best, worst) >= tradeListLimit ? " (listed after the first \(tradeListLimit))" : "").\n\n" }
      for k in Set([best, worst]).sorted() where k >= tradeListLimit { rows.append(k) }
    }
    md += "| # | Entry | Entry price | Exit | Exit price | Shares | P&L | Return | Reason | Bars |\n"
    md += "|---:|---|---:|---|---:|---:|---:|---:|---|---:|\n"
    for k in rows {
      let t = trades[k]
      md += "| \(k + 1) | \(bars.timeLabel(t.entryBar)) | \(HumanFormat.price(t.entryPrice, decimals: decimals)) | \(bars.timeLabel(t.exitBar)) | "
      md += "\(HumanFormat.price(t.exitPrice, decimals: decimals)) | \(HumanFormat.integer(t.shares)) | \(HumanFormat.money(t.pnl)) | "
      md += "\(HumanFormat.percent(t.returnFraction)) | \(t.exitReason.rawValue) | \(t.barsHeld) |\n"
    }
    return md
  }

  /// The positions of the best and the worst trade by return (the first of equals); `nil` without trades.
  static func bestAndWorst(_ trades: [Trade]) -> (best: Int, worst: Int)? {
    guard let best = trades.indices.max(by: { trades[$0].returnFraction < trades[$1].returnFraction }),
          let worst = trades.indices.min(by: { trades[$0].returnFraction < trades[$1].returnFraction }) else { return nil }
    return (best, worst)
  }

  static func cycleSection(_ output: RunOutput, _ cycle: CycleContext) -> String {
    let settings = cycle.settings
    let last = output.bars.count - 1
    var md = "\n## Economic cycle\n\n"
    let current = cycle.gate.stages[last]
    md += "Current stage (at the last bar): **\(current.rawValue)**"
    if let row = cycle.timeline.row(at: output.bars.time[last]) {
      md += current == .unknown && row.stage != .unknown ? " (the latest release is stale). " : ". "
      md += "Inputs: \(CycleDescription.inputs(row)).\n\n"
    } else {
      md += " (no quarter released yet).\n\n"
    }
    if settings.filter {
      md += "Filter: new entries only in \(settings.buyStages.sorted().map(\.rawValue).joined(separator: ", ")) (never in unknown). "
      md += "**\(output.run.blockedEntries) buy signal(s) were skipped by the filter.** "
      if !settings.exitStages.isEmpty {
        md += "An open position is sold at the next open (CYCLE_EXIT) after every close in \(settings.exitStages.sorted().map(\.rawValue).joined(separator: ", ")), "
        md += "the entry bar's close included. "
      }
      if let u = cycle.unfiltered, let skipped = cycle.skippedTrades {
        md += "Without the filter (the same run with no `cycle:` section) the rule takes \(u.totalTrades) trade(s) (total return \(HumanFormat.percent(u.totalReturn)), "
        md += "Sharpe \(HumanFormat.ratio(u.sharpe)), max drawdown \(HumanFormat.percent(u.maxDrawdown))); "
        md += "\(skipped) of them were bought in a stage the filter does not allow (the stage at the close the buy was decided at). "
      }
    } else {
      md += "Filter: off (stages are reported; no entry or exit depends on them, the trades are those of the run without a `cycle:` section). "
    }
    md += "Stages come from `\(settings.macroFiles.joined(separator: "`, `"))`, each quarter usable only from its release date.\n\n"
    md += "### Performance by cycle stage\n\n| Stage | Bars | Trades entered | Win rate | Average return | Equity return in stage |\n"
    md += "|---|---:|---:|---:|---:|---:|\n"
    for r in CycleBreakdown(result: output.run.result, stages: cycle.gate.stages).rows where r.bars > 0 || r.trades > 0 {
      md += "| \(r.stage.rawValue) | \(HumanFormat.integer(r.bars)) | \(r.trades) | \(HumanFormat.percent(r.winRate)) | "
      md += "\(HumanFormat.percent(r.averageReturn)) | \(HumanFormat.percent(r.totalReturn)) |\n"
    }
    md += "\nBars: the bars whose stage this is. Trades entered, win rate and average return: the trades grouped by the stage at their entry fill "
    md += "(the bar they were bought at). Equity return in stage: the equity's bar-to-bar returns over that stage's bars, compounded "
    md += "(a trade held across a stage change counts in both stages).\n"
    return md
  }

  /// "5.2 bars, 7 days"; "—" when undefined.
  static func duration(_ bars: Double?, _ days: Double?) -> String {
    guard let bars else { return "—" }
    func number(_ x: Double) -> String {
      x == x.rounded() ? HumanFormat.integer(x) : HumanFormat.grouped(FixedDecimal.text(x, decimals: 1))
    }
    return "\(number(bars)) bars" + (days.map { ", \(number($0)) days" } ?? "")
  }

  static func describe(_ sizing: Sizing) -> String {
    switch sizing {
    case .allIn: return "all in (whole shares)"
    case .fixedShares(let n): return "\(formatNumber(n)) shares"
    case .fraction(let f): return "\(formatPercentPlain(f)) of cash (whole shares)"
    case .risk(let r): return "\(formatPercentPlain(r)) of equity at risk to the stop (whole shares)"
    case .volatilityTarget(let v, let n): return "\(formatPercentPlain(v)) annualized volatility target over \(n) days (whole shares)"
    case .fixedCash(let money): return "\(HumanFormat.money(money)) a trade (whole shares)"
    }
  }

  static func describe(_ commission: Commission) -> String {
    switch commission {
    case .none: return "none"
    case .perTrade(let a): return "\(HumanFormat.money(a)) per fill"
    case .perShare(let a): return "$\(formatPlain(a)) per share"
    case .percent(let r): return "\(formatPercentPlain(r)) of notional"
    }
  }
}
