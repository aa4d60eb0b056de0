import BacktestCore
import BacktestRun
import Foundation
import Testing

@Suite struct CompareTests {
  @Test("compare puts two runs' figures side by side with their differences; only the settings that differ are rows")
  func compareRuns() throws {
    let a = try CLI.temporaryFolder(), b = try CLI.temporaryFolder()
    #expect(try CLI.run(["run", "gpix.yaml", "--out", a, "--quiet"]).status == 0)
    #expect(try CLI.run(["run", "gpix.yaml", "--out", b, "--quiet", "--set", "strategy.stop_loss=1%"]).status == 0)
    let r = try CLI.run(["compare", a, b])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.hasPrefix("same in all: strategy bollinger_rsi, bollinger.period 20,"))
    let lines = r.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
    #expect(lines.contains("stop_loss 2% 1%"))
    #expect(lines.contains("total_trades 113 137 +24"))
    #expect(lines.contains("total_return 24.68% 35.02% +10.34 pts"))
    #expect(lines.contains("final_equity $124,679.23 $135,019.80 +$10,340.57"))
    // JSON: full precision, the difference the exact subtraction of the two summaries' figures.
    let json = try CLI.run(["compare", a, b, "--json"])
    let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    #expect(doc["schema"] as? String == "backtest.compare/1")
    let figures = try #require(doc["figures"] as? [[String: Any]])
    let total = try #require(figures.first { $0["key"] as? String == "total_return" })
    let values = try #require(total["values"] as? [Double]), differences = try #require(total["differences"] as? [Any])
    #expect(differences.count == 2 && differences[0] is NSNull)
    #expect(abs(try #require(differences[1] as? Double) - (values[1] - values[0])) < 1e-15)
    // Markdown.
    let md = try CLI.run(["compare", a, b, "--markdown"])
    #expect(md.stdout.contains("| total_trades | 113 | 137 | +24 |"))
  }

  @Test("compare names every setting that differs (commission, slippage, ...: summary.json's run section has them) and, with --out, writes compare.html with the runs' equity overlaid")
  func compareFeesAndPage() throws {
    let a = try CLI.temporaryFolder(), b = try CLI.temporaryFolder(), page = try CLI.temporaryFolder() + "/page"
    #expect(try CLI.run(["run", "gpix.yaml", "--out", a, "--quiet"]).status == 0)
    #expect(try CLI.run(["run", "gpix.yaml", "--out", b, "--quiet", "--set", "portfolio.commission={per_trade: 1}", "--set", "portfolio.slippage_bps=5"]).status == 0)
    let summary = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: b + "/summary.json"))) as? [String: Any])
    let run = try #require(summary["run"] as? [String: Any])
    #expect(run["commission"] as? String == "$1.00 per fill" && run["slippage_bps"] as? Double == 5 && run["sizing"] as? String == "all in (whole shares)"
            && run["price"] as? String == "close", "\(run)")
    let r = try CLI.run(["compare", a, b, "--out", page])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
    #expect(lines.contains("commission none $1.00 per fill") && lines.contains("slippage_bps 0 5"), "\(r.stdout)")
    #expect(r.stdout.contains("sizing all in (whole shares)") && r.stdout.contains("price close"), "the settings all share")
    #expect(r.stderr.contains("wrote compare.html to \(page)/"))
    // compare.html: the same table, and each run's equity as a line ending at its last equity.
    let html = try String(contentsOfFile: page + "/compare.html", encoding: .utf8)
    #expect(html.contains("<td>commission</td><td>none</td><td>$1.00 per fill</td>"))
    for (k, folder) in [a, b].enumerated() {
      let equity = try CSVTable(folder + "/equity.csv").column("equity")
      let line = try #require(html.components(separatedBy: "id=\"compare-equity-\(k)\"").dropFirst().first?.prefix(200))
      #expect(line.contains("data-points=\"\(equity.count)\" data-last=\"\(Double(equity.last!)!)\""), "\(line)")
      #expect(html.contains("id=\"compare-return-\(k)\""))
    }
    #expect(!html.contains("No equity.csv"))
    // With --json the output stays JSON.
    let json = try CLI.run(["compare", a, b, "--json", "--out", page])
    let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let settings = try #require(doc["settings"] as? [String: [String]])
    #expect(settings["commission"] == ["none", "$1.00 per fill"] && settings["slippage_bps"] == ["0", "5"], "\(settings)")
  }

  @Test("a run setting named like a strategy parameter is its own row (run.price), not overwritten by the parameter")
  func settingNamedLikeParameter() throws {
    func summary(_ parameter: String, _ price: String) throws -> JSONNode {
      try JSONReader.parse(Data("""
        {"run": {"strategy": "rules", "parameters": {"price": "\(parameter)"}, "data": "b.csv", "price": "\(price)"}}
        """.utf8), file: "summary.json")
    }
    let comparison = RunComparison(names: ["a", "b"], summaries: [try summary("10", "close"), try summary("10", "adjusted")])
    #expect(comparison.facts.map(\.key) == ["run.price"] && comparison.facts[0].values == ["close", "adjusted"], "\(comparison.facts)")
    #expect(comparison.common.contains("price 10"), "\(comparison.common)")
  }

  @Test("compare of sweeps shows the first sweep's best combinations in each, with the metric's difference")
  func compareSweeps() throws {
    let a = try CLI.temporaryFolder(), b = try CLI.temporaryFolder()
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", a, "--quiet"]).status == 0)
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", b, "--quiet", "--set", "strategy.stop_loss=1%"]).status == 0)
    let r = try CLI.run(["compare", a, b, "--top", "2"])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
    #expect(lines.count == 3 && lines[0].hasPrefix("bb_period bb_std rsi_period oversold sharpe "))
    #expect(lines[1].hasPrefix("10 1.5 14 20 1.126 0.5529 -0.573"))
    // A run and a sweep do not compare.
    let run = try CLI.temporaryFolder()
    #expect(try CLI.run(["run", "gpix.yaml", "--out", run, "--quiet"]).status == 0)
    let mixed = try CLI.run(["compare", a, run])
    #expect(mixed.status == 64 && mixed.stderr.contains("expected only runs or only sweeps"))
  }
}

@Suite struct YahooNoticeTests {
  @Test("notices: a bar file's unused columns and a dividend file without pay dates are named on stderr, one line each")
  func notices() throws {
    let dir = try CLI.temporaryFolder()
    var lines = ["Date,Open,High,Low,Close,Adj Close,Volume"]
    for d in 0..<60 {
      let c = 100 + Double(d % 7) - Double(d % 3)
      lines.append(String(format: "2024-%02d-%02d,%g,%g,%g,%g,%g,1000", 1 + d / 28, 1 + d % 28, c, c + 1, c - 1, c, c * 0.9))
    }
    try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/ACME.csv", atomically: true, encoding: .utf8)
    try "Date,Dividends\n2024-01-10,0.5\n".write(toFile: dir + "/ACME_div.csv", atomically: true, encoding: .utf8)
    let args = ["run", CLI.root + "/Strategies/goog-swing.yaml", "--set", "data.bars=ACME.csv", "--set", "data.dividends=ACME_div.csv", "--out", "out"]
    let r = try CLI.run(args, in: dir)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("note: ACME.csv: column Adj Close not used (prices are the close, not adjusted for dividends and splits; data.price: adjusted uses the adjusted close)\n"))
    #expect(r.stderr.contains("note: ACME_div.csv: no pay_date column; each dividend is paid on its ex-date\n"))
    let adjusted = try CLI.run(args + ["--set", "data.price=adjusted"], in: dir)
    #expect(adjusted.status == 0 && !adjusted.stderr.contains("not used"), "\(adjusted.stderr)")
    // The price mode is named in the terminal, summary.json and report.md.
    #expect(r.stdout.contains(", prices as traded\n") && adjusted.stdout.contains(", adjusted prices\n"))
    let summary = try String(contentsOfFile: dir + "/out/summary.json", encoding: .utf8)
    #expect(summary.contains("\"price\": \"adjusted\""))
    #expect(try String(contentsOfFile: dir + "/out/report.md", encoding: .utf8).contains("| Prices | adjusted (data.price: adjusted"))
  }

  @Test("prices as traded that jump overnight as a split would are named on stderr; adjusted ones, or an intraday move, are not")
  func splitLikeJumps() throws {
    let dir = try CLI.temporaryFolder()
    var lines = ["Date,Open,High,Low,Close,Adj Close,Volume"]
    for d in 0..<80 {
      // A 2:1 split after day 40 (close 124 → 52), a 1:3 reverse split after day 60 (52 → 156).
      let c = (100 + Double(d % 7) - Double(d % 3) + (d == 40 ? 20 : 0)) * (d > 40 ? 0.5 : 1) * (d > 60 ? 3 : 1)
      // Adjusted for the splits: as if every close were at the last split's scale.
      let adjusted = (100 + Double(d % 7) - Double(d % 3) + (d == 40 ? 20 : 0)) * 1.5
      lines.append(String(format: "2024-%02d-%02d,%g,%g,%g,%g,%g,1000", 1 + d / 28, 1 + d % 28, c, c + 1, c - 1, c, adjusted))
    }
    try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/ACME.csv", atomically: true, encoding: .utf8)
    let r = try CLI.run(["run", CLI.root + "/Strategies/goog-swing.yaml", "--set", "data.bars=ACME.csv", "--out", "out"], in: dir)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("note: ACME.csv: the close goes from 124 at 2024-02-13 to 52 at 2024-02-14 overnight, as a split would "
                              + "(and 1 more such jump); these prices are as traded (data.price: close)"), "\(r.stderr)")
    let adjusted = try CLI.run(["run", CLI.root + "/Strategies/goog-swing.yaml", "--set", "data.bars=ACME.csv", "--set", "data.price=adjusted",
                                "--out", "out"], in: dir)
    #expect(adjusted.status == 0 && !adjusted.stderr.contains("as a split would"), "\(adjusted.stderr)")
    // Across days only: two bars of one day may move as they like; 0.55 and 1.8 are jumps.
    var bars = BarSeries(source: "t")
    for (k, (day, close)) in [(0, 100.0), (0, 40), (1, 22), (2, 39.6), (3, 39.7)].enumerated() {
      bars.append(time: Int64(day * 86_400 + k), day: Int32(day), open: close, high: close, low: close, close: close, volume: 0, label: Array("t".utf8))
    }
    #expect(bars.splitLikeJumps == [2, 3])
  }
}
