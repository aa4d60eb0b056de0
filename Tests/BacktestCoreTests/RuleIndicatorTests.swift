@testable import BacktestCore
@testable import BacktestRun
import Foundation
import Testing

/// `adx`, `plus_di`, `minus_di`, `stoch_k`, `stoch_d`, `macd`, `macd_signal`, `macd_hist`, `willr`, `cci`, `obv`
/// and `wma` in the rule language.
@Suite struct RuleIndicatorTests {
  /// Each key of `Fixtures/talib` and the expression that must give TA-Lib's values.
  static let talibExpressions: [String: String] = [
    "adx14": "adx(14)", "adx5": "adx(5)", "adx2": "adx(2)",
    "plus_di14": "plus_di(14)", "minus_di14": "minus_di(14)", "plus_di5": "plus_di(5)", "minus_di5": "minus_di(5)",
    // TA-Lib's DIs of period 1 are fractions (without the factor 100 of every other period).
    "plus_di1": "plus_di(1) / 100", "minus_di1": "minus_di(1) / 100",
    "stoch_k_14_3": "stoch_k(14, 3)", "stoch_d_14_3_3": "stoch_d(14, 3, 3)",
    "stoch_k_5_1": "stoch_k(5, 1)", "stoch_d_5_1_3": "stoch_d(5, 1, 3)",
    "stoch_k_21_5": "stoch_k(21, 5)", "stoch_d_21_5_1": "stoch_d(21, 5, 1)",
    "macd_12_26": "macd(close, 12, 26)", "macd_signal_12_26_9": "macd_signal(close, 12, 26, 9)",
    "macd_hist_12_26_9": "macd_hist(close, 12, 26, 9)",
    "macd_5_35": "macd(close, 5, 35)", "macd_signal_5_35_5": "macd_signal(close, 5, 35, 5)", "macd_hist_5_35_5": "macd_hist(close, 5, 35, 5)",
    "macd_3_10": "macd(close, 10, 3)", "macd_signal_3_10_1": "macd_signal(close, 3, 10, 1)", "macd_hist_3_10_1": "macd_hist(close, 3, 10, 1)",
    "willr14": "willr(14)", "willr2": "willr(2)", "cci20": "cci(20)", "cci14": "cci(14)", "cci2": "cci(2)", "obv": "obv()",
    "wma10": "wma(close, 10)", "wma30": "wma(close, 30)", "wma2": "wma(close, 2)", "wma1": "wma(close, 1)",
    // Functions of other functions: TA-Lib starts after its input's leading undefined values, as the rules do.
    "wma5_rsi14": "wma(rsi(close, 14), 5)", "macd_12_26_median": "macd((high + low) / 2, 12, 26)",
    "macd_hist_12_26_9_rsi14": "macd_hist(rsi(close, 14), 12, 26, 9)", "macd_signal_5_15_4_ema10": "macd_signal(ema(close, 10), 5, 15, 4)",
  ]

  static let talibCases: [(file: String, key: String)] = TALibFixture.files.flatMap { file in
    talibExpressions.keys.sorted().filter { file == "goog.csv" || TALibFixture.gpixKeys.contains($0) }.map { (file, $0) }
  }

  @Test("each function equals TA-Lib to 1e-8 relative on daily and 30-minute bars, undefined on the same bars; its warm-up is TA-Lib's",
        arguments: talibCases)
  func matchesTALib(file: String, key: String) throws {
    let bars = try TALibFixture.bars(file)
    let expression = try #require(Self.talibExpressions[key])
    let talib = try TALibFixture.reference(file, key)
    let e = try RuleEval.check(expression)
    TALibFixture.expectMatches(RuleEvaluator(bars: bars).number(e), talib, firstDefined: e.warmUp, "\(file) \(expression)")
  }

  /// Each function as a rule writes it, and the Swift function a plug-in calls.
  static let swiftFunctions: [(String, @Sendable (BarSeries) -> ContiguousArray<Double>)] = [
    ("adx(14)", { adx($0, period: 14) }), ("plus_di(7)", { plusDI($0, period: 7) }), ("minus_di(7)", { minusDI($0, period: 7) }),
    ("stoch_k(14, 3)", { stochK($0, period: 14, smoothing: 3) }), ("stoch_d(14, 3, 5)", { stochD($0, period: 14, smoothing: 3, signal: 5) }),
    ("macd(close, 12, 26)", { macd($0.close, fast: 12, slow: 26) }),
    ("macd_signal(close, 12, 26, 9)", { macdSignal($0.close, fast: 12, slow: 26, signal: 9) }),
    ("macd_hist(close, 12, 26, 9)", { macdHistogram($0.close, fast: 12, slow: 26, signal: 9) }),
    ("macd_hist(open, 26, 12, 1)", { macdHistogram($0.open, fast: 12, slow: 26, signal: 1) }),
    ("willr(14)", { willr($0, period: 14) }), ("cci(20)", { cci($0, period: 20) }), ("obv()", { obv($0) }),
    ("wma(close, 10)", { wma($0.close, period: 10) }), ("wma(high, 1)", { wma($0.high, period: 1) }),
  ]

  @Test("each function evaluates bit for bit to the Swift function a plug-in calls, whatever the rule computed before it",
        arguments: [UInt64(3), 8])
  func equalsSwiftFunctions(seed: UInt64) throws {
    let bars = SyntheticBars.generate(count: 3000, seed: seed)
    let shared = RuleEvaluator(bars: bars)
    // In one evaluator, the last ones of each family are read from what the first ones computed.
    for (text, swift) in Self.swiftFunctions {
      let e = try RuleEval.check(text)
      let expected = swift(bars)
      #expect(expected.contains { !$0.isNaN }, "\(text)")
      for values in [RuleEvaluator(bars: bars).number(e), shared.number(e)] {
        #expect(values.count == expected.count && zip(values, expected).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(text)")
      }
    }
    // And in the other order.
    let reversed = RuleEvaluator(bars: bars)
    for (text, swift) in Self.swiftFunctions.reversed() {
      let values = reversed.number(try RuleEval.check(text)), expected = swift(bars)
      #expect(zip(values, expected).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(text)")
    }
  }

  @Test("no function reads a later bar: values up to a cut are the same without the bars after it")
  func noLookAhead() throws {
    let bars = SyntheticBars.generate(count: 600, seed: 21)
    for cut in [40, 333] {
      let early = bars.prefix(cut)
      for (text, _) in Self.swiftFunctions {
        let e = try RuleEval.check(text)
        let all = RuleEvaluator(bars: bars).number(e), part = RuleEvaluator(bars: early).number(e)
        #expect((0..<cut).allSatisfy { all[$0].bitPattern == part[$0].bitPattern }, "\(text) cut at \(cut)")
      }
    }
  }

  @Test("warm-ups: the first bar each function is defined at, after its input's")
  func warmUps() throws {
    let bars = SyntheticBars.generate(count: 300, seed: 4)
    for (text, first) in [("adx(14)", 27), ("plus_di(14)", 14), ("minus_di(1)", 1), ("stoch_k(14, 3)", 15), ("stoch_d(14, 3, 3)", 17),
                          ("stoch_d(5, 1, 1)", 4), ("macd(close, 12, 26)", 25), ("macd(close, 26, 12)", 25), ("macd_signal(close, 12, 26, 9)", 33),
                          ("macd_hist(close, 12, 26, 9)", 33), ("macd_hist(sma(close, 10), 12, 26, 9)", 42), ("willr(14)", 13), ("cci(20)", 19),
                          ("obv()", 0), ("wma(close, 10)", 9), ("wma(rsi(close, 14), 5)", 18), ("adx(n) > 20", 9)] {
      let e = try RuleEval.check(text, params: ["n": 5])
      #expect(e.warmUp == first, "\(text)")
      let defined = e.isCondition ? first : try #require(RuleEvaluator(bars: bars).number(e).firstIndex { !$0.isNaN })
      #expect(defined == first, "\(text)")
    }
    // A period longer than the data is undefined everywhere.
    let short = SyntheticBars.generate(count: 50, seed: 4)
    for text in ["adx(1000000000)", "stoch_d(14, 1000000000, 3)", "macd_hist(close, 5, 1000000000, 2)", "cci(1000000000)",
                 "wma(close, 1000000000)", "willr(51)", "stoch_k(50, 2)"] {
      #expect(RuleEvaluator(bars: short).number(try RuleEval.check(text)).allSatisfy(\.isNaN), "\(text)")
    }
  }

  @Test("hand-worked values: obv, wma, willr, a stochastic, and the MACD line's seed (both averages' seeds end on the slow one's bar)")
  func handWorked() throws {
    var bars = RuleEval.closes([10, 11, 11, 10, 12, 12])
    bars.volume = [100, 200, 300, 400, 500, 600]
    let nan = Double.nan
    #expect(same(try RuleEval.numbers("obv()", bars), [100, 300, 300, -100, 400, 400], relative: 0))
    #expect(same(try RuleEval.numbers("wma(close, 3)", bars), [nan, nan, (10 + 22 + 33) / 6.0, (11 + 22 + 30) / 6.0, (11 + 20 + 36) / 6.0,
                                                                 (10 + 24 + 36) / 6.0]))
    // Highs 11, 12, 12 and lows 9, 10, 10 around the closes: over two bars.
    let ranged = handBars([(10, 11, 9, 10), (11, 12, 10, 11), (11, 12, 10, 10), (10, 11, 9, 9)])
    #expect(same(try RuleEval.numbers("willr(2)", ranged), [nan, -100 * 1 / 3.0, -100 * 2 / 2.0, -100 * 3 / 3.0]))
    #expect(same(try RuleEval.numbers("stoch_k(2, 1)", ranged), [nan, 100 * 2 / 3.0, 0, 0]))
    #expect(same(try RuleEval.numbers("stoch_k(2, 2)", ranged), [nan, nan, 100 / 3.0, 0]))
    // MACD(2, 3): the slow seed is the mean of bars 0...2, the fast one the mean of bars 1...2.
    let closes = RuleEval.closes([1, 2, 4, 8])
    let fast = (2 + 4) / 2.0, slow = (1 + 2 + 4) / 3.0
    let fast3 = (8 - fast) * (2 / 3.0) + fast, slow3 = (8 - slow) * 0.5 + slow
    #expect(same(try RuleEval.numbers("macd(close, 2, 3)", closes), [nan, nan, fast - slow, fast3 - slow3]))
    #expect(same(try RuleEval.numbers("macd_signal(close, 2, 3, 2)", closes), [nan, nan, nan, (fast - slow + fast3 - slow3) / 2]))
    #expect(same(try RuleEval.numbers("macd_hist(close, 2, 3, 1)", closes), [nan, nan, 0, 0], relative: 0))
  }

  @Test("text, column names and sharing: each call reads back as itself, names its column, and one family is computed once")
  func textAndColumns() throws {
    let texts = ["adx(14)", "plus_di(14)", "minus_di(14)", "stoch_k(14, 3)", "stoch_d(14, 3, 3)", "macd(close, 12, 26)",
                 "macd_signal(close, 12, 26, 9)", "macd_hist((high + low) / 2, 12, 26, 9)", "willr(14)", "cci(20)", "obv()", "wma(close, 10)"]
    let columns = ["adx_14", "plus_di_14", "minus_di_14", "stoch_k_14_3", "stoch_d_14_3_3", "macd_close_12_26", "macd_signal_close_12_26_9",
                   "macd_hist_high_low_2_12_26_9", "willr_14", "cci_20", "obv", "wma_close_10"]
    for (text, column) in zip(texts, columns) {
      let e = try RuleEval.check(text)
      #expect(e.text == text && e.columnName == column, "\(text)")
      #expect(try RuleEval.check(e.text) == e)
    }
    #expect(try RuleEval.check("stoch_d(n, s, d) > 1", params: ["n": 14, "s": 3, "d": 3]) == RuleEval.check("stoch_d(14, 3, 3) > 1"))
    // adx(14) leaves its DIs in the evaluator; macd_hist leaves the line and the signal.
    let evaluator = RuleEvaluator(bars: SyntheticBars.generate(count: 200, seed: 1))
    _ = evaluator.number(try RuleEval.check("adx(14)"))
    _ = evaluator.number(try RuleEval.check("macd_hist(close, 12, 26, 9)"))
    _ = evaluator.number(try RuleEval.check("stoch_d(14, 3, 3)"))
    for text in ["plus_di(14)", "minus_di(14)", "macd(close, 12, 26)", "macd_signal(close, 12, 26, 9)", "stoch_k(14, 3)"] {
      #expect(evaluator.cache.numbers[try RuleEval.check(text)] != nil, "\(text)")
    }
    #expect(evaluator.cache.numbers[try RuleEval.check("plus_di(5)")] == nil)
  }

  @Test("every example of Docs/rules.md's table of functions is a condition that holds on some GOOG bars and not on others")
  func documentedExamples() throws {
    let text = try String(contentsOfFile: Repo.path("Docs/rules.md"), encoding: .utf8)
    let section = try #require(text.components(separatedBy: "## Functions").dropFirst().first?.components(separatedBy: "\n## ").first)
    let examples = section.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { row in
      String(row.split(separator: "|").last!.trimmingCharacters(in: .whitespaces).dropFirst().dropLast())
    }
    #expect(examples.count == 24)
    let bars = try IndicatorTests.googBars()
    for example in examples {
      let e = try RuleEval.check(example)
      let bits = RuleEvaluator(bars: bars).condition(e)
      #expect(e.isCondition && (0..<bars.count).contains { bits[$0] } && (0..<bars.count).contains { !bits[$0] }, "\(example)")
    }
  }

  static let runFile = Repo.fixtures + "/rules/goog-adx-macd.yaml"

  @Test("a run file using adx, the DIs, macd_hist, stoch_k and wma runs end to end: its trades follow the rule, its reports draw each function")
  func runFileEndToEnd() throws {
    let output = try Backtest.run(try RunConfig.parse(String(contentsOfFile: Self.runFile, encoding: .utf8), file: Self.runFile))
    let bars = output.bars
    let trades = output.run.result.trades
    #expect(trades.count >= 10)
    let (a, plus, minus) = (adx(bars, period: 14), plusDI(bars, period: 14), minusDI(bars, period: 14))
    let hist = macdHistogram(bars.close, fast: 12, slow: 26, signal: 9)
    let k = stochK(bars, period: 14, smoothing: 3), average = wma(bars.close, period: 30)
    func entry(_ i: Int) -> Bool { a[i] > 20 && plus[i] > minus[i] && hist[i - 1] <= 0 && hist[i] > 0 }
    // Each buy was decided at the close before its fill, where the entry holds; each rule exit likewise.
    for trade in trades {
      #expect(entry(trade.entryBar - 1), "entry at \(trade.entryBar)")
      if trade.exitReason == .technical {
        let i = trade.exitBar - 1
        #expect(k[i] > 90 || bars.close[i] < average[i], "exit at \(trade.exitBar)")
      }
    }
    #expect(trades.contains { $0.exitReason == .technical } && trades.contains { $0.exitReason == .stopLoss })
    // Every bar where the entry holds while flat opens a trade at the next open.
    let held = Set(trades.flatMap { Array($0.entryBar...$0.exitBar) })
    let missed = (27..<bars.count - 1).filter { entry($0) && !held.contains($0) && !held.contains($0 + 1) }
    #expect(missed.isEmpty, "entries not taken: \(missed)")

    // The indicator columns: values, names, and where the charts draw them.
    let columns = output.run.indicators
    #expect(columns.map(\.name) == ["adx_14", "plus_di_14", "minus_di_14", "macd_hist_close_12_26_9", "stoch_k_14_3", "wma_close_30"])
    for (column, values) in zip(columns, [a, plus, minus, hist, k, average]) {
      #expect(zip(column.values, values).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(column.name)")
    }
    let directional = IndicatorPanel(id: "adx", name: "ADX and DI", title: "adx(14), plus_di(14), minus_di(14)", range: 0...100, levels: [20])
    let panels = columns.map { column -> IndicatorPanel? in if case .panel(let p, _) = column.plot { p } else { nil } }
    #expect(panels[0] == directional && panels[1] == directional && panels[2] == directional)
    #expect(panels[3] == IndicatorPanel(id: "macd", name: "MACD", title: "macd_hist(close, 12, 26, 9)", levels: [0]))
    #expect(panels[4] == IndicatorPanel(id: "stoch", name: "Stochastic", title: "stoch_k(14, 3)", range: 0...100, levels: [90]))
    guard case .overlay(let label, _) = columns[5].plot else { Issue.record("wma: \(columns[5].plot)"); return }
    #expect(label == "wma(close, 30)")

    // The reports: indicators.csv has the columns; a chart per panel; the signal explains with each value.
    let files = Dictionary(uniqueKeysWithValues: RunReport.files(output).map { ($0.name, $0.contents) })
    #expect(files["indicators.csv"]?.hasPrefix("time,close,adx_14,plus_di_14,minus_di_14,macd_hist_close_12_26_9,stoch_k_14_3,wma_close_30\n") == true)
    #expect(files["adx.svg"] != nil && files["macd.svg"] != nil && files["stoch.svg"] != nil)
    let strategy = RulesStrategy(parameters: output.config.strategy.parameters as! RulesStrategy.Parameters, bars: bars)
    let d = trades[0].entryBar - 1
    let one = { (x: Double) in String(format: "%.1f", x) }, two = { (x: Double) in String(format: "%.2f", x) }
    #expect(strategy.explain(.enterLong(stopLoss: 0.08, profitTarget: nil), at: d, position: .flat)
      == "adx(14) \(one(a[d])) > 20 and plus_di(14) \(one(plus[d])) > minus_di(14) \(one(minus[d])) and macd_hist(close, 12, 26, 9) "
      + "\(two(hist[d])) crosses above 0 (previous bar: macd_hist(close, 12, 26, 9) \(two(hist[d - 1])), 0)")
  }

  @Test("a sweep of a rule with these functions gives each combination exactly what backtest run gives")
  func sweep() throws {
    let bars = try IndicatorTests.googBars()
    var combinations: [RulesStrategy.Parameters] = []
    for (n, level, smooth) in [(14, 20.0, 3), (10, 25.0, 3), (14, 25.0, 1)] {
      var p = RulesStrategy.Parameters()
      p.entry = try RuleEval.check("adx(\(n)) > \(level) and plus_di(\(n)) crosses_above minus_di(\(n))")
      p.exit = try RuleEval.check("stoch_d(14, \(smooth), 3) > 80 or macd(close, 12, 26) < macd_signal(close, 12, 26, 9) or willr(10) < -95",
                                  exit: true)
      p.stopLoss = 0.05
      combinations.append(p)
    }
    let kernel = RulesKernel(bars: bars, parameters: combinations)
    let broker = BrokerSettings()
    var accumulator = SummaryAccumulator()
    for p in combinations {
      var strategy = RulesStrategy(parameters: p, bars: bars)
      let expected = PerformanceSummary(result: Engine.run(&strategy, bars: bars, broker: broker), bars: bars)
      #expect(expected.totalTrades > 3, "\(p.entry.text)")
      kernel.simulate(p, bars: bars, broker: broker, accumulator: &accumulator)
      #expect(accumulator.summary(initialCash: broker.initialCash, calendarDays: SwingKernel.calendarDays(bars)) == expected, "\(p.entry.text)")
    }
  }
}
