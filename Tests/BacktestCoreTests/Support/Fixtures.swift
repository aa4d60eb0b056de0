import BacktestCore
import BacktestRun
import Foundation

/// Paths into the repository, found from this file's location.
enum Repo {
  static let root: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }  // Support, BacktestCoreTests, Tests
    return url.path
  }()
  static func path(_ relative: String) -> String { root + "/" + relative }
  static let fixtures = path("Tests/BacktestCoreTests/Fixtures")
}

/// A CSV file read naively for comparisons in tests (no quoting needed).
struct SimpleCSV {
  var header: [String]
  var rows: [[String]]

  init(path: String) throws {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    header = lines.removeFirst().split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    rows = lines.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
  }

  init(text: String) {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    header = lines.removeFirst().split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    rows = lines.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
  }

  func column(_ name: String) -> [String] {
    let k = header.firstIndex(of: name)!
    return rows.map { $0[k] }
  }
}

/// Whether two numbers agree to `relative` tolerance of the larger magnitude.
func close(_ a: Double, _ b: Double, relative: Double) -> Bool {
  abs(a - b) <= relative * max(abs(a), abs(b))
}

/// Parses a run file given as text, with paths relative to the repository root.
func runConfig(_ yaml: String, overrides: [String] = []) throws -> RunConfig {
  try RunConfig.parse(yaml, file: Repo.path("Strategies/test.yaml"), overrides: overrides)
}

/// Loads and runs a run file given as text.
func runBacktest(_ yaml: String, overrides: [String] = []) throws -> RunOutput {
  try Backtest.run(try runConfig(yaml, overrides: overrides))
}

/// Bars built by hand: `(open, high, low, close)` per day from 2024-01-01.
func handBars(_ rows: [(Double, Double, Double, Double)]) -> BarSeries {
  var bars = BarSeries(source: "hand")
  let first = CivilDate.days(year: 2024, month: 1, day: 1)
  for (k, r) in rows.enumerated() {
    let day = first + k
    bars.append(time: Int64(day) * 86_400, day: Int32(day), open: r.0, high: r.1, low: r.2, close: r.3, volume: 0,
                label: Array(CivilDate.isoDate(days: day).utf8))
  }
  return bars
}
