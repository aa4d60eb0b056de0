import Foundation
import Testing

@Suite(.serialized) struct LiveTests {
  @Test("signal --json prints one JSON document; --position replaces the backtest's position")
  func signal() throws {
    let dir = try CLI.temporaryFolder()
    try "entry_price: 40\nshares: 100\nentry_time: 2024-11-12T10:00:00-05:00\n".write(toFile: dir + "/pos.yaml", atomically: false, encoding: .utf8)
    let r = try CLI.run(["signal", "gpix.yaml", "--json", "--now", "2024-11-13T20:45:00Z", "--position", dir + "/pos.yaml"])
    #expect(r.status == 0, "\(r.stderr)")
    let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
    #expect(json["signal"] as? String == "HOLD")
    #expect(json["next_bar_close"] as? String == "2024-11-13T21:00:00Z" && json["seconds_to_next_bar_close"] as? Int == 900)
    let position = try #require(json["position"] as? [String: Any])
    #expect(position["source"] as? String == "user" && position["entry_price"] as? Double == 40 && position["stop"] as? Double == 39.2)
    // At 15:45 the 15:30 bar is still forming: the decision is the 15:00 bar's (closed at 15:30).
    var text = try CLI.run(["signal", "gpix.yaml", "--now", "2024-11-13T20:45:00Z"])
    #expect(text.status == 0 && text.stdout.contains("gpix-swing: HOLD at the close of 2024-11-13T15:00:00-05:00"))
    #expect(text.stdout.contains("RSI (14): 44.0 neutral") && text.stdout.contains("next bar closes in 15m 0s"))
    text = try CLI.run(["signal", "gpix.yaml", "--now", "2024-11-13T21:00:00Z"])
    #expect(text.stdout.contains("gpix-swing: HOLD at the close of 2024-11-13T15:30:00-05:00") && text.stdout.contains("RSI (14): 37.0 neutral"))
    text = try CLI.run(["signal", "gpix.yaml", "--now", "2020-01-01"])
    #expect(text.status == 65 && text.stderr.hasSuffix("error: no bar closes by 2020-01-01T00:00:00Z (the first closes at 2021-01-04T15:00:00Z); expected a later --now\n"))
  }

  @Test("signal staleness: bar_age_seconds and stale in the JSON, and a warning line instead of the next close when newer bars should exist")
  func staleSignal() throws {
    func json(_ now: String) throws -> [String: Any] {
      let r = try CLI.run(["signal", "Strategies/goog-swing.yaml", "--json", "--now", now])
      #expect(r.status == 0, "\(r.stderr)")
      return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }
    // Monday 10:00 New York after Friday 2013-03-01's close (16:00): 66 hours old, but no newer bar has closed yet.
    let monday = try json("2013-03-04T15:00:00Z")
    #expect(monday["bar_age_seconds"] as? Int == 237_600 && monday["stale"] as? Bool == false)
    #expect(monday["next_bar_close"] as? String == "2013-03-04T21:00:00Z")
    // Tuesday: Monday's bar should have closed at 16:00.
    let tuesday = try json("2013-03-05T15:00:00Z")
    #expect(tuesday["bar_age_seconds"] as? Int == 324_000 && tuesday["stale"] as? Bool == true)
    let text = try CLI.run(["signal", "Strategies/goog-swing.yaml", "--now", "2015-03-02T15:00:00Z"])
    #expect(text.stdout.contains("warning: stale data: the newest bar closed 730d 18h ago and newer bars should have closed since; "
                                 + "fetch the new bars before acting on this signal"))
    #expect(!text.stdout.contains("next bar closes"))
  }

  @Test("journal enter, exit and list keep a CSV history with its analytics")
  func journal() throws {
    let file = try CLI.temporaryFolder() + "/journal.csv"
    #expect(try CLI.run(["journal", "enter", "--file", file, "--price", "100", "--shares", "10", "--time", "2024-01-02"]).status == 0)
    var r = try CLI.run(["journal", "enter", "--file", file, "--price", "101", "--shares", "1"])
    #expect(r.status == 65 && r.stderr.contains("a trade is already open"))
    #expect(try CLI.run(["journal", "exit", "--file", file, "--price", "110", "--time", "2024-01-05", "--reason", "profit_target"]).status == 0)
    #expect(try CLI.run(["journal", "enter", "--file", file, "--price", "50", "--shares", "20", "--time", "2024-02-01"]).status == 0)
    #expect(try CLI.run(["journal", "exit", "--file", file, "--price", "45", "--time", "2024-02-03", "--reason", "STOP_LOSS"]).status == 0)
    r = try CLI.run(["journal", "list", "--file", file])
    #expect(r.status == 0)
    #expect(r.stdout.contains("closed trades 2, win rate 50.00%, average win 10.00%, average loss -10.00%"))
    #expect(r.stdout.contains("total P&L $0.00") && r.stdout.contains("PROFIT_TARGET: 1") && r.stdout.contains("STOP_LOSS: 1"))
    let csv = try String(contentsOfFile: file, encoding: .utf8)
    #expect(csv.hasPrefix("entry_time,entry_price,shares,exit_time,exit_price,exit_reason,pnl,return,note\n2024-01-02,100.0,10,2024-01-05,110.0,PROFIT_TARGET,100.0,0.10000000000000009,\n"))
    r = try CLI.run(["journal", "exit", "--file", file, "--reason", "SOMETIMES", "--price", "1"])
    #expect(r.status == 64)
  }
}

@Suite(.serialized) struct ResearchCLITests {
  /// Runs a research command into a temporary folder and compares each file with its committed reference.
  func check(_ arguments: [String], reference: String, files: [String]) throws {
    let out = try CLI.temporaryFolder()
    let r = try CLI.run(arguments + ["--out", out])
    #expect(r.status == 0, "\(r.stderr)")
    for f in files {
      let expected = try String(contentsOfFile: CLI.root + "/Reports/reference/" + reference + "/" + f, encoding: .utf8)
      let actual = try String(contentsOfFile: out + "/" + f, encoding: .utf8)
      #expect(expected == actual, "\(reference)/\(f) differs from the reference")
    }
  }

  @Test("the shipped research examples reproduce their committed reference outputs")
  func references() throws {
    try check(["analyze", "holdings.yaml"], reference: "research-holdings", files: ["holdings.csv", "holdings.md", "holdings.txt"])
    try check(["screen", "dividend-etfs.yaml", "--shares", "100"], reference: "research-screen", files: ["screen.csv", "screen.md"])
    try check(["funds", "Data/funds/flexi_cap.json", "Data/funds/liquid.json", "Data/funds/young_fund.csv"], reference: "research-funds",
              files: ["fund_performance.csv", "funds.md", "funds.html"])
  }

  @Test("research commands refuse bad input with exit 65 and the place named")
  func errors() throws {
    let dir = try CLI.temporaryFolder()
    try "date,nav\n2024-01-02,10\n2024-01-03,abc\n".write(toFile: dir + "/bad.csv", atomically: false, encoding: .utf8)
    let r = try CLI.run(["funds", dir + "/bad.csv"])
    #expect(r.status == 65 && r.stderr.contains("bad.csv:3:12: error: expected a positive number for 'nav', found 'abc'"))
    let s = try CLI.run(["screen", "dividend-etfs.yaml", "--sort", "cheapest"])
    #expect(s.status == 64)
    // A screen file's bare 0.35 could be 35% or 0.35%: refused with both readings.
    let screen = try String(contentsOfFile: CLI.root + "/Strategies/dividend-etfs.yaml", encoding: .utf8)
      .replacingOccurrences(of: "expense_ratio: 0.35%", with: "expense_ratio: 0.35")
      .replacingOccurrences(of: "../Data/", with: CLI.root + "/Data/")
    try screen.write(toFile: dir + "/screen.yaml", atomically: false, encoding: .utf8)
    let ambiguous = try CLI.run(["screen", dir + "/screen.yaml"])
    #expect(ambiguous.status == 65)
    // The place of the value: line 6, the column where `0.35}` starts (it depends on the clone's path).
    let line6 = screen.split(separator: "\n", omittingEmptySubsequences: false)[5]
    let column = line6.distance(from: line6.startIndex, to: line6.range(of: "expense_ratio: 0.35}")!.lowerBound) + "expense_ratio: ".count + 1
    #expect(ambiguous.stderr.contains("screen.yaml:6:\(column):") && ambiguous.stderr.contains(
      "error: expected an annual rate for 'universe[1].expense_ratio', found 0.35, which reads as 35% as a fraction or as 0.35% (= 0.0035) as a percentage"),
            "\(ambiguous.stderr)")
  }
}

@Suite struct CycleCLITests {
  @Test("backtest cycle prints one line per stage change and writes the spec's stage table")
  func cycle() throws {
    let out = try CLI.temporaryFolder()
    let r = try CLI.run(["cycle", "goog-cycle.yaml", "--out", out])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("2008-08-04  Contraction  2008Q2: GDP growth 1.60% (trend 2.95%), unemployment 5.4% (low 4.5%)"))
    #expect(r.stdout.contains("2010-05-13  unknown"))
    let table = try String(contentsOfFile: out + "/cycle_stages.csv", encoding: .utf8)
    #expect(table.hasPrefix("period,period_start,period_end,available_at,real_gdp,gdp_yoy,trend,gap,gap_change,direction,base_stage,"))
    #expect(table.split(separator: "\n").count == 204)
    #expect(table.contains("2008Q4,2008-10-01,2008-12-31,2009-02-04T00:00:00Z,13141.92,"))
  }
}

@Suite(.serialized) struct MonteCarloCLITests {
  @Test("montecarlo.json holds p5/p50/p95 per metric, prob_loss and the settings, identically for any --jobs")
  func json() throws {
    let a = try CLI.temporaryFolder(), b = try CLI.temporaryFolder()
    #expect(try CLI.run(["montecarlo", "goog-swing.yaml", "--runs", "400", "--seed", "7", "--jobs", "1", "--out", a]).status == 0)
    #expect(try CLI.run(["montecarlo", "goog-swing.yaml", "--runs", "400", "--seed", "7", "--jobs", "2", "--out", b]).status == 0)
    let text = try String(contentsOfFile: a + "/montecarlo.json", encoding: .utf8)
    #expect(text == (try String(contentsOfFile: b + "/montecarlo.json", encoding: .utf8)))
    let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
    for metric in ["final_equity", "cagr", "sharpe", "max_drawdown"] {
      let p = try #require(json[metric] as? [String: Double], "\(metric)")
      #expect(p["p5"]! <= p["p50"]! && p["p50"]! <= p["p95"]!)
    }
    #expect((json["prob_loss"] as? Double).map { (0...1).contains($0) } == true)
    let settings = try #require(json["settings"] as? [String: Any])
    #expect(settings["runs"] as? Int == 400 && settings["seed"] as? Int == 7)
  }
}

@Suite struct MonteCarloReferenceTests {
  @Test("the shipped Monte Carlo example reproduces its committed reference exactly")
  func reference() throws {
    let out = try CLI.temporaryFolder()
    #expect(try CLI.run(["montecarlo", "gpix.yaml", "--runs", "1000", "--seed", "7", "--out", out]).status == 0)
    let expected = try String(contentsOfFile: CLI.root + "/Reports/reference/montecarlo-gpix/montecarlo.json", encoding: .utf8)
    #expect(try String(contentsOfFile: out + "/montecarlo.json", encoding: .utf8) == expected)
  }
}

@Suite struct PlatformCLITests {
  @Test("backtest strategies lists every strategy with each parameter's type, default, range and doc")
  func strategies() throws {
    let r = try CLI.run(["strategies"])
    #expect(r.status == 0)
    #expect(r.stdout.contains("bollinger_rsi: buy below the lower Bollinger Band"))
    #expect(r.stdout.contains("    bollinger.period (bb_period): integer, default 20, 2 to 100000; closes in the Bollinger window\n"))
    #expect(r.stdout.contains("    stop_loss: fraction or none, default 2%, between 0 and 1; stop below the entry fill (2% or none)\n"))
    #expect(r.stdout.contains("    slow: integer, default 30, 2 to 100000; closes in the slow average (more than fast)\n"))
  }

  @Test("signal works for any strategy: sma_cross's decision with its own reason and indicator values")
  func signalForAnyStrategy() throws {
    let r = try CLI.run(["signal", "goog-swing.yaml", "--set", "strategy={type: sma_cross, fast: 5, slow: 20}", "--json", "--now", "2014-01-01"])
    #expect(r.status == 0, "\(r.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    #expect(json["strategy"] as? String == "sma_cross")
    #expect((json["reason"] as? String)?.contains("SMA 5 ") == true)
    let indicators = try #require(json["indicators"] as? [String: Any])
    #expect(indicators.keys.sorted() == ["sma_fast", "sma_slow"])
    #expect(json["bb_lower"] is NSNull && json["rsi"] is NSNull)
  }
}
