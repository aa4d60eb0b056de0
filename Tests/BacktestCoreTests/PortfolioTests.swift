import BacktestCore
import BacktestRun
import Foundation
import Testing

/// Flat daily bars (open = high = low = close) from 2024-01-01, one per calendar day.
func flatBars(_ closes: [Double], from first: Int = CivilDate.days(year: 2024, month: 1, day: 1)) -> BarSeries {
  var bars = BarSeries(source: "hand")
  for (k, c) in closes.enumerated() {
    let day = first + k
    bars.append(time: Int64(day) * 86_400, day: Int32(day), open: c, high: c, low: c, close: c, volume: 0,
                label: Array(CivilDate.isoDate(days: day).utf8))
  }
  return bars
}

func day(_ text: String) -> Int {
  let p = text.split(separator: "-").map { Int($0)! }
  return CivilDate.days(year: p[0], month: p[1], day: p[2])
}

/// A shipped portfolio run file, read; fails the test when it is not one.
func shippedPortfolio(_ name: String) throws -> PortfolioRunConfig {
  let path = Repo.path("Strategies/\(name).yaml")
  guard case .portfolio(let config) = try AnyRunConfig.parse(try String(contentsOfFile: path, encoding: .utf8), file: path) else {
    throw InputError("not a portfolio run file", file: path)
  }
  return config
}

@Suite("Money-weighted and time-weighted returns")
struct ReturnsWithFlowsTests {
  @Test("XIRR reproduces the spreadsheet reference example (37.34%)")
  func spreadsheetExample() throws {
    // The XIRR example of spreadsheet documentation: -10,000 on 2008-01-01, then 2,750, 4,250, 3,250, 2,750.
    let flows = [("2008-01-01", -10_000.0), ("2008-03-01", 2_750), ("2008-10-30", 4_250), ("2009-02-15", 3_250),
                 ("2009-04-01", 2_750)].map { DatedAmount(day: day($0.0), amount: $0.1) }
    let r = try #require(xirr(flows))
    // Shown rounded as 0.373362535; the root to 10 digits is 0.3733625335.
    #expect(abs(r - 0.3733625335) < 1e-10)
  }

  @Test("XIRR of cases worked by hand: one year at 10%, two deposits at 10%, a loss, no sign change")
  func handCases() throws {
    let y0 = day("2021-01-01")
    // 1,000 in, 1,100 out a year (365 days) later: 10%.
    #expect(abs(try #require(xirr([DatedAmount(day: y0, amount: -1000), DatedAmount(day: y0 + 365, amount: 1100)])) - 0.1) < 1e-12)
    // 1,000 in now and in a year, 2,310 out in two: 1000(1+r)^2 + 1000(1+r) = 2310 → r = 10%.
    let two = [DatedAmount(day: y0, amount: -1000), DatedAmount(day: y0 + 365, amount: -1000), DatedAmount(day: y0 + 730, amount: 2310)]
    #expect(abs(try #require(xirr(two)) - 0.1) < 1e-12)
    // 1,000 in, 900 out after a year: -10%.
    #expect(abs(try #require(xirr([DatedAmount(day: y0, amount: -1000), DatedAmount(day: y0 + 365, amount: 900)])) + 0.1) < 1e-12)
    // Two years (730 days) from 1,000 to 1,210: 10% a year.
    #expect(abs(try #require(xirr([DatedAmount(day: y0, amount: -1000), DatedAmount(day: y0 + 730, amount: 1210)])) - 0.1) < 1e-12)
    #expect(xirr([DatedAmount(day: y0, amount: -1000), DatedAmount(day: y0 + 365, amount: -5)]) == nil)
    #expect(xirr([DatedAmount(day: y0, amount: -1000), DatedAmount(day: y0, amount: 1100)]) == nil)
  }

  @Test("TWR splits a flow's bar at the open where it is invested: a worked example")
  func twrByHand() {
    // 1,000 in; +10% (1,100); the next bar opens at 1,120, where 500 is deposited and invested (1,620), and closes at
    // 1,650; then -10%. The deposit earns that bar's move from the open as new money.
    let equity: ContiguousArray<Double> = [1000, 1100, 1650, 1485]
    let flow: ContiguousArray<Double> = [1000, 0, 500, 0]
    let base: ContiguousArray<Double> = [0, .nan, 1120, .nan]
    let r = timeWeightedReturns(equity: equity, flow: flow, base: base)
    let split: Double = (1120.0 / 1100) * (1650.0 / 1620)
    #expect(r[0] == 0)
    #expect(abs(r[1] - 0.1) < 1e-15)
    #expect(abs(r[2] - (split - 1)) < 1e-15)
    #expect(abs(r[3] + 0.1) < 1e-15)
    let index = timeWeightedIndex(equity: equity, flow: flow, base: base)
    let expected: Double = 1.1 * split * 0.9
    #expect(abs(index[3] - expected) < 1e-12)
    // The old rule, flows at the close ((1,650 - 500) / 1,100), would give 1.035: 1.1 × 1.0455 × 0.9.
    #expect(abs(index[3] - 1.035) > 1e-3)
  }
}

@Suite("Dividends")
struct DividendTests {
  /// Six flat days at 10; ex-date on day 3 (2024-01-04), paid on day 5; 0.50 a share.
  static let bars = flatBars([10, 10, 10, 10, 10, 10])
  static let dividend = Dividend(exDay: day("2024-01-04"), payDay: day("2024-01-06"), amount: 0.5)

  @Test("bought the day before the ex-date earns the dividend; bought on the ex-date does not")
  func exDateEntitlement() {
    let account = AccountEvents(dividends: DividendSchedule([Self.dividend], days: Self.bars.day))
    var broker = BrokerSettings()
    broker.initialCash = 1000
    // Decided at the close of day 1: filled at the open of day 2 (2024-01-03), held at the close before the ex-date.
    let before = runScripted(Self.bars, [1: .enterLong(stopLoss: nil, profitTarget: nil)], broker: broker, account: account).result
    #expect(before.trades.count == 1 && before.trades[0].shares == 100)
    #expect(before.trades[0].dividends == 50)
    #expect(before.carry.dividendCash[5] == 50 && before.carry.dividendCash.reduce(0, +) == 50)  // cash on the pay date, not before
    #expect(before.cash[4] == 0 && before.cash[5] == 50 && before.equity[5] == 1050)
    #expect(before.trades[0].pnl == 50 && abs(before.trades[0].returnFraction - 0.05) < 1e-15)
    // Decided at the close of day 2: filled at the open of the ex-date itself.
    let on = runScripted(Self.bars, [2: .enterLong(stopLoss: nil, profitTarget: nil)], broker: broker, account: account).result
    #expect(on.trades[0].entryBar == 3 && on.trades[0].dividends == 0 && on.carry.dividendCash.reduce(0, +) == 0 && on.equity[5] == 1000)
  }

  @Test("selling at the open of the ex-date keeps the dividend, paid after the exit")
  func soldOnExDate() {
    let account = AccountEvents(dividends: DividendSchedule([Self.dividend], days: Self.bars.day))
    var broker = BrokerSettings()
    broker.initialCash = 1000
    let r = runScripted(Self.bars, [0: .enterLong(stopLoss: nil, profitTarget: nil), 2: .exitLong(.technical)], broker: broker,
                        account: account).result
    #expect(r.trades[0].exitBar == 3 && r.trades[0].dividends == 50)
    #expect(r.cash[3] == 1000 && r.cash[5] == 1050)
  }

  @Test("frequency, trailing 12 months and the estimated next ex-date")
  func profile() {
    let monthly = (1...14).map { m in Dividend(exDay: CivilDate.adding(months: m, to: day("2023-01-05")), payDay: CivilDate.adding(months: m, to: day("2023-01-10")), amount: 0.1 * Double(m)) }
    let p = DividendProfile(monthly, asOf: day("2024-03-20"))
    #expect(p.frequency == .monthly)
    #expect(p.last?.exDay == day("2024-03-05") && abs(p.trailingTwelveMonths - (3...14).map { 0.1 * Double($0) }.reduce(0, +)) < 1e-12)
    #expect(abs(p.forwardAnnual! - 1.4 * 12) < 1e-12 && p.nextExDayEstimate == day("2024-04-05"))
  }

  @Test("an expense ratio of 1% over one year of flat prices costs 1%")
  func expenseDrag() throws {
    let bars = flatBars([Double](repeating: 100, count: 366))  // 2024-01-01 … 2024-12-31: 365 days apart
    var asset = PortfolioAsset(symbol: "X", bars: bars, weight: 1)
    asset.expenseRatio = 0.01
    var settings = PortfolioSettings()
    settings.initialCash = 10_000
    let r = PortfolioEngine.run([asset], settings: settings)
    #expect(r.shares[0][365] == 100)
    #expect(abs(r.totals[0].expenseDrag - 100) < 1e-9 && abs(r.equity[365] - 9_900) < 1e-9)
    // The swing engine charges the same drag on an open position.
    let swing = runScripted(bars.prefix(366), [0: .enterLong(stopLoss: nil, profitTarget: nil)], broker: {
      var b = BrokerSettings(); b.initialCash = 10_000; return b }(), account: AccountEvents(expenseRatio: 0.01)).result
    // Entered at the open of day 1: held for 364 days of drag.
    #expect(abs(swing.carry.expenseDrag - 100 * 364 / 365) < 1e-9)
  }
}

@Suite("Portfolio engine")
struct PortfolioEngineTests {
  /// Flat 10.00 for 8 days; 0.50 ex on day 2, paid day 3; 0.50 ex on day 5, paid day 6.
  static func dripAsset() -> PortfolioAsset {
    PortfolioAsset(symbol: "INC", bars: flatBars([Double](repeating: 10, count: 8)),
                   dividends: [Dividend(exDay: day("2024-01-03"), payDay: day("2024-01-04"), amount: 0.5),
                               Dividend(exDay: day("2024-01-06"), payDay: day("2024-01-07"), amount: 0.5)], weight: 1)
  }

  @Test("DRIP buys whole shares with each dividend on its pay date; the rest stays in cash")
  func dripWhole() {
    var settings = PortfolioSettings()
    settings.initialCash = 1000
    settings.drip = true
    let r = PortfolioEngine.run([Self.dripAsset()], settings: settings)
    // 100 shares; 50.00 → 5 shares on 2024-01-04; 105 × 0.50 = 52.50 → 5 shares on 2024-01-07, 2.50 left.
    #expect(r.fills.map(\.shares) == [100, 5, 5] && r.fills.map(\.bar) == [0, 3, 6])
    #expect(r.fills.map(\.reason) == [.initial, .dividendReinvestment, .dividendReinvestment])
    #expect(r.shares[0][7] == 110 && abs(r.cash[7] - 2.5) < 1e-12 && abs(r.equity[7] - 1102.5) < 1e-12)
    #expect(r.dividends[3] == 50 && r.dividends[6] == 52.5)
  }

  @Test("DRIP with fractional shares reinvests every cent")
  func dripFractional() {
    var settings = PortfolioSettings()
    settings.initialCash = 1000
    settings.drip = true
    settings.fractionalShares = true
    let r = PortfolioEngine.run([Self.dripAsset()], settings: settings)
    #expect(r.fills.map(\.shares) == [100, 5, 5.25])
    #expect(abs(r.shares[0][7] - 110.25) < 1e-12 && abs(r.cash[7]) < 1e-9)
  }

  @Test("without DRIP the dividends stay in cash")
  func noDrip() {
    var settings = PortfolioSettings()
    settings.initialCash = 1000
    let r = PortfolioEngine.run([Self.dripAsset()], settings: settings)
    #expect(r.fills.count == 1 && r.cash[7] == 100 && r.totals[0].dividends == 100)
  }

  /// A: 100 in January, 120 from February 1; B: 50 throughout. Bars on Jan 30, 31, Feb 1, 2.
  static let twoAssets = [PortfolioAsset(symbol: "A", bars: flatBars([100, 100, 120, 120], from: day("2024-01-30")), weight: 0.5),
                          PortfolioAsset(symbol: "B", bars: flatBars([50, 50, 50, 50], from: day("2024-01-30")), weight: 0.5)]
  static let monthly5050: PortfolioSettings = {
    var s = PortfolioSettings()
    s.initialCash = 10_000
    s.rebalance = .monthly
    return s
  }()

  @Test("monthly rebalance trades back to 50/50 to the cent")
  func rebalanceToTheCent() {
    let settings = Self.monthly5050
    let r = PortfolioEngine.run(Self.twoAssets, settings: settings)
    // Initial: 50 A (5,000.00) and 100 B (5,000.00). Feb 1 open: 6,000 + 5,000 = 11,000 → A 45 (5,500 / 120 = 45.83),
    // B 110: sell 5 A for 600.00, buy 10 B for 500.00, 100.00 left in cash.
    #expect(r.fills.count == 4)
    let rebalance = r.fills.filter { $0.reason == .rebalance }
    #expect(rebalance.map(\.asset) == [0, 1] && rebalance.map(\.shares) == [-5, 10] && rebalance.map(\.bar) == [2, 2])
    #expect(rebalance.map { $0.shares * $0.price } == [-600, 500])
    #expect(r.cash[2] == 100 && r.shares[0][3] == 45 && r.shares[1][3] == 110 && r.equity[3] == 11_000)
  }

  @Test("a per-trade commission is paid on every fill and limits the buys to the cash there is")
  func rebalanceWithFees() {
    var settings = Self.monthly5050
    settings.commission = .perTrade(1)
    let r = PortfolioEngine.run(Self.twoAssets, settings: settings)
    // Initial: 50 A for 5,001.00 with the fee; B: (4,999 - 1) / 50 = 99.96 → 99 shares for 4,951.00; 48.00 left.
    #expect(r.fills[0].shares == 50 && r.fills[1].shares == 99 && r.cash[0] == 48)
    // Feb 1: value 48 + 6,000 + 4,950 = 10,998 → A 45 (sell 5: +599), B 109 (buy 10: -501) → 146 left.
    #expect(r.fills[2].shares == -5 && r.fills[3].shares == 10 && r.cash[2] == 146)
    #expect(r.totals.map(\.fees) == [2, 2])
  }

  @Test("drift rebalancing trades at the open after a close beyond the threshold")
  func drift() {
    let a = PortfolioAsset(symbol: "A", bars: flatBars([100, 100, 130, 130, 130]), weight: 0.5)
    let b = PortfolioAsset(symbol: "B", bars: flatBars([100, 100, 100, 100, 100]), weight: 0.5)
    var settings = PortfolioSettings()
    settings.initialCash = 10_000
    settings.rebalance = .drift(0.05)
    settings.fractionalShares = true
    let r = PortfolioEngine.run([a, b], settings: settings)
    // Day 2 closes at 6,500 / 11,500 = 56.5% A (> 55%): rebalanced at the open of day 3, not before.
    let bars = Set(r.fills.filter { $0.reason == .rebalance }.map(\.bar))
    #expect(bars == [3])
    #expect(abs(r.shares[0][3] * 130 - 5_750) < 1e-3 && abs(r.shares[1][3] * 100 - 5_750) < 1e-3)
  }

  @Test("with deposits, TWR is the asset's own return and XIRR weighs the money")
  func depositsTWR() throws {
    // Price 100 → 110 → 121 (10% a bar); 1,000 deposited before the last bar; fractional shares, no costs.
    let first = day("2023-01-01")
    let asset = PortfolioAsset(symbol: "X", bars: flatBars([100, 110, 121], from: first), weight: 1)
    var settings = PortfolioSettings()
    settings.initialCash = 1000
    settings.fractionalShares = true
    settings.contributions = [DatedAmount(day: first + 2, amount: 1000)]
    let r = PortfolioEngine.run([asset], settings: settings)
    #expect(r.flow.map { $0 } == [1000, 0, 1000])
    #expect(r.fills.map(\.reason) == [.initial, .contribution])
    let summary = PortfolioBacktest.summarize(r, assets: [asset], initialCash: 1000)
    #expect(abs(summary.twr - 0.21) < 1e-6)
    // Equity 1,210 + 1,000 = 2,210 at the end; deposited 2,000; a plain total return would say 121%.
    #expect(abs(summary.finalEquity - 2210) < 1e-6 && abs(summary.totalPnl - 210) < 1e-6)
    let expected = try #require(xirr([DatedAmount(day: first, amount: -1000), DatedAmount(day: first + 2, amount: -1000),
                                      DatedAmount(day: first + 2, amount: 2210)]))
    #expect(abs(try #require(summary.xirr) - expected) < 1e-12)
  }

  @Test("a withdrawal sells in proportion to the holdings; one larger than the account is cut to it")
  func withdrawals() {
    let a = PortfolioAsset(symbol: "A", bars: flatBars([100, 100, 100]), weight: 0.5)
    let b = PortfolioAsset(symbol: "B", bars: flatBars([50, 50, 50]), weight: 0.5)
    var settings = PortfolioSettings()
    settings.initialCash = 10_000
    settings.contributions = [DatedAmount(day: day("2024-01-02"), amount: -1_000), DatedAmount(day: day("2024-01-03"), amount: -50_000)]
    let r = PortfolioEngine.run([a, b], settings: settings)
    let first = r.fills.filter { $0.bar == 1 }
    #expect(first.map(\.shares) == [-5, -10] && first.allSatisfy { $0.reason == .withdrawal } && r.cash[1] == 0)
    #expect(r.flow[2] == -9_000 && r.unpaidWithdrawals == 41_000 && r.equity[2] == 0)
  }

  @Test("assets are aligned on one timeline; a missing bar keeps the last close")
  func alignment() {
    var b = flatBars([20, 21, 22, 23])
    b = b.filtered { $0 != 2 }  // no bar on 2024-01-03
    let a = PortfolioAsset(symbol: "A", bars: flatBars([10, 10, 10, 10]), weight: 0.5)
    var settings = PortfolioSettings()
    settings.initialCash = 1000
    let r = PortfolioEngine.run([a, PortfolioAsset(symbol: "B", bars: b, weight: 0.5)], settings: settings)
    #expect(r.timeline.count == 4 && r.prices[1].map { $0 } == [20, 21, 21, 23])
    #expect(r.equity[2] == r.cash[2] + 50 * 10 + 25 * 21)
  }

  @Test("an asset whose bars start later has no price before its first bar; every bar's record is written")
  func lateStart() {
    let b = flatBars([20, 21, 22, 23]).filtered { $0 != 0 }  // no bar on 2024-01-01
    let a = PortfolioAsset(symbol: "A", bars: flatBars([10, 10, 10, 10]), weight: 0.5)
    var settings = PortfolioSettings()
    settings.initialCash = 1000
    let r = PortfolioEngine.run([a, PortfolioAsset(symbol: "B", bars: b, weight: 0.5)], settings: settings)
    #expect(r.timeline.count == 4 && r.prices[1][0].isNaN && Array(r.prices[1][1...]) == [21, 22, 23])
    #expect(Array(r.prices[0]) == [10, 10, 10, 10] && r.shares[1][0] == 0)
    for t in 0..<4 {
      let held = (0..<2).reduce(0.0) { sum, k in r.shares[k][t] == 0 ? sum : sum + r.shares[k][t] * r.prices[k][t] }
      #expect(r.equity[t] == r.cash[t] + held, "bar \(t)")
    }
  }
}

@Suite("Cash-flow ledger")
struct LedgerTests {
  static let text = """
    date,amount,category,note
    2024-01-25,3000,salary,
    2024-01-03,-1200.50,rent,"January, flat"
    2024-02-10,-300,groceries,
    2024-03-25,3000,salary,
    2024-03-02,-1200.50,rent,

    """

  @Test("monthly income, expenses and net (empty months included), categories, and next-month contributions")
  func monthly() throws {
    let ledger = try LedgerReader.read(Data(Self.text.utf8), file: "ledger.csv")
    #expect(ledger.entries.first?.note == "January, flat")
    let months = ledger.monthly
    #expect(months.map(\.month) == [day("2024-01-01"), day("2024-02-01"), day("2024-03-01")])
    #expect(months.map(\.income) == [3000, 0, 3000] && months.map(\.expenses) == [-1200.5, -300, -1200.5])
    #expect(ledger.byCategory.map(\.category) == ["salary", "rent", "groceries"] && ledger.byCategory[1].net == -2401)
    #expect(ledger.monthlyNetContributions == [DatedAmount(day: day("2024-02-01"), amount: 1799.5),
                                               DatedAmount(day: day("2024-03-01"), amount: -300),
                                               DatedAmount(day: day("2024-04-01"), amount: 1799.5)])
  }

  @Test("bad ledger lines name the line and column")
  func errors() {
    for (text, message) in [
      ("date,amount\n2024-01-01,12x\n", "l.csv:2:12: error: expected an amount (income positive, expenses negative), found '12x'"),
      ("date,amount\n2024-13-01,12\n", "l.csv:2:1: error: expected a date YYYY-MM-DD, found '2024-13-01'"),
      ("when,amount\n", "l.csv:1:1: error: expected a header with date and amount (and optionally category, note), found 'when,amount'"),
      ("date,amount\n", "l.csv:1:1: error: no entries; expected lines of date,amount,category,note after the header"),
    ] {
      #expect(throws: InputError.self) { try LedgerReader.read(Data(text.utf8), file: "l.csv") }
      do { _ = try LedgerReader.read(Data(text.utf8), file: "l.csv") } catch { #expect("\(error)" == message) }
    }
  }

  @Test("a DCA plan deposits on the given day of each month after the first, clamped to short months")
  func dca() {
    let flows = PortfolioBacktest.contributions(.monthly(amount: 500, day: 31), ledger: nil, firstDay: day("2024-01-15"), lastDay: day("2024-04-10"))
    #expect(flows == [DatedAmount(day: day("2024-02-29"), amount: 500), DatedAmount(day: day("2024-03-31"), amount: 500)])
  }
}

@Suite("Portfolio run files")
struct PortfolioConfigTests {
  static let base = """
    name: p
    data:
      assets:
        - {symbol: DIVQ, bars: ../Data/etfs/DIVQ.csv, dividends: ../Data/etfs/DIVQ_dividends.csv}
        - {symbol: VALU, bars: ../Data/etfs/VALU.csv}
    strategy:
      type: portfolio
      weights: {DIVQ: 60%, VALU: 40%}
      rebalance: quarterly
    portfolio:
      initial_cash: 1000

    """

  static func parse(_ text: String = base, _ overrides: [String] = []) throws -> PortfolioRunConfig {
    guard case .portfolio(let c) = try AnyRunConfig.parse(text, file: "Strategies/p.yaml", overrides: overrides) else {
      throw InputError("not a portfolio", file: "p.yaml")
    }
    return c
  }

  @Test("a portfolio run file reads assets, weights, rebalancing and account options")
  func reads() throws {
    let c = try Self.parse(Self.base, ["portfolio.drip=true", "portfolio.contributions={monthly: 250, day: 15}", "strategy.rebalance={drift: 5%}"])
    #expect(c.assets.map(\.symbol) == ["DIVQ", "VALU"] && c.assets.map(\.weight) == [0.6, 0.4])
    #expect(c.assets[0].bars == "Data/etfs/DIVQ.csv" && c.assets[0].dividends == "Data/etfs/DIVQ_dividends.csv" && c.assets[1].dividends == nil)
    #expect(c.settings.rebalance == .drift(0.05) && c.settings.drip && c.contributions == .monthly(amount: 250, day: 15))
  }

  @Test("portfolio errors name the place and what was expected", arguments: [
    ("strategy.weights={DIVQ: 70%, VALU: 40%}", "--set strategy.weights={DIVQ: 70%, VALU: 40%}:1:18: error: the weights add up to 110%; expected at most 100% (the rest stays in cash)"),
    ("strategy.weights={DIVQ: 60%, VALUE: 40%}", "--set strategy.weights={DIVQ: 60%, VALUE: 40%}:1:30: error: 'VALUE' is not one of the assets (DIVQ, VALU); did you mean 'VALU'?"),
    ("strategy.weights={DIVQ: 60%}", "--set strategy.weights={DIVQ: 60%}:1:18: error: no weight for asset 'VALU'; give every asset a weight"),
    ("strategy.rebalance=daily", "--set strategy.rebalance=daily:1:20: error: expected never, weekly, monthly, quarterly, annually or {drift: 5%} for 'strategy.rebalance', found 'daily'"),
    ("portfolio.contributions=ledger", "--set portfolio.contributions=ledger:1:25: error: 'contributions: ledger' needs 'portfolio.ledger', the path of a date,amount,category,note file"),
    ("portfolio.sizing=all_in", "--set portfolio.sizing=all_in:1:1: error: 'portfolio.sizing' applies to swing strategies; the portfolio strategy sizes by strategy.weights"),
    ("portfolio.drip=yes", "--set portfolio.drip=yes:1:16: error: expected one of true, false for 'portfolio.drip', found 'yes'"),
  ])
  func errors(override: String, message: String) {
    do {
      _ = try Self.parse(Self.base, [override])
      Issue.record("expected an error for \(override)")
    } catch {
      #expect("\(error)" == message)
    }
  }

  @Test("portfolio-only keys in a swing run file are errors, and the single-asset reader refuses a strategy over several assets")
  func swingRefusesPortfolioKeys() {
    let swing = "data: {bars: ../Data/GOOG.csv}\nstrategy: {type: buy_and_hold}\nportfolio: {drip: true}\n"
    #expect(throws: InputError.self) { try runConfig(swing) }
    do { _ = try runConfig(swing) } catch {
      #expect("\(error)".hasSuffix("error: 'portfolio.drip' applies to the portfolio strategy (strategy.type: portfolio), not to buy_and_hold"))
    }
    do {
      _ = try RunConfig.parse(Self.base, file: "Strategies/p.yaml")
      Issue.record("a swing-only reader accepted the portfolio strategy")
    } catch {
      #expect("\(error)".hasPrefix("Strategies/p.yaml:7:9: error: the portfolio strategy (hold each asset at a fixed target weight, traded back to it each period or on drift) allocates among several assets; expected a strategy over one asset here: bollinger_rsi, "))
    }
    let rotation = (try? String(contentsOfFile: Repo.path("Strategies/etf-rotation.yaml"), encoding: .utf8)) ?? ""
    do {
      _ = try RunConfig.parse(rotation, file: "Strategies/etf-rotation.yaml")
      Issue.record("a swing-only reader accepted the rotation strategy")
    } catch {
      #expect("\(error)".contains("error: the rotation strategy (hold the top assets by a score (an expression of the rule language), re-ranked each period) allocates among several assets"))
    }
  }

  @Test("a swing run with dividends: the trades earn them and the summary reports them")
  func swingWithDividends() throws {
    let yaml = """
      data: {bars: ../Data/etfs/INCM.csv, dividends: ../Data/etfs/INCM_dividends.csv}
      strategy: {type: buy_and_hold}
      portfolio: {initial_cash: 10000}

      """
    let output = try runBacktest(yaml)
    let r = output.run.result
    // Every ex-date after the entry bar, on the shares held, paid by the last bar.
    let shares = r.trades[0].shares
    let earned = output.dividends.filter { $0.exDay > Int(output.bars.day[r.trades[0].entryBar]) && $0.exDay <= Int(output.bars.day[output.bars.count - 1]) }
    #expect(abs(r.trades[0].dividends - shares * earned.reduce(0) { $0 + $1.amount }) < 1e-9)
    let paid = earned.filter { $0.payDay <= Int(output.bars.day[output.bars.count - 1]) }
    #expect(abs(output.summary.dividendIncome - shares * paid.reduce(0) { $0 + $1.amount }) < 1e-9)
    #expect(abs(r.carry.dividendsPending - shares * (earned.count - paid.count == 0 ? 0 : earned.last!.amount)) < 1e-9)
    let json = RunReport.summaryJSON(output).rendered()
    #expect(json.contains("\"dividend_income\": ") && json.contains("\"next_ex_date_estimate\": \"2024-12-"))
    #expect(RunReport.tradesCSV(output).hasPrefix(RunReport.tradeColumns + "\n") && RunReport.tradeColumns.hasSuffix(",dividends,side"))
  }
}

@Suite("Shipped portfolio runs against an independent implementation")
struct PortfolioReferenceTests {
  /// One run of `Fixtures/portfolio/expected.json`, made by `Fixtures/portfolio/make.py` (plain Python; the command is in its docstring).
  static func expected(_ name: String) throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: Repo.fixtures + "/portfolio/expected.json"))
    let all = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])
    return try #require(all[name], "no run '\(name)' in expected.json")
  }

  /// Final equity, dividends, fees, fills, TWR, XIRR, shares and unpaid withdrawals equal the independent run `name`.
  static func expectIndependentFigures(_ s: PortfolioSummary, unpaidWithdrawals: Double, _ name: String) throws {
    let expected = try Self.expected(name)
    func number(_ key: String) throws -> Double { try #require(expected[key] as? Double, "\(name): \(key)") }
    #expect(close(s.finalEquity, try number("final_equity"), relative: 1e-12))
    #expect(close(s.dividendIncome, try number("dividend_income"), relative: 1e-12))
    #expect(abs(s.fees - (try number("fees"))) < 1e-9)
    #expect(s.fills == expected["fills"] as? Int)
    #expect(abs(s.twr - (try number("twr"))) < 1e-12)
    #expect(abs(try #require(s.xirr) - (try number("xirr"))) < 1e-9)
    #expect(abs(unpaidWithdrawals - (try number("unpaid_withdrawals"))) < 1e-9)
    let shares = try #require(expected["shares"] as? [Double])
    #expect(s.assets.count == shares.count && zip(s.assets, shares).allSatisfy { abs($0.shares - $1) < 1e-9 })
  }

  @Test("final equity, dividends, fees, fills, TWR, XIRR and shares match", arguments: ["income-etf", "income-etf-drip", "three-fund", "dca-ledger"])
  func matches(name: String) throws {
    let output = try PortfolioBacktest.run(try shippedPortfolio(name))
    try Self.expectIndependentFigures(output.summary, unpaidWithdrawals: output.result.unpaidWithdrawals, name)
  }

  @Test("the comparison without rebalancing is the same run bought once at the initial weights")
  func withoutRebalancing() throws {
    let expected = try Self.expected("three-fund without rebalancing")
    let config = try shippedPortfolio("three-fund")
    let b = try #require(try PortfolioBacktest.run(config).withoutRebalancing)
    #expect(close(b.finalEquity, try #require(expected["final_equity"] as? Double), relative: 1e-12))
    #expect(abs(b.twr - (try #require(expected["twr"] as? Double))) < 1e-12 && b.fills == expected["fills"] as? Int)
  }
}

/// The money edge cases of `Docs/portfolio.md`, on the shipped sample ETFs of `three-fund.yaml`
/// (DIVQ 50%, VALU 30%, HIYD 20%, $1 a trade), each also run by `Fixtures/portfolio/make.py`.
@Suite("Portfolio engine: money edge cases on the shipped sample ETFs")
struct PortfolioEdgeCaseTests {
  static func threeFund() throws -> (config: PortfolioRunConfig, assets: [PortfolioAsset]) {
    let config = try shippedPortfolio("three-fund")
    return (config, try PortfolioBacktest.load(config).assets)
  }

  static func bar(_ r: PortfolioResult, _ date: String) throws -> Int {
    try #require(r.timeline.day.firstIndex(of: Int32(day(date))), "no bar on \(date)")
  }

  @Test("a deposit landing on a bar where one asset has no bar is invested at the next bar where all trade")
  func depositOnMissingBar() throws {
    var (config, assets) = try Self.threeFund()
    let valu = assets[1].bars
    assets[1].bars = valu.filtered { Int(valu.day[$0]) != day("2022-03-14") }
    config.settings.rebalance = .never
    config.contributions = .monthly(amount: 1000, day: 14)
    let output = PortfolioBacktest.execute(config, assets: assets, ledger: nil)
    let r = output.result
    let t = try Self.bar(r, "2022-03-14")
    // 2022-03-14: the deposit arrives in cash; VALU has no bar, so nothing trades.
    #expect(r.flow[t] == 1000 && r.fills.allSatisfy { $0.bar != t } && abs(r.cash[t] - r.cash[t - 1] - 1000) < 1e-9)
    // 2022-03-15, opens 75.74, 107.67, 17.41: each slice buys what it pays for with its $1 fee:
    // (500 - 1) / 75.74 = 6.59 → 6, (300 - 1) / 107.67 = 2.78 → 2, (200 - 1) / 17.41 = 11.43 → 11.
    let next = r.fills.filter { $0.bar == t + 1 }
    #expect(next.map(\.reason) == [.contribution, .contribution, .contribution] && next.map(\.shares) == [6, 2, 11])
    let spent: Double = 6 * 75.74 + 2 * 107.67 + 11 * 17.41 + 3
    #expect(abs(r.cash[t + 1] - (r.cash[t] - spent)) < 1e-9)
    try PortfolioReferenceTests.expectIndependentFigures(output.summary, unpaidWithdrawals: r.unpaidWithdrawals, "deposit on a missing bar")
  }

  @Test("a dividend paid on a rebalance bar is reinvested after the rebalance, with the cash the rebalance leaves")
  func dripOnRebalanceBar() throws {
    var (config, assets) = try Self.threeFund()
    // DIVQ's dividend ex 2022-06-03 is paid on 2022-07-01 (instead of 06-08), the first bar of the third quarter.
    let k = try #require(assets[0].dividends.firstIndex { $0.exDay == day("2022-06-03") })
    assets[0].dividends[k].payDay = day("2022-07-01")
    config.settings.drip = true
    let output = PortfolioBacktest.execute(config, assets: assets, ledger: nil)
    let r = output.result
    let t = try Self.bar(r, "2022-07-01")
    let fills = r.fills.filter { $0.bar == t }
    try #require(fills.map(\.reason) == [.rebalance, .rebalance, .rebalance, .dividendReinvestment])
    // The dividend (0.5598 a share on the shares held at the close of 2022-06-02) buys one share at the open, 79.48, plus $1;
    // what is left cannot buy another.
    let dividend = r.shares[0][try Self.bar(r, "2022-06-02")] * 0.5598
    #expect(abs(r.dividends[t] - dividend) < 1e-9)
    #expect(fills[3].asset == 0 && fills[3].shares == 1 && fills[3].price == 79.48 && dividend >= 80.48)
    #expect(r.cash[t] >= 0 && r.cash[t] < 80.48)
    try PortfolioReferenceTests.expectIndependentFigures(output.summary, unpaidWithdrawals: r.unpaidWithdrawals, "DRIP on a rebalance bar")
  }

  @Test("a withdrawal larger than the account pays what selling everything raises after the sale fees; cash and equity stay at zero")
  func oversizedWithdrawal() throws {
    let (config, assets) = try Self.threeFund()
    var settings = config.settings
    settings.contributions = [DatedAmount(day: day("2023-06-15"), amount: -100_000)]
    let r = PortfolioEngine.run(assets, settings: settings)
    let t = try Self.bar(r, "2023-06-15")
    let fills = r.fills.filter { $0.bar == t }
    #expect(fills.map(\.reason) == [.withdrawal, .withdrawal, .withdrawal])
    #expect(fills.map(\.shares) == (0..<3).map { -r.shares[$0][t - 1] } && r.dividends[t] == 0)
    // Paid: the cash at the previous close plus each holding sold at this open, less its $1 fee.
    let raised = r.cash[t - 1] + (0..<3).reduce(0) { $0 + r.shares[$1][t - 1] * assets[$1].bars.open[t] - 1 }
    #expect(abs(r.flow[t] + raised) < 1e-9 && abs(r.unpaidWithdrawals - (100_000 - raised)) < 1e-9)
    #expect(r.cash[t] == 0 && r.equity[t...].allSatisfy { $0 == 0 })
    #expect(r.cash.allSatisfy { $0 >= 0 } && r.equity.allSatisfy { $0 >= 0 })
    let summary = PortfolioBacktest.summarize(r, assets: assets, initialCash: settings.initialCash)
    try PortfolioReferenceTests.expectIndependentFigures(summary, unpaidWithdrawals: r.unpaidWithdrawals, "withdrawal larger than the account")
  }
}

@Suite("Portfolio reports")
struct PortfolioReportTests {
  @Test("charts are well-formed XML; the page fetches nothing; the equity line is the growth of the initial cash at the TWR")
  func charts() throws {
    let config = try shippedPortfolio("dca-ledger")
    let output = try PortfolioBacktest.run(config)
    let charts = PortfolioReport.charts(output)
    let equity = try #require(SVGCollector.parse(charts.equity()))
    #expect(SVGCollector.parse(charts.monthly()) != nil)
    // Two lines: the TWR growth and, with deposits, the account's value.
    #expect(equity.elements.contains { $0.attributes["id"] == "equity-line" } && equity.elements.contains { $0.attributes["id"] == "benchmark" })
    let html = PortfolioReport.html(output)
    for fetch in ["src=", "<link", "url(", "href=\"http", "@import", "fetch(", "XMLHttpRequest", "import("] { #expect(!html.contains(fetch), "\(fetch)") }
    // Scripts are inline: the chart's spec and data as inert elements, then the charts' one script; the static chart
    // stays for scripts off and print.
    #expect(html.components(separatedBy: "<script").count == 4 && html.components(separatedBy: "<script>").count == 2)
    #expect(html.contains("<script type=\"text/plain\" class=\"ic-data\">") && html.contains("<div class=\"ic-static\"><svg"))
    // The monthly returns compound to the TWR.
    let growth = charts.monthlyReturns.reduce(1.0) { $0 * (1 + $1.value) }
    #expect(abs(growth - 1 - output.summary.twr) < 1e-9)
    // assets.csv and orders.csv have a row per asset and per fill.
    #expect(PortfolioReport.assetsCSV(output).split(separator: "\n").count == 1 + output.assets.count)
    #expect(PortfolioReport.ordersCSV(output).split(separator: "\n").count == 1 + output.result.fills.count)
  }

  @Test("without flows, a rebalanced portfolio's chart sets it beside the same portfolio left to drift")
  func driftComparison() throws {
    let config = try shippedPortfolio("three-fund")
    let output = try PortfolioBacktest.run(config)
    let growth = try #require(output.withoutRebalancingGrowth)
    let drifted = try #require(output.withoutRebalancing)
    #expect(abs(growth[growth.count - 1] / config.settings.initialCash - 1 - drifted.twr) < 1e-12)
    let svg = PortfolioReport.charts(output).equity()
    #expect(svg.contains("id=\"benchmark\"") && svg.contains(">not rebalanced<"))
  }
}

@Suite("Portfolio engine: withdrawals when an asset does not trade")
struct DeferredWithdrawalTests {
  @Test("a withdrawal on a day one holding has no bar is paid at the next bar where both trade, where its sales fill")
  func deferred() {
    let a = PortfolioAsset(symbol: "A", bars: flatBars([100, 100, 100, 100]), weight: 0.5)
    let b = PortfolioAsset(symbol: "B", bars: flatBars([50, 50, 50, 50]).filtered { $0 != 1 }, weight: 0.5)  // no bar on 2024-01-02
    var settings = PortfolioSettings()
    settings.initialCash = 10_000
    settings.contributions = [DatedAmount(day: day("2024-01-02"), amount: -1_000)]
    let r = PortfolioEngine.run([a, b], settings: settings)
    // Cash never goes below zero waiting for the sales: the withdrawal leaves the account when they fill.
    #expect(r.cash[1] == 0 && r.flow[1] == 0 && r.fills.filter { $0.bar == 1 }.isEmpty)
    #expect(r.fills.filter { $0.bar == 2 }.map(\.shares) == [-5, -10] && r.cash[2] == 0 && r.flow[2] == -1_000)
  }
}

/// Rules of `Docs/portfolio.md` not held elsewhere, each worked by hand on flat daily bars.
@Suite("Portfolio engine: the rules of Docs/portfolio.md")
struct PortfolioRuleTests {
  static func settings(_ cash: Double = 10_000, _ change: (inout PortfolioSettings) -> Void = { _ in }) -> PortfolioSettings {
    var s = PortfolioSettings()
    s.initialCash = cash
    change(&s)
    return s
  }

  @Test("buys fill at open × (1 + slippage) capped at the high, sales at open × (1 − slippage) floored at the low; targets use the open")
  func slippage() {
    // A: open 100 (high 100.05, low 99.5); B: open 50 (high 51, low 49.99). 10 bp of slippage.
    let a = handBars([(100, 100.05, 99.5, 100), (100, 100.05, 99.5, 100)]), b = handBars([(50, 51, 49.99, 50), (50, 51, 49.99, 50)])
    let r = PortfolioEngine.run([PortfolioAsset(symbol: "A", bars: a, weight: 0.5), PortfolioAsset(symbol: "B", bars: b, weight: 0.5)],
                                settings: Self.settings(10_000) { $0.slippageBasisPoints = 10; $0.contributions = [DatedAmount(day: day("2024-01-02"), amount: -2_000)] })
    // Initial: targets 5,000 / 100 = 50 A and 5,000 / 50 = 100 B; A fills at the high 100.05 (100.1 is above it), B at 50.05.
    // 50 × 100.05 = 5,002.50 leaves 4,997.50: B is cut to floor(4,997.50 / 50.05) = 99.
    #expect(r.fills[0].price == 100.05 && r.fills[0].shares == 50 && r.fills[1].price == 50 * 1.001 && r.fills[1].shares == 99)
    // The withdrawal sells at 99.9 (A) and at the low 49.99 (B, not 49.95).
    let sales = r.fills.filter { $0.bar == 1 }
    #expect(sales.map(\.price) == [100 * 0.999, 49.99] && sales.allSatisfy { $0.reason == .withdrawal })
  }

  @Test("idle cash pays a withdrawal first; only the shortfall is sold, in proportion to the holdings, rounded up to whole shares")
  func idleCashFirst() {
    let a = PortfolioAsset(symbol: "A", bars: flatBars([100, 100, 100]), weight: 0.45)
    let b = PortfolioAsset(symbol: "B", bars: flatBars([50, 50, 50]), weight: 0.45)
    let r = PortfolioEngine.run([a, b], settings: Self.settings { $0.contributions = [DatedAmount(day: day("2024-01-02"), amount: -1_500)] })
    // 45 A and 90 B, 1,000 in cash. 1,500 out: 500 to raise from 9,000 of holdings: A ⌈500 × 45 / 9,000⌉ = ⌈2.5⌉ = 3,
    // B ⌈500 × 90 / 9,000⌉ = 5; 550 raised, 50 left.
    #expect(r.cash[0] == 1_000 && r.fills.filter { $0.bar == 1 }.map(\.shares) == [-3, -5] && r.cash[1] == 50 && r.flow[1] == -1_500)
  }

  @Test("the commissions of a withdrawal's sales are raised from the largest holding")
  func withdrawalFees() throws {
    let a = PortfolioAsset(symbol: "A", bars: flatBars([100, 100, 100]), weight: 0.5)
    let b = PortfolioAsset(symbol: "B", bars: flatBars([50, 50, 50]), weight: 0.5)
    let r = PortfolioEngine.run([a, b], settings: Self.settings {
      $0.commission = .perTrade(1)
      $0.fractionalShares = true
      $0.contributions = [DatedAmount(day: day("2024-01-02"), amount: -1_000)]
    })
    // 50 A (5,001.00) and 99.96 B (4,998 + 1): no cash left. 1,000 out of 9,998 of holdings: A ⌈50,000 / 9,998⌉ = 5.001001,
    // B ⌈99,960 / 9,998⌉ = 9.998 (to a millionth), each less $1: 1.9999 short. A, the larger holding (4,499.8999 against
    // 4,498.10), sells (1.9999 + 1) / 100 more, rounded up to a millionth: 0.03 (in binary floating point the quotient is
    // 0.029999000000000002), which leaves 0.0001 in cash.
    let sales = r.fills.filter { $0.bar == 1 }
    #expect(sales.map(\.asset) == [0, 1, 0] && sales.allSatisfy { $0.reason == .withdrawal })
    #expect(sales.map(\.shares) == [-5.001001, -9.998, -0.03])
    #expect(abs(r.cash[1] - 0.0001) < 1e-9 && r.flow[1] == -1_000 && r.unpaidWithdrawals == 0)
  }

  @Test("two dividends of one asset paid on the same bar make one DRIP fill; an ex-date on the first bar earns nothing")
  func twoDividendsOneFill() {
    // Flat 10; ex-dates on day 0 (nobody held a share before it), day 1 and day 2, the last two paid on day 4.
    let asset = PortfolioAsset(symbol: "X", bars: flatBars([10, 10, 10, 10, 10, 10]),
                               dividends: [Dividend(exDay: day("2024-01-01"), payDay: day("2024-01-02"), amount: 1),
                                           Dividend(exDay: day("2024-01-02"), payDay: day("2024-01-05"), amount: 0.3),
                                           Dividend(exDay: day("2024-01-03"), payDay: day("2024-01-05"), amount: 0.4)], weight: 1)
    let r = PortfolioEngine.run([asset], settings: Self.settings(1_000) { $0.drip = true })
    // 100 shares × (0.30 + 0.40) = 70 on day 4: one fill of 7 shares.
    #expect(r.dividends.map { $0 } == [0, 0, 0, 0, 70, 0] && r.fills.map(\.shares) == [100, 7] && r.fills[1].bar == 4)
  }

  @Test("the expense drag counts calendar days between bars and is taken from cash, below zero when cash runs out")
  func expenseDayCount() {
    // Friday 2024-01-05 and Monday 2024-01-08 at 100: 3 days of a 3.65% rate on 10,000 = 3.00.
    var bars = flatBars([100, 100, 100, 100], from: day("2024-01-05"))
    bars = bars.filtered { $0 == 0 || $0 == 3 }
    let r = PortfolioEngine.run([PortfolioAsset(symbol: "X", bars: bars, expenseRatio: 0.0365, weight: 1)], settings: Self.settings())
    #expect(abs(r.totals[0].expenseDrag - 3) < 1e-12 && abs(r.cash[1] + 3) < 1e-12 && abs(r.equity[1] - 9_997) < 1e-9)
  }

  @Test("a flow dated before the first bar lands on it; one after the last bar is dropped; a fixed plan skips the first month")
  func flowDates() {
    let asset = PortfolioAsset(symbol: "X", bars: flatBars([10, 10, 10], from: day("2024-01-30")), weight: 1)
    let r = PortfolioEngine.run([asset], settings: Self.settings(1_000) {
      $0.contributions = [DatedAmount(day: day("2023-12-01"), amount: 500), DatedAmount(day: day("2024-02-02"), amount: 300)]
    })
    // The December deposit is credited on the first bar and bought with the initial cash; February 2 is after the last bar.
    #expect(r.flow.map { $0 } == [1_500, 0, 0] && r.fills.map(\.shares) == [150] && r.fills[0].reason == .initial)
    let plan = PortfolioBacktest.contributions(.monthly(amount: 100, day: 1), ledger: nil, firstDay: day("2024-01-01"), lastDay: day("2024-03-01"))
    #expect(plan == [DatedAmount(day: day("2024-02-01"), amount: 100), DatedAmount(day: day("2024-03-01"), amount: 100)])
  }

  @Test("a withdrawal still waiting for a full bar at the end of the data is unpaid")
  func withdrawalNeverPaid() {
    let a = PortfolioAsset(symbol: "A", bars: flatBars([100, 100, 100]), weight: 0.5)
    let b = PortfolioAsset(symbol: "B", bars: flatBars([50, 50, 50]).prefix(2), weight: 0.5)  // B ends a day early
    let r = PortfolioEngine.run([a, b], settings: Self.settings { $0.contributions = [DatedAmount(day: day("2024-01-03"), amount: -700)] })
    #expect(r.fills.allSatisfy { $0.bar == 0 } && r.flow[2] == 0 && r.cash[2] == 0 && r.unpaidWithdrawals == 700)
  }
}
