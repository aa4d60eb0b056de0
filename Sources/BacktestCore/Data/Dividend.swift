import Foundation

/// One dividend: per share, earned by shares held at the close before `exDay`, paid on `payDay`.
public struct Dividend: Sendable, Equatable {
  /// The ex-dividend date, in days since 1970-01-01.
  public var exDay: Int
  /// The pay date, in days since 1970-01-01; the ex-date when the file gives none.
  public var payDay: Int
  /// The amount per share, in money.
  public var amount: Double

  /// Creates a dividend of `amount` per share; the days are days since 1970-01-01.
  public init(exDay: Int, payDay: Int, amount: Double) {
    self.exDay = exDay
    self.payDay = payDay
    self.amount = amount
  }
}

/// How often a fund pays, from the spacing of its ex-dates.
public enum PaymentFrequency: String, Sendable {
  /// About twelve payments a year (median gap up to 45 days).
  case monthly
  /// About four payments a year (median gap up to 135 days).
  case quarterly
  /// About two payments a year (median gap up to 270 days).
  case semiAnnual = "semi-annual"
  /// About one payment a year (a longer median gap).
  case annual
  /// Fewer than two ex-dates to tell from.
  case unknown
  /// Payments per year (12, 4, 2 or 1); `nil` when `unknown`.
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

/// What a dividend history says as of one day; nothing after that day is looked at.
public struct DividendProfile: Sendable, Equatable {
  /// The day the profile is as of, in days since 1970-01-01; ex-dates after it are ignored.
  public var asOfDay: Int
  /// Per share: dividends with ex-date in the 365 days up to `asOfDay`.
  public var trailingTwelveMonths: Double
  /// The last dividend with its ex-date on or before `asOfDay`; `nil` when there is none.
  public var last: Dividend?
  /// From the spacing of the ex-dates up to `asOfDay`.
  public var frequency: PaymentFrequency
  /// Per share, an estimate: the last amount × payments per year.
  public var forwardAnnual: Double?
  /// An estimate: the last ex-date plus the detected period (1, 3, 6 or 12 months).
  public var nextExDayEstimate: Int?

  /// Profiles `dividends` (in ex-date order) as of day `asOf` (days since 1970-01-01).
  public init(_ dividends: [Dividend], asOf: Int) {
    asOfDay = asOf
    let known = dividends.filter { $0.exDay <= asOf }
    trailingTwelveMonths = known.filter { $0.exDay > asOf - 365 }.reduce(0) { $0 + $1.amount }
    last = known.last
    frequency = PaymentFrequency.detect(known)
    forwardAnnual = frequency.perYear.flatMap { f in known.last.map { $0.amount * f } }
    nextExDayEstimate = frequency.perYear.flatMap { f in known.last.map { CivilDate.adding(months: Int(12 / f), to: $0.exDay) } }
  }
}

/// Dividends placed on a bar timeline: the dividend of a share held at the
/// close before bar `exBar` (the first bar dated on or after the ex-date) is
/// paid at bar `payBar` (the first bar dated on or after the pay date; the
/// bar count when that is after the data: never received).
public struct DividendSchedule: Sendable, Equatable {
  /// For each dividend, the first bar dated on or after its ex-date (never bar 0).
  public var exBar: [Int] = []
  /// For each dividend, the first bar dated on or after its pay date; the bar count when that is after the last bar.
  public var payBar: [Int] = []
  /// For each dividend, the amount per share, in money.
  public var amount: [Double] = []
  /// Whether no dividend falls on the bars.
  public var isEmpty: Bool { exBar.isEmpty }

  /// Creates an empty schedule.
  public init() {}

  /// Dividends whose ex-date falls after the last bar are left out.
  public init(_ dividends: [Dividend], days: ContiguousArray<Int32>) {
    for d in dividends {
      let ex = firstBar(onOrAfter: d.exDay, in: days)
      guard ex < days.count, ex > 0 else { continue }  // nobody held a share before the first bar
      exBar.append(ex)
      payBar.append(firstBar(onOrAfter: d.payDay, in: days))
      amount.append(d.amount)
    }
  }
}

/// The index of the first bar dated on or after `day` in ascending `days` (their count when none is).
public func firstBar(onOrAfter day: Int, in days: ContiguousArray<Int32>) -> Int {
  var lo = 0, hi = days.count
  while lo < hi {
    let mid = (lo + hi) / 2
    if Int(days[mid]) < day { lo = mid + 1 } else { hi = mid }
  }
  return lo
}
