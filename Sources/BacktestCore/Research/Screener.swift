import Foundation

/// One dividend: per share, earned by shares held at the close before `exDay`, paid on `payDay`.
public struct Dividend: Sendable, Equatable {
  public var exDay: Int
  public var payDay: Int
  public var amount: Double

  public init(exDay: Int, payDay: Int, amount: Double) {
    self.exDay = exDay
    self.payDay = payDay
    self.amount = amount
  }
}

/// Reads dividend files: `ex_date,pay_date,amount` (optionally `symbol`).
public enum DividendReader {
  public static func read(_ data: Data, file: String, symbol: String? = nil) throws -> [Dividend] {
    var out: [Dividend] = []
    try [UInt8](data).withUnsafeBufferPointer { b in
      var scanner = CSVScanner(bytes: b, file: file)
      var fields: [CSVField] = []
      guard try scanner.next(into: &fields) else { throw InputError("empty file; expected 'ex_date,pay_date,amount'", at: SourceLocation(file: file, line: 1, column: 1)) }
      let header = fields.map { scanner.text($0).lowercased().trimmingSpaces() }
      guard let e = header.firstIndex(of: "ex_date"), let a = header.firstIndex(of: "amount") else {
        throw InputError("expected a header with ex_date, pay_date and amount, found '\(header.joined(separator: ","))'", at: SourceLocation(file: file, line: 1, column: 1))
      }
      let p = header.firstIndex(of: "pay_date"), s = header.firstIndex(of: "symbol")
      while try scanner.next(into: &fields) {
        guard fields.count == header.count else {
          throw InputError("expected \(header.count) fields as in the header, found \(fields.count)", at: SourceLocation(file: file, line: scanner.line, column: 1))
        }
        if let s, let symbol, scanner.text(fields[s]) != symbol { continue }
        func day(_ k: Int) throws -> Int {
          guard case .date(let d)? = parseTimestamp(b, fields[k].start, fields[k].end) else {
            throw InputError("expected a date YYYY-MM-DD, found '\(scanner.shown(fields[k]))'", at: scanner.location(fields[k]))
          }
          return d
        }
        guard let amount = parseDecimal(b, fields[a].start, fields[a].end), amount.isFinite, amount > 0 else {
          throw InputError("expected a positive amount per share, found '\(scanner.shown(fields[a]))'", at: scanner.location(fields[a]))
        }
        let ex = try day(e)
        let pay = try p.map(day) ?? ex
        if pay < ex { throw InputError("the pay date is before the ex-date; expected pay_date >= ex_date", at: scanner.location(fields[p!])) }
        if let last = out.last, ex <= last.exDay {
          throw InputError("ex-dates must increase; this one is not after \(CivilDate.isoDate(days: last.exDay))", at: scanner.location(fields[e]))
        }
        out.append(Dividend(exDay: ex, payDay: pay, amount: amount))
      }
    }
    return out
  }
}

/// How often a fund pays, from the spacing of its ex-dates.
public enum PaymentFrequency: String, Sendable {
  case monthly, quarterly, semiAnnual = "semi-annual", annual, unknown
  public var perYear: Double? {
    switch self { case .monthly: 12; case .quarterly: 4; case .semiAnnual: 2; case .annual: 1; case .unknown: nil }
  }
  /// The median gap of the last (up to) eight ex-dates: ≤ 45 days monthly, ≤ 135 quarterly, ≤ 270 semi-annual, else annual.
  public static func detect(_ dividends: [Dividend]) -> PaymentFrequency {
    let recent = dividends.suffix(8)
    guard recent.count >= 2 else { return .unknown }
    let gaps = zip(recent, recent.dropFirst()).map { $1.exDay - $0.exDay }.sorted()
    let median = gaps.count % 2 == 1 ? Double(gaps[gaps.count / 2]) : Double(gaps[gaps.count / 2 - 1] + gaps[gaps.count / 2]) / 2
    return median <= 45 ? .monthly : median <= 135 ? .quarterly : median <= 270 ? .semiAnnual : .annual
  }
}

/// One ETF of the screen, as of its last bar.
public struct ScreenRow: Sendable {
  public var symbol: String
  public var asOfDay: Int
  public var price: Double
  /// Dividends with ex-date in the 365 days up to the last bar, over the price.
  public var trailingYield: Double
  public var lastDividend: Dividend?
  public var frequency: PaymentFrequency
  /// Last dividend × payments per year (a forward estimate).
  public var annualDividend: Double?
  /// Close over the close one calendar month earlier (the last bar on or before), minus 1.
  public var oneMonthReturn: Double?
  /// Mean volume of the last 21 bars.
  public var averageVolume: Double
  public var expenseRatio: Double
  /// 0–100: weighted min–max scores of yield, performance and (low) expense across the universe.
  public var score = 0.0
}

/// The dividend-ETF screener of `backtest screen`.
public enum DividendScreener {
  /// Score weights (the documented default: yield 0.5, 1-month performance 0.3, expense ratio 0.2).
  public struct Weights: Sendable, Equatable {
    public var yield = 0.5, performance = 0.3, expense = 0.2
    public init() {}
  }

  public static func row(symbol: String, bars: BarSeries, dividends: [Dividend], expenseRatio: Double) -> ScreenRow {
    let n = bars.count
    let asOf = Int(bars.day[n - 1])
    let price = bars.close[n - 1]
    let ttm = dividends.filter { $0.exDay > asOf - 365 && $0.exDay <= asOf }.reduce(0) { $0 + $1.amount }
    let paid = dividends.filter { $0.exDay <= asOf }
    let frequency = PaymentFrequency.detect(paid)
    let monthAgo = FundPerformance.Period.month.start(from: asOf)
    let previous = (0..<n).last { Int(bars.day[$0]) <= monthAgo }
    let volumes = bars.volume.suffix(21)
    return ScreenRow(symbol: symbol, asOfDay: asOf, price: price, trailingYield: ttm / price, lastDividend: paid.last, frequency: frequency,
                     annualDividend: frequency.perYear.flatMap { f in paid.last.map { $0.amount * f } },
                     oneMonthReturn: previous.map { price / bars.close[$0] - 1 },
                     averageVolume: volumes.reduce(0, +) / Double(max(1, volumes.count)), expenseRatio: expenseRatio)
  }

  /// Scores the rows in place: each factor scaled 0–1 across the universe (1 for the best), weighted, × 100.
  public static func score(_ rows: inout [ScreenRow], weights w: Weights) {
    func scaled(_ values: [Double?]) -> [Double] {
      let defined = values.compactMap { $0 }
      guard let lo = defined.min(), let hi = defined.max() else { return values.map { _ in 0 } }
      return values.map { v in v.map { hi > lo ? ($0 - lo) / (hi - lo) : 1 } ?? 0 }
    }
    let y = scaled(rows.map(\.trailingYield)), p = scaled(rows.map(\.oneMonthReturn)), e = scaled(rows.map { -$0.expenseRatio })
    let total = w.yield + w.performance + w.expense
    for k in rows.indices {
      rows[k].score = total > 0 ? 100 * (w.yield * y[k] + w.performance * p[k] + w.expense * e[k]) / total : 0
    }
  }

  public static let columns = "rank,symbol,as_of,price,trailing_yield,last_dividend,last_ex_date,frequency,annual_dividend,one_month_return,average_volume,expense_ratio,score"

  public static func csv(_ rows: [ScreenRow]) -> String {
    var out = columns + "\n"
    for (k, r) in rows.enumerated() {
      out += [String(k + 1), r.symbol, CivilDate.isoDate(days: r.asOfDay), r.price.description, r.trailingYield.description,
              r.lastDividend.map { $0.amount.description } ?? "", r.lastDividend.map { CivilDate.isoDate(days: $0.exDay) } ?? "",
              r.frequency.rawValue, r.annualDividend.map { $0.description } ?? "", r.oneMonthReturn.map { $0.description } ?? "",
              r.averageVolume.description, r.expenseRatio.description, r.score.description].joined(separator: ",") + "\n"
    }
    return out
  }
}
