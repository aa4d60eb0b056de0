import BacktestCore
import Foundation
import Testing

@Suite struct SessionTests {
  static let newYork = TimeZone(identifier: "America/New_York")!

  /// 30-minute bars of one New York day from 04:00 to 19:30 local, open = close = bar number.
  static func oneDay() throws -> BarSeries {
    var text = "timestamp,open,high,low,close,volume\n"
    for k in 0..<32 {
      let minute = 240 + 30 * k
      text += String(format: "2024-01-02 %02d:%02d:00,%d,%d,%d,%d,10\n", minute / 60, minute % 60, k + 1, k + 2, k + 1, k + 1)
    }
    return try readBars(text, zone: "America/New_York")
  }

  @Test("the regular session keeps 09:30 to 15:30 bars, 13 of them")
  func regular() throws {
    let bars = try Self.oneDay().filtered(session: .regular, timeZone: Self.newYork)
    #expect(bars.count == 13)
    #expect(bars.timeLabel(0) == "2024-01-02 09:30:00" && bars.timeLabel(12) == "2024-01-02 15:30:00")
    #expect(try Self.oneDay().filtered(session: .all, timeZone: Self.newYork).count == 32)
    #expect(try Self.oneDay().filtered(session: SessionWindow("04:00-05:00")!, timeZone: Self.newYork).count == 2)
  }

  @Test("many bars are checked in parts on all cores: all inside keeps them all, the first bar of each day outside drops exactly those")
  func manyBars() {
    let bars = SyntheticBars.generate(count: 300_000, seed: 3)  // New York's regular session, 09:30 to 15:30
    #expect(bars.filtered(session: .regular, timeZone: Self.newYork).count == 300_000)
    let opening = bars.indices.filter { bars.timeLabel($0).contains("T09:30:00") }
    #expect(opening.count > 20_000)
    let later = bars.filtered(session: SessionWindow("10:00-16:00")!, timeZone: Self.newYork)
    #expect(later.count == 300_000 - opening.count)
    #expect(later.timeLabel(later.count - 1) == bars.timeLabel(bars.count - 1))
  }

  @Test("resampling to 1h inside the session aggregates OHLCV and stamps bucket starts with the offset")
  func hourly() throws {
    let day = try Self.oneDay().filtered(session: .regular, timeZone: Self.newYork)
    let hourly = day.resampled(to: ResampleInterval("1h")!, session: .regular, timeZone: Self.newYork)
    #expect(hourly.count == 7)
    #expect(hourly.timeLabel(0) == "2024-01-02T09:30:00-05:00" && hourly.timeLabel(6) == "2024-01-02T15:30:00-05:00")
    // Bars 12 and 13 (09:30, 10:00) form the first hour; bar 24 (15:30) the last, alone.
    let first = [hourly.open[0], hourly.high[0], hourly.low[0], hourly.close[0], hourly.volume[0]]
    #expect(first == [12, 14, 12, 13, 20])
    #expect(hourly.open[6] == 24 && hourly.close[6] == 24 && hourly.volume[6] == 10)
    let daily = day.resampled(to: .daily, session: .regular, timeZone: Self.newYork)
    #expect(daily.count == 1 && daily.timeLabel(0) == "2024-01-02" && daily.open[0] == 12 && daily.close[0] == 24)
    #expect(daily.high[0] == 25 && daily.low[0] == 12 && daily.volume[0] == 130)
  }

  @Test("session windows and intervals parse or are refused")
  func parsing() {
    #expect(SessionWindow("regular") == .window(start: 570, end: 960))
    #expect(SessionWindow("09:30-16:00") == .regular && SessionWindow("all") == .all)
    #expect(SessionWindow("16:00-09:30") == nil && SessionWindow("9:30-16:00") == nil)
    #expect(SessionWindow.regular.description == "09:30-16:00" && SessionWindow.all.description == "all")
    #expect(SessionWindow("00:05-24:00")?.description == "00:05-24:00" && SessionWindow("10:10-11:59")?.description == "10:10-11:59")
    #expect(ResampleInterval("30min") == .minutes(30) && ResampleInterval("2h") == .minutes(120))
    #expect(ResampleInterval("7min") == nil && ResampleInterval("1d") == .daily)
  }
}
