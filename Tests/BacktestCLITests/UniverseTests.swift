import Foundation
import Testing

/// One single-asset strategy over each symbol of `data.universe`: `run` and `sweep`, against each symbol's own run.
@Suite(.serialized) struct UniverseTests {
  static func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

  static func rows(_ path: String) -> [[String]] {
    contents(path).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
  }

  /// summary.json's top-level numbers as written.
  static func summary(_ folder: String) -> [String: String] {
    var out: [String: String] = [:]
    for line in contents(folder + "/summary.json").split(separator: "\n") where line.hasPrefix("  \"") {
      let parts = line.dropFirst(3).split(separator: "\"", maxSplits: 1)
      guard parts.count == 2 else { continue }
      out[String(parts[0])] = String(parts[1].drop { $0 == ":" || $0 == " " }.prefix { $0 != "," })
    }
    return out
  }

  /// Whether a universe.csv or results.csv field equals summary.json's value (the same number; empty for null).
  static func same(_ field: String, _ json: String?) -> Bool {
    guard let json else { return false }
    return json == "null" ? field.isEmpty : Double(field) == Double(json)
  }

  @Test("universe.csv has a row per symbol equal to that symbol's own run (--set data.bars=), and symbols/SYMBOL/ holds it")
  func run() throws {
    let dir = try CLI.temporaryFolder()
    let r = try CLI.run(["run", "etf-universe", "--out", dir + "/u"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("on each of 4 symbols") && r.stdout.contains("symbols/SYMBOL/ (4 folders)"))
    let rows = Self.rows(dir + "/u/universe.csv"), header = rows[0]
    #expect(header.first == "symbol" && rows.dropFirst().map { $0[0] } == ["DIVQ", "HIYD", "INCM", "VALU"])
    for row in rows.dropFirst() {
      let own = try CLI.run(["run", "etf-universe", "--set", "data.bars=Data/etfs/\(row[0]).csv", "--out", dir + "/" + row[0], "--quiet"])
      #expect(own.status == 0, "\(own.stderr)")
      let summary = Self.summary(dir + "/" + row[0])
      for (k, key) in header.enumerated().dropFirst() where !key.hasPrefix("benchmark_") {
        #expect(Self.same(row[k], summary[key]), "\(row[0]) \(key): \(row[k]) vs \(summary[key] ?? "absent")")
      }
      #expect(Self.contents(dir + "/\(row[0])/trades.csv") == Self.contents(dir + "/u/symbols/\(row[0])/trades.csv"))
    }
    #expect(Self.contents(dir + "/u/report.md").contains("## Symbols, best Sharpe first"))
    // Run again into the same folder: it is a report folder (symbols/ included), replaced as a whole.
    #expect(try CLI.run(["run", "etf-universe", "--out", dir + "/u", "--quiet"]).status == 0)
  }

  @Test("a universe sweep has a row per symbol and combination, each equal to its own run; it ranks across symbols; shards merge")
  func sweep() throws {
    let dir = try CLI.temporaryFolder()
    let r = try CLI.run(["sweep", "etf-universe-sweep", "--out", dir + "/s"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("over 4 symbols") && r.stdout.contains("across symbols, best mean: bb_period="))
    let rows = Self.rows(dir + "/s/results.csv"), header = rows[0]
    #expect(header.prefix(4) == ["symbol", "bb_period", "oversold", "rsi_period"] && rows.count == 1 + 4 * 18)
    for row in [rows[1], rows[30], rows[72]] {
      let own = try CLI.run(["run", "etf-universe-sweep", "--out", dir + "/run", "--quiet", "--set", "data.bars=Data/etfs/\(row[0]).csv",
                             "--set", "bb_period=" + row[1], "--set", "oversold=" + row[2], "--set", "rsi_period=" + row[3]])
      #expect(own.status == 0, "\(own.stderr)")
      let summary = Self.summary(dir + "/run")
      for key in ["total_trades", "win_rate", "total_return", "final_equity", "max_drawdown", "sharpe", "sortino", "exposure"] {
        let k = try #require(header.firstIndex(of: key))
        #expect(Self.same(row[k], summary[key]), "\(row.prefix(4)) \(key): \(row[k]) vs \(summary[key] ?? "absent")")
      }
    }
    let md = Self.contents(dir + "/s/sweep.md")
    #expect(md.contains("## Across symbols") && md.contains("| # | bb_period | oversold | rsi_period | symbols | mean | median | worst |"))
    #expect(md.contains("Deflated Sharpe") || md.contains("deflated"), "the significance tests run over every row")
    for i in 0..<2 {
      #expect(try CLI.run(["sweep", "etf-universe-sweep", "--shard", "\(i)/2", "--out", dir + "/s\(i)", "--quiet"]).status == 0)
    }
    #expect(try CLI.run(["merge", dir + "/s0", dir + "/s1", "--out", dir + "/m", "--quiet"]).status == 0)
    #expect(Self.contents(dir + "/s/results.csv") == Self.contents(dir + "/m/results.csv"))
  }

  @Test("universe run files are refused where they are wrong, and commands that answer for one run say how to pick a symbol", arguments: [
    ("data:\n  universe: ../Data/etfs/????.csv\n  bars: ../Data/GOOG.csv\n", 65, "give either data.bars (one asset) or data.universe"),
    ("data:\n  universe: ../Data/etfs/ZZZ*.csv\n", 66, "matches no file"),
    ("data:\n  universe: [../Data/etfs/INCM.csv, {symbol: INCM, bars: ../Data/etfs/DIVQ.csv}]\n", 65, "symbol 'INCM' is in data.universe twice"),
  ])
  func refused(data: String, status: Int32, message: String) throws {
    let dir = try CLI.temporaryFolder()
    try FileManager.default.createDirectory(atPath: dir + "/Strategies", withIntermediateDirectories: true)
    let text = data.replacingOccurrences(of: "../Data", with: CLI.root + "/Data") + "strategy: {type: sma_cross}\n"
    try text.write(toFile: dir + "/Strategies/u.yaml", atomically: false, encoding: .utf8)
    let r = try CLI.run(["run", dir + "/Strategies/u.yaml", "--out", dir + "/out"])
    #expect(r.status == status && r.stderr.contains(message) && r.stderr.contains("u.yaml:"), "\(r.stderr)")
  }

  @Test("montecarlo and signal answer for one run: on a universe they name the symbols and the --set that picks one")
  func oneAtATime() throws {
    for command in [["montecarlo", "etf-universe", "--runs", "10"], ["signal", "etf-universe"]] {
      let r = try CLI.run(command)
      #expect(r.status == 65 && r.stderr.contains("this run file runs 4 symbols (data.universe: DIVQ, HIYD, INCM, …)")
              && r.stderr.contains("expected one symbol: add --set data.bars="), "\(r.stderr)")
    }
  }
}
