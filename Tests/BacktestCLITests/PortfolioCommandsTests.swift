import Foundation
import Testing

/// Every command for strategies over several assets: a rotation's and fixed weights' sweep (with walk-forward, shards
/// and merge), Monte Carlo of the time-weighted returns, and the live targets with `--state`.
@Suite(.serialized) struct PortfolioCommandsTests {
  static func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

  /// The rows of a CSV file, split at commas, the header first.
  static func rows(_ path: String) -> [[String]] {
    contents(path).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
  }

  /// summary.json's top-level numbers (null as nil), read from the text as written (Foundation's JSON reader may
  /// round a number's last digit).
  static func summary(_ folder: String) throws -> [String: Double?] {
    var out: [String: Double?] = [:]
    for line in contents(folder + "/summary.json").split(separator: "\n") where line.hasPrefix("  \"") {
      let parts = line.dropFirst(3).split(separator: "\"", maxSplits: 1)
      guard parts.count == 2 else { continue }
      let value = parts[1].drop { $0 == ":" || $0 == " " }.prefix { $0 != "," }
      out[String(parts[0])] = value == "null" ? .some(nil) : Double(value).map { .some($0) }
    }
    return out
  }

  @Test("a rotation sweep's rows equal backtest run --set of their parameters; walk-forward writes its section; shards merge to the same files")
  func rotationSweep() throws {
    let dir = try CLI.temporaryFolder()
    let sweep = try CLI.run(["sweep", "etf-rotation-sweep", "--out", dir + "/sweep"])
    #expect(sweep.status == 0, "\(sweep.stderr)")
    let rows = Self.rows(dir + "/sweep/results.csv"), header = rows[0]
    #expect(header.prefix(3) == ["lookback", "top", "rebalance"] && rows.count == 1 + 24)
    // Three rows, one of each rebalance and top: each equals its own run's summary.json.
    for row in [rows[1], rows[10], rows[24]] {
      let run = try CLI.run(["run", "etf-rotation-sweep", "--out", dir + "/run", "--quiet",
                             "--set", "lookback=" + row[0], "--set", "top=" + row[1], "--set", "rebalance=" + row[2]])
      #expect(run.status == 0, "\(run.stderr)")
      let summary = try Self.summary(dir + "/run")
      for key in ["final_equity", "total_return", "cagr", "max_drawdown", "sharpe", "sortino", "twr", "xirr", "dividend_income", "fees",
                  "exposure", "longest_drawdown_bars"] {
        let k = try #require(header.firstIndex(of: key))
        let value = try #require(summary[key], "\(key) not in summary.json")
        #expect(value == Double(row[k]), "\(row.prefix(3)) \(key): \(String(describing: value)) vs \(row[k])")
      }
    }
    let walkForward = Self.rows(dir + "/sweep/walkforward.csv")
    #expect(walkForward.count == 5 && walkForward[0].prefix(7) == ["window", "train_start", "test_start", "test_end", "lookback", "top", "rebalance"])
    #expect(Self.contents(dir + "/sweep/sweep.md").contains("## Walk-forward"))
    for i in 0..<2 {
      #expect(try CLI.run(["sweep", "etf-rotation-sweep", "--shard", "\(i)/2", "--out", dir + "/s\(i)", "--quiet"]).status == 0)
    }
    #expect(try CLI.run(["merge", dir + "/s0", dir + "/s1", "--out", dir + "/merged", "--quiet"]).status == 0)
    for file in ["results.csv", "walkforward.csv"] {
      #expect(Self.contents(dir + "/sweep/" + file) == Self.contents(dir + "/merged/" + file), "\(file)")
    }
  }

  @Test("fixed weights sweep their weights and rebalance rule; a row equals its run")
  func weightsSweep() throws {
    let dir = try CLI.temporaryFolder()
    var text = Self.contents(CLI.root + "/Strategies/three-fund.yaml").replacingOccurrences(of: "../", with: CLI.root + "/")
    text += "sweep:\n  parameters:\n    strategy.weights.DIVQ: [30%, 40%, 50%]\n    strategy.rebalance: [never, quarterly]\n"
    try text.write(toFile: dir + "/three-fund-sweep.yaml", atomically: false, encoding: .utf8)
    let r = try CLI.run(["sweep", dir + "/three-fund-sweep.yaml", "--out", dir + "/sweep", "--quiet"])
    #expect(r.status == 0, "\(r.stderr)")
    let rows = Self.rows(dir + "/sweep/results.csv")
    #expect(rows.count == 7 && rows[0].prefix(2) == ["strategy.weights.DIVQ", "strategy.rebalance"])
    let run = try CLI.run(["run", dir + "/three-fund-sweep.yaml", "--out", dir + "/run", "--quiet",
                           "--set", "strategy.weights.DIVQ=" + rows[2][0], "--set", "strategy.rebalance=" + rows[2][1]])
    #expect(run.status == 0, "\(run.stderr)")
    let k = try #require(rows[0].firstIndex(of: "final_equity"))
    #expect(try Self.summary(dir + "/run")["final_equity"] == Double(rows[2][k]))
  }

  @Test("montecarlo resamples a portfolio's and a rotation's daily time-weighted returns")
  func monteCarlo() throws {
    let dir = try CLI.temporaryFolder()
    for file in ["etf-rotation", "three-fund", "dca-ledger"] {
      let r = try CLI.run(["montecarlo", file, "--runs", "300", "--out", dir + "/" + file])
      #expect(r.status == 0, "\(r.stderr)")
      #expect(r.stdout.contains("300 stationary-bootstrap paths of ") && r.stdout.contains(" daily time-weighted returns"))
      let json = Self.contents(dir + "/" + file + "/montecarlo.json")
      #expect(json.contains("\"trade_shuffle\": null") && json.contains("\"method\": \"stationary bootstrap of daily time-weighted returns\""))
    }
  }

  @Test("signal on a rotation: the newest decision's targets with scores; --state says what changed; --position is refused")
  func targets() throws {
    let dir = try CLI.temporaryFolder()
    #expect(try CLI.run(["run", "etf-rotation", "--out", dir + "/run", "--quiet"]).status == 0)
    let targets = Self.rows(dir + "/run/targets.csv")
    let last = targets.suffix(4)
    let r = try CLI.run(["signal", "etf-rotation", "--json", "--now", "2024-12-01", "--state", dir + "/state.json"])
    #expect(r.status == 0, "\(r.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    #expect(json["schema"] as? String == "backtest.targets/1" && json["decided_at"] as? String == last.first?[0])
    let rows = try #require(json["targets"] as? [[String: Any]])
    #expect(rows.map { $0["symbol"] as? String } == last.map { $0[1] })
    #expect(rows.map { $0["weight"] as? Double } == last.map { Double($0[2]) })
    #expect(rows.allSatisfy { $0["score"] is Double } && json["changed"] as? Bool == true)
    // The keys are those Docs/targets.schema.json requires, at the top and per asset.
    let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: CLI.root + "/Docs/targets.schema.json")))
                              as? [String: Any])
    let itemSchema = try #require(((schema["properties"] as? [String: Any])?["targets"] as? [String: Any])?["items"] as? [String: Any])
    #expect(Set(json.keys) == Set(try #require(schema["required"] as? [String])))
    #expect(rows.allSatisfy { Set($0.keys) == Set((itemSchema["required"] as? [String]) ?? []) })
    // The same check again: nothing changed. A month earlier: other targets, so a change.
    let again = try CLI.run(["signal", "etf-rotation", "--json", "--now", "2024-12-01", "--state", dir + "/state.json"])
    #expect(again.status == 0 && again.stdout.contains("\"changed\": false"))
    let earlier = try CLI.run(["signal", "etf-rotation", "--now", "2024-10-02T12:00:00Z", "--state", dir + "/state.json"])
    #expect(earlier.status == 0 && earlier.stdout.contains("changed since the last check: yes"), "\(earlier.stdout)")
    let refused = try CLI.run(["signal", "etf-rotation", "--position", dir + "/p.yaml"])
    #expect(refused.status == 64 && refused.stderr.contains("--position and --journal apply to a strategy over one asset"))
  }
}
