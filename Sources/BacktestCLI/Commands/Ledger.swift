import BacktestCore
import CommandLineSupport
import Foundation
import PersonalFinance

/// `backtest ledger FILE`: what an income/expense tracker shows, from its CSV or JSON export.
struct LedgerCommand {
  var path: String
  var out: String?
  var budgetsPath: String?
  var grouping: LedgerGrouping?

  static let spec = CommandSpec(
    "ledger", summary: "income, expenses, net and savings rate per month, category shares, budgets and recurring items",
    arguments: [ArgumentSpec("FILE", "a date,amount,category,note CSV (income positive, expenses negative) or the income tracker's JSON export",
                             completion: .file)],
    options: [
      .out("write ledger_monthly.csv, ledger_categories.csv, ledger_recurring.csv, ledger_budgets.csv, the split files and ledger.html into this folder"),
      .option("budgets", "FILE", "monthly budgets: a YAML file of category: amount", completion: .file),
      .option("by", "FIELD", "add each account's or owner's figures", completion: .choices(LedgerGrouping.allCases.map(\.rawValue))),
    ],
    details: "Per month: income and expenses (\(LedgerAnalysis.signRule)), net and savings rate (net / income, empty when there is no income); each expense category's amount and share of the month's expenses; each budget against the month's spending; recurring items (\(LedgerAnalysis.recurringRule)).",
    examples: ["ledger Data/ledger.csv", "ledger Data/tracker_export.json --budgets Data/tracker_budgets.yaml --by owner --out /tmp/ledger"])

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, command: Self.spec, path: "ledger")
    guard a.positionals.count == 1 else { throw UsageError(message: "expected one ledger file: \(Program.name) ledger FILE") }
    path = a.positionals[0]
    out = a.option("out")
    budgetsPath = a.option("budgets")
    grouping = try a.choice("by").map { LedgerGrouping(rawValue: $0)! }
  }

  func run() throws -> Int32 {
    let ledger = try LedgerReader.read(try readInputFile(path), file: path)
    var budgets: LedgerBudgets?
    if let budgetsPath {
      let categories = Array(Set(ledger.entries.map(\.category))).sorted()
      budgets = try LedgerBudgets.parse(String(decoding: try readInputFile(budgetsPath), as: UTF8.self), file: budgetsPath, categories: categories)
    }
    let analysis = LedgerAnalysis(ledger, budgets: budgets)
    var groups: (by: LedgerGrouping, parts: [(name: String, analysis: LedgerAnalysis)])?
    if let grouping {
      let parts = LedgerAnalysis.groups(ledger, by: grouping)
      if parts.count == 1 && parts[0].name == "(none)" {
        throw InputError("no transaction names an \(grouping.rawValue); expected '\(grouping.rawValue)' in the JSON export or an '\(grouping.rawValue)' column", file: path)
      }
      groups = (grouping, parts.map { ($0.name, LedgerAnalysis($0.ledger, budgets: budgets)) })
    }
    printSummary(analysis, groups: groups)
    guard let out else { return ExitCode.ok }
    let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    let files = LedgerReport.files(analysis, title: "Income and expenses: \(name)", source: path, groups: groups)
    try AtomicWriter.write(files, into: out)
    print("wrote \(files.map(\.name).joined(separator: ", ")) to \(out)/")
    return ExitCode.ok
  }

  func printSummary(_ a: LedgerAnalysis, groups: (by: LedgerGrouping, parts: [(name: String, analysis: LedgerAnalysis)])?) {
    printTable(["Month", "Income", "Expenses", "Net", "Savings rate"], a.months.map {
      [$0.label, HumanFormat.money($0.income), HumanFormat.money($0.expenses), HumanFormat.money($0.net), HumanFormat.percent($0.savingsRate)]
    } + [["Total", HumanFormat.money(a.totalIncome), HumanFormat.money(a.totalExpenses), HumanFormat.money(a.totalNet), HumanFormat.percent(a.totalSavingsRate)]])
    print("\nexpenses by category over \(a.months.count) months:")
    printTable(["Category", "Total", "Share", "Per month"], a.categoryTotals.map {
      [$0.category, HumanFormat.money($0.amount), HumanFormat.percent($0.share), HumanFormat.money($0.amount / Double(max(1, a.months.count)))]
    })
    if let latest = a.months.last?.month, !a.budgets.isEmpty {
      print("\nbudgets in \(LedgerAnalysis.label(latest)):")
      printTable(["Category", "Budget", "Spent", "Remaining", "Months over"], a.budgets.filter { $0.month == latest }.map { b in
        [b.category, HumanFormat.money(b.budget), HumanFormat.money(b.spent), HumanFormat.money(b.remaining) + (b.isOver ? " OVER" : ""),
         "\(a.budgets.filter { $0.category == b.category && $0.isOver }.count) of \(a.months.count)"]
      })
    }
    if a.recurring.isEmpty {
      print("\nno recurring items (\(LedgerAnalysis.recurringRule))")
    } else {
      print("\nrecurring items (\(LedgerAnalysis.recurringRule)):")
      printTable(["Category", "Amount", "Day", "From", "To", "Months"], a.recurring.map {
        [$0.category, HumanFormat.money($0.amount), String($0.dayOfMonth), LedgerAnalysis.label($0.firstMonth),
         LedgerAnalysis.label($0.lastMonth) + ($0.active ? " (active)" : ""), String($0.months)]
      })
    }
    for part in groups?.parts ?? [] {
      let p = part.analysis
      print("\n\(groups!.by.rawValue) \(printable(part.name)): income \(HumanFormat.money(p.totalIncome)), expenses \(HumanFormat.money(p.totalExpenses)), "
        + "net \(HumanFormat.money(p.totalNet)), savings rate \(HumanFormat.percent(p.totalSavingsRate))")
    }
  }
}
