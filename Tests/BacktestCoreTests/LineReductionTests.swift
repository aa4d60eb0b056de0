@testable import BacktestCore
@testable import BacktestRun
import Testing

/// A line for `largestTriangleThreeBuckets`, named for the failure message.
struct LineCase: CustomTestStringConvertible, Sendable {
  var name: String
  var y: ContiguousArray<Double>
  var threshold: Int
  var testDescription: String { "\(name): \(y.count) values, threshold \(threshold)" }

  /// A walk of `count` values from `seed`, with `warmUp` leading `nan`s.
  static func walk(_ name: String, count: Int, threshold: Int, warmUp: Int = 0, seed: UInt64 = 1,
                   edit: (inout ContiguousArray<Double>) -> Void = { _ in }) -> LineCase {
    var rng = SplitMix64(seed: seed), level = 100.0
    var y = ContiguousArray((0..<count).map { i -> Double in
      level += rng.normal()
      return i < warmUp ? .nan : level
    })
    edit(&y)
    return LineCase(name: name, y: y, threshold: threshold)
  }

  static let edges: [LineCase] = [
    LineCase(name: "empty", y: [], threshold: 5),
    LineCase(name: "all nan", y: [.nan, .nan, .nan, .nan, .nan], threshold: 3),
    LineCase(name: "one value", y: [.nan, 2, .nan], threshold: 3),
    walk("count equals the threshold", count: 50, threshold: 50),
    walk("count is the threshold + 1", count: 51, threshold: 50),
    walk("count is the threshold + 1, threshold 3", count: 4, threshold: 3),
    walk("threshold 3: one bucket", count: 5_000, threshold: 3, warmUp: 7),
    walk("threshold below 3", count: 500, threshold: 2),
    walk("a chart's line, warm-up of 19", count: 100_000, threshold: 1_400, warmUp: 19),
    walk("nan right after the first value (first bucket)", count: 3_000, threshold: 100, warmUp: 4) { $0[5] = .nan },
    walk("nan before the last value", count: 3_000, threshold: 100) { $0[2_998] = .nan },
    walk("nan tail", count: 3_000, threshold: 100) { for i in 2_990..<3_000 { $0[i] = .nan } },
    walk("infinities of both signs in one bucket, no nan", count: 3_000, threshold: 100) {
      $0[1_500] = .infinity; $0[1_503] = -.infinity
    },
    walk("an infinity", count: 3_000, threshold: 100) { $0[700] = .infinity },
    walk("huge values: products overflow", count: 3_000, threshold: 100) { y in for i in y.indices { y[i] *= 0x1p1015 } },
    LineCase(name: "constant: every area 0", y: ContiguousArray(repeating: 7, count: 2_000), threshold: 77),
    LineCase(name: "a saw: equal areas", y: ContiguousArray((0..<2_000).map { Double($0 % 2) }), threshold: 77),
  ]
}

@Suite struct LineReductionTests {
  @Test("LTTB's fast path keeps the indices of its general form", arguments: LineCase.edges)
  func sameAsBefore(line: LineCase) {
    #expect(largestTriangleThreeBuckets(line.y, threshold: line.threshold)
            == generalLargestTriangleThreeBuckets(line.y, threshold: line.threshold))
  }

  @Test("LTTB's fast path keeps the indices of its general form, on seeded random lines",
        arguments: 0..<4)
  func sameAsBeforeRandom(part: Int) {
    for seed in stride(from: UInt64(part), to: 3_000, by: 4) {
      let line = randomLine(seed: seed)
      #expect(largestTriangleThreeBuckets(line.y, threshold: line.threshold)
              == generalLargestTriangleThreeBuckets(line.y, threshold: line.threshold),
              "seed \(seed): \(line.y.count) values, threshold \(line.threshold)")
    }
  }

  /// A random line and threshold: walks, few distinct values (equal areas), flat stretches,
  /// huge, tiny and infinite values, `nan` warm-ups, gaps and tails.
  func randomLine(seed: UInt64) -> (y: ContiguousArray<Double>, threshold: Int) {
    var rng = SplitMix64(seed: seed)
    func below(_ n: Int) -> Int { Int(rng.next() % UInt64(max(n, 1))) }
    let n = [below(12), below(100), below(3_000), 1_000 + below(6_000)][below(4)]
    var y = ContiguousArray<Double>(repeating: 0, count: n)
    var level = 0.0
    let kind = below(7)
    for i in 0..<n {
      switch kind {
      case 0: level += rng.unit() - 0.5; y[i] = level                       // a walk
      case 1: y[i] = Double(below(3))                                       // few values: equal areas
      case 2: y[i] = 7                                                      // constant
      case 3: if below(50) == 0 { level = Double(below(5)) }; y[i] = level  // flat stretches
      case 4: y[i] = (rng.unit() - 0.5) * 0x1p1020                          // products overflow
      case 5: y[i] = [0.0, -0.0, .leastNonzeroMagnitude, .leastNormalMagnitude / 3, 1][below(5)]
      default: y[i] = 1e8 + Double(below(1_000)) * 0.01                     // large, close values
      }
    }
    if n > 0 {
      if below(4) == 0 { for _ in 0...below(3) { y[below(n)] = [Double.infinity, -.infinity][below(2)] } }
      if below(2) == 0 { for i in 0..<below(min(n, 40)) { y[i] = .nan } }             // a warm-up
      if below(4) == 0 { for _ in 0...below(max(1, n / 20)) { y[below(n)] = .nan } }  // gaps
      if below(6) == 0 { for i in (n - below(min(n, 5)))..<n { y[i] = .nan } }        // a tail
      if below(40) == 0 { for i in 0..<n { y[i] = .nan } }
    }
    // Thresholds at the edges (below 3, 3, the count and either side of it) and between.
    let threshold = [below(4), 3, n, n - 1, n + 1, 3 + below(n), 3 + below(50), 3 + below(n / 3)][below(8)]
    return (y, threshold)
  }
}
