@testable import BacktestCLI
import BacktestCore
import BacktestRun
import Foundation
import Testing

/// A plug-in that breaks the usual pattern: it fills its indicator column as
/// it trades instead of computing it in `init`.
private struct FillsWhileTrading: Strategy {
  struct Parameters: StrategyParameters {
    static let declarations: [Parameter<Parameters>] = []
  }
  static let name = "fills_while_trading"
  static let summary = "marks every bar it decides at"
  var marks: ContiguousArray<Double>
  init(parameters: Parameters, bars: BarSeries) { marks = ContiguousArray(repeating: .nan, count: bars.count) }
  var firstDecisionBar: Int { 0 }
  mutating func decide(at i: Int, position: PositionView) -> Signal {
    marks[i] = Double(i % 7)
    return i % 50 == 0 ? (position.isOpen ? .exitLong(.technical) : .enterLong(stopLoss: nil, profitTarget: nil)) : .hold
  }
  var indicatorColumns: [IndicatorColumn] { [IndicatorColumn("mark", marks)] }
}

/// `backtest run` writes indicators.csv while the bars trade (`EarlyReport`).
@Suite struct EarlyReportTests {
  static let catalog = BuiltInStrategies.catalog.adding(FillsWhileTrading.self)

  func run(_ strategy: String) throws -> (folder: String, output: RunOutput) {
    let folder = try CLI.temporaryFolder()
    let file = folder + "/run.yaml"
    try "name: early\ndata: {bars: \(CLI.root)/Data/GOOG.csv}\nstrategy: \(strategy)\nreport: {out: \(folder)/out, formats: [csv]}\n"
      .write(toFile: file, atomically: true, encoding: .utf8)
    #expect(BacktestCLI.run(["run", file, "--quiet"], catalog: Self.catalog) == 0)
    let config = try RunConfig.parse(try String(contentsOfFile: file, encoding: .utf8), file: file, catalog: Self.catalog)
    return (folder + "/out", try Backtest.run(config))
  }

  func indicatorsCSV(_ folder: String) throws -> String { try String(contentsOfFile: folder + "/indicators.csv", encoding: .utf8) }

  @Test("indicators.csv begun before the bars trade is the one made after the run")
  func sameAsAfter() throws {
    let (folder, output) = try run("{type: bollinger_rsi}")
    let written = try indicatorsCSV(folder)
    #expect(written == RunReport.indicatorRows(output).text)
    #expect(written.hasPrefix("time,close,bb_lower,bb_mid,bb_upper,rsi\n"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["equity.csv", "indicators.csv", "trades.csv"])
  }

  @Test("a strategy whose columns change as it trades gets its final columns (the report is made anew)")
  func columnsFilledWhileTrading() throws {
    let (folder, output) = try run("{type: fills_while_trading}")
    let lines = try indicatorsCSV(folder).split(separator: "\n")
    #expect(lines.count == output.bars.count + 1)
    #expect(lines[0] == "time,close,mark")
    // The marks (bar number modulo 7), not the NaNs the column held before the first bar.
    #expect(lines[1].hasSuffix(",0.0") && lines[9].hasSuffix(",1.0") && lines[11].hasSuffix(",3.0"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["equity.csv", "indicators.csv", "trades.csv"])
    // Nothing of the batch begun early is left beside the report.
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/..").filter { $0.hasPrefix(".") }.isEmpty)
  }

  @Test("columns with the same names and bits count as the same text, even in other buffers")
  func sameText() {
    let a = [IndicatorColumn("x", [1, .nan, 3])], b = [IndicatorColumn("x", [1, .nan, 3])]
    #expect(EarlyReport.sameText(a, b))
    #expect(!EarlyReport.sameText(a, [IndicatorColumn("y", [1, .nan, 3])]))
    #expect(!EarlyReport.sameText(a, [IndicatorColumn("x", [1, .nan, 4])]))
    #expect(!EarlyReport.sameText(a, [IndicatorColumn("x", [1, .nan])]))
    #expect(!EarlyReport.sameText(a, a + a))
  }
}
