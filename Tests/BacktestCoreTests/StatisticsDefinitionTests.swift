import BacktestCore
import Foundation
import Testing

/// The summary's statistics recomputed from their written definitions (Docs/outputs.md, "Statistics") over a committed run's
/// trades.csv and equity.csv, and compared with its summary.json.
@Suite struct StatisticsDefinitionTests {
  /// A 30-minute long-only run, a daily long-and-short one, a daily one with many trades.
  @Test("volatility, calmar, expectancy, sqn and the durations equal their definitions over trades.csv and equity.csv",
        arguments: ["gpix-swing", "goog-rsi2-long-short", "goog-swing"])
  func definitions(reference: String) throws {
    let folder = Repo.path("Reports/reference/" + reference)
    let summary = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/summary.json")))
                                 as? [String: Any])
    func value(_ key: String) -> Double? { summary[key] as? Double }
    let trades = try Self.rows(folder + "/trades.csv"), equity = try Self.rows(folder + "/equity.csv")
    #expect(trades.count > 10)
    func close(_ key: String, _ expected: Double?) {
      guard let expected else { #expect(value(key) == nil, "\(key)"); return }
      let actual = value(key) ?? .nan
      #expect(abs(actual - expected) <= 1e-9 * max(1, abs(expected)), "\(reference) \(key): \(actual) against \(expected)")
    }

    // Trades: P&L in money, bars held, calendar days from the entry's date to the exit's.
    let pnl = trades.map { Double($0["pnl"]!)! }
    let n = Double(pnl.count)
    let mean = pnl.reduce(0, +) / n
    let deviation = (pnl.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / (n - 1)).squareRoot()
    close("expectancy", mean)
    close("sqn", n.squareRoot() * mean / deviation)
    close("longest_bars_held", Double(trades.map { Int($0["bars_held"]!)! }.max()!))
    let tradeDays = trades.map { Self.day($0["exit_time"]!) - Self.day($0["entry_time"]!) }
    close("avg_trade_days", Double(tradeDays.reduce(0, +)) / n)
    close("longest_trade_days", Double(tradeDays.max()!))

    // The equity at each day's last bar, and its daily returns.
    let marks = equity.map { (day: Self.day($0["time"]!), equity: Double($0["equity"]!)!) }
    let dayEnds = marks.indices.filter { $0 == marks.count - 1 || marks[$0 + 1].day != marks[$0].day }.map { marks[$0] }
    let returns = (1..<dayEnds.count).map { dayEnds[$0].equity / dayEnds[$0 - 1].equity - 1 }
    let m = returns.reduce(0, +) / Double(returns.count)
    close("volatility", (returns.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(returns.count - 1)).squareRoot() * 252.0.squareRoot())
    close("calmar", value("cagr")! / abs(value("max_drawdown")!))

    // Stretches below a previous high: their bars (those below it), their days (from the high's date to the date of the
    // bar back at or above it, or of the last bar).
    var runs: [Int] = [], days: [Int] = [], peak = -Double.infinity, peakBar = -1
    for (i, mark) in marks.enumerated() where mark.equity >= peak {
      if i - 1 - peakBar > 0 { runs.append(i - 1 - peakBar); days.append(mark.day - marks[peakBar].day) }
      (peak, peakBar) = (mark.equity, i)
    }
    if marks.count - 1 - peakBar > 0 { runs.append(marks.count - 1 - peakBar); days.append(marks[marks.count - 1].day - marks[peakBar].day) }
    close("avg_drawdown_bars", Double(runs.reduce(0, +)) / Double(runs.count))
    close("longest_drawdown_bars", Double(runs.max()!))
    close("avg_drawdown_days", Double(days.reduce(0, +)) / Double(days.count))
    close("longest_drawdown_days", Double(days.max()!))
  }

  /// A written time's date (its first ten characters), in days since 1970.
  static func day(_ time: String) -> Int {
    let parts = time.prefix(10).split(separator: "-").map { Int($0)! }
    let date = DateComponents(calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "UTC"),
                              year: parts[0], month: parts[1], day: parts[2]).date!
    return Int(date.timeIntervalSince1970 / 86_400)
  }

  /// A plain CSV file's rows by column name (no quoted fields in these files).
  static func rows(_ path: String) throws -> [[String: String]] {
    let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
    let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    return lines.dropFirst().map { line in
      Dictionary(uniqueKeysWithValues: zip(header, line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
    }
  }
}
