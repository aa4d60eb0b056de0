import BacktestCore
import BacktestRun
import Foundation

/// The files of `backtest ledger`: CSVs of the analysis and one HTML page.
///
/// Amounts are written with every digit (`Double.description`), fractions as
/// fractions; `savings_rate` is empty when the month has no income.
package enum LedgerReport {
  package static let monthlyColumns = "month,income,expenses,net,savings_rate"
  package static let categoryColumns = "month,category,amount,share"
  package static let budgetColumns = "month,category,budget,spent,remaining,status"
  package static let recurringColumns = "category,type,amount,first_month,last_month,months,day_of_month,active,note"

  static func monthlyRows(_ a: LedgerAnalysis, prefix: String = "") -> String {
    a.months.map { m in
      prefix + [m.label, m.income.description, m.expenses.description, m.net.description, m.savingsRate.map(\.description) ?? ""]
        .joined(separator: ",") + "\n"
    }.joined()
  }

  static func categoryRows(_ a: LedgerAnalysis, prefix: String = "") -> String {
    a.categories.map { c in
      prefix + [LedgerAnalysis.label(c.month), csvField(c.category), c.amount.description, c.share.description].joined(separator: ",") + "\n"
    }.joined()
  }

  package static func monthlyCSV(_ a: LedgerAnalysis) -> String { monthlyColumns + "\n" + monthlyRows(a) }
  package static func categoriesCSV(_ a: LedgerAnalysis) -> String { categoryColumns + "\n" + categoryRows(a) }

  package static func budgetsCSV(_ a: LedgerAnalysis) -> String {
    budgetColumns + "\n" + a.budgets.map { b in
      [LedgerAnalysis.label(b.month), csvField(b.category), b.budget.description, b.spent.description, b.remaining.description,
       b.isOver ? "over" : "under"].joined(separator: ",") + "\n"
    }.joined()
  }

  package static func recurringCSV(_ a: LedgerAnalysis) -> String {
    recurringColumns + "\n" + a.recurring.map { r in
      [csvField(r.category), r.amount < 0 ? "expense" : "income", abs(r.amount).description, LedgerAnalysis.label(r.firstMonth),
       LedgerAnalysis.label(r.lastMonth), String(r.months), String(r.dayOfMonth), r.active ? "true" : "false", csvField(r.note)]
        .joined(separator: ",") + "\n"
    }.joined()
  }

  /// Every file: the four CSVs (budgets only with budgets), the split CSVs with `groups`, and `ledger.html`.
  package static func files(_ a: LedgerAnalysis, title: String, source: String,
                           groups: (by: LedgerGrouping, parts: [(name: String, analysis: LedgerAnalysis)])? = nil) -> [ReportFile] {
    var files = [ReportFile(name: "ledger_monthly.csv", contents: monthlyCSV(a)),
                 ReportFile(name: "ledger_categories.csv", contents: categoriesCSV(a)),
                 ReportFile(name: "ledger_recurring.csv", contents: recurringCSV(a))]
    if !a.budgets.isEmpty { files.append(ReportFile(name: "ledger_budgets.csv", contents: budgetsCSV(a))) }
    if let groups {
      let key = groups.by.rawValue
      files.append(ReportFile(name: "ledger_monthly_by_\(key).csv",
                              contents: key + "," + monthlyColumns + "\n" + groups.parts.map { monthlyRows($0.analysis, prefix: csvField($0.name) + ",") }.joined()))
      files.append(ReportFile(name: "ledger_categories_by_\(key).csv",
                              contents: key + "," + categoryColumns + "\n" + groups.parts.map { categoryRows($0.analysis, prefix: csvField($0.name) + ",") }.joined()))
    }
    files.append(ReportFile(name: "ledger.html", contents: html(a, title: title, source: source, groups: groups)))
    return files
  }

  // MARK: HTML

  static let palette = ["#0071E3", "#FF9500", "#34C759", "#AF52DE", "#FF2D55", "#5AC8FA", "#FFCC00", "#8E8E93"]

  package static func html(_ a: LedgerAnalysis, title: String, source: String,
                          groups: (by: LedgerGrouping, parts: [(name: String, analysis: LedgerAnalysis)])? = nil) -> String {
    func e(_ x: String) -> String { SVGBuilder.escape(x) }
    var h = HTMLReport.opening(title)
    let first = a.months.first.map(\.label) ?? "", last = a.months.last.map(\.label) ?? ""
    h += "<p class=\"note\"><code>\(e(source))</code>, \(a.months.count) months, \(e(first)) → \(e(last))</p>\n"
    h += tiles(a)
    h += "<div class=\"card\">\(incomeExpenseChart(a))</div>\n<div class=\"card\">\(categoryChart(a))</div>\n"
    h += "<div class=\"card\"><h2>Months</h2><table><tr><th>Month</th><th>Income</th><th>Expenses</th><th>Net</th><th>Savings rate</th></tr>"
    for m in a.months {
      h += "<tr><td>\(m.label)</td><td>\(HumanFormat.money(m.income))</td><td>\(HumanFormat.money(m.expenses))</td>"
      h += "<td>\(HumanFormat.money(m.net))</td><td>\(HumanFormat.percent(m.savingsRate))</td></tr>"
    }
    h += "</table></div>\n<div class=\"card\"><h2>Categories (expenses over all months)</h2><table><tr><th>Category</th><th>Total</th><th>Share</th><th>Per month</th></tr>"
    for c in a.categoryTotals {
      h += "<tr><td>\(e(c.category))</td><td>\(HumanFormat.money(c.amount))</td><td>\(HumanFormat.percent(c.share))</td>"
      h += "<td>\(HumanFormat.money(c.amount / Double(max(1, a.months.count))))</td></tr>"
    }
    h += "</table></div>\n"
    if !a.budgets.isEmpty, let latest = a.months.last?.month {
      h += "<div class=\"card\"><h2>Budgets (\(LedgerAnalysis.label(latest)))</h2><table><tr><th>Category</th><th>Budget</th><th>Spent</th><th>Remaining</th><th>Months over</th></tr>"
      for b in a.budgets where b.month == latest {
        let over = a.budgets.filter { $0.category == b.category && $0.isOver }.count
        h += "<tr><td>\(e(b.category))</td><td>\(HumanFormat.money(b.budget))</td><td>\(HumanFormat.money(b.spent))</td>"
        h += "<td style=\"color:\(b.isOver ? "#FF3B30" : "#34C759")\">\(HumanFormat.money(b.remaining))</td><td>\(over) of \(a.months.count)</td></tr>"
      }
      h += "</table></div>\n"
    }
    h += "<div class=\"card\"><h2>Recurring items</h2>"
    if a.recurring.isEmpty {
      h += "<p class=\"note\">none (recurring: \(e(LedgerAnalysis.recurringRule)))</p>"
    } else {
      h += "<table><tr><th>Category</th><th>Amount</th><th>Day</th><th>From</th><th>To</th><th>Months</th><th>Note</th></tr>"
      for r in a.recurring {
        h += "<tr><td>\(e(r.category))</td><td>\(HumanFormat.money(r.amount))</td><td>\(r.dayOfMonth)</td><td>\(LedgerAnalysis.label(r.firstMonth))</td>"
        h += "<td>\(LedgerAnalysis.label(r.lastMonth))\(r.active ? " (active)" : "")</td><td>\(r.months)</td><td>\(e(r.note))</td></tr>"
      }
      h += "</table>"
    }
    h += "</div>\n"
    if let groups {
      for part in groups.parts {
        h += "<h2>\(e(groups.by.rawValue.capitalized)): \(e(part.name))</h2>\n" + tiles(part.analysis)
        h += "<div class=\"card\">\(incomeExpenseChart(part.analysis, id: "income-expenses-\(groups.by.rawValue)-\(part.name)"))</div>\n"
      }
    }
    h += "<p class=\"note\">Per month, \(e(LedgerAnalysis.signRule)); "
    h += "net = income − expenses; savings rate = net / income. A category's share is its expenses over the month's expenses. "
    h += "Recurring: \(e(LedgerAnalysis.recurringRule)). "
    h += "Every figure is in the CSV files next to this page.</p>\n</main></body></html>\n"
    return h
  }

  static func tiles(_ a: LedgerAnalysis) -> String {
    let n = Double(max(1, a.months.count))
    return HTMLReport.tiles([
      ("Income", HumanFormat.money(a.totalIncome), HumanFormat.money(a.totalIncome / n) + " a month"),
      ("Expenses", HumanFormat.money(a.totalExpenses), HumanFormat.money(a.totalExpenses / n) + " a month"),
      ("Net", HumanFormat.money(a.totalNet), HumanFormat.money(a.totalNet / n) + " a month"),
      ("Savings rate", HumanFormat.percent(a.totalSavingsRate), "net / income"),
      ("Months", String(a.months.count), a.recurring.isEmpty ? "no recurring items" : "\(a.recurring.count) recurring item(s)"),
    ])
  }

  /// A bar chart frame: title, value grid and month labels; returns the builder and the bar slot width.
  static func frame(_ title: String, id: String, months: [LedgerAnalysis.Month], vmin: Double, vmax: Double, height: Double,
                    top: Double, bottom: Double) -> SVGBuilder {
    let x0 = 70.0, x1 = RunCharts.width - 16
    var svg = SVGBuilder()
    let c = SVGBuilder.coordinate
    svg.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(c(RunCharts.width)) \(c(height))\" width=\"\(c(RunCharts.width))\" height=\"\(c(height))\" ")
    svg.raw("id=\"\(SVGBuilder.escape(id))\" data-n=\"\(months.count)\" data-vmin=\"\(vmin)\" data-vmax=\"\(vmax)\" role=\"img\"><title>\(SVGBuilder.escape(title))</title>" + RunCharts.style)
    svg.rect(x: 0, y: 0, width: RunCharts.width, height: height, attributes: "class=\"bg\"")
    svg.label(title, x: x0, y: 16, attributes: "class=\"title\"")
    for v in niceTicks(low: vmin, high: vmax) {
      let y = bottom - (v - vmin) / (vmax - vmin) * (bottom - top)
      svg.line(x0, y, x1, y, attributes: "class=\"grid\"")
      svg.label(HumanFormat.money(v).replacingOccurrences(of: ".00", with: ""), x: x0 - 6, y: y + 4, attributes: "class=\"label\" text-anchor=\"end\"")
    }
    let slot = (x1 - x0) / Double(max(1, months.count))
    let every = max(1, Int((60 / slot).rounded(.up)))
    for (k, m) in months.enumerated() where k % every == 0 {
      svg.label(m.label, x: x0 + slot * (Double(k) + 0.5), y: bottom + 16, attributes: "class=\"label\" text-anchor=\"middle\"")
    }
    return svg
  }

  /// Income (up, green) and expenses (down, red) per month, with the net as a dot.
  static func incomeExpenseChart(_ a: LedgerAnalysis, id: String = "income-expenses") -> String {
    let height = 300.0, top = 44.0, bottom = 270.0, x0 = 70.0, x1 = RunCharts.width - 16
    let high = max(1, a.months.map(\.income).max() ?? 1), low = -max(1, a.months.map(\.expenses).max() ?? 1)
    let span = high - low
    let (vmin, vmax) = (low - span * 0.05, high + span * 0.05)
    var svg = frame("Income and expenses per month (dot: net)", id: id, months: a.months, vmin: vmin, vmax: vmax, height: height, top: top, bottom: bottom)
    func y(_ v: Double) -> Double { bottom - (v - vmin) / (vmax - vmin) * (bottom - top) }
    let slot = (x1 - x0) / Double(max(1, a.months.count)), bar = max(1, slot * 0.7)
    svg.line(x0, y(0), x1, y(0), attributes: "class=\"axis\"")
    for (k, m) in a.months.enumerated() {
      let x = x0 + slot * Double(k) + (slot - bar) / 2
      svg.rect(x: x, y: y(m.income), width: bar, height: y(0) - y(m.income), attributes: "class=\"up\" fill-opacity=\"0.75\" data-month=\"\(m.label)\" data-income=\"\(m.income)\"")
      svg.rect(x: x, y: y(0), width: bar, height: y(-m.expenses) - y(0), attributes: "class=\"down\" fill-opacity=\"0.75\" data-month=\"\(m.label)\" data-expenses=\"\(m.expenses)\"")
      svg.raw("<circle cx=\"\(SVGBuilder.coordinate(x + bar / 2))\" cy=\"\(SVGBuilder.coordinate(y(m.net)))\" r=\"3\" fill=\"#1c1c1e\" stroke=\"#fff\" data-net=\"\(m.net)\"/>")
    }
    svg.raw("</svg>")
    return svg.text
  }

  /// Each month's expenses stacked by category (the seven largest overall, the rest as `other`), with a legend.
  static func categoryChart(_ a: LedgerAnalysis) -> String {
    let height = 320.0, top = 60.0, bottom = 290.0, x0 = 70.0, x1 = RunCharts.width - 16
    let named = Array(a.categoryTotals.prefix(a.categoryTotals.count > 8 ? 7 : 8).map(\.category))
    let vmax = max(1, a.months.map(\.expenses).max() ?? 1) * 1.05
    var svg = frame("Expenses by category per month", id: "categories", months: a.months, vmin: 0, vmax: vmax, height: height, top: top, bottom: bottom)
    func y(_ v: Double) -> Double { bottom - v / vmax * (bottom - top) }
    let slot = (x1 - x0) / Double(max(1, a.months.count)), bar = max(1, slot * 0.7)
    let legend = named + (a.categoryTotals.count > named.count ? ["other"] : [])
    var lx = x0
    for (k, name) in legend.enumerated() {
      svg.rect(x: lx, y: 28, width: 10, height: 10, attributes: "fill=\"\(palette[k % palette.count])\"")
      svg.label(name, x: lx + 14, y: 37)
      lx += 24 + 6.5 * Double(name.count)
    }
    for (k, m) in a.months.enumerated() {
      var base = 0.0
      let x = x0 + slot * Double(k) + (slot - bar) / 2
      let rows = a.categories.filter { $0.month == m.month }
      var amounts = named.map { n in rows.first { $0.category == n }?.amount ?? 0 }
      if legend.count > named.count { amounts.append(rows.filter { !named.contains($0.category) }.reduce(0) { $0 + $1.amount }) }
      for (c, amount) in amounts.enumerated() where amount > 0 {
        svg.rect(x: x, y: y(base + amount), width: bar, height: y(base) - y(base + amount),
                 attributes: "fill=\"\(palette[c % palette.count])\" data-month=\"\(m.label)\" data-category=\"\(SVGBuilder.escape(legend[c]))\" data-amount=\"\(amount)\"")
        base += amount
      }
    }
    svg.raw("</svg>")
    return svg.text
  }
}
