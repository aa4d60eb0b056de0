import BacktestCore
import Foundation

/// One strategy over each symbol of a universe, each on its own cash: every symbol's own run, in the universe's order.
package struct UniverseOutput: Sendable {
  package var config: RunConfig
  /// Each symbol's run, exactly as `backtest run --set data.bars=FILE` makes it.
  package var members: [(symbol: String, output: RunOutput)]
  /// One line each about input read in a way to know (columns not used, pay dates taken as ex-dates), by symbol.
  package var notices: [String] = []
}

/// The universe pipeline: each symbol loaded and run as a run of its own.
package enum UniverseBacktest {
  /// Loads and runs every symbol of `config.universe` (`RunConfig.member(_:)`), `workers` at a time.
  ///
  /// - Throws: the first symbol's error, in the universe's order: a missing or bad file, no bar left.
  package static func run(_ config: RunConfig, workers: Int = ProcessInfo.processInfo.activeProcessorCount) throws -> UniverseOutput {
    let n = config.universe.count
    let results = ConcurrentSlots<Result<(RunOutput, [String]), Error>>(count: n)
    let next = JobCounter()
    DispatchQueue.concurrentPerform(iterations: max(1, min(workers, n))) { _ in
      while let k = next.next(below: n) {
        results.set(k, Result {
          let member = config.member(k)
          let inputs = try Backtest.load(member)
          return (Backtest.execute(member, inputs), inputs.notices)
        })
      }
    }
    var members: [(symbol: String, output: RunOutput)] = [], notices: [String] = []
    for k in 0..<n {
      let (output, notes) = try results.get(k).get()
      members.append((config.universe[k].symbol, output))
      notices += notes
    }
    return UniverseOutput(config: config, members: members, notices: notices)
  }
}
