@testable import BacktestCore
import Foundation
import Testing

@Suite struct YahooDataTests {
  static let yahoo = """
    Date,Open,High,Low,Close,Adj Close,Volume
    2024-01-02,100,110,90,105,52.5,1000
    2024-01-03,105,108,100,104,62.4,1200

    """

  static func read(_ text: String, adjusted: Bool) throws -> BarSeries {
    var reader = BarCSVReader()
    reader.adjusted = adjusted
    let bytes = Array(text.utf8)
    return try bytes.withUnsafeBufferPointer { try reader.read($0, file: "y.csv") }
  }

  @Test("data.price adjusted: each bar's open, high, low and close scaled by Adj Close / Close; close reads Close and names Adj Close unused")
  func adjustedPrices() throws {
    let plain = try Self.read(Self.yahoo, adjusted: false)
    #expect(plain.close == [105, 104] && plain.unusedColumns == ["Adj Close"])
    let adjusted = try Self.read(Self.yahoo, adjusted: true)
    // Factors 52.5 / 105 = 0.5 and 62.4 / 104 = 0.6.
    #expect(adjusted.open == [50, 63] && adjusted.high == [55, 64.8] && adjusted.low == [45, 60] && adjusted.close == [52.5, 62.4])
    #expect(adjusted.volume == [1000, 1200] && adjusted.unusedColumns.isEmpty)
    #expect(throws: InputError("data.price: adjusted needs an adjusted close column ('Adj Close' as Yahoo writes it), found 'date,open,high,low,close'",
                               at: SourceLocation(file: "y.csv", line: 1, column: 1))) {
      try Self.read("Date,Open,High,Low,Close\n2024-01-02,1,1,1,1\n", adjusted: true)
    }
    #expect(throws: InputError("expected a positive adjusted close up to 1e12, found 'n/a'", at: SourceLocation(file: "y.csv", line: 3, column: 20))) {
      try Self.read("Date,Open,High,Low,Close,Adj Close\n2024-01-02,1,1,1,1,1\n2024-01-03,1,1,1,1,n/a\n", adjusted: true)
    }
  }

  @Test("Yahoo's dividend download Date,Dividends reads as ex-dates and amounts, each paid on its ex-date")
  func yahooDividends() throws {
    let (dividends, payDates) = try DividendReader.readFile(Data("Date,Dividends\n2024-03-14,0.25\n2024-06-13,0.26\n".utf8), file: "d.csv")
    let march = CivilDate.days(year: 2024, month: 3, day: 14), june = CivilDate.days(year: 2024, month: 6, day: 13)
    #expect(dividends == [Dividend(exDay: march, payDay: march, amount: 0.25), Dividend(exDay: june, payDay: june, amount: 0.26)])
    #expect(payDates == false)
    #expect(try DividendReader.readFile(Data("ex_date,pay_date,amount\n2024-03-14,2024-03-28,0.25\n".utf8), file: "d.csv").payDates)
  }
}
