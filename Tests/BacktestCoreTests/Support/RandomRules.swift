import BacktestCore

/// Random well-typed rule expressions, as text (so that the parser and the
/// checker read them too), from a seeded generator.
struct RandomRules {
  var rng: SplitMix64
  /// Integer params the expressions may use as periods and lags.
  static let params: [String: Double] = ["n": 5, "m": 12, "lo": 30, "w": 1.5]
  static let paramsYAML = "{n: 5, m: 12, lo: 30, w: 1.5}"

  init(seed: UInt64) { rng = SplitMix64(seed: seed) }

  private mutating func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
  private mutating func chance(_ p: Double) -> Bool { rng.unit() < p }

  private mutating func period() -> String { chance(0.3) ? pick(["n", "m"]) : String(1 + Int(rng.next() % 25)) }

  /// A number expression; `position` allows `entry_price` and `bars_held` (outside lags, windows and crossings).
  mutating func number(depth: Int, position: Bool = false) -> String {
    if depth <= 0 || chance(0.25) {
      var leaves = ["open", "high", "low", "close", "volume", "2", "0.5", "100", "1e-3", "3%", "lo", "w"]
      if position { leaves += ["entry_price", "bars_held", "entry_price", "bars_held"] }
      return pick(leaves)
    }
    switch rng.next() % 14 {
    case 0, 1:
      return "\(number(depth: depth - 1, position: position)) \(pick(["+", "-", "*", "/"])) \(number(depth: depth - 1, position: position))"
    case 2: return "(\(number(depth: depth - 1, position: position)))"
    case 3: return "-\(number(depth: depth - 1, position: position))"
    case 4: return "(\(number(depth: depth - 1)))[\(pick(["0", "1", "3", "n"]))]"
    case 5: return "\(pick(["sma", "ema", "std", "bb_mid", "rsi", "highest", "lowest", "roc"]))(\(number(depth: depth - 1)), \(period()))"
    case 6: return "\(pick(["bb_upper", "bb_lower"]))(\(number(depth: depth - 1)), \(period()), \(pick(["2", "w", "0.5", "close / 100"])))"
    case 7: return "atr(\(period()))"
    case 8: return "abs(\(number(depth: depth - 1, position: position)))"
    case 9:
      return "\(pick(["min", "max"]))(\(number(depth: depth - 1, position: position)), \(number(depth: depth - 1, position: position)))"
    case 10: return "\(pick(["rsi", "sma"]))(close, \(period()))"
    case 11:
      return pick(["adx(\(period()))", "plus_di(\(period()))", "minus_di(\(period()))", "willr(\(period()))", "cci(\(period()))",
                   "stoch_k(\(period()), \(period()))", "stoch_d(\(period()), \(period()), \(period()))", "obv()"])
    case 12:
      let x = number(depth: depth - 1)
      return pick(["wma(\(x), \(period()))", "macd(\(x), \(period()), \(period()))", "macd_signal(\(x), \(period()), \(period()), \(period()))",
                   "macd_hist(\(x), \(period()), \(period()), \(period()))"])
    default: return pick(["close", "sma(close, n)", "bb_lower(close, m, w)", "rsi(close, n)"])
    }
  }

  /// A condition; `position` as for `number`.
  mutating func condition(depth: Int, position: Bool = false) -> String {
    switch depth <= 0 ? 0 : rng.next() % 8 {
    case 0, 1, 2:
      return "\(number(depth: depth - 1, position: position)) \(pick(["<", "<=", ">", ">=", "==", "!="])) \(number(depth: depth - 1, position: position))"
    case 3: return "\(number(depth: depth - 1)) \(pick(["crosses_above", "crosses_below"])) \(number(depth: depth - 1))"
    case 4: return "\(condition(depth: depth - 1, position: position)) \(pick(["and", "or"])) \(condition(depth: depth - 1, position: position))"
    case 5: return "not (\(condition(depth: depth - 1, position: position)))"
    case 6: return "(\(condition(depth: depth - 1)))[\(pick(["1", "2", "n"]))]"
    default: return "(\(condition(depth: depth - 1, position: position)))"
    }
  }

  /// An entry that holds now and then on most data: a random condition or'ed with a common oversold test.
  mutating func entry() -> String {
    "rsi(close, \(2 + rng.next() % 5)) < \(10 + rng.next() % 30) or (\(condition(depth: 2)))"
  }
}
