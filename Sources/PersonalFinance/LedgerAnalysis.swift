import BacktestCore
import BacktestRun
import Foundation

/// A monthly budget per expense category (`backtest ledger --budgets FILE`).
package struct LedgerBudgets: Sendable, Equatable {
  /// Categories in the file's order, each with its budget per calendar month (a positive amount).
  package var monthly: [LedgerBudget]

  package init(monthly: [LedgerBudget]) { self.monthly = monthly }

  /// Reads a YAML mapping `category: amount` (`groceries: 500`).
  ///
  /// - Parameter categories: the ledger's categories; a budget for any other is refused with the closest as a suggestion.
  /// - Throws: `InputError` at the key or value that is wrong.
  package static func parse(_ text: String, file: String, categories: [String]) throws -> LedgerBudgets {
    let root = try YAMLReader.parse(text, file: file)
    let table = try ConfigTable(root, path: "")
    var budgets: [LedgerBudget] = []
    for entry in table.entries {
      guard categories.contains(entry.key) else {
        let hint = closestMatch(to: entry.key, in: categories).map { "; did you mean '\($0)'?" }
          ?? "; expected one of the ledger's categories: \(categories.joined(separator: ", "))"
        throw InputError("unknown category '\(entry.key)' in the budgets (no transaction of the ledger has it)\(hint)", at: entry.keyLocation)
      }
      let amount = try table.double(entry.key, where: { $0 > 0 }, expected: "a monthly budget > 0")!
      budgets.append(LedgerBudget(category: entry.key, amount: amount))
    }
    if budgets.isEmpty {
      throw InputError("no budgets; expected lines of 'category: monthly amount' such as 'groceries: 500'", at: table.location)
    }
    return LedgerBudgets(monthly: budgets)
  }
}

package struct LedgerBudget: Sendable, Equatable {
  package var category: String
  package var amount: Double
}

/// How `backtest ledger --by` splits a ledger.
package enum LedgerGrouping: String, Sendable, CaseIterable {
  case account, owner

  func key(_ e: LedgerEntry) -> String { self == .account ? e.account : e.owner }
}

/// What an income/expense tracker shows: per calendar month the income,
/// expenses, net and savings rate, each expense category's amount and share,
/// budgets against spending, and the items that recur every month.
///
/// Conventions (`signRule`, `recurringRule`): income is the sum of the positive
/// amounts of the month, expenses the sum of the negative amounts as a positive
/// number, net = income − expenses, savings rate = net / income (`nil` when
/// income is 0). A category's amount counts its expenses only (a refund in a
/// category is income), its share is amount / the month's expenses. Sums run in date
/// order (entries of one day in file order). Months without entries between
/// the first and the last are included.
package struct LedgerAnalysis: Sendable {
  package struct Month: Sendable, Equatable {
    /// The first day of the month (days since 1970).
    package var month: Int
    package var income: Double
    /// Positive.
    package var expenses: Double
    package var net: Double
    package var savingsRate: Double?
    /// `2024-03`.
    package var label: String { LedgerAnalysis.label(month) }
  }

  /// One expense category in one month.
  package struct CategoryMonth: Sendable, Equatable {
    package var month: Int
    package var category: String
    /// Positive.
    package var amount: Double
    /// Of the month's expenses.
    package var share: Double
  }

  /// A budget against one month's spending.
  package struct BudgetMonth: Sendable, Equatable {
    package var month: Int
    package var category: String
    package var budget: Double
    package var spent: Double
    /// `budget − spent`: negative when over.
    package var remaining: Double { budget - spent }
    package var isOver: Bool { spent > budget }
  }

  /// An item of the same category and amount in at least `recurringMinimumMonths` consecutive months.
  package struct Recurring: Sendable, Equatable {
    package var category: String
    /// Signed: income positive, expenses negative.
    package var amount: Double
    package var firstMonth: Int
    package var lastMonth: Int
    /// Consecutive months with the item.
    package var months: Int
    /// The median day of the month it comes on.
    package var dayOfMonth: Int
    /// Whether the run reaches the ledger's last month.
    package var active: Bool
    /// The most frequent note of the item (the first among equals).
    package var note: String
  }

  /// Consecutive months an item must recur in to count as recurring.
  package static let recurringMinimumMonths = 3

  /// What a recurring item is, as every output states it.
  package static let recurringRule = "the same category and amount (to the cent) in \(recurringMinimumMonths) or more consecutive "
    + "calendar months (a month without it ends the run; more than one in a month counts once)"

  /// Which amounts are income and which expenses, as every output states it.
  package static let signRule = "income is the positive amounts, expenses the negative ones (as a positive number), whatever their "
    + "category: a refund entered as income is income, not less spending in its category"

  package var months: [Month]
  /// By month, then largest amount first (ties by name).
  package var categories: [CategoryMonth]
  /// Each expense category over the whole ledger, largest first: amount and share of all expenses.
  package var categoryTotals: [(category: String, amount: Double, share: Double)]
  /// By month, then in the budget file's order; empty without budgets.
  package var budgets: [BudgetMonth]
  /// Expenses first, then income; each by category and amount.
  package var recurring: [Recurring]
  package var totalIncome: Double
  package var totalExpenses: Double
  package var totalNet: Double { totalIncome - totalExpenses }
  package var totalSavingsRate: Double? { totalIncome != 0 ? totalNet / totalIncome : nil }

  package init(_ ledger: CashFlowLedger, budgets: LedgerBudgets? = nil) {
    months = ledger.monthly.map { m in
      let expenses = 0 - m.expenses  // not -m.expenses: a month without expenses would read -0.0
      let net = m.income - expenses
      return Month(month: m.month, income: m.income, expenses: expenses, net: net, savingsRate: m.income != 0 ? net / m.income : nil)
    }
    var spent: [Int: [String: Double]] = [:]
    var overall: [String: Double] = [:]
    for e in ledger.entries where e.amount < 0 {
      spent[Self.monthStart(e.day), default: [:]][e.category, default: 0] += -e.amount
      overall[e.category, default: 0] += -e.amount
    }
    var rows: [CategoryMonth] = []
    for m in months {
      for (category, amount) in (spent[m.month] ?? [:]).sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
        rows.append(CategoryMonth(month: m.month, category: category, amount: amount, share: amount / m.expenses))
      }
    }
    categories = rows
    totalIncome = ledger.entries.reduce(0) { $1.amount > 0 ? $0 + $1.amount : $0 }
    totalExpenses = months.reduce(0) { $0 + $1.expenses }
    let all = totalExpenses
    categoryTotals = overall.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { ($0.key, $0.value, all > 0 ? $0.value / all : 0) }
    self.budgets = months.flatMap { m in
      (budgets?.monthly ?? []).map { b in BudgetMonth(month: m.month, category: b.category, budget: b.amount, spent: spent[m.month]?[b.category] ?? 0) }
    }
    recurring = Self.recurringItems(ledger, lastMonth: months.last?.month ?? 0)
  }

  /// Items of one category and amount (to the cent) that come in `recurringMinimumMonths` or more consecutive months.
  static func recurringItems(_ ledger: CashFlowLedger, lastMonth: Int) -> [Recurring] {
    struct Key: Hashable { var category: String; var cents: Int64 }
    var byItem: [Key: [LedgerEntry]] = [:]
    var order: [Key] = []
    for e in ledger.entries where e.amount != 0 {
      let key = Key(category: e.category, cents: Int64((e.amount * 100).rounded()))
      if byItem[key] == nil { order.append(key) }
      byItem[key, default: []].append(e)
    }
    var out: [Recurring] = []
    for key in order {
      let entries = byItem[key]!
      // The first entry of each month, in month order.
      var firstOfMonth: [(index: Int, entry: LedgerEntry)] = []
      for e in entries {
        let index = monthIndex(e.day)
        if firstOfMonth.last?.index != index { firstOfMonth.append((index, e)) }
      }
      var start = 0
      while start < firstOfMonth.count {
        var end = start
        while end + 1 < firstOfMonth.count && firstOfMonth[end + 1].index == firstOfMonth[end].index + 1 { end += 1 }
        let run = firstOfMonth[start...end]
        if run.count >= recurringMinimumMonths {
          let days = run.map { CivilDate.components(days: $0.entry.day).day }.sorted()
          var notes: [(String, Int)] = []
          for e in entries where monthIndex(e.day) >= run.first!.index && monthIndex(e.day) <= run.last!.index {
            if let k = notes.firstIndex(where: { $0.0 == e.note }) { notes[k].1 += 1 } else { notes.append((e.note, 1)) }
          }
          let last = monthStart(run.last!.entry.day)
          out.append(Recurring(category: key.category, amount: run.first!.entry.amount, firstMonth: monthStart(run.first!.entry.day), lastMonth: last,
                               months: run.count, dayOfMonth: days[(days.count - 1) / 2], active: last == lastMonth,
                               note: notes.reduce(notes[0]) { $1.1 > $0.1 ? $1 : $0 }.0))
        }
        start = end + 1
      }
    }
    return out.sorted { a, b in
      let (x, y) = (a.amount < 0 ? 0 : 1, b.amount < 0 ? 0 : 1)
      return (x, a.category, abs(a.amount), a.firstMonth) < (y, b.category, abs(b.amount), b.firstMonth)
    }
  }

  /// The ledger split by account or owner, groups by name (entries without one under `(none)`).
  package static func groups(_ ledger: CashFlowLedger, by grouping: LedgerGrouping) -> [(name: String, ledger: CashFlowLedger)] {
    var byName: [String: [LedgerEntry]] = [:]
    for e in ledger.entries { byName[grouping.key(e).isEmpty ? "(none)" : grouping.key(e), default: []].append(e) }
    return byName.sorted { $0.key < $1.key }.map { ($0.key, CashFlowLedger(entries: $0.value)) }
  }

  static func monthIndex(_ day: Int) -> Int {
    let c = CivilDate.components(days: day)
    return c.year * 12 + c.month - 1
  }

  static func monthStart(_ day: Int) -> Int {
    let c = CivilDate.components(days: day)
    return CivilDate.days(year: c.year, month: c.month, day: 1)
  }

  /// `2024-03` for the month holding `day`.
  package static func label(_ day: Int) -> String {
    let c = CivilDate.components(days: day)
    return "\(c.year)-\(CivilDate.pad(c.month, 2))"
  }
}
