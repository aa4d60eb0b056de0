import BacktestCore
import Foundation

/// The `sweep:` section of a sweep file: what to vary and how to rank.
package struct SweepSettings: Sendable {
  /// One swept parameter: its column name, the run-file key it sets, and its values as text.
  package struct Parameter: Sendable {
    package var name: String
    package var path: String
    package var values: [String]
  }
  package enum Mode: String, Sendable { case grid, random }

  package var parameters: [Parameter]
  package var mode: Mode
  package var samples: Int?
  package var seed: UInt64
  /// The summary key to rank by (higher is better).
  package var metric: String
  package var minTrades: Int
  package var top: Int
  /// The two parameters (indices) of the heatmap; the first two by default.
  package var heatmap: (x: Int, y: Int)?
  /// A holdout split: rank in-sample, then run the top combinations out-of-sample.
  package var validation: HoldoutSplit?
  /// Walk-forward windows (`validation: {mode: walk_forward, …}`).
  package var walkForward: WalkForwardSettings?
  /// `constraints.where`: the grid points it is false for are not run.
  package var constraint: SweepConstraint?

  /// The path of a universe sweep's first parameter, `symbol`: which of `data.universe` a combination runs on.
  package static let symbolPath = "data.universe"

  /// Whether the first parameter is a universe's symbol.
  package var overUniverse: Bool { parameters.first?.path == Self.symbolPath }
}

/// One combination of swept values.
package struct SweepCombination: Sendable, Equatable {
  /// Position in the full plan (grid order, or sampling order), the same on every machine.
  package var index: Int
  package var values: [String]
}

/// The combinations of a sweep, in a fixed order, and the slice a shard runs.
package enum SweepPlan {
  /// Every combination: the grid (first parameter varying slowest), or a
  /// seeded random sample of it.
  package static func combinations(_ s: SweepSettings) -> [SweepCombination] {
    var all: [[String]] = [[]]
    for p in s.parameters {
      all = all.flatMap { prefix in p.values.map { prefix + [$0] } }
    }
    // The points `constraints.where` excludes are not part of the plan (a random sample draws from the others).
    if let constraint = s.constraint { all = all.filter(constraint.holds) }
    if s.mode == .random, let samples = s.samples, samples < all.count {
      var rng = SplitMix64(seed: s.seed)
      var order = Array(all.indices)
      for i in stride(from: order.count - 1, to: 0, by: -1) {
        order.swapAt(i, Int(rng.next() % UInt64(i + 1)))
      }
      all = order.prefix(samples).sorted().map { all[$0] }
    }
    return all.enumerated().map { SweepCombination(index: $0.offset, values: $0.element) }
  }

  /// How many grid points `constraints.where` leaves out (0 without one).
  package static func constrainedOut(_ s: SweepSettings) -> Int {
    guard let constraint = s.constraint else { return 0 }
    var all: [[String]] = [[]]
    for p in s.parameters { all = all.flatMap { prefix in p.values.map { prefix + [$0] } } }
    return all.filter { !constraint.holds($0) }.count
  }

  /// The combinations of shard `i` of `n` (0-based): the plan positions `shardRanges(all, shards: n)[i]`.
  package static func shard(_ all: [SweepCombination], index i: Int, of n: Int) -> [SweepCombination] {
    Array(all[shardRanges(all, shards: n)[i]])
  }

  /// How `n` shards divide the plan: contiguous runs of it, so that the combinations that share their indicators
  /// (in the plan's order they sit together: every parameter but the last, the fastest varying, the same) run in one
  /// process, which computes them once. Each shard starts at the group start nearest to an equal share of the
  /// combinations (ties to the earlier), so shards hold whole groups and about as many combinations each; with fewer
  /// groups than shards, the shards are equal shares and groups are cut. Deterministic: a shard's range is written in
  /// its sweep.json and `merge` checks it.
  package static func shardRanges(_ all: [SweepCombination], shards n: Int) -> [Range<Int>] {
    let total = all.count
    // Where each group of combinations sharing every value but the last starts.
    var starts: [Int] = []
    for k in 0..<total where k == 0 || all[k].values.dropLast() != all[k - 1].values.dropLast() { starts.append(k) }
    var bounds = [0]
    for i in 1..<max(1, n) {
      let target = total * i / n
      var cut = target
      if starts.count >= n {
        // The group start nearest the target (binary search for the first start at or after it).
        var lo = 0, hi = starts.count
        while lo < hi { let mid = (lo + hi) / 2; if starts[mid] < target { lo = mid + 1 } else { hi = mid } }
        let after = lo < starts.count ? starts[lo] : total, before = lo > 0 ? starts[lo - 1] : 0
        cut = target - before <= after - target ? before : after
      }
      bounds.append(max(bounds[bounds.count - 1], cut))
    }
    bounds.append(total)
    return (0..<max(1, n)).map { bounds[$0]..<bounds[$0 + 1] }
  }

  /// The `--set`-style overrides of one combination (a universe's symbol is none: it picks the bars).
  package static func overrides(_ c: SweepCombination, _ s: SweepSettings) -> [String] {
    zip(s.parameters, c.values).filter { $0.0.path != SweepSettings.symbolPath }.map { "\($0.path)=\($1)" }
  }
}
