import Foundation
import Testing

@Suite struct SignalsFileCLITests {
  @Test("signals file: a time that is no bar's exits 65 naming the file, line and column; a missing file exits 66")
  func errorsFromTheCommandLine() throws {
    let folder = try CLI.temporaryFolder()
    try "time,signal\n2008-01-23,buy\n2008-01-26,sell\n".write(toFile: folder + "/s.csv", atomically: true, encoding: .utf8)
    // --set paths are the current folder's.
    let bad = try CLI.run(["run", CLI.root + "/Strategies/goog-signals.yaml", "--set", "strategy.file=s.csv", "--out", folder + "/out"], in: folder)
    #expect(bad.status == 65)
    #expect(bad.stderr.contains("s.csv:3:1: error: '2008-01-26' is not the time of a bar of"))
    #expect(!FileManager.default.fileExists(atPath: folder + "/out"))
    let missing = try CLI.run(["run", CLI.root + "/Strategies/goog-signals.yaml", "--set", "strategy.file=none.csv", "--out", folder + "/out"], in: folder)
    #expect(missing.status == 66 && missing.stderr.hasPrefix("none.csv: error:"))
  }

  @Test("signals file: a sweep over its stops runs each combination as backtest run does")
  func sweepOverStops() throws {
    let folder = try CLI.temporaryFolder()
    try """
      name: signals-sweep
      data: {bars: \(CLI.root)/Data/GOOG.csv, timezone: America/New_York}
      strategy: {type: signals, file: \(CLI.root)/Data/goog_swing_signals.csv}
      sweep:
        parameters:
          strategy.stop_loss: [1%, 2%]

      """.write(toFile: folder + "/sweep.yaml", atomically: true, encoding: .utf8)
    let sweep = try CLI.run(["sweep", folder + "/sweep.yaml", "--out", folder + "/sweep", "--quiet"])
    #expect(sweep.status == 0, "\(sweep.stderr)")
    let rows = try String(contentsOfFile: folder + "/sweep/results.csv", encoding: .utf8).split(separator: "\n")
    #expect(rows.count == 3)
    // The 2% row is goog-swing's run: 21 trades, final equity $81,616.10.
    let two = try #require(rows.first { $0.hasPrefix("2%,") }).split(separator: ",")
    let header = rows[0].split(separator: ",")
    #expect(two[header.firstIndex(of: "total_trades")!] == "21")
    #expect(abs(Double(two[header.firstIndex(of: "final_equity")!])! - 81_616.10) < 0.005)
  }
}
