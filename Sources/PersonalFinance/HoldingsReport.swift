import BacktestCore
import Foundation

/// One holding of `backtest analyze`: a position known by its purchase and current prices, with its price history
/// and dividends when there are any.
public struct Holding: Sendable {
  /// The holding's name.
  public var name: String
  /// Shares held (more than 0).
  public var shares: Double
  /// The price paid for a share.
  public var purchasePrice: Double
  /// The purchase date (days since 1970-01-01).
  public var purchaseDay: Int
  /// A share's price on the analysis date.
  public var currentPrice: Double
  /// The date the holding is valued at (days since 1970-01-01), on or after the purchase.
  public var analysisDay: Int
  /// The fund's expense ratio, a fraction per year (`0.0035` = 0.35%).
  public var expenseRatio: Double
  /// The annual yield, a fraction per year.
  public var annualYield: Double
  /// Price history, when the holding names it (for the realized figures).
  public var bars: BarSeries?
  /// Dividend events, when the holding names them (for the realized figures).
  public var dividends: [Dividend]?

  /// A holding; without `bars` its figures are the estimates alone.
  public init(name: String, shares: Double, purchasePrice: Double, purchaseDay: Int, currentPrice: Double, analysisDay: Int,
              expenseRatio: Double, annualYield: Double, bars: BarSeries? = nil, dividends: [Dividend]? = nil) {
    self.bars = bars
    self.dividends = dividends
    self.name = name
    self.shares = shares
    self.purchasePrice = purchasePrice
    self.purchaseDay = purchaseDay
    self.currentPrice = currentPrice
    self.analysisDay = analysisDay
    self.expenseRatio = expenseRatio
    self.annualYield = annualYield
  }
}

/// The figures of one holding (`Docs/research.md`, "Holdings"; years held = days / 365).
public struct HoldingAnalysis: Sendable {
  /// The holding.
  public var holding: Holding
  /// Days from the purchase to the analysis date.
  public var daysHeld: Int
  /// `shares * purchase price`.
  public var initialInvestment: Double
  /// `shares * current price`.
  public var currentValue: Double
  /// `(current - purchase) * shares`.
  public var capitalAppreciation: Double
  /// `initial * annual yield * years held`.
  public var yieldIncome: Double
  /// `initial * expense ratio * years held`.
  public var expenses: Double
  /// `(appreciation + income) / initial`: the return with the fund's expenses counted once, since a market
  /// price (`current_price`) already has them taken out.
  public var grossReturn: Double
  /// `(appreciation + income - expenses) / initial`, as the seed analyzer computes it: on a market price this
  /// deducts the expenses a second time (by `expenses / initial`).
  public var netReturn: Double
  /// `((initial + net gain) / initial)^(365 / days) - 1`; nil for 0 days or a total loss.
  public var annualizedReturn: Double?
  /// Share of the portfolio's current value.
  public var allocation: Double
  /// From the holding's own bars and dividends, when given.
  public var realized: Realized?

  /// What the data says happened: closes on (or before) the two dates and the dividends in between.
  public struct Realized: Sendable {
    /// The close on (or before) the purchase date.
    public var startClose: Double
    /// The close on (or before) the analysis date.
    public var endClose: Double
    /// Dividends with an ex-date after the purchase date and on or before the analysis date, × shares.
    public var dividends: Double
    /// `(shares × end close + dividends) / initial investment - 1`.
    public var totalReturn: Double
    /// `(1 + totalReturn)^(365 / days held) - 1`; nil for 0 days or a total loss.
    public var annualizedReturn: Double?
  }

  init(_ h: Holding, totalCurrent: Double) {
    holding = h
    daysHeld = h.analysisDay - h.purchaseDay
    let years = Double(daysHeld) / 365
    initialInvestment = h.shares * h.purchasePrice
    currentValue = h.shares * h.currentPrice
    capitalAppreciation = (h.currentPrice - h.purchasePrice) * h.shares
    yieldIncome = initialInvestment * h.annualYield * years
    expenses = initialInvestment * h.expenseRatio * years
    grossReturn = (capitalAppreciation + yieldIncome) / initialInvestment
    netReturn = (capitalAppreciation + yieldIncome - expenses) / initialInvestment
    let final = initialInvestment + capitalAppreciation + yieldIncome - expenses
    annualizedReturn = daysHeld > 0 && final > 0 ? pow(final / initialInvestment, 365 / Double(daysHeld)) - 1 : nil
    allocation = totalCurrent > 0 ? currentValue / totalCurrent : 0
    if let bars = h.bars, let start = bars.day.lastIndex(where: { Int($0) <= h.purchaseDay }),
      let end = bars.day.lastIndex(where: { Int($0) <= h.analysisDay }) {
      let dividendsPerShare = (h.dividends ?? []).filter { $0.exDay > h.purchaseDay && $0.exDay <= h.analysisDay }.reduce(0) { $0 + $1.amount }
      let paid = dividendsPerShare * h.shares
      let growth = (h.shares * bars.close[end] + paid) / initialInvestment
      realized = Realized(startClose: bars.close[start], endClose: bars.close[end], dividends: paid, totalReturn: growth - 1,
                          annualizedReturn: daysHeld > 0 && growth > 0 ? pow(growth, 365 / Double(daysHeld)) - 1 : nil)
    }
  }
}

/// A portfolio of holdings and its totals.
public struct HoldingsReport: Sendable {
  /// Each holding's figures, in the order given.
  public var holdings: [HoldingAnalysis]
  /// The sum of the initial investments.
  public var totalInitial: Double
  /// The sum of the current values.
  public var totalCurrent: Double
  /// The sum of the capital appreciations.
  public var totalAppreciation: Double
  /// The sum of the estimated yield incomes.
  public var totalIncome: Double
  /// The sum of the estimated expenses.
  public var totalExpenses: Double
  /// Why `netReturn` and `grossReturn` differ, for the reports.
  package static let expensesNote = "Net return = (appreciation + income − expenses) / invested, as the seed analyzer computes it. "
    + "A market price already has the fund's expenses taken out (a fund pays them from its assets), so that deducts them a second time; "
    + "expenses once = (appreciation + income) / invested. The two differ by expenses / invested (expense ratio × years held)."
  /// Σ (initial_i / total initial) × annualized_i over holdings with an annualized return.
  public var weightedAnnualReturn: Double?

  /// The figures of `list` and their totals.
  public init(_ list: [Holding]) {
    let current = list.reduce(0) { $0 + $1.shares * $1.currentPrice }
    holdings = list.map { HoldingAnalysis($0, totalCurrent: current) }
    totalInitial = holdings.reduce(0) { $0 + $1.initialInvestment }
    totalCurrent = current
    totalAppreciation = holdings.reduce(0) { $0 + $1.capitalAppreciation }
    totalIncome = holdings.reduce(0) { $0 + $1.yieldIncome }
    totalExpenses = holdings.reduce(0) { $0 + $1.expenses }
    let withRate = holdings.filter { $0.annualizedReturn != nil }
    weightedAnnualReturn = withRate.isEmpty ? nil
      : withRate.reduce(0) { $0 + $1.initialInvestment / totalInitial * $1.annualizedReturn! }
  }

  /// The contract's columns, then the realized figures (empty without data).
  package static let columns = "name,shares,purchase_price,purchase_date,current_price,analysis_date,expense_ratio,annual_yield,days_held,initial_investment,current_value,capital_appreciation,yield_income,expenses,gross_return,net_return,annualized_return,allocation,realized_start_close,realized_end_close,realized_dividends,realized_return,realized_annualized_return"

  package var csv: String {
    var out = Self.columns + "\n"
    for a in holdings {
      let h = a.holding
      let fields: [String] = [csvField(h.name), formatNumber(h.shares), h.purchasePrice.description, CivilDate.isoDate(days: h.purchaseDay), h.currentPrice.description,
              CivilDate.isoDate(days: h.analysisDay), h.expenseRatio.description, h.annualYield.description, String(a.daysHeld),
              a.initialInvestment.description, a.currentValue.description, a.capitalAppreciation.description, a.yieldIncome.description,
              a.expenses.description, a.grossReturn.description, a.netReturn.description, a.annualizedReturn.map { $0.description } ?? "",
              a.allocation.description, a.realized.map { $0.startClose.description } ?? "", a.realized.map { $0.endClose.description } ?? "",
              a.realized.map { $0.dividends.description } ?? "", a.realized.map { $0.totalReturn.description } ?? "",
              a.realized?.annualizedReturn.map { $0.description } ?? ""]
      out += fields.joined(separator: ",") + "\n"
    }
    return out
  }

  /// Reads a holdings file: `analysis_date` (default for every holding) and a `holdings:` list; bar and dividend
  /// files a holding names are read from beside `file` (so this is the command line's, not an app's).
  package static func read(_ text: String, file: String) throws -> [Holding] {
    let directory = (file as NSString).deletingLastPathComponent
    let t = try ConfigTable(try YAMLReader.parse(text, file: file), path: "")
    let defaultDay = try t.date("analysis_date")
    guard let node = t.node("holdings"), case .sequence(let items) = node.kind, !items.isEmpty else {
      throw InputError("expected a non-empty list 'holdings:' of {name, shares, purchase_price, purchase_date, current_price, expense_ratio, annual_yield}",
                       at: t.location)
    }
    try t.finish()
    return try items.enumerated().map { k, item in
      let h = try ConfigTable(item, path: "holdings[\(k + 1)]")
      guard let name = try h.string("name"), !name.trimmingSpaces().isEmpty else {
        throw InputError("expected a non-empty 'name' for holding \(k + 1)", at: h.node("name")?.location ?? item.location)
      }
      func required(_ key: String, _ what: String, _ valid: @escaping (Double) -> Bool) throws -> Double {
        guard let v = try h.double(key, where: valid, expected: what) else {
          throw InputError("missing '\(key)' for holding '\(name)'; expected \(what)", at: item.location)
        }
        return v
      }
      let shares = try required("shares", "a number of shares > 0") { $0 > 0 }
      let purchase = try required("purchase_price", "a price > 0") { $0 > 0 }
      let current = try required("current_price", "a price > 0") { $0 > 0 }
      let expense = try h.fraction("expense_ratio", default: 0, expected: "an annual rate", bareAtMost: ConfigTable.bareRateLimit, where: { $0 >= 0 }) ?? 0
      let yield_ = try h.fraction("annual_yield", default: 0, expected: "an annual rate", bareAtMost: ConfigTable.bareRateLimit, where: { $0 >= 0 }) ?? 0
      guard let bought = try h.date("purchase_date") else {
        throw InputError("missing 'purchase_date' for holding '\(name)'; expected YYYY-MM-DD", at: item.location)
      }
      guard let analysis = try h.date("analysis_date") ?? defaultDay else {
        throw InputError("missing 'analysis_date' (for holding '\(name)' or at the top of the file); expected YYYY-MM-DD", at: item.location)
      }
      if analysis < bought {
        throw InputError("the analysis date \(CivilDate.isoDate(days: analysis)) is before the purchase date \(CivilDate.isoDate(days: bought)) of '\(name)'; expected analysis date >= purchase date",
                         at: h.node("purchase_date")!.location)
      }
      var bars: BarSeries?
      if let path = try h.string("bars") {
        let series = try BarCSVReader().read(file: resolvePath(path, relativeTo: directory))
        guard Int(series.day[0]) <= bought else {
          throw InputError("the bars of '\(name)' start on \(CivilDate.isoDate(days: Int(series.day[0]))), after its purchase date; expected bars from the purchase date on",
                           at: h.node("bars")!.location)
        }
        bars = series
      }
      var dividends: [Dividend]?
      if let path = try h.string("dividends") {
        let resolved = resolvePath(path, relativeTo: directory)
        dividends = try DividendReader.read(try readInputFile(resolved), file: resolved)
      }
      try h.finish()
      return Holding(name: name, shares: shares, purchasePrice: purchase, purchaseDay: bought, currentPrice: current, analysisDay: analysis,
                     expenseRatio: expense, annualYield: yield_, bars: bars, dividends: dividends)
    }
  }
}
