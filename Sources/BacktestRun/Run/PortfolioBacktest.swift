import BacktestCore
import Foundation

/// What one asset contributed to a portfolio run.
package struct AssetAttribution: Sendable {
  package var symbol: String
  package var targetWeight: Double
  package var shares: Double
  package var price: Double
  package var value: Double
  /// Value over the account's equity at the last close.
  package var allocation: Double
  package var totals: AssetTotals
  /// `value + sold - bought + dividends - fees - expense drag`.
  package var pnl: Double
  /// `pnl / bought`: the return on the money put into this asset.
  package var returnOnInvested: Double?
  /// `pnl` over the capital the investor put in (initial cash plus deposits).
  package var contribution: Double
  package var dividendProfile: DividendProfile
  /// Dividend yield of the last 12 months at the last close.
  package var trailingYield: Double?
  /// Forward annual dividend of the shares held, over what they cost (an estimate).
  package var yieldOnCost: Double?
}

/// The statistics of a portfolio run, as its `summary.json` holds them.
package struct PortfolioSummary: Sendable {
  /// Return statistics of the time-weighted index (flows taken out), `total_return` being the TWR.
  package var performance: PerformanceSummary
  package var finalEquity: Double
  /// Cash the investor put in (initial cash and deposits) and took out (withdrawals, positive).
  package var deposited: Double
  package var withdrawn: Double
  /// `final equity + withdrawn - deposited`.
  package var totalPnl: Double
  package var twr: Double
  package var xirr: Double?
  package var dividendIncome: Double
  package var dividendsPending: Double
  package var commissions: Double
  package var expenseDrag: Double
  package var fees: Double { commissions + expenseDrag }
  package var rebalances: Int
  package var fills: Int
  /// The lesser of the purchases and the sales of rebalance fills (contributions, withdrawals and DRIP
  /// left out) over the mean equity at the closes, per year of the run (the SEC's definition of a fund's
  /// turnover); `nil` for a run shorter than a day.
  package var turnover: Double?
  /// Σ initial investment × asset return / Σ initial investment.
  package var weightedReturn: Double?
  /// Dividends of the last 12 months per share × shares held, over the holdings' value.
  package var trailingYield: Double?
  /// Forward annual dividends of the holdings (an estimate) over their cost.
  package var yieldOnCost: Double?
  /// Forward annual dividend income of the shares held (an estimate).
  package var forwardAnnualDividend: Double
  package var assets: [AssetAttribution]
}

/// Everything a portfolio run produced, ready for the report writers.
public struct PortfolioOutput: Sendable {
  package var config: PortfolioRunConfig
  /// The assets as the run read them, in the run file's order.
  public var assets: [PortfolioAsset]
  /// What the run did: fills, decisions (the target weights), and each bar's holdings and value.
  public var result: PortfolioResult
  package var ledger: CashFlowLedger?
  package var summary: PortfolioSummary
  /// With rebalancing: the same run with `rebalance: never` (the initial weights left to drift), for comparison;
  /// for a rotation, the whole universe at equal weights, bought once and held.
  package var withoutRebalancing: PortfolioSummary?
  /// That run's growth of the initial cash at its time-weighted return, bar by bar.
  package var withoutRebalancingGrowth: ContiguousArray<Double>?
  /// What made the run: the engine, the settings, the input files.
  package var manifest = RunManifest()
}

/// The portfolio pipeline: load the assets, dividends and ledger; run; summarize.
public enum PortfolioBacktest {
  /// The external flows after the initial cash, for the bars' first and last day.
  package static func contributions(_ plan: ContributionPlan, ledger: CashFlowLedger?, firstDay: Int, lastDay: Int) -> [DatedAmount] {
    switch plan {
    case .none: return []
    case .ledger: return ledger?.monthlyNetContributions ?? []
    case .monthly(let amount, let dayOfMonth):
      var out: [DatedAmount] = []
      let c = CivilDate.components(days: firstDay)
      var month = CivilDate.adding(months: 1, to: CivilDate.days(year: c.year, month: c.month, day: 1))
      while month <= lastDay {
        let m = CivilDate.components(days: month)
        let day = month + min(dayOfMonth, CivilDate.daysInMonth(year: m.year, month: m.month)) - 1
        if day <= lastDay { out.append(DatedAmount(day: day, amount: amount)) }
        month = CivilDate.adding(months: 1, to: month)
      }
      return out
    }
  }

  /// The external flows of `config` over `assets`' dates.
  package static func settings(_ config: PortfolioRunConfig, assets: [PortfolioAsset], ledger: CashFlowLedger?) -> PortfolioSettings {
    var settings = config.settings
    let firstDay = assets.map { Int($0.bars.day[0]) }.min()!, lastDay = assets.map { Int($0.bars.day[$0.bars.count - 1]) }.max()!
    settings.contributions = contributions(config.contributions, ledger: ledger, firstDay: firstDay, lastDay: lastDay)
    return settings
  }

  /// Runs already loaded assets.
  package static func execute(_ config: PortfolioRunConfig, assets: [PortfolioAsset], ledger: CashFlowLedger?,
                             manifest: RunManifest? = nil) -> PortfolioOutput {
    let settings = settings(config, assets: assets, ledger: ledger)
    let result = config.strategy.run(assets, settings: settings)
    let output = PortfolioOutput(config: config, assets: assets, result: result, ledger: ledger,
                                 summary: summarize(result, assets: assets, initialCash: settings.initialCash),
                                 manifest: manifest ?? RunManifest(settings: config.settingsHash))
    return compared(output, settings: settings)
  }

  /// `output` with the comparison run: for fixed weights with a rebalance rule, the same weights left to drift; for a
  /// strategy that decides, every asset at equal weights, bought once and held.
  static func compared(_ output: PortfolioOutput, settings: PortfolioSettings) -> PortfolioOutput {
    var output = output
    let strategy = output.config.strategy
    guard strategy.decides || settings.rebalance != .never else { return output }
    var held = settings, universe = output.assets
    held.rebalance = .never
    if strategy.decides {
      for a in universe.indices { universe[a].weight = 1 / Double(universe.count) }
    }
    let drifted = PortfolioEngine.run(universe, settings: held)
    output.withoutRebalancing = summarize(drifted, assets: universe, initialCash: settings.initialCash)
    output.withoutRebalancingGrowth = ContiguousArray(drifted.timeWeightedIndex.map { $0 * settings.initialCash })
    return output
  }

  /// `PortfolioSummary.turnover`.
  static func turnover(_ r: PortfolioResult) -> Double? {
    var bought = 0.0, sold = 0.0
    for f in r.fills where f.reason == .rebalance {
      if f.shares > 0 { bought += f.shares * f.price } else { sold -= f.shares * f.price }
    }
    let days = Double(r.timeline.day[r.timeline.count - 1] - r.timeline.day[0])
    let meanEquity = r.equity.reduce(0, +) / Double(r.equity.count)
    guard days > 0, meanEquity > 0 else { return nil }
    return min(bought, sold) / meanEquity / (days / 365.25)
  }

  /// The return statistics of the time-weighted index (deposits are not gains), `final_equity` being the account's.
  static func performance(_ r: PortfolioResult, initialCash: Double) -> PerformanceSummary {
    let n = r.timeline.count, last = n - 1
    let index = r.timeWeightedIndex
    var accumulator = SummaryAccumulator(expectedDays: n)
    for t in 0..<n {
      accumulator.mark(equity: initialCash * index[t], held: r.shares.contains { $0[t] != 0 }, day: r.timeline.day[t],
                       dayEnd: t == last || r.timeline.day[t + 1] != r.timeline.day[t])
    }
    var performance = accumulator.summary(initialCash: initialCash, calendarDays: Int(r.timeline.day[last]) - Int(r.timeline.day[0]))
    performance.finalEquity = r.equity[last]
    return performance
  }

  /// The statistics of a portfolio result. Each asset's target weight is that of the strategy's last decision, else
  /// the weight it held from the start.
  package static func summarize(_ r: PortfolioResult, assets: [PortfolioAsset], initialCash: Double) -> PortfolioSummary {
    let targets = r.decisions.last?.weights ?? (r.initialWeights.isEmpty ? assets.map { _ in 0 } : r.initialWeights)
    let n = r.timeline.count, last = n - 1
    var performance = performance(r, initialCash: initialCash)
    let deposited = r.flow.reduce(0) { $0 + max(0, $1) }, withdrawn = r.flow.reduce(0) { $0 + max(0, -$1) }
    var flows: [DatedAmount] = []
    for t in 0..<n where r.flow[t] != 0 { flows.append(DatedAmount(day: Int(r.timeline.day[t]), amount: -r.flow[t])) }
    flows.append(DatedAmount(day: Int(r.timeline.day[last]), amount: r.equity[last]))
    let totalPnl = r.equity[last] + withdrawn - deposited
    performance.totalPnl = totalPnl
    performance.twr = performance.totalReturn
    performance.xirr = xirr(flows)
    performance.dividendIncome = r.dividends.reduce(0, +)
    performance.fees = r.totals.reduce(0) { $0 + $1.fees + $1.expenseDrag }
    performance.expenseDrag = r.totals.reduce(0) { $0 + $1.expenseDrag }

    let asOf = Int(r.timeline.day[last])
    var attribution: [AssetAttribution] = []
    var ttmIncome = 0.0, forwardIncome = 0.0, heldValue = 0.0, heldCost = 0.0
    for (a, asset) in assets.enumerated() {
      let totals = r.totals[a], shares = r.shares[a][last], price = r.prices[a][last]
      let value = shares == 0 ? 0 : shares * price
      let pnl = value + totals.sold - totals.bought + totals.dividends - totals.fees - totals.expenseDrag
      let profile = DividendProfile(asset.dividends, asOf: asOf)
      if shares > 0 {
        ttmIncome += shares * profile.trailingTwelveMonths
        forwardIncome += shares * (profile.forwardAnnual ?? 0)
        heldValue += value
        heldCost += totals.costBasis
      }
      attribution.append(AssetAttribution(
        symbol: asset.symbol, targetWeight: targets[a], shares: shares, price: price, value: value,
        allocation: r.equity[last] > 0 ? value / r.equity[last] : 0, totals: totals, pnl: pnl,
        returnOnInvested: totals.bought > 0 ? pnl / totals.bought : nil, contribution: deposited > 0 ? pnl / deposited : 0,
        dividendProfile: profile, trailingYield: price > 0 && !asset.dividends.isEmpty ? profile.trailingTwelveMonths / price : nil,
        yieldOnCost: shares > 0 && totals.costBasis > 0 ? shares * (profile.forwardAnnual ?? 0) / totals.costBasis : nil))
    }
    let initial = attribution.reduce(0) { $0 + $1.totals.initialInvestment }
    let weighted = initial > 0
      ? attribution.reduce(0) { $0 + $1.totals.initialInvestment * ($1.returnOnInvested ?? 0) } / initial : nil
    let hasDividends = assets.contains { !$0.dividends.isEmpty }
    return PortfolioSummary(
      performance: performance, finalEquity: r.equity[last], deposited: deposited, withdrawn: withdrawn, totalPnl: totalPnl,
      twr: performance.totalReturn, xirr: performance.xirr, dividendIncome: performance.dividendIncome,
      dividendsPending: r.totals.reduce(0) { $0 + $1.dividendsPending },
      commissions: r.totals.reduce(0) { $0 + $1.fees }, expenseDrag: performance.expenseDrag,
      rebalances: Set(r.fills.filter { $0.reason == .rebalance }.map(\.bar)).count, fills: r.fills.count, turnover: turnover(r),
      weightedReturn: weighted, trailingYield: hasDividends && heldValue > 0 ? ttmIncome / heldValue : nil,
      yieldOnCost: hasDividends && heldCost > 0 ? forwardIncome / heldCost : nil, forwardAnnualDividend: forwardIncome,
      assets: attribution)
  }
}
