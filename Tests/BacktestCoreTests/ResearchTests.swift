import BacktestCore
import Foundation
import PersonalFinance
import Testing

@Suite struct ResearchTests {
  static let folder = Repo.fixtures + "/research"

  /// Compares `actual` CSV text with an expected file: rows matched by `key` columns, listed columns compared
  /// (numbers to 1e-9 relative, else exactly; empty must be empty).
  static func expectCSV(_ actual: String, expected path: String, key: [String]) throws {
    let e = try SimpleCSV(path: path), a = SimpleCSV(text: actual)
    #expect(a.rows.count == e.rows.count, "rows")
    func keyOf(_ row: [String], _ header: [String]) -> String { key.map { row[header.firstIndex(of: $0)!] }.joined(separator: "|") }
    let byKey = Dictionary(uniqueKeysWithValues: a.rows.map { (keyOf($0, a.header), $0) })
    for row in e.rows {
      let k = keyOf(row, e.header)
      let mine = try #require(byKey[k], "no row \(k)")
      for (c, column) in e.header.enumerated() {
        let x = row[c], y = mine[a.header.firstIndex(of: column)!]
        if let u = Double(x), let v = Double(y) {
          #expect(abs(u - v) <= 1e-9 * max(abs(u), abs(v), 1e-12), "\(k) \(column): expected \(x), found \(y)")
        } else {
          #expect(x == y, "\(k) \(column): expected '\(x)', found '\(y)'")
        }
      }
    }
  }

  @Test("analyze: every holding's figures equal the independent computation")
  func holdings() throws {
    let path = Repo.path("Strategies/holdings.yaml")
    let report = HoldingsReport(try HoldingsReport.read(try String(contentsOfFile: path, encoding: .utf8), file: path))
    try Self.expectCSV(report.csv, expected: Self.folder + "/holdings.csv", key: ["name"])
    #expect(report.csv.hasPrefix(HoldingsReport.columns + "\n"))
    // Weighted annual return: by initial investment, worked from the expected file.
    let e = try SimpleCSV(path: Self.folder + "/holdings.csv")
    let initial = e.column("initial_investment").map { Double($0)! }, annual = e.column("annualized_return").map { Double($0)! }
    let weighted = zip(initial, annual).reduce(0) { $0 + $1.0 / initial.reduce(0, +) * $1.1 }
    #expect(abs(report.weightedAnnualReturn! - weighted) < 1e-12)
  }

  @Test("analyze: a tiny case by hand — 10 shares 100 → 110 over 365 days, 4% yield, 1% expense")
  func holdingByHand() {
    let h = Holding(name: "X", shares: 10, purchasePrice: 100, purchaseDay: 0, currentPrice: 110, analysisDay: 365,
                    expenseRatio: 0.01, annualYield: 0.04)
    let a = HoldingsReport([h]).holdings[0]
    #expect(a.capitalAppreciation == 100 && a.yieldIncome == 40 && a.expenses == 10)
    #expect(a.grossReturn == 0.14 && abs(a.netReturn - 0.13) < 1e-15 && abs(a.annualizedReturn! - 0.13) < 1e-15 && a.allocation == 1)
  }

  @Test("analyze: invalid holdings are refused with the place named", arguments: [
    ("analysis_date: 2024-01-01\nholdings:\n  - {name: '', shares: 1, purchase_price: 1, purchase_date: 2023-01-01, current_price: 1}\n",
     "h.yaml:3:12: error: expected a non-empty 'name' for holding 1"),
    ("analysis_date: 2024-01-01\nholdings:\n  - {name: A, shares: 0, purchase_price: 1, purchase_date: 2023-01-01, current_price: 1}\n",
     "h.yaml:3:23: error: expected a number of shares > 0 for 'holdings[1].shares', found 0"),
    ("analysis_date: 2024-01-01\nholdings:\n  - {name: A, shares: 1, purchase_price: -2, purchase_date: 2023-01-01, current_price: 1}\n",
     "h.yaml:3:42: error: expected a price > 0 for 'holdings[1].purchase_price', found -2"),
    ("analysis_date: 2024-01-01\nholdings:\n  - {name: A, shares: 1, purchase_price: 1, purchase_date: 2023-01-01, current_price: 1, expense_ratio: -1%}\n",
     "h.yaml:3:105: error: expected an annual rate for 'holdings[1].expense_ratio', found -1%"),
    // A bare 0.35 is 35% as a fraction, but the analyzer app's users mean 0.35%: refused, both readings shown.
    ("analysis_date: 2024-01-01\nholdings:\n  - {name: A, shares: 1, purchase_price: 1, purchase_date: 2023-01-01, current_price: 1, expense_ratio: 0.35}\n",
     "h.yaml:3:105: error: expected an annual rate for 'holdings[1].expense_ratio', found 0.35, which reads as 35% as a fraction or as 0.35% (= 0.0035) as a percentage; a bare number above 0.2 is ambiguous here: write 0.35% or 35%"),
    ("analysis_date: 2024-01-01\nholdings:\n  - {name: A, shares: 1, purchase_price: 1, purchase_date: 2023-01-01, current_price: 1, annual_yield: 7.6}\n",
     "h.yaml:3:104: error: expected an annual rate for 'holdings[1].annual_yield', found 7.6, which reads as 760% as a fraction or as 7.6% (= 0.076) as a percentage; a bare number above 0.2 is ambiguous here: write 7.6% or 760%"),
    ("analysis_date: 2022-01-01\nholdings:\n  - {name: A, shares: 1, purchase_price: 1, purchase_date: 2023-01-01, current_price: 1}\n",
     "h.yaml:3:60: error: the analysis date 2022-01-01 is before the purchase date 2023-01-01 of 'A'; expected analysis date >= purchase date"),
  ])
  func holdingErrors(_ text: String, _ message: String) {
    do { _ = try HoldingsReport.read(text, file: "h.yaml"); Issue.record("no error") } catch { #expect("\(error)" == message) }
  }

  @Test("analyze: 0.35% and 0.0035 are the same expense ratio; a bare 0.2 or less is a fraction")
  func percentInputs() throws {
    func read(_ expense: String, _ yield: String) throws -> (Double, Double) {
      let h = try HoldingsReport.read("analysis_date: 2024-01-01\nholdings:\n  - {name: A, shares: 1, purchase_price: 1, purchase_date: 2023-01-01, current_price: 1, expense_ratio: \(expense), annual_yield: \(yield)}\n", file: "h.yaml")[0]
      return (h.expenseRatio, h.annualYield)
    }
    #expect(try read("0.35%", "7.6%") == (0.0035, 0.076))
    #expect(try read("0.0035", "0.076") == (0.0035, 0.076))
    #expect(try read("0.2", "20%") == (0.2, 0.2))
    #expect(try read("35%", "0") == (0.35, 0))
  }

  @Test("funds: every period of every sample fund equals the independent computation; short histories are unavailable")
  func funds() throws {
    let funds = try ["Data/funds/flexi_cap.json", "Data/funds/liquid.json", "Data/funds/young_fund.csv"].map {
      FundPerformance(try NAVHistory.read(try Data(contentsOf: URL(fileURLWithPath: Repo.path($0))), file: $0))
    }
    try Self.expectCSV(FundPerformance.csv(funds), expected: Self.folder + "/fund_performance.csv", key: ["fund", "period"])
    let young = funds[2].rows.first { $0.period == .threeYears }!
    #expect(young.totalReturn == nil && young.startDay == nil)
  }

  @Test("funds: periods clamp month ends, and the start is the last NAV on or before")
  func periods() {
    let march31 = CivilDate.days(year: 2024, month: 3, day: 31)
    #expect(CivilDate.isoDate(days: FundPerformance.Period.month.start(from: march31)) == "2024-02-29")
    #expect(CivilDate.isoDate(days: FundPerformance.Period.year.start(from: CivilDate.days(year: 2024, month: 2, day: 29))) == "2023-02-28")
    let history = NAVHistory(name: "f", days: [0, 3, 10, 14], navs: [10, 11, 12, 13])
    let week = FundPerformance(history).rows.first { $0.period == .week }!
    #expect(week.startDay == 3 && week.startNAV == 11 && week.totalReturn == 13.0 / 11 - 1)
  }

  @Test("screen: yields, frequencies, 1-month returns, volumes and scores equal the independent computation")
  func screen() throws {
    var rows: [ScreenRow] = []
    for (symbol, er) in [("INCM", 0.0035), ("DIVQ", 0.0006), ("HIYD", 0.006), ("VALU", 0.0008)] {
      let bars = try BarCSVReader().read(file: Repo.path("Data/etfs/\(symbol).csv"))
      let path = Repo.path("Data/etfs/\(symbol)_dividends.csv")
      rows.append(DividendScreener.row(symbol: symbol, bars: bars, dividends: try DividendReader.read(try Data(contentsOf: URL(fileURLWithPath: path)), file: path),
                                       expenseRatio: er))
    }
    DividendScreener.score(&rows, weights: .init())
    rows.sort { $0.score > $1.score }
    let csv = DividendScreener.csv(rows)
    try Self.expectCSV(csv, expected: Self.folder + "/screen.csv", key: ["symbol"])
  }

  @Test("payment frequency from ex-date spacing")
  func frequency() {
    func divs(_ gap: Int) -> [Dividend] { (0..<5).map { Dividend(exDay: $0 * gap, payDay: $0 * gap, amount: 1) } }
    #expect(PaymentFrequency.detect(divs(30)) == .monthly && PaymentFrequency.detect(divs(91)) == .quarterly)
    #expect(PaymentFrequency.detect(divs(182)) == .semiAnnual && PaymentFrequency.detect(divs(365)) == .annual)
    #expect(PaymentFrequency.detect(Array(divs(30).prefix(1))) == .unknown)
  }
}

@Suite struct CalendarTests {
  @Test("adding months clamps the day and crosses years both ways")
  func addingMonths() {
    func d(_ y: Int, _ m: Int, _ day: Int) -> Int { CivilDate.days(year: y, month: m, day: day) }
    #expect(CivilDate.adding(months: -1, to: d(2024, 3, 31)) == d(2024, 2, 29))
    #expect(CivilDate.adding(months: 1, to: d(2023, 1, 31)) == d(2023, 2, 28))
    #expect(CivilDate.adding(months: -13, to: d(2024, 1, 15)) == d(2022, 12, 15))
    #expect(CivilDate.adding(months: 24, to: d(2022, 11, 30)) == d(2024, 11, 30))
    #expect(CivilDate.adding(months: 0, to: d(2024, 2, 29)) == d(2024, 2, 29))
  }
}

@Suite struct SchemeNameTests {
  @Test("fund house, category, plan and option from scheme names as mfapi lists them", arguments: [
    ("HDFC Top 100 Fund - Direct Plan - Growth Option", "HDFC", "Large Cap", "Direct", "Growth"),
    ("ICICI Prudential Bluechip Fund - Direct Plan - IDCW", "ICICI Prudential", "Large Cap", "Direct", "IDCW"),
    ("Aditya Birla Sun Life Frontline Equity Fund - Growth - Regular Plan", "Aditya Birla Sun Life", "Large Cap", "Regular", "Growth"),
    ("SBI Liquid Fund - DIRECT PLAN -Weekly IDCW", "SBI", "Liquid", "Direct", "IDCW"),
    ("Axis Long Term Equity Fund - Regular Plan - Growth", "Axis", "ELSS", "Regular", "Growth"),
    ("UTI Nifty 50 Index Fund - Growth Option- Direct", "UTI", "Index", "Direct", "Growth"),
    ("HDFC Dividend Yield Fund - Direct Plan - Growth Option", "HDFC", "Dividend Yield", "Direct", "Growth"),
    ("Kotak Emerging Equity Scheme - Dividend - Regular Plan", "Kotak", "Equity (other)", "Regular", "IDCW"),
    ("quant Small Cap Fund - Growth Option - Direct Plan", "quant", "Small Cap", "Direct", "Growth"),
    ("Nippon India Large & Midcap Fund - Direct Plan Growth Plan - Growth Option", "Nippon India", "Large & Mid Cap", "Direct", "Growth"),
    ("Grindlays Super Saver Income Fund-GSSIF-Half Yearly Dividend", "Grindlays", "Debt (other)", "—", "IDCW"),
    ("Axis Bluechip Fund - Regular Plan - Income Distribution cum Capital Withdrawal [Option]", "Axis", "Large Cap", "Regular", "IDCW"),
    // "Income" here names the option, not a debt fund.
    ("Quant Active Fund - Income Distribution Cum Capital Withdrawal Option - Direct Plan", "quant", "—", "Direct", "IDCW"),
  ])
  func names(_ name: String, _ house: String, _ category: String, _ plan: String, _ option: String) {
    let info = SchemeNameInfo(name: name)
    #expect(info.fundHouse == house && (info.category ?? "—") == category && (info.plan ?? "—") == plan && (info.option ?? "—") == option,
            "\(info)")
  }
}
