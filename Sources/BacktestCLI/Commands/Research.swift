import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation
import PersonalFinance

/// Prints rows as an aligned table (first column left, the rest right).
/// Prints `rows` under `header` in aligned columns; each cell (data files' names and categories among them) is
/// printed as `printable` makes it: cut to 80 characters, its control characters escaped.
func printTable(_ header: [String], _ rows: [[String]]) {
  let rows = rows.map { $0.map { printable($0) } }
  let widths = header.indices.map { k in ([header] + rows).map { $0[k].count }.max() ?? 0 }
  func line(_ cells: [String]) -> String {
    cells.enumerated().map { k, c in
      let pad = String(repeating: " ", count: widths[k] - c.count)
      return k == 0 ? c + pad : pad + c
    }.joined(separator: "  ")
  }
  print(line(header))
  print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
  for r in rows { print(line(r)) }
}

func markdownTable(_ header: [String], _ rows: [[String]]) -> String {
  "| " + header.joined(separator: " | ") + " |\n|" + header.indices.map { $0 == 0 ? "---|" : "---:|" }.joined() + "\n"
    + rows.map { "| " + $0.joined(separator: " | ") + " |\n" }.joined()
}

/// `backtest analyze HOLDINGS.yaml`: estimated returns of holdings without price history.
struct AnalyzeCommand {
  var path: String
  var out: String?

  static let spec = CommandSpec(
    "analyze", summary: "what holdings returned: appreciation, yield income, expenses, annualized return, allocation",
    arguments: [ArgumentSpec("HOLDINGS", "a holdings file: a path, or a name in Strategies/", completion: .runFile)],
    options: [.out("write holdings.csv, holdings.md and holdings.txt into this folder")],
    details: "For holdings without price history: income and expenses are estimated as initial investment × rate × days / 365; with bar and dividend files the realized return is shown beside the estimate.",
    examples: ["analyze Strategies/holdings.yaml", "analyze holdings.yaml --out /tmp/holdings"])

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, command: Self.spec, path: "analyze")
    guard a.positionals.count == 1 else { throw UsageError(message: "expected one holdings file: backtest analyze holdings.yaml") }
    path = RunFileArgument.locate(a.positionals[0])
    out = a.option("out")
  }

  func run() throws -> Int32 {
    let report = HoldingsReport(try HoldingsReport.read(String(decoding: try readInputFile(path), as: UTF8.self), file: path))
    let header = ["Holding", "Days", "Invested", "Value", "Appreciation", "Income", "Expenses", "Net return", "Expenses once", "Annualized",
                  "Allocation"]
    let rows = report.holdings.map { a in
      [a.holding.name, String(a.daysHeld), HumanFormat.money(a.initialInvestment), HumanFormat.money(a.currentValue),
       HumanFormat.money(a.capitalAppreciation), HumanFormat.money(a.yieldIncome), HumanFormat.money(a.expenses),
       HumanFormat.percent(a.netReturn), HumanFormat.percent(a.grossReturn), HumanFormat.percent(a.annualizedReturn),
       HumanFormat.percent(a.allocation)]
    }
    let total = ["Total", "", HumanFormat.money(report.totalInitial), HumanFormat.money(report.totalCurrent),
                 HumanFormat.money(report.totalAppreciation), HumanFormat.money(report.totalIncome), HumanFormat.money(report.totalExpenses),
                 HumanFormat.percent((report.totalAppreciation + report.totalIncome - report.totalExpenses) / report.totalInitial),
                 HumanFormat.percent((report.totalAppreciation + report.totalIncome) / report.totalInitial),
                 HumanFormat.percent(report.weightedAnnualReturn), "100.00%"]
    printTable(header, rows + [total])
    print(HoldingsReport.expensesNote)
    print("weighted annual return (by initial investment): \(HumanFormat.percent(report.weightedAnnualReturn))")
    let realizedHeader = ["Holding", "Close then", "Close now", "Dividends", "Realized return", "Annualized", "Estimated net return",
                          "Estimated, expenses once"]
    let realizedRows = report.holdings.compactMap { a -> [String]? in
      guard let r = a.realized else { return nil }
      return [a.holding.name, HumanFormat.price(r.startClose, decimals: 2), HumanFormat.price(r.endClose, decimals: 2), HumanFormat.money(r.dividends),
              HumanFormat.percent(r.totalReturn), HumanFormat.percent(r.annualizedReturn), HumanFormat.percent(a.netReturn),
              HumanFormat.percent(a.grossReturn)]
    }
    if !realizedRows.isEmpty {
      print("\nrealized from the holdings' bar and dividend files (next to the estimate):")
      printTable(realizedHeader, realizedRows)
    }
    guard let out else { return ExitCode.ok }
    let notes = "Estimates: yield income = initial investment × annual yield × years held; expenses = initial investment × expense ratio × years held; years held = days / 365; annualized = (final / initial)^(365 / days) − 1.\n\n"
      + HoldingsReport.expensesNote + " The realized return, from closes, has the expenses taken out once.\n"
    var text = "Portfolio analysis (\(path))\n\n"
    for a in report.holdings {
      text += "\(a.holding.name): \(formatNumber(a.holding.shares)) shares bought \(CivilDate.isoDate(days: a.holding.purchaseDay)) at \(HumanFormat.price(a.holding.purchasePrice)), now \(HumanFormat.price(a.holding.currentPrice)) (\(a.daysHeld) days)\n"
      text += "  invested \(HumanFormat.money(a.initialInvestment)), worth \(HumanFormat.money(a.currentValue)); appreciation \(HumanFormat.money(a.capitalAppreciation)), income \(HumanFormat.money(a.yieldIncome)), expenses \(HumanFormat.money(a.expenses))\n"
      text += "  net return \(HumanFormat.percent(a.netReturn)) (\(HumanFormat.percent(a.grossReturn)) with the expenses counted once), annualized \(HumanFormat.percent(a.annualizedReturn)), \(HumanFormat.percent(a.allocation)) of the portfolio\n"
    }
    text += "\nTotal invested \(HumanFormat.money(report.totalInitial)), worth \(HumanFormat.money(report.totalCurrent)); weighted annual return \(HumanFormat.percent(report.weightedAnnualReturn)).\n\n" + notes
    try AtomicWriter.write([ReportFile(name: "holdings.csv", contents: report.csv),
                            ReportFile(name: "holdings.md", contents: "# Portfolio analysis\n\n" + markdownTable(header, rows + [total]) + "\n"
                                       + (realizedRows.isEmpty ? "" : "## Realized from data\n\n" + markdownTable(realizedHeader, realizedRows) + "\n") + notes),
                            ReportFile(name: "holdings.txt", contents: text)], into: out)
    print("wrote holdings.csv, holdings.md, holdings.txt to \(out)/")
    return ExitCode.ok
  }
}

/// `backtest screen FILE`: ranks dividend ETFs.
struct ScreenCommand {
  var path: String
  var out: String?
  var sort: String
  var shares: Double?
  var top: Int?

  static let spec = CommandSpec(
    "screen", summary: "rank dividend ETFs by trailing yield, payments, 1-month performance and expense ratio",
    arguments: [ArgumentSpec("FILE", "a screen file (a universe of ETFs): a path, or a name in Strategies/", completion: .runFile)],
    options: [
      .option("sort", "KEY", "rank by", default: .value("score"), completion: .choices(["score", "yield", "performance"])),
      .option("shares", "N", "add what N shares pay per payment and per year"),
      .option("top", "N", "show the first N", default: .described("top: of the screen file, else 10")),
      .out("write screen.csv and screen.md into this folder"),
    ],
    details: "Score: the weights of the file's score: section (default yield 0.5, performance 0.3, low expense 0.2) × each factor scaled 0–1 across the universe. Historical data only: check upcoming ex-dates at the provider.",
    examples: ["screen Strategies/dividend-etfs.yaml", "screen dividend-etfs.yaml --sort yield --shares 100 --top 5"])

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, command: Self.spec, path: "screen")
    guard a.positionals.count == 1 else { throw UsageError(message: "expected one screen file: backtest screen Strategies/dividend-etfs.yaml") }
    path = RunFileArgument.locate(a.positionals[0])
    out = a.option("out")
    sort = try a.choice("sort")!
    if let s = a.option("shares") {
      guard let v = parseDecimal(s), v > 0, v <= ConfigTable.largestNumber else {
        throw UsageError(message: "expected a number > 0 up to 1e15 for '--shares', found '\(excerpt(s))'")
      }
      shares = v
    }
    top = try a.integer("top")
  }

  func run() throws -> Int32 {
    let t = try ConfigTable(try YAMLReader.parse(String(decoding: try readInputFile(path), as: UTF8.self), file: path), path: "")
    let directory = (path as NSString).deletingLastPathComponent
    let name = try t.string("name", default: "screen")!
    let zoneName = try t.string("timezone", default: "America/New_York")!
    guard let zone = TimeZone(identifier: zoneName) else { throw InputError("expected an IANA time zone for 'timezone', found '\(zoneName)'", at: t.node("timezone")!.location) }
    var weights = DividendScreener.Weights()
    let s = try t.table("score")
    weights.yield = try s.double("yield", default: weights.yield, where: { $0 >= 0 }, expected: "a weight >= 0")!
    weights.performance = try s.double("performance", default: weights.performance, where: { $0 >= 0 }, expected: "a weight >= 0")!
    weights.expense = try s.double("expense", default: weights.expense, where: { $0 >= 0 }, expected: "a weight >= 0")!
    try s.finish()
    let limit = try top ?? t.int("top", default: 10, in: 1...10_000)!
    guard let universe = t.node("universe"), case .sequence(let items) = universe.kind, !items.isEmpty else {
      throw InputError("expected a non-empty 'universe:' list of {symbol, bars, dividends, expense_ratio}", at: t.location)
    }
    try t.finish()
    var rows: [ScreenRow] = []
    for (k, item) in items.enumerated() {
      let u = try ConfigTable(item, path: "universe[\(k + 1)]")
      guard let symbol = try u.string("symbol"), let barsPath = try u.string("bars"), let divPath = try u.string("dividends") else {
        throw InputError("expected symbol, bars and dividends in 'universe[\(k + 1)]'", at: item.location)
      }
      let expense = try u.fraction("expense_ratio", default: 0, expected: "an annual rate", bareAtMost: ConfigTable.bareRateLimit,
                                   where: { $0 >= 0 }) ?? 0
      try u.finish()
      let bars = try BarCSVReader(timeZone: zone).read(file: resolvePath(barsPath, relativeTo: directory))
      let file = resolvePath(divPath, relativeTo: directory)
      let dividends = try DividendReader.read(try readInputFile(file), file: file, symbol: symbol)
      rows.append(DividendScreener.row(symbol: symbol, bars: bars, dividends: dividends, expenseRatio: expense))
    }
    DividendScreener.score(&rows, weights: weights)
    rows.sort {
      switch sort {
      case "yield": return ($0.trailingYield, $1.symbol) > ($1.trailingYield, $0.symbol)
      case "performance": return ($0.oneMonthReturn ?? -.infinity, $1.symbol) > ($1.oneMonthReturn ?? -.infinity, $0.symbol)
      default: return ($0.score, $1.symbol) > ($1.score, $0.symbol)
      }
    }
    rows = Array(rows.prefix(limit))
    var header = ["ETF", "Price", "TTM yield", "Last dividend", "Ex-date", "Frequency", "Annual dividend", "1M", "Avg volume", "Expense", "Score"]
    if shares != nil { header += ["Per payment", "Per year"] }
    let table = rows.map { r -> [String] in
      var cells = [r.symbol, HumanFormat.price(r.price, decimals: 2), HumanFormat.percent(r.trailingYield),
                   r.lastDividend.map { HumanFormat.price($0.amount, decimals: 4) } ?? "—", r.lastDividend.map { CivilDate.isoDate(days: $0.exDay) } ?? "—",
                   r.frequency.rawValue, r.annualDividend.map { HumanFormat.price($0, decimals: 4) } ?? "—", HumanFormat.percent(r.oneMonthReturn),
                   HumanFormat.integer(Int(r.averageVolume.rounded())), HumanFormat.percent(r.expenseRatio), String(format: "%.1f", r.score)]
      if let shares {
        cells += [r.lastDividend.map { HumanFormat.money($0.amount * shares) } ?? "—", r.annualDividend.map { HumanFormat.money($0 * shares) } ?? "—"]
      }
      return cells
    }
    printTable(header, table)
    let notice = "Data is historical: yields, dividends and dates come from the files as of their last bar. Upcoming ex-dates and amounts are not known here; check them at the fund provider. Score: \(formatPlain(weights.yield)) × yield + \(formatPlain(weights.performance)) × 1-month performance + \(formatPlain(weights.expense)) × low expense, each scaled 0–1 across this universe, × 100."
    print(notice)
    if let out {
      try AtomicWriter.write([ReportFile(name: "screen.csv", contents: DividendScreener.csv(rows)),
                              ReportFile(name: "screen.md", contents: "# Dividend ETF screen: \(name)\n\n" + markdownTable(header, table) + "\n" + notice + "\n")],
                             into: out)
      print("wrote screen.csv and screen.md to \(out)/")
    }
    return ExitCode.ok
  }
}

/// `backtest funds FILE...`: NAV performance of mutual funds.
struct FundsCommand {
  var files: [String]
  var out: String?
  var sort: FundPerformance.Period

  static let spec = CommandSpec(
    "funds", summary: "mutual-fund NAV performance over 1W, 1M, 6M, 1Y, 3Y and 5Y",
    arguments: [ArgumentSpec("FILE", "NAV histories: mfapi JSON (newest first) or date,nav CSV", count: .oneOrMore, completion: .file)],
    options: [
      .option("sort", "PERIOD", "rank by the total return over", default: .value(FundPerformance.Period.year.rawValue),
              completion: .choices(FundPerformance.Period.allCases.map(\.rawValue))),
      .out("write fund_performance.csv, funds.md and funds.html (the table and a NAV chart per fund) into this folder"),
    ],
    subcommands: [.fundSearch],
    details: "Total return, CAGR (a year or more) and annualized volatility per period; periods longer than the history show as unavailable. Fetch a fund's NAVs with fetch mf SCHEME_CODE; find its code with funds search.",
    examples: ["funds Data/funds/flexi_cap.json Data/funds/liquid.json", "funds Data/funds/flexi_cap.json --sort 3Y --out /tmp/funds",
               "funds search flexi cap direct"])

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, command: Self.spec, path: "funds")
    guard !a.positionals.isEmpty else { throw UsageError(message: "expected NAV files: backtest funds Data/funds/*.json") }
    files = a.positionals
    out = a.option("out")
    sort = FundPerformance.Period(rawValue: try a.choice("sort")!)!
  }

  func run() throws -> Int32 {
    var funds = try files.map { FundPerformance(try NAVHistory.read(try readInputFile($0), file: $0)) }
    func key(_ f: FundPerformance) -> Double { f.rows.first { $0.period == sort }?.totalReturn ?? -.infinity }
    funds.sort { (key($0), $1.history.name) > (key($1), $0.history.name) }
    let (header, rows) = FundsReport.table(funds)
    printTable(header, rows)
    print(FundsReport.conventions)
    if let out {
      try AtomicWriter.write([ReportFile(name: "fund_performance.csv", contents: FundPerformance.csv(funds)),
                              ReportFile(name: "funds.md", contents: "# Fund performance\n\n" + markdownTable(header, rows) + "\n" + FundsReport.conventions + "\n"),
                              ReportFile(name: "funds.html", contents: FundsReport.html(funds))], into: out)
      print("wrote fund_performance.csv, funds.md and funds.html to \(out)/")
    }
    return ExitCode.ok
  }
}
