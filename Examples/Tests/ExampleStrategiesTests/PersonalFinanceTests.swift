import BacktestCore
import Foundation
import PersonalFinance
import Testing

/// The personal-finance library as an app uses it: values in, figures out, no files.
@Suite struct PersonalFinanceTests {
  @Test("a fund's 1W return starts at the last NAV on or before a week before the last; longer periods are unavailable")
  func fundPeriods() throws {
    // 2024-01-01 (day 19,723) 10, 2024-01-05 10.5, 2024-01-08 11.
    let history = NAVHistory(name: "F", days: [19_723, 19_727, 19_730], navs: [10, 10.5, 11])
    let f = FundPerformance(history)
    #expect(f.latest == 11)
    #expect(abs(f.dailyChange! - 0.5) < 1e-12)
    #expect(abs(f.dailyChangeFraction! - (11 / 10.5 - 1)) < 1e-12)
    let week = try #require(f.rows.first { $0.period == .week })
    #expect(week.startDay == 19_723 && week.startNAV == 10 && week.endNAV == 11)
    #expect(abs(week.totalReturn! - 0.1) < 1e-12)
    #expect(week.cagr == nil)
    // Daily returns 0.05 and 1/21: their sample deviation × √252.
    let r = [0.05, 11 / 10.5 - 1], mean = (r[0] + r[1]) / 2
    let deviation = (((r[0] - mean) * (r[0] - mean) + (r[1] - mean) * (r[1] - mean)) / 1).squareRoot()
    #expect(abs(week.volatility! - deviation * 252.0.squareRoot()) < 1e-12)
    let month = try #require(f.rows.first { $0.period == .month })
    #expect(month.startNAV == nil && month.totalReturn == nil)
    #expect(f.rows.map(\.period) == FundPerformance.Period.allCases)
  }

  @Test("NAVs read from the mutual-fund API's JSON, newest first, come out oldest first")
  func readsTheAPI() throws {
    let json = #"{"meta": {"scheme_name": "Flexi Cap"}, "data": [{"date": "03-01-2024", "nav": "10.5"}, {"date": "02-01-2024", "nav": "10"}]}"#
    let h = try NAVHistory.read(Data(json.utf8), file: "f.json")
    #expect(h.name == "Flexi Cap")
    #expect(h.days == [19_724, 19_725] && h.navs == [10, 10.5])
  }

  @Test("a holding: 10 shares bought at 100, worth 110 a year later, 4% yield, 1% expense ratio")
  func holding() {
    let h = Holding(name: "ETF", shares: 10, purchasePrice: 100, purchaseDay: 19_723, currentPrice: 110, analysisDay: 19_723 + 365,
                    expenseRatio: 0.01, annualYield: 0.04)
    let report = HoldingsReport([h])
    let a = report.holdings[0]
    #expect(a.daysHeld == 365 && a.initialInvestment == 1_000 && a.currentValue == 1_100)
    #expect(abs(a.capitalAppreciation - 100) < 1e-9 && abs(a.yieldIncome - 40) < 1e-9 && abs(a.expenses - 10) < 1e-9)
    #expect(abs(a.grossReturn - 0.14) < 1e-12 && abs(a.netReturn - 0.13) < 1e-12)
    #expect(abs(a.annualizedReturn! - 0.13) < 1e-12)
    #expect(a.allocation == 1 && a.realized == nil)
    #expect(report.totalInitial == 1_000 && report.totalCurrent == 1_100)
    #expect(abs(report.weightedAnnualReturn! - 0.13) < 1e-12)
  }
}
