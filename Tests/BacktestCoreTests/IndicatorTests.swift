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

  @Test("RSI is 0 when prices do not move, 100 when they only rise")
  func rsiEdges() {
    let flat = rsi(ContiguousArray(repeating: 5, count: 20), period: 14)
    #expect(flat[13].isNaN && flat[14] == 0 && flat[19] == 0)
    let rising = rsi(ContiguousArray((0..<20).map(Double.init)), period: 14)
    #expect(rising[14] == 100)
  }
}
