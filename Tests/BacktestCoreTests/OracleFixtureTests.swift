import BacktestCore
import BacktestRun
import Foundation
import Testing

/// One oracle run: a bar file and parameters, and the folder of the oracle's
/// outputs (`Fixtures/oracle/make.sh` made them).
struct OracleCase: CustomTestStringConvertible, Sendable {
  var fixture: String
  var bars: String
  var timezone: String
  var profitTarget: String
  /// A `cycle:` section run along (with the filter off it must change no trade).
  var cycle: String?

  var testDescription: String { fixture + (cycle == nil ? "" : ", cycle filter off") }

  static let all: [OracleCase] = [
    OracleCase(fixture: "EURUSD-default", bars: "Data/EURUSD.csv", timezone: "UTC", profitTarget: "null"),
    OracleCase(fixture: "EURUSD-target", bars: "Data/EURUSD.csv", timezone: "UTC", profitTarget: "3%"),
    OracleCase(fixture: "GOOG-default", bars: "Data/GOOG.csv", timezone: "UTC", profitTarget: "null"),
    OracleCase(fixture: "GOOG-target", bars: "Data/GOOG.csv", timezone: "UTC", profitTarget: "3%"),
    // Spec §6 v1.1: with the filter off the stages (unknown from the 2010-05-13 bar on) touch no decision, exit stages included.
    OracleCase(fixture: "GOOG-default", bars: "Data/GOOG.csv", timezone: "America/New_York", profitTarget: "null",
               cycle: "{macro_file: ../Data/us_macro_quarterly.csv, filter: false, exit_stages: [Peak, Contraction]}"),
    OracleCase(fixture: "synthetic_gpix_30min-default", bars: "Data/synthetic_gpix_30min.csv",
               timezone: "America/New_York", profitTarget: "null"),
    OracleCase(fixture: "synthetic_gpix_30min-target", bars: "Data/synthetic_gpix_30min.csv",
               timezone: "America/New_York", profitTarget: "0.03"),
    OracleCase(fixture: "edge-target", bars: "Tests/BacktestCoreTests/Fixtures/oracle/edge.csv", timezone: "UTC",
               profitTarget: "3%"),
  ]

  func run() throws -> RunOutput {
    try runBacktest("""
      name: oracle
      data: {bars: ../\(bars), timezone: \(timezone), session: all}
      strategy: {type: bollinger_rsi, stop_loss: 2%, profit_target: \(profitTarget)}
      \(cycle.map { "cycle: " + $0 } ?? "")
      """)
  }

  var folder: String { Repo.fixtures + "/oracle/" + fixture }
}

@Suite struct OracleFixtureTests {
  @Test("trade list equals the oracle's: times, shares, reason, bars exact; prices to 1e-9", arguments: OracleCase.all)
  func tradesMatch(_ c: OracleCase) throws {
    let output = try c.run()
    let expected = try SimpleCSV(path: c.folder + "/trades.csv")
    let actual = SimpleCSV(text: RunReport.tradesCSV(output))
    try #require(actual.rows.count == expected.rows.count, "trade count")
    #expect(expected.rows.count > 5, "a fixture with too few trades proves little")
    for (k, (e, a)) in zip(expected.rows, actual.rows).enumerated() {
      for col in ["entry_time", "exit_time", "shares", "exit_reason", "bars_held"] {
        let i = expected.header.firstIndex(of: col)!, j = actual.header.firstIndex(of: col)!
        #expect(e[i] == a[j], "trade \(k + 1) \(col)")
      }
      for col in ["entry_price", "exit_price"] {
        let x = Double(e[expected.header.firstIndex(of: col)!])!, y = Double(a[actual.header.firstIndex(of: col)!])!
        #expect(close(x, y, relative: 1e-9), "trade \(k + 1) \(col): \(x) vs \(y)")
      }
      let r1 = Double(e[expected.header.firstIndex(of: "return")!])!, r2 = Double(a[actual.header.firstIndex(of: "return")!])!
      #expect(abs(r1 - r2) <= 1e-9, "trade \(k + 1) return")
      let p1 = Double(e[expected.header.firstIndex(of: "pnl")!])!, p2 = Double(a[actual.header.firstIndex(of: "pnl")!])!
      #expect(abs(p1 - p2) <= 1e-9 * max(1, abs(p1)), "trade \(k + 1) pnl")
    }
  }

  @Test("summary metrics equal the oracle's to 1e-9 relative; null where it is null", arguments: OracleCase.all)
  func summaryMatches(_ c: OracleCase) throws {
    let output = try c.run()
    let data = try Data(contentsOf: URL(fileURLWithPath: c.folder + "/summary.json"))
    let expected = try JSONSerialization.jsonObject(with: data) as! [String: Any]
    let actual = Dictionary(uniqueKeysWithValues: output.summary.fields.map { ($0.key, $0.value) })
    #expect(expected.count == 17)
    for (key, value) in expected {
      let mine = try #require(actual[key], "missing key \(key)")
      if value is NSNull {
        #expect(mine == nil, "\(key) should be null")
      } else {
        let x = (value as! NSNumber).doubleValue
        let y = try #require(mine, "\(key) is null, oracle has \(x)")
        #expect(close(x, y, relative: 1e-9), "\(key): oracle \(x), engine \(y)")
      }
    }
  }

  @Test("indicators equal TA-Lib's (the oracle's) to 1e-8 relative; empty exactly where undefined",
        arguments: OracleCase.all.filter { $0.fixture.hasSuffix("default") && $0.cycle == nil })
  func indicatorsMatch(_ c: OracleCase) throws {
    let output = try c.run()
    let expected = try SimpleCSV(path: c.folder + "/indicators.csv")
    let actual = SimpleCSV(text: RunReport.indicatorsCSV(output))
    #expect(actual.header == expected.header)
    try #require(actual.rows.count == expected.rows.count)
    var worst = 0.0
    for (e, a) in zip(expected.rows, actual.rows) {
      #expect(e[0] == a[0])
      for k in 1..<e.count {
        if e[k].isEmpty || a[k].isEmpty {
          #expect(e[k].isEmpty == a[k].isEmpty, "\(e[0]) column \(expected.header[k]) defined in one file only")
          continue
        }
        let x = Double(e[k])!, y = Double(a[k])!
        worst = max(worst, abs(x - y) / max(abs(x), abs(y)))
      }
    }
    #expect(worst <= 1e-8, "worst relative difference \(worst)")
  }
}
