import BacktestCore
import BacktestRun
import Testing

@Suite struct ReportTests {
  @Test("CSV numbers are the shortest round-trip text, the same as Swift's description")
  func numberText() {
    var rng = SplitMix64(seed: 9)
    var values: [Double] = [0, -0.0, 1, 100_000, 123_456_789, 999_999_999, 1e9, 1e15, 1e16, 0.1 + 0.2, 1e-5, -3.5, 46.597922000000004]
    for _ in 0..<20_000 {
      values.append(Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF))
      values.append((rng.unit() * 1e6).rounded())
      values.append(rng.unit() * 1000)
    }
    for x in values {
      var buffer = TextBuffer()
      buffer.append(x)
      #expect(buffer.string == x.description, "\(x)")
      #expect(Double(buffer.string) == x)
    }
    var empty = TextBuffer()
    empty.append(Double.nan)
    #expect(empty.string.isEmpty)
  }

  @Test("people's formats: money with separators, percentages, integers")
  func humanFormats() {
    #expect(HumanFormat.money(124_679.225) == "$124,679.23" || HumanFormat.money(124_679.225) == "$124,679.22")
    #expect(HumanFormat.money(26.99) == "$26.99" && HumanFormat.money(-1234.5) == "-$1,234.50")
    #expect(HumanFormat.percent(0.0379) == "3.79%" && HumanFormat.percent(-0.1345) == "-13.45%")
    #expect(HumanFormat.percent(nil) == "—" && HumanFormat.percent(-0.00001) == "0.00%")
    #expect(HumanFormat.integer(13_348_744) == "13,348,744" && HumanFormat.integer(-1000) == "-1,000")
    #expect(HumanFormat.price(1.07219) == "$1.07219" && HumanFormat.price(26.5) == "$26.50")
  }

  @Test("summary.json has the contract's keys first, in order, and null for undefined values")
  func summaryKeys() throws {
    let output = try runBacktest("name: t\ndata: {bars: ../Data/GOOG.csv}\nstrategy: {type: bollinger_rsi}\n")
    let json = RunReport.summaryJSON(output).rendered()
    let keys = ["total_trades", "wins", "losses", "win_rate", "avg_win", "avg_loss", "best_trade", "worst_trade",
                "total_pnl", "total_return", "final_equity", "cagr", "max_drawdown", "sharpe", "sortino",
                "profit_factor", "exposure"]
    var position = json.startIndex
    for key in keys {
      let range = try #require(json.range(of: "\"\(key)\":", range: position..<json.endIndex), "\(key) missing or out of order")
      position = range.upperBound
    }
    let noTrades = try runBacktest("name: t\ndata: {bars: ../Data/GOOG.csv}\nstrategy: {type: bollinger_rsi, rsi: {oversold: 0}}\n")
    #expect(RunReport.summaryJSON(noTrades).rendered().contains("\"win_rate\": null"))
  }

  @Test("report.md shows parameters, the data range, metrics against buy and hold, exit reasons and trades")
  func markdown() throws {
    let output = try runBacktest("name: goog\ndata: {bars: ../Data/GOOG.csv}\nstrategy: {type: bollinger_rsi}\n")
    let md = MarkdownReport.render(output)
    for piece in ["# Backtest: goog", "| rsi.period | 14 |", "| Bars | 2,148 (2004-08-19 → 2013-03-01) |",
                  "| Metric | Strategy | Buy & hold |", "## Exit reasons", "| STOP_LOSS |", "| 1 | 20"] {
      #expect(md.contains(piece), "\(piece)")
    }
  }
}

@Suite struct BaselineStrategyTests {
  @Test("sma_cross buys the bar after the fast average crosses above the slow one and sells after it crosses below")
  func smaCross() {
    // Closes fall, rise, then fall: fast(2) crosses slow(3) upward at bar 5 (9 > 8.33) and downward at
    // bar 9 (12 < 12.33); orders fill at the next open.
    let closes: [Double] = [10, 9, 8, 7, 8, 10, 12, 13, 13, 11, 9, 8, 7]
    let bars = handBars(closes.map { ($0, $0, $0, $0) })
    var p = SMACross.Parameters()
    p.fast = 2
    p.slow = 3
    var s = SMACross(parameters: p, bars: bars)
    let trades = Engine.run(&s, bars: bars, broker: BrokerSettings()).trades
    #expect(trades.count == 1)
    #expect(trades.first?.entryBar == 6 && trades.first?.exitBar == 10 && trades.first?.exitReason == .technical)
  }

  @Test("buy_and_hold buys at the second bar's open and closes at the end")
  func buyAndHold() {
    let bars = handBars([(10, 10, 10, 10), (11, 11, 11, 11), (12, 12, 12, 12)])
    var s = BuyAndHold(parameters: .init(), bars: bars)
    let trades = Engine.run(&s, bars: bars, broker: BrokerSettings()).trades
    #expect(trades.count == 1 && trades[0].entryPrice == 11 && trades[0].exitPrice == 12 && trades[0].exitReason == .endOfData)
  }
}

@Suite struct ReportComparisonTests {
  @Test("numbers compare within the tolerance, text exactly, Markdown exactly")
  func compare() {
    let expected = "time,equity\n2024-01-02,100000.0\n2024-01-03,100123.4567\n"
    #expect(ReportComparison.differences(file: "e.csv", expected: expected, actual: expected).isEmpty)
    let close = "time,equity\n2024-01-02,100000.00000000001\n2024-01-03,100123.4567\n"
    #expect(ReportComparison.differences(file: "e.csv", expected: expected, actual: close).isEmpty)
    let far = "time,equity\n2024-01-02,100000.0\n2024-01-03,100123.5\n"
    let d = ReportComparison.differences(file: "e.csv", expected: expected, actual: far)
    #expect(d == ["e.csv:3:\n    expected: 2024-01-03,100123.4567\n    actual:   2024-01-03,100123.5"])
    #expect(ReportComparison.differences(file: "e.csv", expected: "a,STOP_LOSS\n", actual: "a,TECHNICAL\n").count == 1)
    #expect(ReportComparison.differences(file: "e.csv", expected: "x\n", actual: "x\ny\n").count == 1)
    #expect(ReportComparison.differences(file: "r.md", expected: "| 1.0 |\n", actual: "| 1.00000000001 |\n").count == 1)
    #expect(ReportComparison.differences(file: "s.json", expected: "  \"sharpe\": null,", actual: "  \"sharpe\": 0.1,").count == 1)
    #expect(ReportComparison.differences(file: "s.json", expected: "  \"a\": -1.5e-05,", actual: "  \"a\": -1.5000000000001e-05,").isEmpty)
    // A reference number replaced by one that reads as infinity matches nothing else (it matched everything).
    for infinite in ["1e999", "-1e999"] {
      #expect(ReportComparison.differences(file: "e.csv", expected: "2024-01-02,\(infinite)\n", actual: "2024-01-02,100000.0\n").count == 1)
      #expect(ReportComparison.differences(file: "e.csv", expected: "2024-01-02,100000.0\n", actual: "2024-01-02,\(infinite)\n").count == 1)
    }
    #expect(ReportComparison.differences(file: "e.csv", expected: "a,1e999\n", actual: "a,1e999\n").isEmpty)
  }
}

@Suite struct CSVFieldTests {
  @Test("CSV fields are quoted for commas, quotes and line breaks (the copies before missed line breaks)")
  func quoting() throws {
    #expect(csvField("plain") == "plain" && csvField("a,b") == "\"a,b\"" && csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
    #expect(csvField("two\nlines") == "\"two\nlines\"")
    var j = Journal()
    try j.enter(JournalEntry(entryTime: "t", entryPrice: 1, shares: 1, note: "line one\nline, two \"x\""))
    #expect(try Journal.parse(j.text, file: "j.csv") == j)
  }
}
