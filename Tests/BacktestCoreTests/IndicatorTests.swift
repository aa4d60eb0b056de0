import BacktestCore
import Foundation
import Testing

@Suite struct IndicatorTests {
  static func googBars() throws -> BarSeries {
    try BarCSVReader().read(file: Repo.path("Data/GOOG.csv"))
  }

  static func reference(_ column: String) throws -> [Double] {
    try SimpleCSV(path: Repo.fixtures + "/talib_goog.csv").column(column).map { $0.isEmpty ? .nan : Double($0)! }
  }

  static func expectMatches(_ mine: ContiguousArray<Double>, _ talib: [Double], _ name: String) {
    #expect(mine.count == talib.count)
    for i in talib.indices {
      if talib[i].isNaN || mine[i].isNaN {
        #expect(talib[i].isNaN == mine[i].isNaN, "\(name)[\(i)] defined in one only")
      } else {
        #expect(close(mine[i], talib[i], relative: 1e-8), "\(name)[\(i)]: \(mine[i]) vs TA-Lib \(talib[i])")
      }
    }
  }

  @Test("SMA, EMA, STDDEV, ATR and RSI equal TA-Lib on GOOG to 1e-8 relative")
  func matchTALib() throws {
    let bars = try Self.googBars()
    Self.expectMatches(sma(bars.close, period: 10), try Self.reference("sma10"), "sma10")
    Self.expectMatches(ema(bars.close, period: 10), try Self.reference("ema10"), "ema10")
    Self.expectMatches(rollingDeviation(bars.close, period: 20), try Self.reference("stddev20"), "stddev20")
    Self.expectMatches(atr(high: bars.high, low: bars.low, close: bars.close, period: 14), try Self.reference("atr14"), "atr14")
    Self.expectMatches(rsi(bars.close, period: 14), try Self.reference("rsi14"), "rsi14")
  }

  @Test("rolling sums do not drift: 2 million values far from zero stay within 1e-8 of an exact recompute")
  func noDrift() {
    var rng = SplitMix64(seed: 11)
    var x = ContiguousArray<Double>()
    var level = 10_000.0
    for _ in 0..<2_000_000 {
      level += rng.normal() * 3
      x.append(level + rng.unit() * 0.01)
    }
    let period = 20
    let mean = sma(x, period: period)
    let deviation = rollingDeviation(x, period: period)
    for i in stride(from: x.count - 5000, to: x.count, by: 1) {
      let window = x[(i - period + 1)...i]
      let m = window.reduce(0, +) / Double(period)
      let sd = (window.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(period)).squareRoot()
      #expect(abs(mean[i] - m) <= 1e-8 * abs(m), "mean at \(i)")
      #expect(abs(deviation[i] - sd) <= 1e-8 * max(sd, 1e-3), "deviation at \(i): \(deviation[i]) vs \(sd)")
    }
  }

  @Test("a window of equal closes has bands exactly at the close and zero deviation")
  func flatWindow() {
    var closes = ContiguousArray<Double>((0..<30).map { 100 - Double($0) * 0.37 })
    closes += ContiguousArray(repeating: 0.1 + 0.2, count: 25)
    let bands = BollingerBands(close: closes, period: 20, deviations: 2)
    for i in 49..<closes.count {
      #expect(bands.lower[i] == closes[i] && bands.upper[i] == closes[i] && bands.middle[i] == closes[i])
      #expect(!(closes[i] < bands.lower[i]))
    }
  }

  @Test("streaming updates equal the batch functions value for value")
  func streamingEqualsBatch() {
    var rng = SplitMix64(seed: 3)
    let x = ContiguousArray((0..<3000).map { _ in 50 + rng.normal() })
    var s = StreamingSMA(period: 7), e = StreamingEMA(period: 9), r = StreamingRSI(period: 14)
    let (bs, be, br) = (sma(x, period: 7), ema(x, period: 9), rsi(x, period: 14))
    for i in x.indices {
      let (a, b, c) = (s.update(x[i]), e.update(x[i]), r.update(x[i]))
      #expect(a.isNaN ? bs[i].isNaN : a == bs[i])
      #expect(b.isNaN ? be[i].isNaN : b == be[i])
      #expect(c.isNaN ? br[i].isNaN : c == br[i])
    }
  }

  @Test("highest and lowest are the window's max and min, for windows of 1 bar to longer than the series", arguments: [UInt64(1), 2, 3])
  func extremesEqualScan(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    // Rounded values, so that ties are common; runs up and down, so that the queue fills and empties.
    var x = ContiguousArray<Double>()
    for _ in 0..<2_000 { x.append(((x.last ?? 100) + rng.normal() * 3).rounded()) }
    for period in [1, 2, 3, 4, 5, 7, 8, 9, 31, 64, 65, 500, 1_999, 2_000, 2_500, 1 << 62] {
      let (high, low) = (highest(x, period: period), lowest(x, period: period))
      for i in x.indices {
        guard i >= period - 1 else {
          #expect(high[i].isNaN && low[i].isNaN, "seed \(seed) period \(period) bar \(i)")
          continue
        }
        let window = x[(i - period + 1)...i]
        #expect(high[i] == window.max()! && low[i] == window.min()!, "seed \(seed) period \(period) bar \(i)")
      }
    }
  }

  @Test("RSI is 0 when prices do not move, 100 when they only rise")
  func rsiEdges() {
    let flat = rsi(ContiguousArray(repeating: 5, count: 20), period: 14)
    #expect(flat[13].isNaN && flat[14] == 0 && flat[19] == 0)
    let rising = rsi(ContiguousArray((0..<20).map(Double.init)), period: 14)
    #expect(rising[14] == 100)
  }
}

/// TA-Lib's values in `Fixtures/talib` (made by `make.py` there): `goog.csv`
/// for `Data/GOOG.csv`, `gpix30.csv` for the first 5,000 bars of
/// `Data/synthetic_gpix_30min.csv`.
enum TALibFixture {
  static let files = ["goog.csv", "gpix30.csv"]
  /// The keys of `gpix30.csv` (one parameter set per function); `goog.csv` has every key.
  static let gpixKeys: Set<String> = ["adx14", "plus_di14", "minus_di14", "stoch_k_14_3", "stoch_d_14_3_3", "macd_12_26",
                                      "macd_signal_12_26_9", "macd_hist_12_26_9", "willr14", "cci20", "obv", "wma10"]

  static func bars(_ file: String) throws -> BarSeries {
    file == "goog.csv" ? try IndicatorTests.googBars()
      : try BarCSVReader().read(file: Repo.path("Data/synthetic_gpix_30min.csv")).prefix(5000)
  }

  static func reference(_ file: String, _ key: String) throws -> [Double] {
    try SimpleCSV(path: Repo.fixtures + "/talib/" + file).column(key).map { $0.isEmpty ? .nan : Double($0)! }
  }

  /// Expects `mine` to be TA-Lib's `talib`: undefined on the same bars, equal to 1e-8 relative elsewhere, and
  /// defined from bar `firstDefined` on.
  static func expectMatches(_ mine: ContiguousArray<Double>, _ talib: [Double], firstDefined: Int, _ name: String) {
    #expect(mine.count == talib.count, "\(name)")
    guard mine.count == talib.count else { return }
    #expect(talib.firstIndex { !$0.isNaN } == firstDefined, "\(name): TA-Lib's warm-up")
    for i in talib.indices {
      if talib[i].isNaN || mine[i].isNaN {
        #expect(talib[i].isNaN == mine[i].isNaN, "\(name)[\(i)]: \(mine[i]) vs TA-Lib \(talib[i])")
      } else {
        #expect(close(mine[i], talib[i], relative: 1e-8), "\(name)[\(i)]: \(mine[i]) vs TA-Lib \(talib[i])")
      }
    }
  }
}

@Suite struct TALibIndicatorTests {
  /// Each key's function of the bars, and the first bar where it is defined.
  static let functions: [String: (first: Int, compute: @Sendable (BarSeries) -> ContiguousArray<Double>)] = [
    "adx14": (27, { adx($0, period: 14) }), "adx5": (9, { adx($0, period: 5) }), "adx2": (3, { adx($0, period: 2) }),
    "plus_di14": (14, { plusDI($0, period: 14) }), "minus_di14": (14, { minusDI($0, period: 14) }),
    "plus_di5": (5, { plusDI($0, period: 5) }), "minus_di5": (5, { minusDI($0, period: 5) }),
    // TA-Lib's DIs of period 1 are fractions (without the factor 100 of every other period).
    "plus_di1": (1, { ContiguousArray(plusDI($0, period: 1).map { $0 / 100 }) }),
    "minus_di1": (1, { ContiguousArray(minusDI($0, period: 1).map { $0 / 100 }) }),
    "stoch_k_14_3": (15, { stochK($0, period: 14, smoothing: 3) }), "stoch_d_14_3_3": (17, { stochD($0, period: 14, smoothing: 3, signal: 3) }),
    "stoch_k_5_1": (4, { stochK($0, period: 5, smoothing: 1) }), "stoch_d_5_1_3": (6, { stochD($0, period: 5, smoothing: 1, signal: 3) }),
    "stoch_k_21_5": (24, { stochK($0, period: 21, smoothing: 5) }), "stoch_d_21_5_1": (24, { stochD($0, period: 21, smoothing: 5, signal: 1) }),
    "macd_12_26": (25, { macd($0.close, fast: 12, slow: 26) }),
    "macd_signal_12_26_9": (33, { macdSignal($0.close, fast: 12, slow: 26, signal: 9) }),
    "macd_hist_12_26_9": (33, { macdHistogram($0.close, fast: 12, slow: 26, signal: 9) }),
    "macd_5_35": (34, { macd($0.close, fast: 5, slow: 35) }),
    "macd_signal_5_35_5": (38, { macdSignal($0.close, fast: 5, slow: 35, signal: 5) }),
    "macd_hist_5_35_5": (38, { macdHistogram($0.close, fast: 5, slow: 35, signal: 5) }),
    "macd_3_10": (9, { macd($0.close, fast: 3, slow: 10) }),
    "macd_signal_3_10_1": (9, { macdSignal($0.close, fast: 3, slow: 10, signal: 1) }),
    "macd_hist_3_10_1": (9, { macdHistogram($0.close, fast: 3, slow: 10, signal: 1) }),
    "willr14": (13, { willr($0, period: 14) }), "willr2": (1, { willr($0, period: 2) }),
    "cci20": (19, { cci($0, period: 20) }), "cci14": (13, { cci($0, period: 14) }), "cci2": (1, { cci($0, period: 2) }),
    "obv": (0, { obv($0) }),
    "wma10": (9, { wma($0.close, period: 10) }), "wma30": (29, { wma($0.close, period: 30) }),
    "wma2": (1, { wma($0.close, period: 2) }), "wma1": (0, { wma($0.close, period: 1) }),
  ]

  static let cases: [(file: String, key: String)] = TALibFixture.files.flatMap { file in
    functions.keys.sorted().filter { file == "goog.csv" || TALibFixture.gpixKeys.contains($0) }.map { (file, $0) }
  }

  @Test("ADX, +DI, -DI, STOCH, MACD, WILLR, CCI, OBV and WMA equal TA-Lib to 1e-8 relative on daily GOOG and 30-minute bars, undefined on the same bars",
        arguments: cases)
  func matchTALib(file: String, key: String) throws {
    let bars = try TALibFixture.bars(file)
    let (first, compute) = try #require(Self.functions[key])
    TALibFixture.expectMatches(compute(bars), try TALibFixture.reference(file, key), firstDefined: first, "\(file) \(key)")
  }

  /// The bars of `edge.csv` (flat stretches, bars without range, ranges of 1e-12, closes at the extremes).
  static func edgeBars() throws -> BarSeries {
    let csv = try SimpleCSV(path: Repo.fixtures + "/talib/edge.csv")
    let column = { (name: String) in csv.column(name).map { Double($0)! } }
    let (o, h, l, c) = (column("open"), column("high"), column("low"), column("close"))
    var bars = handBars(o.indices.map { (o[$0], h[$0], l[$0], c[$0]) })
    bars.volume = ContiguousArray(column("volume"))
    return bars
  }

  @Test("where the zero tests decide (no true range, flat windows, ranges of 1e-12) the functions equal TA-Lib to 1e-8 relative",
        arguments: [
          ("adx3", 5), ("plus_di3", 3), ("minus_di3", 3), ("stoch_k_3_2", 3), ("stoch_d_3_2_2", 4), ("willr3", 2), ("cci3", 2),
          ("obv", 0), ("macd_2_4", 3), ("macd_signal_2_4_2", 4), ("macd_hist_2_4_2", 4), ("wma3", 2),
        ])
  func edges(key: String, first: Int) throws {
    let bars = try Self.edgeBars()
    let values: ContiguousArray<Double> = switch key {
    case "adx3": adx(bars, period: 3)
    case "plus_di3": plusDI(bars, period: 3)
    case "minus_di3": minusDI(bars, period: 3)
    case "stoch_k_3_2": stochK(bars, period: 3, smoothing: 2)
    case "stoch_d_3_2_2": stochD(bars, period: 3, smoothing: 2, signal: 2)
    case "willr3": willr(bars, period: 3)
    case "cci3": cci(bars, period: 3)
    case "obv": obv(bars)
    case "macd_2_4": macd(bars.close, fast: 2, slow: 4)
    case "macd_signal_2_4_2": macdSignal(bars.close, fast: 2, slow: 4, signal: 2)
    case "macd_hist_2_4_2": macdHistogram(bars.close, fast: 2, slow: 4, signal: 2)
    default: wma(bars.close, period: 3)
    }
    let talib = try TALibFixture.reference("edge.csv", key)
    TALibFixture.expectMatches(values, talib, firstDefined: first, "edge.csv \(key)")
    // The cases are there: flat bars give exact zeros, and the values are not all the same.
    #expect(Set(talib.filter { !$0.isNaN }).count > 5, "\(key)")
  }

  @Test("the struct of each family gives its functions' values bit for bit; swapped MACD periods are TA-Lib's swap")
  func families() throws {
    let bars = try IndicatorTests.googBars()
    let (h, l, c) = (bars.high, bars.low, bars.close)
    func identical(_ a: ContiguousArray<Double>, _ b: ContiguousArray<Double>) -> Bool {
      a.count == b.count && zip(a, b).allSatisfy { $0.bitPattern == $1.bitPattern }
    }
    let dm = DirectionalMovement(high: h, low: l, close: c, period: 14)
    #expect(identical(dm.adx, adx(high: h, low: l, close: c, period: 14)) && identical(dm.plusDI, plusDI(bars, period: 14)))
    #expect(identical(dm.minusDI, minusDI(high: h, low: l, close: c, period: 14)))
    let s = Stochastic(high: h, low: l, close: c, period: 14, smoothing: 3, signal: 3)
    #expect(identical(s.k, stochK(bars, period: 14, smoothing: 3)) && identical(s.d, stochD(bars, period: 14, smoothing: 3, signal: 3)))
    // %D is the simple mean of %K from %K's first value.
    #expect(identical(ContiguousArray(s.d[15...]), sma(ContiguousArray(s.k[15...]), period: 3)) && s.d[16].isNaN && !s.d[17].isNaN)
    let m = MACD(c, fast: 12, slow: 26, signal: 9), swapped = MACD(c, fast: 26, slow: 12, signal: 9)
    #expect(identical(m.line, swapped.line) && identical(m.signal, swapped.signal) && identical(m.histogram, swapped.histogram))
    #expect(identical(m.line, macd(c, fast: 12, slow: 26)) && identical(m.signal, macdSignal(c, fast: 12, slow: 26, signal: 9)))
    #expect(identical(m.histogram, macdHistogram(c, fast: 12, slow: 26, signal: 9)))
    // The fast average is seeded at the slow one's seed, not at bar fast - 1: not ema(fast) - ema(slow) at first.
    let plain = ema(c, period: 12), slow = ema(c, period: 26)
    #expect(abs(m.line[25] - (plain[25] - slow[25])) > 1e-3)
    #expect(abs(m.line[2000] - (plain[2000] - slow[2000])) < 1e-9 * c[2000])
    #expect(identical(obv(bars), obv(close: c, volume: bars.volume)) && identical(willr(bars, period: 14), willr(high: h, low: l, close: c, period: 14)))
    #expect(identical(cci(bars, period: 20), cci(high: h, low: l, close: c, period: 20)))
  }
}
