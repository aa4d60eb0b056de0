import BacktestCore
import Foundation

/// What the sweep kernel reads besides the bars, computed once for every
/// combination that needs it: where each day ends, and the buy and sell
/// signals of each set of signal parameters in use.
package struct SharedIndicators: Sendable {
  /// How many bars before bar `i` are the last of their calendar day (`n + 1` entries).
  package var dayEndsBefore: ContiguousArray<Int> = []
  /// The buy and sell signals, by the parameters they depend on.
  package var signals: [SwingSignals.Key: SwingSignals] = [:]

  /// Computes the signals the given parameters need, on all cores: first each
  /// Bollinger period's bands and the RSI (up to four periods together), in
  /// short chunks (no indicator ever exists as a whole column), each test as
  /// one bit per bar; then each combination's sell bits (its buys are the
  /// AND of two of those arrays, which the kernel reads as it goes).
  package init(bars: BarSeries, parameters: [BollingerRSI.Parameters]) {
    let n = bars.count
    dayEndsBefore = Self.dayEnds(bars)
    let keys = Set(parameters.map(SwingSignals.Key.init)).sorted {
      ($0.bollingerPeriod, $0.deviations, $0.rsiPeriod, $0.oversold, $0.overbought)
        < ($1.bollingerPeriod, $1.deviations, $1.rsiPeriod, $1.oversold, $1.overbought)
    }

    // First, on all cores: each Bollinger period's band bits, and the RSI bits of
    // up to four periods at a time (under each oversold and over each overbought
    // level used with the period).
    let bollingerPeriods = Set(keys.map(\.bollingerPeriod)).sorted(), rsiPeriods = Set(keys.map(\.rsiPeriod)).sorted()
    let rsiGroups = stride(from: 0, to: rsiPeriods.count, by: 4).map { Array(rsiPeriods[$0..<min(rsiPeriods.count, $0 + 4)]) }
    let bandSlots = ConcurrentSlots<[Double: (under: Bits, over: Bits)]>(count: bollingerPeriods.count)
    let rsiSlots = ConcurrentSlots<[Int: (under: [Double: Bits], over: [Double: Bits])]>(count: rsiGroups.count)
    DispatchQueue.concurrentPerform(iterations: rsiGroups.count + bollingerPeriods.count) { task in
      if task < rsiGroups.count {
        let periods = rsiGroups[task]
        let levels = periods.map { period in
          (under: Set(keys.filter { $0.rsiPeriod == period }.map(\.oversold)).sorted(),
           over: Set(keys.filter { $0.rsiPeriod == period }.map(\.overbought)).sorted())
        }
        rsiSlots.set(task, Dictionary(uniqueKeysWithValues: zip(periods, Bits.rsiLevels(close: bars.close, periods: periods, levels: levels))))
      } else {
        let period = bollingerPeriods[task - rsiGroups.count]
        let widths = Set(keys.filter { $0.bollingerPeriod == period }.map(\.deviations)).sorted()
        bandSlots.set(task - rsiGroups.count,
                      Dictionary(uniqueKeysWithValues: zip(widths, Bits.bands(close: bars.close, period: period, widths: widths))))
      }
    }
    let bands = Dictionary(uniqueKeysWithValues: bollingerPeriods.enumerated().map { ($1, bandSlots.get($0)) })
    let rsiBits = rsiGroups.indices.reduce(into: [Int: (under: [Double: Bits], over: [Double: Bits])]()) {
      $0.merge(rsiSlots.get($1)) { a, _ in a }
    }

    // Then each key's signals. The sell bits do not depend on `oversold`: keys that
    // differ only there (adjacent in `keys`) share one array. The buys are the AND
    // of two bit arrays already made, read by the kernel as it goes.
    let found = ConcurrentSlots<SwingSignals>(count: keys.count)
    let sellGroups = keys.indices.filter { $0 == 0 || !keys[$0].sellsLike(keys[$0 - 1]) }
    DispatchQueue.concurrentPerform(iterations: sellGroups.count) { g in
      let first = sellGroups[g], end = g + 1 < sellGroups.count ? sellGroups[g + 1] : keys.count
      let key = keys[first]
      let band = bands[key.bollingerPeriod]![key.deviations]!, rsi = rsiBits[key.rsiPeriod]!
      let sell = band.over.union(rsi.over[key.overbought]!)
      for k in first..<end {
        found.set(k, SwingSignals(underBand: band.under, underRSI: rsi.under[keys[k].oversold]!,
                                  firstBuy: max(key.bollingerPeriod - 1, key.rsiPeriod), bars: n, sell: sell))
      }
    }
    for (k, key) in keys.enumerated() { signals[key] = found.get(k) }
  }
}

extension SharedIndicators {
  /// How many bars before each bar are the last of their calendar day (`n + 1` entries).
  static func dayEnds(_ bars: BarSeries) -> ContiguousArray<Int> {
    let n = bars.count
    var ends = 0
    return bars.day.withUnsafeBufferPointer { day in
      ContiguousArray(unsafeUninitializedCapacity: n + 1) { before, count in
        before[0] = 0
        for i in 0..<n {
          ends += i == n - 1 || day[i + 1] != day[i] ? 1 : 0
          before[i + 1] = ends
        }
        count = n + 1
      }
    }
  }
}

/// The signals of `bollinger_rsi` for one set of signal parameters, as the
/// strategy tests them at each close (the same expressions; NaN compares false):
/// - buys: the bars, from the first where both indicators are defined and
///   before the last, whose RSI is under `oversold` and close under the lower
///   band (both bits set); the kernel's flat phase jumps from one to the next
///   (`nextBuy`) instead of visiting every bar;
/// - sell: one bit per bar, the close over the upper band or the RSI over
///   `overbought`.
package struct SwingSignals: Sendable {
  package struct Key: Hashable, Sendable {
    package var bollingerPeriod: Int, deviations: Double, rsiPeriod: Int, oversold: Double, overbought: Double
    package init(_ p: BollingerRSI.Parameters) {
      bollingerPeriod = p.bollingerPeriod
      deviations = p.bollingerDeviations
      rsiPeriod = p.rsiPeriod
      oversold = p.oversold
      overbought = p.overbought
    }

    /// Whether the sell signals are the same as `other`'s (all but `oversold` equal).
    func sellsLike(_ other: Key) -> Bool {
      bollingerPeriod == other.bollingerPeriod && deviations == other.deviations && rsiPeriod == other.rsiPeriod
        && overbought == other.overbought
    }
  }
  /// Close under the lower band; RSI under `oversold` (shared with the other keys that use them).
  let underBand: Bits, underRSI: Bits
  /// The first bar where both indicators are defined, and the number of bars.
  let firstBuy: Int, bars: Int
  /// The bars with a sell signal.
  package var sell: Bits

  /// The first buy at bar `t` or later, or `bars - 1` (the last bar, never a buy) when there is none.
  @inline(__always)
  static func nextBuy(_ t: Int, band: UnsafeBufferPointer<UInt64>, rsi: UnsafeBufferPointer<UInt64>, firstBuy: Int, bars n: Int) -> Int {
    let start = max(t, firstBuy)
    guard start < n - 1 else { return n - 1 }
    var w = start >> 6
    var word = band[w] & rsi[w] & (~UInt64(0) << UInt64(start & 63))
    while word == 0 {
      w += 1
      if w == band.count { return n - 1 }
      word = band[w] & rsi[w]
    }
    return min(w << 6 + word.trailingZeroBitCount, n - 1)
  }

  /// The bars with a buy signal, rising (as the kernel meets them).
  package var buys: [Int] {
    underBand.words.withUnsafeBufferPointer { band in
      underRSI.words.withUnsafeBufferPointer { rsi in
        var found: [Int] = []
        var t = Self.nextBuy(0, band: band, rsi: rsi, firstBuy: firstBuy, bars: bars)
        while t < bars - 1 {
          found.append(t)
          t = Self.nextBuy(t + 1, band: band, rsi: rsi, firstBuy: firstBuy, bars: bars)
        }
        return found
      }
    }
  }
}

extension Bits {
  /// For each of `periods` (one to four) and its `levels`: where the RSI of the
  /// close is under each `under` level and over each `over` level.
  static func rsiLevels(close: ContiguousArray<Double>, periods: [Int], levels: [(under: [Double], over: [Double])])
    -> [(under: [Double: Bits], over: [Double: Bits])]
  {
    let n = close.count, words = (n + 63) / 64
    var lanes = RSILanes(periods: periods)
    let values = periods.map { _ in UnsafeMutablePointer<Double>.allocate(capacity: chunk) }
    defer { for v in values { v.deallocate() } }
    var under = levels.map { $0.under.map { _ in ContiguousArray<UInt64>(repeating: 0, count: words) } }
    var over = levels.map { $0.over.map { _ in ContiguousArray<UInt64>(repeating: 0, count: words) } }
    @inline(__always) func fill(_ bits: inout ContiguousArray<UInt64>, start: Int, count m: Int, _ test: (Int) -> Bool) {
      bits.withUnsafeMutableBufferPointer { bits in
        for first in stride(from: 0, to: m, by: 64) {
          var word: UInt64 = 0
          for i in first..<min(m, first + 64) { word |= (test(i) ? 1 : 0) << UInt64(i & 63) }
          bits[(start + first) >> 6] = word
        }
      }
    }
    close.withUnsafeBufferPointer { close in
      for start in stride(from: 0, to: n, by: chunk) {
        let m = min(chunk, n - start)
        lanes.update(UnsafeBufferPointer(rebasing: close[start..<(start + m)]), into: values)
        for k in periods.indices {
          let v = values[k]
          for (j, level) in levels[k].under.enumerated() { fill(&under[k][j], start: start, count: m) { v[$0] < level } }
          for (j, level) in levels[k].over.enumerated() { fill(&over[k][j], start: start, count: m) { v[$0] > level } }
        }
      }
    }
    return periods.indices.map { k in
      (under: Dictionary(uniqueKeysWithValues: zip(levels[k].under, under[k].map(Bits.init(words:)))),
       over: Dictionary(uniqueKeysWithValues: zip(levels[k].over, over[k].map(Bits.init(words:)))))
    }
  }

  /// Bars are taken in chunks this long, so that the chunk's mean and deviation stay in the L1 cache.
  static let chunk = 2048

  /// For each width `k`, where the close is under `mean - k × deviation` and
  /// over `mean + k × deviation` of the rolling window of `period` closes.
  static func bands(close: ContiguousArray<Double>, period: Int, widths: [Double]) -> [(under: Bits, over: Bits)] {
    let n = close.count, words = (n + 63) / 64
    var state = StreamingMeanDeviation(period: period)
    var mean = ContiguousArray<Double>(repeating: 0, count: chunk), deviation = mean
    var under = widths.map { _ in ContiguousArray<UInt64>(repeating: 0, count: words) }
    var over = under
    close.withUnsafeBufferPointer { close in
    mean.withUnsafeMutableBufferPointer { mean in
    deviation.withUnsafeMutableBufferPointer { deviation in
      for start in stride(from: 0, to: n, by: chunk) {
        let m = min(chunk, n - start)
        state.update(UnsafeBufferPointer(rebasing: close[start..<(start + m)]), mean: mean.baseAddress!,
                     deviation: deviation.baseAddress!)
        for (j, k) in widths.enumerated() {
          under[j].withUnsafeMutableBufferPointer { under in
          over[j].withUnsafeMutableBufferPointer { over in
            // A word at a time, built in registers; `chunk` is a multiple of 64.
            for first in stride(from: 0, to: m, by: 64) {
              var below: UInt64 = 0, above: UInt64 = 0
              for i in first..<min(m, first + 64) {
                let c = close[start + i], bit = UInt64(i & 63)
                below |= (c < mean[i] - k * deviation[i] ? 1 : 0) << bit
                above |= (c > mean[i] + k * deviation[i] ? 1 : 0) << bit
              }
              under[(start + first) >> 6] = below
              over[(start + first) >> 6] = above
            }
          }}
        }
      }
    }}}
    return widths.indices.map { (Bits(words: under[$0]), Bits(words: over[$0])) }
  }
}
