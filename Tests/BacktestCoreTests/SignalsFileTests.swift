@testable import BacktestCore
@testable import BacktestRun
import Foundation
import Testing

@Suite struct SignalsFileTests {
  static let goog = "{bars: ../Data/GOOG.csv, timezone: America/New_York, session: all}"

  /// Writes `text` as a signals file in a fresh folder and returns its path.
  static func signalsFile(_ text: String) throws -> String {
    let folder = NSTemporaryDirectory() + "signals-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let path = folder + "/signals.csv"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  static func run(file: String, extra: String = "") throws -> RunOutput {
    try runBacktest("name: t\ndata: \(goog)\nstrategy: {type: signals, file: \(file)\(extra)}\n")
  }

  @Test("signals file: the decisions behind bollinger_rsi's GOOG trades, as time,signal, give its trades.csv and equity.csv byte for byte")
  func sameTradesAsTheStrategyThatMadeThem() throws {
    let builtIn = try runBacktest("name: t\ndata: \(Self.goog)\nstrategy: {type: bollinger_rsi, stop_loss: 2%}\n")
    let signals = try Self.run(file: "../Data/goog_swing_signals.csv", extra: ", stop_loss: 2%")
    #expect(builtIn.summary.totalTrades == 21)
    #expect(RunReport.tradesCSV(signals) == RunReport.tradesCSV(builtIn))
    #expect(RunReport.equityCSV(signals) == RunReport.equityCSV(builtIn))
    // The shipped file is the same decisions: 21 entries, 2 exits by the rule (the other 19 are stops).
    let rows = try SimpleCSV(path: Repo.path("Data/goog_swing_signals.csv"))
    #expect(rows.column("signal").filter { $0 == "buy" }.count == 21 && rows.column("signal").filter { $0 == "sell" }.count == 2)
  }

  @Test("signals file: short and cover fill at the next opens; signals that do not fit the position are ignored")
  func shortAndCover() throws {
    // 2008-01-23 close: short (fills 2008-01-24 open 558.80); a buy and a sell while short are ignored;
    // 2008-02-04 close: cover (fills 2008-02-05 open 489.43); a sell while flat is ignored.
    let file = try Self.signalsFile("""
      time,signal
      2008-01-23,short
      2008-01-25,buy
      2008-01-28,sell
      2008-02-04,cover
      2008-02-06,sell

      """)
    let out = try Self.run(file: file)
    let trades = out.run.result.trades
    #expect(trades.count == 1)
    let t = try #require(trades.first)
    #expect(t.side == .short && t.exitReason == .technical)
    #expect(out.bars.timeLabel(t.entryBar) == "2008-01-24" && t.entryPrice == 558.8)
    #expect(out.bars.timeLabel(t.exitBar) == "2008-02-05" && t.exitPrice == 489.43)
    #expect(t.shares == 178)  // whole shares of $100,000 at 558.80
    #expect(abs(t.pnl - 178 * (558.8 - 489.43)) < 1e-9)  // $12,347.86
  }

  @Test("signals file: a time that is no bar's is an error naming its line and column; times outside the bars are left out")
  func timeThatIsNotABar() throws {
    let weekend = try Self.signalsFile("time,signal\n2001-01-02,buy\n2008-01-23,buy\n2008-01-26,sell\n")
    #expect(throws: InputError("'2008-01-26' is not the time of a bar of \(Repo.path("Data/GOOG.csv")) (the signal is decided at a bar's close); "
                               + "expected one of the bars' times between 2004-08-19 and 2013-03-01",
                               at: SourceLocation(file: weekend, line: 4, column: 1))) { try Self.run(file: weekend) }
    let outside = try Self.signalsFile("time,signal\n2001-01-02,buy\n2008-01-23,buy\n")
    #expect(try Self.run(file: outside).run.result.trades.count == 1)
  }

  @Test("signals file: bad header, bad word, bad time and a time given twice are refused with file, line and column",
        arguments: [
          ("time,side\n2008-01-23,buy\n", "expected a header 'time,signal', found 'time,side'", 1, 1),
          ("time,signal\n2008-01-23,hold\n", "expected buy, sell, short or cover, found 'hold'", 2, 12),
          ("time,signal\n23/01/2008,buy\n", "expected a timestamp (2024-01-02T09:30:00-05:00, 2024-01-02 09:30:00, 2024-01-02 or epoch seconds), found '23/01/2008'", 2, 1),
          ("time,signal\n2008-01-23,buy\n2008-01-23T00:00:00-05:00,sell\n",
           "a second signal at '2008-01-23T00:00:00-05:00' (line 2 has the same time); expected one signal per bar", 3, 1),
          ("time,signal\n2008-01-23,buy,x\n", "expected 2 fields as in the header, found 3", 2, 1),
        ])
  func badFiles(text: String, message: String, line: Int, column: Int) throws {
    let file = try Self.signalsFile(text)
    #expect(throws: InputError(message, at: SourceLocation(file: file, line: line, column: column))) { try Self.run(file: file) }
  }

  @Test("signals file: the path in a run file is the run file's folder's; one given with --set the current folder's")
  func pathResolution() throws {
    let inFile = try runConfig("name: t\ndata: \(Self.goog)\nstrategy: {type: signals, file: ../Data/goog_swing_signals.csv}\n")
    #expect((inFile.strategy.parameters as! SignalsFile.Parameters).file == Repo.path("Data/goog_swing_signals.csv"))
    // From the command line: the current folder's, so not joined with the run file's folder (Strategies/).
    do {
      _ = try runConfig("name: t\ndata: \(Self.goog)\nstrategy: {type: signals, file: ../Data/goog_swing_signals.csv}\n",
                        overrides: ["strategy.file=no-such-folder/signals.csv"])
      Issue.record("expected the missing file to be refused")
    } catch let error as InputError {
      #expect(error.file == "no-such-folder/signals.csv" && error.kind == .missingInput)
    }
  }
}
