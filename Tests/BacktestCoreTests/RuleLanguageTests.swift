@testable import BacktestCore
@testable import BacktestRun
import Foundation
import Testing

/// Evaluates rule expressions over bars through the checker and the evaluator.
enum RuleEval {
  static func check(_ text: String, params: [String: Double] = [:], exit: Bool = false) throws -> RuleExpression {
    do {
      let syntax = try RuleParser.parse(text)
      return try RuleChecker(text: text, params: params, positionAllowed: exit, key: "strategy.entry").check(syntax)
    } catch {
      throw InputError(error.message, at: SourceLocation(file: "expression", line: 1, column: error.offset + 1))
    }
  }

  static func numbers(_ text: String, _ bars: BarSeries, params: [String: Double] = [:]) throws -> [Double] {
    Array(RuleEvaluator(bars: bars).number(try check(text, params: params)))
  }

  static func bits(_ text: String, _ bars: BarSeries, params: [String: Double] = [:]) throws -> [Bool] {
    let bits = RuleEvaluator(bars: bars).condition(try check(text, params: params))
    return (0..<bars.count).map { bits[$0] }
  }

  /// Daily bars whose open, high and low are the close (the tests read closes).
  static func closes(_ values: [Double]) -> BarSeries { handBars(values.map { ($0, $0, $0, $0) }) }
}

/// `nan`-aware equality to `relative` for hand-worked values.
func same(_ a: [Double], _ b: [Double], relative: Double = 1e-12) -> Bool {
  a.count == b.count && zip(a, b).allSatisfy { x, y in x.isNaN ? y.isNaN : !y.isNaN && close(x, y, relative: relative) || x == y }
}

@Suite struct RuleFunctionTests {
  static let nan = Double.nan

  @Test("every function equals TA-Lib on GOOG to 1e-8 relative, undefined on the same bars (nested functions included)",
        arguments: [
          ("sma10", "sma(close, 10)"), ("ema12_median", "ema((high + low) / 2, 12)"), ("std20", "std(close, 20)"),
          ("bb_mid20", "bb_mid(close, 20)"), ("bb_upper20", "bb_upper(close, 20, 2)"), ("bb_lower20", "bb_lower(close, 20, 2)"),
          ("bb_upper5_median", "bb_upper((high + low) / 2, 5, 1.5)"), ("bb_lower5_median", "bb_lower((high + low) / 2, 5, 1.5)"),
          ("rsi14", "rsi(close, 14)"), ("rsi2", "rsi(close, 2)"), ("atr14", "atr(14)"),
          ("highest20_high", "highest(high, 20)"), ("lowest20_low", "lowest(low, 20)"), ("roc10", "roc(close, 10)"),
          ("sma5_rsi14", "sma(rsi(close, 14), 5)"), ("ema5_close1", "ema(close[1], 5)"), ("highest3_roc1", "highest(roc(close, 1), 3)"),
        ])
  func matchesTALib(key: String, expression: String) throws {
    let bars = try IndicatorTests.googBars()
    let talib = try SimpleCSV(path: Repo.fixtures + "/rules/talib_goog.csv").column(key).map { $0.isEmpty ? Double.nan : Double($0)! }
    let mine = try RuleEval.numbers(expression, bars)
    #expect(mine.count == talib.count)
    #expect(talib.contains { !$0.isNaN })
    for i in talib.indices {
      if talib[i].isNaN || mine[i].isNaN {
        #expect(talib[i].isNaN == mine[i].isNaN, "\(expression)[\(i)]: \(mine[i]) vs TA-Lib \(talib[i])")
      } else {
        #expect(close(mine[i], talib[i], relative: 1e-8), "\(expression)[\(i)]: \(mine[i]) vs TA-Lib \(talib[i])")
      }
    }
  }

  @Test("lags read earlier bars and are undefined before the first bar; a lag past the data is undefined everywhere")
  func lags() throws {
    let bars = RuleEval.closes([10, 11, 12, 11, 13])
    let nan = Self.nan
    #expect(same(try RuleEval.numbers("close[1]", bars), [nan, 10, 11, 12, 11]))
    #expect(same(try RuleEval.numbers("close[0]", bars), [10, 11, 12, 11, 13]))
    #expect(same(try RuleEval.numbers("(close - close[2])[1]", bars), [nan, nan, nan, 2, 0]))
    #expect(same(try RuleEval.numbers("close[n]", bars, params: ["n": 3]), [nan, nan, nan, 10, 11]))
    #expect(same(try RuleEval.numbers("close[1000000000]", bars), [nan, nan, nan, nan, nan]))
    #expect(try RuleEval.check("(close[1])[2]") == RuleEval.check("close[3]"))
    // A lagged condition: false where the lag reaches before the first bar.
    #expect(try RuleEval.bits("(close > 10.5)[1]", bars) == [false, false, true, true, true])
    #expect(try RuleEval.bits("not (close > 10.5)[1]", bars) == [true, true, false, false, false])
  }

  @Test("crosses: a[1] <= b[1] and a > b (and the mirror); touching is not crossing, equal before counts")
  func crosses() throws {
    let bars = RuleEval.closes([10, 11, 12, 11, 13])
    #expect(try RuleEval.bits("close crosses_above 11.5", bars) == [false, false, true, false, true])
    #expect(try RuleEval.bits("close crosses_below 11.5", bars) == [false, false, false, true, false])
    // From 10 to 11 touches 11 (no cross); from 11 (equal) to 12 crosses.
    #expect(try RuleEval.bits("close crosses_above 11", bars) == [false, false, true, false, true])
    #expect(try RuleEval.bits("close crosses_below 11", bars) == [false, false, false, false, false])
    // Against a series with a warm-up: no cross until both sides are defined on both bars.
    #expect(try RuleEval.bits("close crosses_above sma(close, 2)", bars) == [false, false, false, false, true])
  }

  @Test("warm-up: comparisons with an undefined operand are false, 'not' of them true; decisions start after the entry's warm-up")
  func warmUp() throws {
    let bars = RuleEval.closes([10, 11, 12, 11, 13])
    let nan = Self.nan
    #expect(same(try RuleEval.numbers("sma(close, 3)", bars), [nan, nan, 11, 34.0 / 3, 12]))
    #expect(try RuleEval.bits("sma(close, 3) > 0", bars) == [false, false, true, true, true])
    #expect(try RuleEval.bits("not (sma(close, 3) > 0)", bars) == [true, true, false, false, false])
    #expect(try RuleEval.bits("sma(close, 3) != 11", bars) == [false, false, false, true, true])
    #expect(try RuleEval.bits("sma(close, 3) > 0 or close > 10", bars) == [false, true, true, true, true])
    #expect(try RuleEval.check("not (sma(close, 3) > 0)").warmUp == 2)
    #expect(try RuleEval.check("rsi(close, 14) < 30 and close > sma(close, 5)[3]").warmUp == 14)
    #expect(try RuleEval.check("close crosses_above ema(close, 10)").warmUp == 10)
    #expect(try RuleEval.check("sma(rsi(close, 2), 3) < 10").warmUp == 4)
    #expect(try RuleEval.check("roc(close, 5) > 0 and atr(7) > 1").warmUp == 7)
  }

  @Test("division by zero and overflow are undefined; a function restarts its warm-up after an undefined input")
  func undefinedValues() throws {
    let bars = RuleEval.closes([10, 11, 12, 13, 11, 9, 8, 7])
    let nan = Self.nan
    // 1 / (close - 11): -1, undefined, 1, 0.5, undefined, -0.5, -1/3, -0.25
    #expect(same(try RuleEval.numbers("1 / (close - 11)", bars), [-1, nan, 1, 0.5, nan, -0.5, -1.0 / 3, -0.25]))
    #expect(try RuleEval.bits("1 / (close - 11) > -1000", bars) == [true, false, true, true, false, true, true, true])
    #expect(same(try RuleEval.numbers("sma(1 / (close - 11), 2)", bars), [nan, nan, nan, 0.75, nan, nan, -5.0 / 12, -7.0 / 24]))
    // EMA seeded again with the mean of each run's first two values: 0.75; then -5/12, then (-0.25 + 5/12) × 2/3 - 5/12.
    let k = 2.0 / 3
    #expect(same(try RuleEval.numbers("ema(1 / (close - 11), 2)", bars),
                 [nan, nan, nan, 0.75, nan, nan, -5.0 / 12, (-0.25 - -5.0 / 12) * k + -5.0 / 12]))
    #expect(same(try RuleEval.numbers("close * 1e308 * 10", bars), [Double](repeating: nan, count: 8)))
    #expect(try RuleEval.bits("close * 1e308 * 10 > 0 or close * 1e308 * 10 <= 0", bars) == [Bool](repeating: false, count: 8))
    // A period longer than the data: undefined everywhere (and nothing allocated for it).
    #expect(same(try RuleEval.numbers("sma(close, 1000000000)", bars), [Double](repeating: nan, count: 8)))
    #expect(same(try RuleEval.numbers("rsi(close, 1000000000)", bars), [Double](repeating: nan, count: 8)))
    #expect(same(try RuleEval.numbers("atr(1000000000)", bars), [Double](repeating: nan, count: 8)))
  }

  @Test("hand-worked values: roc, highest, lowest, abs, min, max, percent literals and params")
  func handWorked() throws {
    let bars = RuleEval.closes([10, 11, 12, 11, 13])
    let nan = Self.nan
    #expect(same(try RuleEval.numbers("roc(close, 1)", bars), [nan, 11.0 / 10 - 1, 12.0 / 11 - 1, 11.0 / 12 - 1, 13.0 / 11 - 1], relative: 0))
    #expect(same(try RuleEval.numbers("highest(close, 2)", bars), [nan, 11, 12, 12, 13]))
    #expect(same(try RuleEval.numbers("lowest(close, 3)", bars), [nan, nan, 10, 11, 11]))
    #expect(same(try RuleEval.numbers("abs(close - 11.5)", bars), [1.5, 0.5, 0.5, 0.5, 1.5]))
    #expect(same(try RuleEval.numbers("min(close, close[1])", bars), [nan, 10, 11, 11, 11]))
    #expect(same(try RuleEval.numbers("max(close, 11.5)", bars), [11.5, 11.5, 12, 11.5, 13]))
    #expect(same(try RuleEval.numbers("-close + 2%", bars), [-9.98, -10.98, -11.98, -10.98, -12.98]))
    #expect(try RuleEval.check("close > lo * 2 + 50%", params: ["lo": 5]) == .compare(.greater, .bar(.close), .constant(10.5)))
    #expect(same(try RuleEval.numbers("volume", bars), [0, 0, 0, 0, 0]))
  }

  @Test("Bollinger bands are undefined where every value of the window is equal; the deviation is 0 and the mean the value")
  func flatWindow() throws {
    let bars = RuleEval.closes([5, 5, 5, 6, 6, 6, 6])
    let nan = Self.nan
    #expect(same(try RuleEval.numbers("std(close, 3)", bars)[2...2].map { $0 }, [0]))
    #expect(same(try RuleEval.numbers("bb_mid(close, 3)", bars)[2...3].map { $0 }, [5, 16.0 / 3]))
    let upper = try RuleEval.numbers("bb_upper(close, 3, 2)", bars)
    #expect(upper[2].isNaN && !upper[3].isNaN && !upper[4].isNaN && upper[5].isNaN && upper[6].isNaN)
    #expect(same(try RuleEval.numbers("bb_lower(close, 3, 0)", bars), [nan, nan, nan, 16.0 / 3, 17.0 / 3, nan, nan]))
    #expect(try RuleEval.bits("close <= bb_upper(close, 3, 2)", bars) == [false, false, false, true, true, false, false])
  }

  @Test("one implementation: the series evaluator, the per-bar program and the explanation evaluator agree on every bar")
  func programAgrees() throws {
    let bars = SyntheticBars.generate(count: 600, seed: 5)
    let evaluator = RuleEvaluator(bars: bars)
    for text in ["close > entry_price * 1.01 or bars_held >= 7", "abs(close - entry_price) / entry_price > 1% and rsi(close, 3) > 60",
                 "not (min(low, entry_price) < entry_price * 0.99) or -bars_held < -20", "close / (entry_price - entry_price) > 0"] {
      let e = try RuleEval.check(text, exit: true)
      let program = RuleProgram(e, evaluator: evaluator)
      for i in stride(from: 30, to: 600, by: 7) {
        let entryBar = i - (i % 13), price = bars.open[entryBar]
        let position = PositionView(shares: 1, entryPrice: price, entryBar: entryBar)
        #expect(program.holds(at: i, entryPrice: price, entryBar: entryBar) == evaluator.holds(e, at: i, position: position), "\(text) at \(i)")
      }
    }
  }

  @Test("a comparison with a band gives the same bits read from its window as from its column")
  func fusedBands() throws {
    var closes = (0..<400).map { 100 + 10 * sin(Double($0) / 7) + Double($0 % 5) }
    closes.replaceSubrange(100..<120, with: repeatElement(104, count: 20))  // a flat stretch
    let bars = RuleEval.closes(closes)
    for text in ["close < bb_lower(close, 20, 2)", "bb_upper(close, 10, 1.5) <= close", "close != bb_upper(close, 5, close / 100)",
                 "bb_lower(close, 3, -1) > 101"] {
      let e = try RuleEval.check(text)
      guard case .compare(let op, let a, let b) = e else { Issue.record("\(text)"); continue }
      let fused = RuleEvaluator(bars: bars).condition(e)
      let columns = RuleEvaluator(bars: bars)
      let (x, y) = (columns.number(a), columns.number(b))
      #expect((0..<400).allSatisfy { fused[$0] == RuleArithmetic.holds(op, x[$0], y[$0]) }, "\(text)")
      #expect((0..<400).contains { fused[$0] } && (0..<400).contains { !fused[$0] }, "\(text)")
    }
  }

  @Test("each distinct indicator is computed once, also when written twice or differently spaced")
  func shared() throws {
    let a = try RuleEval.check("rsi(close,14) < 30 and rsi( close , 14 ) > 10")
    guard case .and(.compare(_, let x, _), .compare(_, let y, _)) = a else { Issue.record("shape"); return }
    #expect(x == y)
    #expect(a.functionCalls.count == 1)
    #expect(try RuleEval.check("bb_lower(close, n, k) > 1", params: ["n": 20, "k": 2]) == RuleEval.check("bb_lower(close, 20, 2.0) > 1"))
  }

  @Test("canonical text puts parentheses only where the grammar needs them, params as values")
  func canonicalText() throws {
    for (written, text) in [("(close - open) * 2 > -(high - low) / 3", "(close - open) * 2 > -(high - low) / 3"),
                            ("not (a1 < 2 or close > 3) and close crosses_above sma(close, n)", "not (30 < 2 or close > 3) and close crosses_above sma(close, 20)"),
                            ("close - (open - high) > close[2] - 1", "close - (open - high) > close[2] - 1"),
                            ("(close > open)[1] or bb_upper((high+low)/2, 5, 1.5) < 3", "(close > open)[1] or bb_upper((high + low) / 2, 5, 1.5) < 3")] {
      let e = try RuleEval.check(written, params: ["n": 20, "a1": 30])
      #expect(e.text == text)
      #expect(try RuleEval.check(e.text) == e, "\(text) reads back as itself")
    }
    #expect(try RuleEval.check("bb_lower(close, 20, 1.5) < 0").functionCalls.map(\.columnName) == ["bb_lower_close_20_1p5"])
  }
}

@Suite struct RuleErrorTests {
  /// A run file whose `strategy.entry` (line 6, column 10) is `expression`, single-quoted (its text starts at column 11).
  static func file(entry: String, exit: String? = nil, params: String = "{n: 20, k: 2.5, neg: -1}") -> String {
    "name: r\ndata: {bars: ../Data/GOOG.csv}\nstrategy:\n  type: rules\n  params: \(params)\n  entry: \(entry)\n"
      + (exit.map { "  exit: \($0)\n" } ?? "")
  }

  struct Case: CustomTestStringConvertible, Sendable {
    var expression: String
    /// The text the carets underline, found at its first occurrence (or that of `locate`, or at `offset`); "" for the end.
    var at: String
    var locate: String? = nil
    var offset: Int? = nil
    var message: String
    var exit = false
    var testDescription: String { expression }

    var caretOffset: Int {
      if let offset { return offset }
      if at.isEmpty { return expression.count }
      return expression.distance(from: expression.startIndex, to: expression.range(of: locate ?? at)!.lowerBound)
    }

    static let all: [Case] = [
      // Words
      Case(expression: "close > 1.", at: "1.", message: "expected a digit after '.' in the number '1.'"),
      Case(expression: "close > 1e", at: "1e", message: "expected digits after 'e' in the number '1e'"),
      Case(expression: "close > 2x", at: "x", message: "expected an operator or a space after the number '2', found 'x'"),
      Case(expression: "close > 1e999", at: "1e999", message: "the number '1e999' is out of range; expected a finite number"),
      Case(expression: "close > open && low > 1", at: "&", message: "unexpected character '&'; did you mean 'and'?"),
      Case(expression: "close > open || low > 1", at: "|", message: "unexpected character '|'; did you mean 'or'?"),
      Case(expression: "close = open", at: "=", message: "unexpected character '='; did you mean '=='?"),
      Case(expression: "!(close > open)", at: "!", message: "unexpected character '!'; did you mean 'not' or '!='?"),
      Case(expression: "close > open # why", at: "#",
           message: "unexpected character '#'; expected no comment inside an expression (in a block scalar '#' is text): write comments on their own lines above the key"),
      Case(expression: "close $ open", at: "$", message: "unexpected character '$'; expected a number, a name, an operator or a parenthesis"),
      // Grammar
      Case(expression: "", at: "", message: "expected an expression, found nothing"),
      Case(expression: "close >", at: "", message: "expected a number, a name or '(', found the end of the expression"),
      Case(expression: "close > * 2", at: "*", message: "expected a number, a name or '(', found '*'"),
      Case(expression: "close > (open + 1", at: "", message: "expected ')' to close the '(', found the end of the expression"),
      Case(expression: "sma(close 20) > 1", at: "20", message: "expected ',' or ')' after argument 1 of 'sma', found '20'"),
      Case(expression: "sma(close, 20 > 1", at: "", message: "expected ',' or ')' after argument 2 of 'sma', found the end of the expression"),
      Case(expression: "close[-1] > 1", at: "-1", message: "a negative lag would read a later bar, and rules cannot look ahead; expected a lag >= 0"),
      Case(expression: "close[(1)] > 1", at: "(", message: "expected a lag after '[' (an integer >= 0 or an integer param), found '('"),
      Case(expression: "close[1 > 2", at: ">", message: "expected ']' after the lag, found '>'"),
      Case(expression: "close[1][2] > 2", at: "[", locate: "[2", message: "expected an operator, 'and', 'or' or the end of the expression, found '['"),
      Case(expression: "close < open < high", at: "<", locate: "< high", message: "expected 'and' or 'or' between two comparisons, found '<'"),
      Case(expression: "close > 1 crosses_above 2", at: "crosses_above",
           message: "expected 'and' or 'or' between two comparisons, found 'crosses_above'"),
      Case(expression: "close > open high", at: "high", message: "expected an operator, 'and', 'or' or the end of the expression, found 'high'"),
      Case(expression: "close > open)", at: ")", message: "expected an operator, 'and', 'or' or the end of the expression, found ')'"),
      Case(expression: String(repeating: "(", count: 70) + "close" + String(repeating: ")", count: 70) + " > 1",
           at: "(", offset: 65, message: "the expression nests deeper than 64 levels; expected a simpler expression"),
      Case(expression: "close" + String(repeating: " + close", count: 70) + " > 1", at: "+", offset: 8 * 64 - 2,
           message: "the expression nests deeper than 64 levels; expected a simpler expression"),
      // Names
      Case(expression: "rsl(close, 2) < 5", at: "rsl", message: "unknown function 'rsl'; did you mean 'rsi'?"),
      Case(expression: "foo(close) < 5", at: "foo",
           message: "unknown function 'foo'; expected one of abs, adx, atr, bb_lower, bb_mid, bb_upper, cci, ema, highest, lowest, macd, "
             + "macd_hist, macd_signal, max, min, minus_di, obv, plus_di, roc, rsi, sma, std, stoch_d, stoch_k, willr, wma"),
      Case(expression: "clse > 1", at: "clse", message: "unknown name 'clse'; did you mean 'close'?"),
      Case(expression: "foo > 1", at: "foo",
           message: "unknown name 'foo'; expected a series (open, high, low, close, volume), a param (k, n, neg) or a function call"),
      Case(expression: "sma > 1", at: "sma", message: "'sma' is a function; expected sma(x, n)"),
      Case(expression: "close(1) > 1", at: "close", message: "'close' is a series, not a function"),
      Case(expression: "n(1) > 1", at: "n", message: "'n' is a param, not a function"),
      Case(expression: "close > entry_price", at: "entry_price",
           message: "'entry_price' is known only while a position is open; use it in 'strategy.exit', not in 'strategy.entry'"),
      // Arguments
      Case(expression: "sma(close) > 1", at: "sma(close)", message: "'sma' takes 2 arguments (x, n), found 1"),
      Case(expression: "atr(14, 2) > 1", at: "atr(14, 2)", message: "'atr' takes 1 argument (n), found 2"),
      Case(expression: "sma(close, k) > 1", at: "k",
           message: "param 'k' is 2.5; expected the period of 'sma' to be an integer from 1 to 1000000000"),
      Case(expression: "sma(close, 0) > 1", at: "0", message: "expected the period of 'sma' to be an integer from 1 to 1000000000, found 0"),
      Case(expression: "ema(close, 2.5) > 1", at: "2.5", message: "expected the period of 'ema' to be an integer from 1 to 1000000000, found 2.5"),
      Case(expression: "sma(close, -3) > 1", at: "-3", message: "expected the period of 'sma' to be an integer from 1 to 1000000000, found -3"),
      Case(expression: "sma(close, close) > 1", at: "close", locate: "close)",
           message: "expected the period of 'sma' to be an integer from 1 to 1000000000 (a number or a param), found 'close'"),
      Case(expression: "sma(close, 5 + 5) > 1", at: "5 + 5",
           message: "expected the period of 'sma' to be an integer from 1 to 1000000000 (a number or a param), found '5 + 5'"),
      Case(expression: "sma(close, 1e10) > 1", at: "1e10",
           message: "expected the period of 'sma' to be an integer from 1 to 1000000000, found 1e10"),
      // Arguments of the indicators: counts, and each period named in a function of several.
      Case(expression: "adx(14, 2) > 25", at: "adx(14, 2)", message: "'adx' takes 1 argument (n), found 2"),
      Case(expression: "plus_di() > 25", at: "plus_di()", message: "'plus_di' takes 1 argument (n), found 0"),
      Case(expression: "minus_di(close, 14) > 25", at: "minus_di(close, 14)", message: "'minus_di' takes 1 argument (n), found 2"),
      Case(expression: "stoch_k(14) > 80", at: "stoch_k(14)", message: "'stoch_k' takes 2 arguments (n, smooth), found 1"),
      Case(expression: "stoch_d(14, 3) > 80", at: "stoch_d(14, 3)", message: "'stoch_d' takes 3 arguments (n, smooth, d), found 2"),
      Case(expression: "macd(close, 12) > 0", at: "macd(close, 12)", message: "'macd' takes 3 arguments (x, fast, slow), found 2"),
      Case(expression: "macd_signal(close, 12, 26) > 0", at: "macd_signal(close, 12, 26)",
           message: "'macd_signal' takes 4 arguments (x, fast, slow, signal), found 3"),
      Case(expression: "macd_hist(close, 12, 26, 9, 1) > 0", at: "macd_hist(close, 12, 26, 9, 1)",
           message: "'macd_hist' takes 4 arguments (x, fast, slow, signal), found 5"),
      Case(expression: "willr() < -80", at: "willr()", message: "'willr' takes 1 argument (n), found 0"),
      Case(expression: "cci(close, 20) > 100", at: "cci(close, 20)", message: "'cci' takes 1 argument (n), found 2"),
      Case(expression: "obv(close) > 0", at: "obv(close)", message: "'obv' takes no arguments, found 1"),
      Case(expression: "obv > 0", at: "obv", message: "'obv' is a function; expected obv()"),
      Case(expression: "wma(close) > 1", at: "wma(close)", message: "'wma' takes 2 arguments (x, n), found 1"),
      Case(expression: "adx > 25", at: "adx", message: "'adx' is a function; expected adx(n)"),
      Case(expression: "adx(0) > 25", at: "0", message: "expected the period of 'adx' to be an integer from 1 to 1000000000, found 0"),
      Case(expression: "plus_di(-1) > 25", at: "-1", message: "expected the period of 'plus_di' to be an integer from 1 to 1000000000, found -1"),
      Case(expression: "minus_di(k) > 25", at: "k",
           message: "param 'k' is 2.5; expected the period of 'minus_di' to be an integer from 1 to 1000000000"),
      Case(expression: "willr(2.5) < -80", at: "2.5", message: "expected the period of 'willr' to be an integer from 1 to 1000000000, found 2.5"),
      Case(expression: "cci(close) > 100", at: "close", locate: "close)",
           message: "expected the period of 'cci' to be an integer from 1 to 1000000000 (a number or a param), found 'close'"),
      Case(expression: "wma(close, 1e10) > 1", at: "1e10", message: "expected the period of 'wma' to be an integer from 1 to 1000000000, found 1e10"),
      Case(expression: "stoch_k(0, 3) > 80", at: "0", message: "expected the period 'n' of 'stoch_k' to be an integer from 1 to 1000000000, found 0"),
      Case(expression: "stoch_k(14, 0) > 80", at: "0", message: "expected the period 'smooth' of 'stoch_k' to be an integer from 1 to 1000000000, found 0"),
      Case(expression: "stoch_d(14, 3, 1.5) > 80", at: "1.5",
           message: "expected the period 'd' of 'stoch_d' to be an integer from 1 to 1000000000, found 1.5"),
      Case(expression: "macd(close, 0, 26) > 0", at: "0", message: "expected the period 'fast' of 'macd' to be an integer from 1 to 1000000000, found 0"),
      Case(expression: "macd_signal(close, 12, k, 9) > 0", at: "k",
           message: "param 'k' is 2.5; expected the period 'slow' of 'macd_signal' to be an integer from 1 to 1000000000"),
      Case(expression: "macd_hist(close, 12, 26, -9) > 0", at: "-9",
           message: "expected the period 'signal' of 'macd_hist' to be an integer from 1 to 1000000000, found -9"),
      Case(expression: "macd(close > open, 12, 26) > 0", at: "close > open", message: "expected a number for argument 1 of 'macd', found a condition"),
      Case(expression: "close[2.5] > 1", at: "2.5", message: "expected a lag to be an integer from 0 to 1000000000, found 2.5"),
      Case(expression: "close[neg] > 1", at: "neg",
           message: "param 'neg' is -1; expected a lag to be an integer from 0 to 1000000000 (a negative lag would read a later bar)"),
      Case(expression: "close[k] > 1", at: "k", message: "param 'k' is 2.5; expected a lag to be an integer from 0 to 1000000000"),
      // Types
      Case(expression: "close and open > 1", at: "close", message: "expected a condition on the left of 'and', found a number"),
      Case(expression: "close > 1 or 3", at: "3", message: "expected a condition on the right of 'or', found a number"),
      Case(expression: "not close", at: "close", message: "expected a condition after 'not', found a number"),
      Case(expression: "(close > open) + 1 > 2", at: "(close > open)", message: "expected a number on the left of '+', found a condition"),
      Case(expression: "-(close > open) < 1", at: "(close > open)", message: "expected a number after '-', found a condition"),
      Case(expression: "close < (open > 1)", at: "(open > 1)", message: "expected a number on the right of '<', found a condition"),
      Case(expression: "(close > open) crosses_above 1", at: "(close > open)",
           message: "expected a number on the left of 'crosses_above', found a condition"),
      Case(expression: "sma(close > open, 5) > 1", at: "close > open", message: "expected a number for argument 1 of 'sma', found a condition"),
      Case(expression: "close + 1", at: "close + 1", message: "expected a condition (true or false) for 'strategy.entry', found a number"),
      // Position names, in exit
      Case(expression: "sma(entry_price, 3) > 1", at: "entry_price", message: "'entry_price' is known only at the current bar; it cannot be passed to sma()",
           exit: true),
      Case(expression: "close crosses_above entry_price", at: "entry_price",
           message: "'entry_price' is known only at the current bar; it cannot be used in a crossing (it compares the previous bar too)", exit: true),
      Case(expression: "bars_held[1] > 2", at: "bars_held", message: "'bars_held' is known only at the current bar; it cannot be lagged", exit: true),
      Case(expression: "wma(entry_price, 3) > 1", at: "entry_price", message: "'entry_price' is known only at the current bar; it cannot be passed to wma()",
           exit: true),
    ]
  }

  @Test("each grammar rule's error: exact message, the file line and column of the offending token, and carets under it",
        arguments: Case.all)
  func error(_ c: Case) throws {
    let quoted = "'" + c.expression + "'"
    let text = c.exit ? Self.file(entry: "close > 0", exit: quoted) : Self.file(entry: quoted)
    let line = c.exit ? 7 : 6, key = c.exit ? "  exit: " : "  entry: "
    let column = key.count + 2 + c.caretOffset
    let found = configError(text)
    #expect(found?.split(separator: "\n").first.map(String.init) == "Strategies/c.yaml:\(line):\(column): error: \(c.message)")
    // The source line and carets under the column (lines whose column is far right are cut around it: checked elsewhere).
    if column <= 150 {
      #expect(found == "Strategies/c.yaml:\(line):\(column): error: \(c.message)\n    \(line) | \((key + quoted).prefix(200))\n      | "
        + String(repeating: " ", count: column - 1) + String(repeating: "^", count: max(1, c.at.count)))
    }
  }

  @Test("positions inside plain, quoted-with-escapes and block scalars are the file's own line and column")
  func positionsInScalars() {
    #expect(configError(Self.file(entry: "close > 1 and rsl(close, 2) < 5"))?.hasPrefix("Strategies/c.yaml:6:24: error: unknown function 'rsl'") == true)
    #expect(configError(Self.file(entry: "\"close\\/1 > 1 and rsl(close, 2) < 5\""))?.hasPrefix("Strategies/c.yaml:6:28: error: unknown function 'rsl'") == true)
    let block = Self.file(entry: ">\n    close > 1\n    and rsl(close, 2) < 5")
    #expect(configError(block) == """
      Strategies/c.yaml:8:9: error: unknown function 'rsl'; did you mean 'rsi'?
          8 |     and rsl(close, 2) < 5
            |         ^^^
      """)
  }

  @Test("params and keys: reserved and malformed names, non-numbers, a missing or non-scalar entry",
        arguments: [
          (file(entry: "close > 1", params: "{close: 3}"), "Strategies/c.yaml:5:12: error: the param 'close' would hide the built-in name 'close'; expected another name"),
          (file(entry: "close > 1", params: "{2x: 3}"), "Strategies/c.yaml:5:12: error: expected a param name of letters, digits and '_' (not starting with a digit), found '2x'"),
          (file(entry: "close > 1", params: "{n: abc}"), "Strategies/c.yaml:5:15: error: expected a number (or a percentage such as 2%) for 'strategy.params.n', found 'abc'"),
          (file(entry: "close > 1", params: "{n: [1]}"), "Strategies/c.yaml:5:15: error: expected a number (or a percentage such as 2%) for 'strategy.params.n', found a list"),
          ("name: r\ndata: {bars: x.csv}\nstrategy: {type: rules}\n", "Strategies/c.yaml:3:11: error: missing 'strategy.entry'; expected a condition such as 'close > sma(close, 200)' (or 'short_entry' for a rule that only sells short)"),
          (file(entry: "[close]"), "Strategies/c.yaml:6:10: error: expected a condition (an expression) for 'strategy.entry', found a list"),
          (file(entry: "close > 1", exit: "close > entr_price"), "Strategies/c.yaml:7:17: error: unknown name 'entr_price'; did you mean 'entry_price'?"),
        ])
  func keys(_ text: String, _ message: String) {
    #expect(configError(text)?.split(separator: "\n").first.map(String.init) == message)
  }

  @Test("100,000 params are read in linear time (marking each known was quadratic: over 20 s), and an unknown key among them is named")
  func manyParams() throws {
    let params = (0..<100_000).map { "    p\($0): \($0)\n" }.joined()
    let text = "name: r\ndata: {bars: x.csv}\nstrategy:\n  type: rules\n  params:\n\(params)  entry: close > p99999\n"
    let clock = ContinuousClock()
    let start = clock.now
    let p = try #require(try RunConfig.parse(text, file: "Strategies/c.yaml").strategy.parameters as? RulesStrategy.Parameters)
    #expect(clock.now - start < .seconds(10), "\(clock.now - start)")
    #expect(p.params.count == 100_000 && p.params.last?.name == "p99999" && p.params.last?.value == 99_999)
    #expect(p.entry == .compare(.greater, .bar(.close), .constant(99_999)))
    let table = try ConfigTable(YAMLReader.parse((0..<100_000).map { "k\($0): 1\n" }.joined() + "kk: 2\n", file: "f"), path: "")
    for k in 0..<100_000 { table.allow("k\(k)") }
    #expect(throws: InputError("unknown key 'kk'; did you mean 'k0'?", at: SourceLocation(file: "f", line: 100_001, column: 1))) { try table.finish() }
    #expect(clock.now - start < .seconds(15), "\(clock.now - start)")
  }

  @Test("percent params and --set overrides reach the rule; a param that must be an integer is checked after the override")
  func overrides() throws {
    let text = Self.file(entry: "rsi(close, n) < lo", params: "{n: 14, lo: 30%}")
    let p = try #require(try RunConfig.parse(text, file: "Strategies/c.yaml", overrides: ["strategy.params.n=2"]).strategy.parameters as? RulesStrategy.Parameters)
    #expect(p.entry == .compare(.less, .function(.rsi, [.bar(.close)], periods: [2]), .constant(0.3)))
    #expect(configError(text, overrides: ["strategy.params.n=2.5"])?.hasPrefix(
      "Strategies/c.yaml:6:21: error: param 'n' is 2.5; expected the period of 'rsi' to be an integer from 1 to 1000000000") == true)
  }
}
