import BacktestCore
import Foundation
import PersonalFinance
import Testing

@Suite struct LedgerAnalysisTests {
  static let folder = Repo.fixtures + "/ledger"

  static func read(_ relative: String) throws -> CashFlowLedger {
    try LedgerReader.read(try Data(contentsOf: URL(fileURLWithPath: Repo.path(relative))), file: relative)
  }

  static func budgets(for ledger: CashFlowLedger) throws -> LedgerBudgets {
    let path = Repo.path("Data/tracker_budgets.yaml")
    return try LedgerBudgets.parse(try String(contentsOfFile: path, encoding: .utf8), file: path,
                                   categories: Array(Set(ledger.entries.map(\.category))))
  }

  @Test("the CSV ledger's months, categories and recurring items equal the independent computation (make.py)")
  func csvLedger() throws {
    let a = LedgerAnalysis(try Self.read("Data/ledger.csv"))
    #expect(LedgerReport.monthlyCSV(a).hasPrefix("month,income,expenses,net,savings_rate\n"))
    #expect(LedgerReport.categoriesCSV(a).hasPrefix("month,category,amount,share\n"))
    try ResearchTests.expectCSV(LedgerReport.monthlyCSV(a), expected: Self.folder + "/csv_monthly.csv", key: ["month"])
    try ResearchTests.expectCSV(LedgerReport.categoriesCSV(a), expected: Self.folder + "/csv_categories.csv", key: ["month", "category"])
    try ResearchTests.expectCSV(LedgerReport.recurringCSV(a), expected: Self.folder + "/csv_recurring.csv", key: ["category", "amount", "first_month"])
    #expect(a.recurring.map(\.category) == ["rent", "salary"])
  }

  @Test("the tracker's JSON export: months, categories, budgets, recurring items and the split by account and owner equal make.py")
  func export() throws {
    let ledger = try Self.read("Data/tracker_export.json")
    let a = LedgerAnalysis(ledger, budgets: try Self.budgets(for: ledger))
    try ResearchTests.expectCSV(LedgerReport.monthlyCSV(a), expected: Self.folder + "/export_monthly.csv", key: ["month"])
    try ResearchTests.expectCSV(LedgerReport.categoriesCSV(a), expected: Self.folder + "/export_categories.csv", key: ["month", "category"])
    try ResearchTests.expectCSV(LedgerReport.budgetsCSV(a), expected: Self.folder + "/export_budgets.csv", key: ["month", "category"])
    try ResearchTests.expectCSV(LedgerReport.recurringCSV(a), expected: Self.folder + "/export_recurring.csv",
                                key: ["category", "amount", "first_month"])
    for grouping in LedgerGrouping.allCases {
      let parts = LedgerAnalysis.groups(ledger, by: grouping).map { (name: $0.name, analysis: LedgerAnalysis($0.ledger)) }
      let file = try #require(LedgerReport.files(a, title: "t", source: "s", groups: (grouping, parts)).first { $0.name == "ledger_monthly_by_\(grouping.rawValue).csv" })
      try ResearchTests.expectCSV(file.contents, expected: Self.folder + "/export_monthly_by_\(grouping.rawValue).csv", key: [grouping.rawValue, "month"])
    }
    // The late dinner at 23:30 New York time on 31 March is a March expense (the day as written, not UTC's 1 April).
    #expect(ledger.entries.contains { $0.note == "Late dinner" && CivilDate.isoDate(days: $0.day) == "2024-03-31" })
  }

  @Test("worked by hand: a month without income has no savings rate, a refund is income, shares add up to 1")
  func byHand() throws {
    let text = "date,amount,category,note\n2024-01-05,1000,salary,\n2024-01-09,-300,rent,\n2024-01-20,-100,food,\n2024-01-21,25,food,refund\n"
      + "2024-03-02,-50,food,\n"
    let a = LedgerAnalysis(try LedgerReader.read(Data(text.utf8), file: "l.csv"))
    #expect(LedgerReport.monthlyCSV(a) == "month,income,expenses,net,savings_rate\n2024-01,1025.0,400.0,625.0,0.6097560975609756\n"
      + "2024-02,0.0,0.0,0.0,\n2024-03,0.0,50.0,-50.0,\n")
    #expect(LedgerReport.categoriesCSV(a) == "month,category,amount,share\n2024-01,rent,300.0,0.75\n2024-01,food,100.0,0.25\n2024-03,food,50.0,1.0\n")
    #expect(a.totalIncome == 1025 && a.totalExpenses == 450 && a.recurring.isEmpty)
  }

  @Test("recurring: three consecutive months of one category and amount; a gap starts a new run; two months are not enough")
  func recurring() throws {
    var text = "date,amount,category,note\n"
    for (month, day) in [(1, 3), (2, 4), (3, 2), (5, 3), (6, 3)] { text += "2024-0\(month)-0\(day),-9.99,streaming,tv\n" }
    text += "2024-01-01,-12.50,streaming,other\n2024-02-01,-12.50,streaming,other\n2024-06-28,-1,misc,\n"
    let a = LedgerAnalysis(try LedgerReader.read(Data(text.utf8), file: "l.csv"))
    #expect(a.recurring.count == 1)
    let r = try #require(a.recurring.first)
    #expect(r.category == "streaming" && r.amount == -9.99 && r.months == 3 && r.dayOfMonth == 3 && !r.active && r.note == "tv")
    #expect(LedgerAnalysis.label(r.firstMonth) == "2024-01" && LedgerAnalysis.label(r.lastMonth) == "2024-03")
  }

  @Test("an export's dates with fractions of a second (as JavaScript writes them) read as their day")
  func fractionalSeconds() throws {
    let text = "[{\"date\": \"2024-05-18T12:25:00.123Z\", \"category\": \"pay\", \"type\": \"income\", \"amount\": 10},\n"
      + " {\"date\": \"2024-05-31T23:30:00,5-02:00\", \"category\": \"food\", \"type\": \"expense\", \"amount\": \"2.5\"},\n"
      + " {\"date\": \"2024-06-01T00:00:00.000Z\", \"category\": \"pay\", \"type\": \"income\", \"amount\": 1}]"
    let ledger = try LedgerReader.read(Data(text.utf8), file: "e.json")
    #expect(ledger.entries.map(\.day) == [CivilDate.days(year: 2024, month: 5, day: 18), CivilDate.days(year: 2024, month: 5, day: 31),
                                          CivilDate.days(year: 2024, month: 6, day: 1)])
    #expect(ledger.entries.map(\.amount) == [10, -2.5, 1])
    // A point with no digits after it is no fraction.
    #expect(throws: InputError.self) {
      try LedgerReader.read(Data("[{\"date\": \"2024-05-18T12:25:00.Z\", \"category\": \"a\", \"type\": \"income\", \"amount\": 1}]".utf8), file: "e.json")
    }
  }

  @Test("bad ledgers, exports and budgets are refused with the place named and what was expected", arguments: [
    ("l.csv", "date,amount,category,note\n2024-01-02,-10,food,\n2024-13-01,-5,food,\n",
     "l.csv:3:1: error: expected a date YYYY-MM-DD, found '2024-13-01'"),
    ("l.csv", "date,amount,category,note\n2024-01-02,\"-1,200.50\",rent,\n",
     "l.csv:2:12: error: expected an amount without a thousands separator, found '-1,200.50'; write -1200.50"),
    ("l.csv", "date,amount,category,note\n2024-01-02,-1,200.50,rent,\n",
     "l.csv:2:12: error: expected an amount without a thousands separator, found '-1,200.50' (read as two fields); write -1200.50"),
    ("e.json", "[{\"id\": \"a\", \"date\": \"2024-01-02T12:00:00Z\", \"category\": \"food\", \"type\": \"expense\", \"amount\": 5},\n {\"id\": \"b\", \"date\": \"2024-01-03T12:00:00Z\", \"category\": \"food\", \"amount\": 5}]",
     "e.json:2:2: error: transaction 2 (id b): missing 'type'; expected income or expense"),
    ("e.json", "[{\"id\": 7, \"date\": \"2024-01-02\", \"category\": \"food\", \"type\": \"expence\", \"amount\": 5}]",
     "e.json:1:62: error: transaction 1 (id 7): expected income or expense for 'type', found 'expence'; did you mean 'expense'?"),
    ("e.json", "[{\"id\": \"a\", \"date\": \"02/01/2024\", \"category\": \"food\", \"type\": \"expense\", \"amount\": 5}]",
     "e.json:1:22: error: transaction 1 (id a): expected an ISO 8601 date such as 2026-02-10T12:00:00Z for 'date', found '02/01/2024'"),
    ("e.json", "[{\"id\": \"a\", \"date\": \"2024-01-02\", \"category\": \"food\", \"type\": \"expense\", \"amount\": -5}]",
     "e.json:1:85: error: transaction 1 (id a): expected a positive number for 'amount' (the type gives the sign), found -5"),
    ("e.json", "[{\"id\": \"a\", \"date\": \"2024-01-02\", \"category\": \"food\", \"type\": \"expense\", \"amount\": 1e17}]",
     "e.json:1:85: error: transaction 1 (id a): expected an amount of at most 1e15 for 'amount', found 1e17"),
    ("e.json", "[{\"id\": \"a\", \"date\": \"2024-01-02\", \"category\": \"food\", \"type\": \"expense\", \"amount\": \"0x1p10\"}]",
     "e.json:1:85: error: transaction 1 (id a): expected a positive number for 'amount' (the type gives the sign), found '0x1p10'"),
    ("e.json", "[{\"id\": 7, \"date\": \"2024-01-02\", \"category\": \"food\", \"type\": \"expense\", \"amount\": 5},\n {\"id\": 7, \"date\": \"2024-01-02\", \"category\": \"food\", \"type\": \"expense\", \"amount\": 5}]",
     "e.json:2:9: error: transaction 2 (id 7): expected each transaction once, found the id of transaction 1 (line 1, column 9) again (is the export in the file twice?)"),
    ("e.json", "{\"transactions\": []}", "e.json:1:1: error: expected a list of transactions (id, date, description, category, type, amount, account, owner, notes), found an object"),
  ])
  func errors(_ file: String, _ text: String, _ message: String) {
    do {
      _ = try LedgerReader.read(Data(text.utf8), file: file)
      Issue.record("accepted")
    } catch {
      #expect("\(error)" == message)
    }
  }

  @Test("a budget for a category the ledger does not have is refused with the closest one suggested")
  func unknownBudget() throws {
    #expect(throws: InputError("unknown category 'grocerys' in the budgets (no transaction of the ledger has it); did you mean 'groceries'?",
                               at: SourceLocation(file: "b.yaml", line: 2, column: 1))) {
      try LedgerBudgets.parse("rent: 1500\ngrocerys: 400\n", file: "b.yaml", categories: ["groceries", "rent"])
    }
    #expect(throws: InputError("expected a monthly budget > 0 for 'rent', found -1", at: SourceLocation(file: "b.yaml", line: 1, column: 7))) {
      try LedgerBudgets.parse("rent: -1\n", file: "b.yaml", categories: ["rent"])
    }
  }
}
