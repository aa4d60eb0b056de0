import Foundation

/// One line of an income/expense tracker: income positive, expenses negative.
public struct LedgerEntry: Sendable, Equatable {
  /// Days since 1970-01-01.
  public var day: Int
  public var amount: Double
  public var category: String
  public var note: String

  public init(day: Int, amount: Double, category: String, note: String = "") {
    self.day = day
    self.amount = amount
    self.category = category
    self.note = note
  }
}

/// Income, expenses and their net in one calendar month.
public struct MonthlyCashFlow: Sendable, Equatable {
  /// The first day of the month (days since 1970).
  public var month: Int
  public var income = 0.0
  /// Negative (the sum of the negative amounts).
  public var expenses = 0.0
  public var net: Double { income + expenses }
}

/// Income, expenses and net of one category over the whole ledger.
public struct CategoryCashFlow: Sendable, Equatable {
  public var category: String
  public var entries = 0
  public var income = 0.0
  public var expenses = 0.0
  public var net: Double { income + expenses }
}

/// A ledger of dated deposits and withdrawals (`date,amount,category,note`).
public struct CashFlowLedger: Sendable, Equatable {
  /// Entries in date order (entries of one day keep their file order).
  public var entries: [LedgerEntry]

  public init(entries: [LedgerEntry]) {
    self.entries = entries.enumerated().sorted { ($0.element.day, $0.offset) < ($1.element.day, $1.offset) }.map(\.element)
  }

  /// Every month from the first entry's to the last entry's, empty months included.
  public var monthly: [MonthlyCashFlow] {
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
  public var byCategory: [CategoryCashFlow] {
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
  public var monthlyNetContributions: [DatedAmount] {
    monthly.filter { $0.net != 0 }.map { DatedAmount(day: CivilDate.adding(months: 1, to: $0.month), amount: $0.net) }
  }
}

/// Reads ledger files: a header naming `date` and `amount`, optionally `category` and `note`.
public enum LedgerReader {
  public static func read(_ data: Data, file: String) throws -> CashFlowLedger {
    var entries: [LedgerEntry] = []
    try [UInt8](data).withUnsafeBufferPointer { b in
      var scanner = CSVScanner(bytes: b, file: file)
      var fields: [CSVField] = []
      let start = SourceLocation(file: file, line: 1, column: 1)
      guard try scanner.next(into: &fields) else { throw InputError("empty file; expected 'date,amount,category,note'", at: start) }
      let header = fields.map { scanner.text($0).lowercased().trimmingSpaces() }
      guard let d = header.firstIndex(of: "date"), let a = header.firstIndex(of: "amount") else {
        throw InputError("expected a header with date and amount (and optionally category, note), found '\(header.joined(separator: ","))'", at: start)
      }
      let c = header.firstIndex(of: "category"), n = header.firstIndex(of: "note")
      while try scanner.next(into: &fields) {
        guard fields.count == header.count else {
          throw InputError("expected \(header.count) fields as in the header, found \(fields.count)", at: SourceLocation(file: file, line: scanner.line, column: 1))
        }
        guard case .date(let day)? = parseTimestamp(b, fields[d].start, fields[d].end) else {
          throw InputError("expected a date YYYY-MM-DD, found '\(scanner.shown(fields[d]))'", at: scanner.location(fields[d]))
        }
        guard let amount = parseDecimal(b, fields[a].start, fields[a].end), amount.isFinite else {
          throw InputError("expected an amount (income positive, expenses negative), found '\(scanner.shown(fields[a]))'", at: scanner.location(fields[a]))
        }
        let category = c.map { scanner.text(fields[$0]).trimmingSpaces() } ?? ""
        entries.append(LedgerEntry(day: day, amount: amount, category: category.isEmpty ? "uncategorized" : category,
                                   note: n.map { scanner.text(fields[$0]) } ?? ""))
      }
      if entries.isEmpty { throw InputError("no entries; expected lines of date,amount,category,note after the header", at: start) }
    }
    return CashFlowLedger(entries: entries)
  }
}

/// One dated amount for `xirr`: negative when the investor pays in, positive when paid out.
public struct DatedAmount: Sendable, Equatable {
  /// Days since 1970-01-01.
  public var day: Int
  public var amount: Double

  public init(day: Int, amount: Double) {
    self.day = day
    self.amount = amount
  }
}
