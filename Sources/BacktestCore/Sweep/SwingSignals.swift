import Foundation

/// What the sweep kernel reads besides the bars, computed once for every
/// combination that needs it: where each day ends, and the signals of each
/// band, RSI period and overbought level in use.
public struct SharedIndicators: Sendable {
  /// How many bars before bar `i` are the last of their calendar day (`n + 1` entries).
  public var dayEndsBefore: ContiguousArray<Int> = []
  /// The buy candidates and sell signals, by band, RSI period and overbought level.
  public var signals: [SwingSignals.Key: SwingSignals] = [:]

  /// Computes the signals the given parameters need, on all cores: the RSI of
  /// each period first, then each Bollinger period's bands in short chunks (the
  /// rolling mean and deviation never exist as whole columns).
  public init(bars: BarSeries, parameters: [BollingerRSI.Parameters]) {
    let n = bars.count
    var ends = 0
    bars.day.withUnsafeBufferPointer { day in
      dayEndsBefore = ContiguousArray(unsafeUninitializedCapacity: n + 1) { before, count in
        before[0] = 0
        for i in 0..<n {
          ends += i == n - 1 || day[i + 1] != day[i] ? 1 : 0
          before[i + 1] = ends
        }
        count = n + 1
      }
    }
    // Each key's buy candidates serve the highest oversold threshold among its combinations.
    let thresholds = Dictionary(parameters.map { (SwingSignals.Key($0), $0.oversold) }, uniquingKeysWith: max)

    // The RSI of each period, and where it is above each overbought level in use.
    let rsiPeriods = Set(thresholds.keys.map(\.rsiPeriod)).sorted()
    let rsiSlots = ConcurrentSlots<(ContiguousArray<Double>, [Double: ContiguousArray<UInt64>])>(count: rsiPeriods.count)
    DispatchQueue.concurrentPerform(iterations: rsiPeriods.count) { k in
      let column = rsi(bars.close, period: rsiPeriods[k])
      let levels = Set(thresholds.keys.filter { $0.rsiPeriod == rsiPeriods[k] }.map(\.overbought))
      rsiSlots.set(k, (column, Dictionary(uniqueKeysWithValues: levels.map { level in
        (level, SwingSignals.bits(count: n) { column[$0] > level })
      })))
    }
    let rsiByPeriod = Dictionary(uniqueKeysWithValues: rsiPeriods.enumerated().map { ($1, rsiSlots.get($0)) })

    // Each Bollinger period's bands, then each key's signals from them.
    let bollingerPeriods = Set(thresholds.keys.map(\.bollingerPeriod)).sorted()
    let found = ConcurrentSlots<[(SwingSignals.Key, SwingSignals)]>(count: bollingerPeriods.count)
    DispatchQueue.concurrentPerform(iterations: bollingerPeriods.count) { b in
      let period = bollingerPeriods[b]
      let keys = thresholds.filter { $0.key.bollingerPeriod == period }
      let widths = Set(keys.keys.map(\.deviations)).sorted()
      let bands = BandCrossings.compute(close: bars.close, period: period, widths: widths)
      found.set(b, keys.map { key, threshold in
        let band = bands[widths.firstIndex(of: key.deviations)!]
        let (rsiColumn, overbought) = rsiByPeriod[key.rsiPeriod]!
        return (key, SwingSignals(below: band.below, rsi: rsiColumn, threshold: threshold, from: max(period - 1, key.rsiPeriod),
                                  above: band.above, overbought: overbought[key.overbought]!))
      })
    }
    for b in bollingerPeriods.indices { for (key, s) in found.get(b) { signals[key] = s } }
  }
}

/// The signals of `bollinger_rsi` for one band (period and width), RSI period
/// and overbought level, as the strategy evaluates them at each close (the
/// same expressions; NaN compares false):
/// - buy candidates: the bars before the last, from the first where both
///   indicators are defined, whose close is under the lower band and whose
///   RSI is under the highest `oversold` in use; a combination takes those
///   under its own threshold, so its flat phase walks this short list
///   instead of every bar;
/// - sell: one bit per bar, the close over the upper band or the RSI over
///   the overbought level.
public struct SwingSignals: Sendable {
  public struct Key: Hashable, Sendable {
    public var bollingerPeriod: Int, deviations: Double, rsiPeriod: Int, overbought: Double
    public init(_ p: BollingerRSI.Parameters) {
      bollingerPeriod = p.bollingerPeriod
      deviations = p.bollingerDeviations
      rsiPeriod = p.rsiPeriod
      overbought = p.overbought
    }
  }
  /// The buy candidates' bar indices, rising.
  public var candidates: ContiguousArray<Int>
  /// The RSI at each candidate.
  public var candidateRSI: ContiguousArray<Double>
  /// Every candidate's RSI is under this; a combination's `oversold` must not exceed it.
  public var threshold: Double
  /// Bit `t % 64` of word `t / 64`: whether bar `t`'s close gives a sell signal.
  public var sell: ContiguousArray<UInt64>

  /// The candidates of `below` (bars under the lower band) from `from` on whose RSI is under
  /// `threshold`; the sell bits of `above` (bars over the upper band) or `overbought`.
  init(below: ContiguousArray<Int>, rsi column: ContiguousArray<Double>, threshold: Double, from: Int,
       above: ContiguousArray<UInt64>, overbought: ContiguousArray<UInt64>) {
    let start = below.firstIndex { $0 >= from } ?? below.count
    var kept = 0
    let candidates = ContiguousArray<Int>(unsafeUninitializedCapacity: below.count - start + 1) { out, count in
      below.withUnsafeBufferPointer { below in
      column.withUnsafeBufferPointer { column in
        // Branch-free: write every bar, keep it when the test holds.
        for s in below[start...] {
          out[kept] = s
          kept += column[s] < threshold ? 1 : 0
        }
      }}
      count = kept
    }
    self.candidates = candidates
    candidateRSI = ContiguousArray(unsafeUninitializedCapacity: kept) { out, count in
      for (j, s) in candidates.enumerated() { out[j] = column[s] }
      count = kept
    }
    self.threshold = threshold
    sell = ContiguousArray(unsafeUninitializedCapacity: above.count) { out, count in
      for w in above.indices { out[w] = above[w] | overbought[w] }
      count = above.count
    }
  }

  /// `count` bits, bit `i` set when `test(i)`.
  @inline(__always)
  static func bits(count n: Int, _ test: (Int) -> Bool) -> ContiguousArray<UInt64> {
    ContiguousArray(unsafeUninitializedCapacity: (n + 63) / 64) { words, count in
      for w in 0..<(n + 63) / 64 {
        var word: UInt64 = 0
        for i in (w * 64)..<min(n, w * 64 + 64) { word |= (test(i) ? 1 : 0) << UInt64(i & 63) }
        words[w] = word
      }
      count = (n + 63) / 64
    }
  }
}

/// Where the close leaves one Bollinger period's bands, for each width.
enum BandCrossings {
  /// Bars are taken in chunks this long: the chunk's mean and deviation stay in the L1 cache.
  static let chunk = 2048

  /// For each width `k`: the bars before the last whose close is under `mean - k × deviation`,
  /// and the bits of the bars whose close is over `mean + k × deviation`.
  static func compute(close: ContiguousArray<Double>, period: Int, widths: [Double])
    -> [(below: ContiguousArray<Int>, above: ContiguousArray<UInt64>)]
  {
    let n = close.count, words = (n + 63) / 64
    var state = StreamingMeanDeviation(period: period)
    var mean = ContiguousArray<Double>(repeating: 0, count: chunk), deviation = mean
    // Room for every bar; only the pages written are ever touched.
    let below = widths.map { _ in UnsafeMutablePointer<Int>.allocate(capacity: n + 1) }
    defer { for b in below { b.deallocate() } }
    var above = widths.map { _ in ContiguousArray<UInt64>(repeating: 0, count: words) }
    var belowCount = widths.map { _ in 0 }
    close.withUnsafeBufferPointer { close in
    mean.withUnsafeMutableBufferPointer { mean in
    deviation.withUnsafeMutableBufferPointer { deviation in
      for start in stride(from: 0, to: n, by: chunk) {
        let m = min(chunk, n - start)
        state.update(UnsafeBufferPointer(rebasing: close[start..<(start + m)]), mean: mean.baseAddress!,
                     deviation: deviation.baseAddress!)
        for (j, k) in widths.enumerated() {
          var count = belowCount[j]
          let below = below[j]
          above[j].withUnsafeMutableBufferPointer { above in
            // Branch-free; `chunk` is a multiple of 64, so words do not straddle chunks.
            for i in 0..<m {
              let s = start + i, c = close[s]
              below[count] = s
              count += c < mean[i] - k * deviation[i] ? 1 : 0
              above[s >> 6] |= (c > mean[i] + k * deviation[i] ? 1 : 0) << UInt64(s & 63)
            }
          }
          belowCount[j] = count
        }
      }
    }}}
    return widths.indices.map { j in
      // The last bar cannot be a buy signal (its order would fill after the data).
      let count = belowCount[j] > 0 && below[j][belowCount[j] - 1] == n - 1 ? belowCount[j] - 1 : belowCount[j]
      return (ContiguousArray(UnsafeBufferPointer(start: below[j], count: count)), above[j])
    }
  }
}
