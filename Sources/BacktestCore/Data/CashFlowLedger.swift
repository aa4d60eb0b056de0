import Foundation

/// One line of an income/expense tracker: income positive, expenses negative.
package struct LedgerEntry: Sendable, Equatable {
  /// Days since 1970-01-01.
  package var day: Int
  package var amount: Double
  package var category: String
  package var note: String
  /// The account and the person (the tracker's export has both; empty when not given).
  package var account: String
  package var owner: String

  package init(day: Int, amount: Double, category: String, note: String = "", account: String = "", owner: String = "") {
    self.day = day
    self.amount = amount
    self.category = category
    self.note = note
    self.account = account
    self.owner = owner
  }
}

/// Income, expenses and their net in one calendar month.
package struct MonthlyCashFlow: Sendable, Equatable {
  /// The first day of the month (days since 1970).
  package var month: Int
  package var income = 0.0
  /// Negative (the sum of the negative amounts).
  package var expenses = 0.0
  package var net: Double { income + expenses }
}

/// Income, expenses and net of one category over the whole ledger.
package struct CategoryCashFlow: Sendable, Equatable {
  package var category: String
  package var entries = 0
  package var income = 0.0
  package var expenses = 0.0
  package var net: Double { income + expenses }
}

/// A ledger of dated deposits and withdrawals (`date,amount,category,note`).
package struct CashFlowLedger: Sendable, Equatable {
  /// Entries in date order (entries of one day keep their file order).
  package var entries: [LedgerEntry]

  package init(entries: [LedgerEntry]) {
    self.entries = entries.enumerated().sorted { ($0.element.day, $0.offset) < ($1.element.day, $1.offset) }.map(\.element)
  }

  /// Every month from the first entry's to the last entry's, empty months included.
  package var monthly: [MonthlyCashFlow] {
    guard let first = entries.first, let last = entries.last else { return [] }
    func monthStart(_ day: Int) -> Int {
      let c = CivilDate.components(days: day)
      return CivilDate.days(year: c.year, month: c.month, day: 1)
    }
    var months: [MonthlyCashFlow] = []
    var m = monthStart(first.day)
    while m <= last.day {
      months.append(MonthlyCashFlow(month: m))
      m = CivilDate.adding(months: 1, to: m)
    }
    var k = 0
    for e in entries {
      while CivilDate.adding(months: 1, to: months[k].month) <= e.day { k += 1 }
      if e.amount >= 0 { months[k].income += e.amount } else { months[k].expenses += e.amount }
    }
    return months
  }

  /// Totals per category, largest absolute net first (ties by name).
  package var byCategory: [CategoryCashFlow] {
    var rows: [String: CategoryCashFlow] = [:]
    for e in entries {
      var row = rows[e.category] ?? CategoryCashFlow(category: e.category)
      row.entries += 1
      if e.amount >= 0 { row.income += e.amount } else { row.expenses += e.amount }
      rows[e.category] = row
    }
    return rows.values.sorted { (abs($0.net), $1.category) > (abs($1.net), $0.category) }
  }

  /// Each month's net, dated the first day of the following month (when the
  /// month's surplus is known and can be invested; a deficit is withdrawn).
  /// Months that net to zero are left out.
  package var monthlyNetContributions: [DatedAmount] {
    monthly.filter { $0.net != 0 }.map { DatedAmount(day: CivilDate.adding(months: 1, to: $0.month), amount: $0.net) }
  }
}
