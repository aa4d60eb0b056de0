import BacktestCore
import CommandLineSupport
import Foundation

/// Prints rows as an aligned table (first column left, the rest right).
func printTable(_ header: [String], _ rows: [[String]]) {
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

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, flags: [], options: ["out"])
    guard a.positionals.count == 1 else { throw UsageError(message: "expected one holdings file: backtest analyze holdings.yaml") }
    path = RunCommand.locate(a.positionals[0])
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

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, flags: [], options: ["out", "sort", "shares", "top"])
    guard a.positionals.count == 1 else { throw UsageError(message: "expected one screen file: backtest screen Strategies/dividend-etfs.yaml") }
    path = RunCommand.locate(a.positionals[0])
    out = a.option("out")
    sort = a.option("sort") ?? "score"
    guard ["score", "yield", "performance"].contains(sort) else { throw UsageError(message: "expected --sort score, yield or performance, found '\(sort)'") }
    if let s = a.option("shares") {
      guard let v = Double(s), v > 0 else { throw UsageError(message: "expected a number > 0 for '--shares', found '\(s)'") }
      shares = v
    }
    top = a.option("top") != nil ? try a.integer("top", default: 10) : nil
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
      let expense = try u.fraction("expense_ratio", default: 0, expected: "a fraction >= 0", where: { $0 >= 0 }) ?? 0
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

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, flags: [], options: ["out", "sort"])
    guard !a.positionals.isEmpty else { throw UsageError(message: "expected NAV files: backtest funds Data/funds/*.json") }
    files = a.positionals
    out = a.option("out")
    let s = a.option("sort") ?? "1Y"
    guard let p = FundPerformance.Period(rawValue: s.uppercased()) else {
      throw UsageError(message: "expected --sort 1W, 1M, 6M, 1Y, 3Y or 5Y (total return), found '\(s)'")
    }
    sort = p
  }

  func run() throws -> Int32 {
    var funds = try files.map { FundPerformance(try NAVHistory.read(try readInputFile($0), file: $0)) }
    func key(_ f: FundPerformance) -> Double { f.rows.first { $0.period == sort }?.totalReturn ?? -.infinity }
    funds.sort { (key($0), $1.history.name) > (key($1), $0.history.name) }
    let header = ["Fund", "NAV", "Day"] + FundPerformance.Period.allCases.map(\.rawValue) + ["CAGR 3Y", "Vol 1Y"]
    let rows = funds.map { f -> [String] in
      [f.history.name, String(format: "%.4f", f.latest), HumanFormat.percent(f.dailyChangeFraction)]
        + f.rows.map { HumanFormat.percent($0.totalReturn) }
        + [HumanFormat.percent(f.rows.first { $0.period == .threeYears }?.cagr), HumanFormat.percent(f.rows.first { $0.period == .year }?.volatility)]
    }
    printTable(header, rows)
    let conventions = "Periods start at the last NAV on or before the end date minus the period (calendar weeks, months, years); total return = end / start − 1; CAGR = (end / start)^(365 / days) − 1 for periods of a year or more; volatility = sample standard deviation of daily simple returns in (start, end] × √252; — where the history is too short."
    print(conventions)
    if let out {
      try AtomicWriter.write([ReportFile(name: "fund_performance.csv", contents: FundPerformance.csv(funds)),
                              ReportFile(name: "funds.md", contents: "# Fund performance\n\n" + markdownTable(header, rows) + "\n" + conventions + "\n"),
                              ReportFile(name: "funds.html", contents: FundReport.html(funds, header: header, rows: rows, conventions: conventions))],
                             into: out)
      print("wrote fund_performance.csv, funds.md and funds.html to \(out)/")
    }
    return ExitCode.ok
  }
}
