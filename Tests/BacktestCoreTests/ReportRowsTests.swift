@testable import BacktestCore
@testable import BacktestRun
import Foundation
import Testing

/// Rows are written a chunk at a time into room reserved once per chunk: the room must hold the longest rows.
@Suite struct ReportRowsTests {
  @Test("a cursor copies byte runs of every length exactly, touching nothing past them")
  func byteRuns() {
    let source = (0..<64).map { UInt8(65 + $0 % 26) }
    for count in 0...40 {
      var target = [UInt8](repeating: 0, count: 64)
      target.withUnsafeMutableBufferPointer { out in
        source.withUnsafeBufferPointer { from in
          var cursor = ByteCursor(position: out.baseAddress!)
          cursor.bytes(from.baseAddress! + 3, count: count)
          #expect(cursor.position == out.baseAddress! + count)
        }
      }
      #expect(Array(target[..<count]) == Array(source[3..<(3 + count)]), "count \(count)")
      #expect(target[count...].allSatisfy { $0 == 0 }, "count \(count)")
    }
  }

  @Test("indicators.csv rows of the longest numbers, labels and stages fit their chunk's room")
  func longestIndicatorRows() {
    let count = 5_000
    var bars = BarSeries(source: "hand")
    for i in 0..<count {
      let label = Array("2024-01-01T09:30:00.123456789-05:00 #\(i)".utf8)
      bars.append(time: Int64(i), day: 0, open: 1, high: 1, low: 1, close: -2.2250738585072014e-308, volume: 0, label: label)
    }
    let longest = ContiguousArray(repeating: -2.2250738585072014e-308, count: count)
    let indicators = (0..<4).map { IndicatorColumn("c\($0)", longest) }
    let stages = ContiguousArray((0..<count).map { _ in CycleStage.contraction })
    let text = RunReport.indicatorRows(bars: bars, indicators: indicators, stages: stages).text
    let lines = text.split(separator: "\n")
    #expect(lines.count == count + 1)
    #expect(lines[1] == "2024-01-01T09:30:00.123456789-05:00 #0" + String(repeating: ",-2.2250738585072014e-308", count: 5) + ",Contraction")
    #expect(lines.last!.hasPrefix("2024-01-01T09:30:00.123456789-05:00 #\(count - 1),"))
  }
}
