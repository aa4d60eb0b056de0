import BacktestCore
import Foundation

/// One ETF of the screen, as of its last bar.
package struct ScreenRow: Sendable {
  package var symbol: String
  package var asOfDay: Int
  package var price: Double
  /// Dividends with ex-date in the 365 days up to the last bar, over the price.
  package var trailingYield: Double
  package var lastDividend: Dividend?
  package var frequency: PaymentFrequency
  /// Last dividend × payments per year (a forward estimate).
  package var annualDividend: Double?
  /// Close over the close one calendar month earlier (the last bar on or before), minus 1.
  package var oneMonthReturn: Double?
  /// Mean volume of the last 21 bars.
  package var averageVolume: Double
  package var expenseRatio: Double
  /// 0–100: weighted min–max scores of yield, performance and (low) expense across the universe.
  package var score = 0.0
}

/// The dividend-ETF screener of `backtest screen`.
package enum DividendScreener {
  /// Score weights (the documented default: yield 0.5, 1-month performance 0.3, expense ratio 0.2).
  package struct Weights: Sendable, Equatable {
    package var yield = 0.5, performance = 0.3, expense = 0.2
    package init() {}
  }

  package static func row(symbol: String, bars: BarSeries, dividends: [Dividend], expenseRatio: Double) -> ScreenRow {
    let n = bars.count
    let asOf = Int(bars.day[n - 1])
    let price = bars.close[n - 1]
    let profile = DividendProfile(dividends, asOf: asOf)
    let monthAgo = FundPerformance.Period.month.start(from: asOf)
    let previous = (0..<n).last { Int(bars.day[$0]) <= monthAgo }
    let volumes = bars.volume.suffix(21)
    return ScreenRow(symbol: symbol, asOfDay: asOf, price: price, trailingYield: profile.trailingTwelveMonths / price, lastDividend: profile.last,
                     frequency: profile.frequency, annualDividend: profile.forwardAnnual,
                     oneMonthReturn: previous.map { price / bars.close[$0] - 1 },
                     averageVolume: volumes.reduce(0, +) / Double(max(1, volumes.count)), expenseRatio: expenseRatio)
  }

  /// Scores the rows in place: each factor scaled 0–1 across the universe (1 for the best), weighted, × 100.
  package static func score(_ rows: inout [ScreenRow], weights w: Weights) {
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

  package static let columns = "rank,symbol,as_of,price,trailing_yield,last_dividend,last_ex_date,frequency,annual_dividend,one_month_return,average_volume,expense_ratio,score"

  package static func csv(_ rows: [ScreenRow]) -> String {
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
