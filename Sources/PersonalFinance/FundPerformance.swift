import BacktestCore
import BacktestRun
import Foundation

/// A fund's NAV history, oldest first.
public struct NAVHistory: Sendable {
  /// The fund's name (the API's scheme name, or the file's name).
  public var name: String
  /// The NAV dates, as days since 1970-01-01, increasing.
  public var days: [Int]
  /// The NAV on each of `days`.
  public var navs: [Double]

  /// A history of `navs` on `days` (days since 1970-01-01, increasing; one NAV per day).
  public init(name: String, days: [Int], navs: [Double]) {
    self.name = name
    self.days = days
    self.navs = navs
  }

  /// Reads the Indian mutual-fund API's JSON (`{"meta": {...}, "data": [{"date": "DD-MM-YYYY", "nav": "123.45"}]}`,
  /// newest first) or a `date,nav` CSV (dates `YYYY-MM-DD` or `DD-MM-YYYY`).
  ///
  /// - Parameter file: the name errors give as the place.
  /// - Throws: `InputError` at the line and column that is wrong, or when there is no NAV.
  public static func read(_ data: Data, file: String) throws -> NAVHistory {
    var rows: [(Int, Double)] = []
    var name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
    if let first = data.first(where: { !$0.isWhitespace }), first == UInt8(ascii: "{") {
      let scheme = try MutualFundAPI.parseScheme(data, file: file)
      if let n = scheme.meta.first(where: { $0.0 == "scheme_name" })?.1, case .string(let text) = n { name = escapingControlCharacters(excerpt(text, limit: 200)) }
      else if let code = scheme.meta.first(where: { $0.0 == "scheme_code" })?.1 { name = code.rendered().replacingOccurrences(of: "\"", with: "") }
      rows = scheme.navs.map { ($0.day, parseDecimal($0.nav)!) }
    } else {
      let bytes = [UInt8](data)
      try bytes.withUnsafeBufferPointer { b in
        var scanner = CSVScanner(bytes: b, file: file)
        var fields: [CSVField] = []
        guard try scanner.next(into: &fields) else { throw InputError("empty file; expected 'date,nav'", at: SourceLocation(file: file, line: 1, column: 1)) }
        let header = fields.map { scanner.text($0).lowercased().trimmingSpaces() }
        guard let dc = header.firstIndex(of: "date"), let nc = header.firstIndex(of: "nav") else {
          throw InputError("expected a header with 'date' and 'nav', found '\(excerpt(header.joined(separator: ",")))'", at: SourceLocation(file: file, line: 1, column: 1))
        }
        while try scanner.next(into: &fields) {
          guard fields.count == header.count else {
            throw InputError("expected \(header.count) fields as in the header, found \(fields.count)", at: SourceLocation(file: file, line: scanner.line, column: 1))
          }
          guard let d = day(scanner.text(fields[dc])) else {
            throw InputError("expected a date YYYY-MM-DD or DD-MM-YYYY, found '\(scanner.shown(fields[dc]))'", at: scanner.location(fields[dc]))
          }
          guard let nav = parseDecimal(b, fields[nc].start, fields[nc].end), nav.isFinite, nav > 0 else {
            throw InputError("expected a positive number for 'nav', found '\(scanner.shown(fields[nc]))'", at: scanner.location(fields[nc]))
          }
          guard BarCSVReader.priceRange.contains(nav) else {
            throw InputError("expected a price from 1e-12 to 1e12 for 'nav', found '\(scanner.shown(fields[nc]))'", at: scanner.location(fields[nc]))
          }
          rows.append((d, nav))
        }
      }
    }
    rows.sort { $0.0 < $1.0 }
    for (a, b) in zip(rows, rows.dropFirst()) where a.0 == b.0 {
      throw InputError("two NAVs for \(CivilDate.isoDate(days: a.0)); expected one per date", file: file)
    }
    if rows.isEmpty { throw InputError("no NAVs; expected at least one", file: file) }
    return NAVHistory(name: name, days: rows.map(\.0), navs: rows.map(\.1))
  }

  static func day(_ s: String) -> Int? {
    let p = s.trimmingSpaces().split(separator: "-")
    guard p.count == 3, let a = Int(p[0]), let b = Int(p[1]), let c = Int(p[2]) else { return nil }
    let (y, m, d) = p[0].count == 4 ? (a, b, c) : (c, b, a)
    guard (1...12).contains(m), d >= 1, d <= CivilDate.daysInMonth(year: y, month: m) else { return nil }
    return CivilDate.days(year: y, month: m, day: d)
  }
}

/// A fund's performance over 1W, 1M, 6M, 1Y, 3Y and 5Y up to its last NAV
/// (`Docs/research.md`, "Mutual funds"): each period starts at the last NAV on
/// or before the last date less the period.
public struct FundPerformance: Sendable {
  /// A period the performance is measured over.
  public enum Period: String, CaseIterable, Sendable {
    /// A week (7 days).
    case week = "1W"
    /// A calendar month.
    case month = "1M"
    /// Six calendar months.
    case sixMonths = "6M"
    /// A calendar year.
    case year = "1Y"
    /// Three calendar years.
    case threeYears = "3Y"
    /// Five calendar years.
    case fiveYears = "5Y"

    /// `day` minus the period in calendar units (month ends clamp: 31 March − 1M = 28/29 February).
    public func start(from day: Int) -> Int {
      func minus(months k: Int) -> Int { CivilDate.adding(months: -k, to: day) }
      switch self {
      case .week: return day - 7
      case .month: return minus(months: 1)
      case .sixMonths: return minus(months: 6)
      case .year: return minus(months: 12)
      case .threeYears: return minus(months: 36)
      case .fiveYears: return minus(months: 60)
      }
    }
    var atLeastAYear: Bool { self == .year || self == .threeYears || self == .fiveYears }
  }

  /// The performance over one period; the optional figures are `nil` when the history is shorter than the period.
  public struct Row: Sendable {
    /// The period.
    public var period: Period
    /// The date of the period's start NAV (days since 1970-01-01).
    public var startDay: Int?
    /// The date of the last NAV.
    public var endDay: Int
    /// The NAV the period starts from.
    public var startNAV: Double?
    /// The last NAV.
    public var endNAV: Double
    /// `endNAV / startNAV - 1`.
    public var totalReturn: Double?
    /// The compound annual growth rate over the days between the two NAVs, for periods of a year or more.
    public var cagr: Double?
    /// The sample standard deviation of the NAV's daily returns in the period, × √252.
    public var volatility: Double?
  }

  /// The NAVs the figures are made from.
  public var history: NAVHistory
  /// The last NAV.
  public var latest: Double
  /// The last NAV less the one before it.
  public var dailyChange: Double?
  /// The last NAV over the one before it, less 1.
  public var dailyChangeFraction: Double?
  /// One row per `Period`, in `Period.allCases` order.
  public var rows: [Row]

  /// The performance of `h` over every period.
  ///
  /// - Precondition: `h` has at least one NAV, and as many days as NAVs (as `NAVHistory.read` makes it).
  public init(_ h: NAVHistory) {
    precondition(!h.navs.isEmpty && h.days.count == h.navs.count, "a NAV history needs at least one NAV and a day for each")
    history = h
    let n = h.navs.count
    latest = h.navs[n - 1]
    if n > 1 { dailyChange = latest - h.navs[n - 2]; dailyChangeFraction = latest / h.navs[n - 2] - 1 }
    let end = h.days[n - 1]
    rows = Period.allCases.map { period in
      let target = period.start(from: end)
      // The start is the last NAV on or before the target date; none means the history is too short.
      guard let k = h.days.lastIndex(where: { $0 <= target }) else {
        return Row(period: period, startDay: nil, endDay: end, startNAV: nil, endNAV: h.navs[n - 1])
      }
      let start = h.navs[k]
      var returns: [Double] = []
      for i in (k + 1)..<n { returns.append(h.navs[i] / h.navs[i - 1] - 1) }
      let days = end - h.days[k]
      return Row(period: period, startDay: h.days[k], endDay: end, startNAV: start, endNAV: h.navs[n - 1],
                 totalReturn: h.navs[n - 1] / start - 1,
                 cagr: period.atLeastAYear && days > 0 ? pow(h.navs[n - 1] / start, 365 / Double(days)) - 1 : nil,
                 volatility: sampleDeviation(returns).map { $0 * 252.0.squareRoot() })
    }
  }

  package static let columns = "fund,period,start_date,end_date,start_nav,end_nav,total_return,cagr,volatility"

  package static func csv(_ funds: [FundPerformance]) -> String {
    var out = columns + "\n"
    for f in funds {
      for r in f.rows {
        out += [csvField(f.history.name), r.period.rawValue, r.startDay.map { CivilDate.isoDate(days: $0) } ?? "", CivilDate.isoDate(days: r.endDay),
                r.startNAV.map { $0.description } ?? "", r.endNAV.description, r.totalReturn.map { $0.description } ?? "",
                r.cagr.map { $0.description } ?? "", r.volatility.map { $0.description } ?? ""].joined(separator: ",") + "\n"
      }
    }
    return out
  }
}
