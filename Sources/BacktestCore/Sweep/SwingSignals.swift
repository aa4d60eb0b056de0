import Foundation

/// What the sweep kernel reads besides the bars, computed once for every
/// combination that needs it: where each day ends, and the buy and sell
/// signals of each set of signal parameters in use.
public struct SharedIndicators: Sendable {
  /// How many bars before bar `i` are the last of their calendar day (`n + 1` entries).
  public var dayEndsBefore: ContiguousArray<Int> = []
  /// The buy and sell signals, by the parameters they depend on.
  public var signals: [SwingSignals.Key: SwingSignals] = [:]

  /// Computes the signals the given parameters need, on all cores: first the
  /// RSI of each period and where it is under or over each level in use, then
  /// each Bollinger period's bands in short chunks (the rolling mean and
  /// deviation never exist as whole columns), each test as one bit per bar.
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
    let keys = Set(parameters.map(SwingSignals.Key.init))

    // RSI bits: under each oversold and over each overbought level used with the period.
    let rsiPeriods = Set(keys.map(\.rsiPeriod)).sorted()
    let rsiSlots = ConcurrentSlots<(under: [Double: Bits], over: [Double: Bits])>(count: rsiPeriods.count)
    DispatchQueue.concurrentPerform(iterations: rsiPeriods.count) { r in
      let period = rsiPeriods[r]
      let column = rsi(bars.close, period: period)
      let mine = keys.filter { $0.rsiPeriod == period }
      column.withUnsafeBufferPointer { column in
        rsiSlots.set(r, (under: Dictionary(uniqueKeysWithValues: Set(mine.map(\.oversold)).map { level in
                           (level, Bits(count: n) { column[$0] < level })
                         }),
                         over: Dictionary(uniqueKeysWithValues: Set(mine.map(\.overbought)).map { level in
                           (level, Bits(count: n) { column[$0] > level })
                         })))
      }
    }
    let rsiBits = Dictionary(uniqueKeysWithValues: rsiPeriods.enumerated().map { ($1, rsiSlots.get($0)) })

    // Band bits of each Bollinger period, then each key's signals from them.
    let bollingerPeriods = Set(keys.map(\.bollingerPeriod)).sorted()
    let found = ConcurrentSlots<[(SwingSignals.Key, SwingSignals)]>(count: bollingerPeriods.count)
    DispatchQueue.concurrentPerform(iterations: bollingerPeriods.count) { b in
      let period = bollingerPeriods[b]
      let mine = keys.filter { $0.bollingerPeriod == period }
      let widths = Set(mine.map(\.deviations)).sorted()
      let bands = Bits.bands(close: bars.close, period: period, widths: widths)
      // The sell bits do not depend on `oversold`: one array for the keys that differ only there.
      var sells: [SwingSignals.Key: Bits] = [:]
      found.set(b, mine.map { key in
        let band = bands[widths.firstIndex(of: key.deviations)!]
        let rsi = rsiBits[key.rsiPeriod]!
        var sellKey = key
        sellKey.oversold = 0
        let sell = sells[sellKey] ?? band.over.union(rsi.over[key.overbought]!)
        sells[sellKey] = sell
        let buys = band.under.intersection(rsi.under[key.oversold]!)
          .indices(from: max(period - 1, key.rsiPeriod), below: n - 1)
        return (key, SwingSignals(buys: buys, sell: sell))
      })
    }
    for b in bollingerPeriods.indices { for (key, s) in found.get(b) { signals[key] = s } }
  }
}

/// The signals of `bollinger_rsi` for one set of signal parameters, as the
/// strategy tests them at each close (the same expressions; NaN compares false):
/// - buys: the bars, from the first where both indicators are defined and
///   before the last, whose RSI is under `oversold` and close under the lower
///   band; the kernel's flat phase walks this short list instead of every bar;
/// - sell: one bit per bar, the close over the upper band or the RSI over
///   `overbought`.
public struct SwingSignals: Sendable {
  public struct Key: Hashable, Sendable {
    public var bollingerPeriod: Int, deviations: Double, rsiPeriod: Int, oversold: Double, overbought: Double
    public init(_ p: BollingerRSI.Parameters) {
      bollingerPeriod = p.bollingerPeriod
      deviations = p.bollingerDeviations
      rsiPeriod = p.rsiPeriod
      oversold = p.oversold
      overbought = p.overbought
    }
  }
  /// The bars with a buy signal, rising.
  public var buys: ContiguousArray<Int>
  /// The bars with a sell signal.
  public var sell: Bits
}

/// One bit per bar: bit `i % 64` of word `i / 64` is bar `i`'s.
public struct Bits: Sendable {
  public var words: ContiguousArray<UInt64>

  init(words: ContiguousArray<UInt64>) { self.words = words }

  /// `n` bits, bit `i` set when `test(i)`.
  @inline(__always)
  init(count n: Int, _ test: (Int) -> Bool) {
    words = ContiguousArray(unsafeUninitializedCapacity: (n + 63) / 64) { words, count in
      for w in 0..<(n + 63) / 64 {
        var word: UInt64 = 0
        for i in (w * 64)..<min(n, w * 64 + 64) { word |= (test(i) ? 1 : 0) << UInt64(i & 63) }
        words[w] = word
      }
      count = (n + 63) / 64
    }
  }

  /// Whether bit `i` is set.
  @inline(__always)
  public subscript(i: Int) -> Bool { words[i >> 6] >> UInt64(i & 63) & 1 != 0 }

  func union(_ other: Bits) -> Bits { combined(other, |) }
  func intersection(_ other: Bits) -> Bits { combined(other, &) }

  @inline(__always)
  private func combined(_ other: Bits, _ op: (UInt64, UInt64) -> UInt64) -> Bits {
    Bits(words: ContiguousArray(unsafeUninitializedCapacity: words.count) { out, count in
      for w in words.indices { out[w] = op(words[w], other.words[w]) }
      count = words.count
    })
  }

  /// The set bits' indices in `from..<end`, rising.
  func indices(from: Int, below end: Int) -> ContiguousArray<Int> {
    var out = ContiguousArray<Int>()
    for (w, word) in words.enumerated() {
      var rest = word
      while rest != 0 {
        let i = w << 6 + rest.trailingZeroBitCount
        if i >= from && i < end { out.append(i) }
        rest &= rest - 1
      }
    }
    return out
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
            // `chunk` is a multiple of 64: words do not straddle chunks.
            for i in 0..<m {
              let s = start + i, c = close[s], bit = UInt64(s & 63)
              under[s >> 6] |= (c < mean[i] - k * deviation[i] ? 1 : 0) << bit
              over[s >> 6] |= (c > mean[i] + k * deviation[i] ? 1 : 0) << bit
            }
          }}
        }
      }
    }}}
    return widths.indices.map { (Bits(words: under[$0]), Bits(words: over[$0])) }
  }
}
