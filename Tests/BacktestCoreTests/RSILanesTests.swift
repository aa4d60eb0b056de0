@testable import BacktestCore
import Testing

@Suite struct RSILanesTests {
  @Test("one to four periods in lanes equal rsi(_:period:) bit for bit, however the input is cut", arguments: [
    [14], [7, 21], [2, 14, 30], [7, 14, 21, 5],
  ])
  func lanesEqualSingle(periods: [Int]) {
    var rng = SplitMix64(seed: UInt64(periods.reduce(0, +)))
    var x = ContiguousArray<Double>([100])
    for k in 0..<3_000 {
      // Runs of equal closes too.
      x.append(k % 400 < 40 && k > 100 ? x.last! : x.last! * (1 + 0.01 * rng.normal()))
    }
    let expected = periods.map { rsi(x, period: $0) }
    for cut in [x.count, 1_000, 7, 1] {
      var lanes = RSILanes(periods: periods)
      let out = periods.map { _ in UnsafeMutablePointer<Double>.allocate(capacity: x.count) }
      defer { for o in out { o.deallocate() } }
      x.withUnsafeBufferPointer { x in
        for start in stride(from: 0, to: x.count, by: cut) {
          let end = min(x.count, start + cut)
          lanes.update(UnsafeBufferPointer(rebasing: x[start..<end]), into: out.map { $0 + start })
        }
      }
      for (k, column) in expected.enumerated() {
        let same = (0..<x.count).allSatisfy { column[$0].bitPattern == out[k][$0].bitPattern }
        #expect(same, "periods \(periods), cut \(cut), period \(periods[k])")
      }
    }
  }
}
