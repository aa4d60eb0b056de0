import BacktestCore
import Foundation

/// What a run file of any kind produced: one asset's run, each symbol's run of a universe, or a portfolio's.
package enum AnyRunOutput: Sendable {
  case single(RunOutput)
  case universe(UniverseOutput)
  case portfolio(PortfolioOutput)

  package var name: String {
    switch self {
    case .single(let o): o.config.name
    case .universe(let o): o.config.name
    case .portfolio(let o): o.config.name
    }
  }

  /// The daily returns Monte Carlo resamples: the account's for one asset, the time-weighted ones (flows taken out) for
  /// a portfolio; `nil` for a universe (a run per symbol).
  package var dailyReturns: [Double]? {
    switch self {
    case .single(let o): BacktestCore.dailyReturns(equity: o.run.result.equity, day: o.bars.day)
    case .portfolio(let o): BacktestCore.dailyReturns(equity: o.result.timeWeightedIndex, day: o.result.timeline.day)
    case .universe: nil
    }
  }

  /// Each closed trade's return (none for a portfolio: it has fills, not trades).
  package var tradeReturns: [Double] {
    if case .single(let o) = self { o.run.result.trades.map(\.returnFraction) } else { [] }
  }

  /// Checks that the run's values stayed numbers (and a portfolio's time-weighted index above 0).
  ///
  /// - Throws: `InputError` naming the input, when prices swing by factors too large to compound (a number holds
  ///   1e-308 to 1e308) and every figure from there would be infinite or undefined.
  package func requireFinite() throws {
    switch self {
    case .single(let o):
      try Self.requireFinite(o.run.result.equity, "the equity", bars: o.bars, input: o.config.data.bars)
    case .universe(let u):
      for (_, o) in u.members { try AnyRunOutput.single(o).requireFinite() }
    case .portfolio(let o):
      let inputs = o.config.assets.map(\.bars).joined(separator: ", ")
      try Self.requireFinite(o.result.equity, "the equity", bars: o.result.timeline, input: inputs)
      try Self.requireFinite(o.result.timeWeightedIndex, "the time-weighted index", positive: true, bars: o.result.timeline, input: inputs)
    }
  }

  static func requireFinite(_ values: ContiguousArray<Double>, _ what: String, positive: Bool = false, bars: BarSeries,
                            input: String) throws {
    guard let i = values.firstIndex(where: { !$0.isFinite || (positive && $0 <= 0) }) else { return }
    throw InputError("\(what) reaches \(values[i]) at \(bars.timeLabel(i)): these prices swing by factors too large to compound (a number holds 1e-308 to 1e308); expected prices that move as markets do",
                     file: input)
  }
}

extension AnyRunConfig {
  /// Loads every file the run file names and runs it: one asset (`Backtest`), each symbol of a universe
  /// (`UniverseBacktest`) or several assets (`PortfolioBacktest`).
  ///
  /// - Throws: `InputError` for a missing or bad input file.
  package func run() throws -> AnyRunOutput {
    switch self {
    case .swing(let c): .single(try Backtest.run(c))
    case .universe(let c): .universe(try UniverseBacktest.run(c))
    case .portfolio(let c): .portfolio(try PortfolioBacktest.run(c))
    }
  }
}
