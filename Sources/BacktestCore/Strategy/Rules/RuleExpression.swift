import Foundation

/// A column of the bars a rule may read.
package enum BarField: String, CaseIterable, Sendable, Hashable {
  case open, high, low, close, volume
}

/// The functions of the rule language (`Docs/spec/rules.md`, "Names"; `Docs/rules.md`).
package enum RuleFunction: String, CaseIterable, Sendable, Hashable {
  case sma, ema, wma, std
  case bollingerMiddle = "bb_mid", bollingerUpper = "bb_upper", bollingerLower = "bb_lower"
  case rsi, atr, highest, lowest, roc
  case adx, plusDI = "plus_di", minusDI = "minus_di"
  case stochK = "stoch_k", stochD = "stoch_d"
  case macd, macdSignal = "macd_signal", macdHistogram = "macd_hist"
  case willr, cci, obv
  case abs, min, max

  /// The arguments as a message names them (empty for `obv()`).
  var parameterList: String {
    switch self {
    case .bollingerUpper, .bollingerLower: return "x, n, k"
    case .atr, .adx, .plusDI, .minusDI, .willr, .cci: return "n"
    case .stochK: return "n, smooth"
    case .stochD: return "n, smooth, d"
    case .macd: return "x, fast, slow"
    case .macdSignal, .macdHistogram: return "x, fast, slow, signal"
    case .obv: return ""
    case .abs: return "x"
    case .min, .max: return "a, b"
    default: return "x, n"
    }
  }
  /// The argument names, in order.
  var parameters: [String] { parameterList.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
  var arity: Int { parameters.count }
  /// The arguments that are periods (integers >= 1), in increasing order; the others are numbers.
  var periodArguments: [Int] {
    switch self {
    case .atr, .adx, .plusDI, .minusDI, .willr, .cci: return [0]
    case .stochK: return [0, 1]
    case .stochD: return [0, 1, 2]
    case .macd: return [1, 2]
    case .macdSignal, .macdHistogram: return [1, 2, 3]
    case .obv, .abs, .min, .max: return []
    default: return [1]
    }
  }
  /// Whether the function is computed value by value (`abs`, `min`, `max`): no column of its own.
  package var isPointwise: Bool { self == .abs || self == .min || self == .max }
}

/// A rule expression after its names and types were checked and its params
/// replaced by their values: the key under which a series is computed once
/// and shared (by every rule and sweep combination that writes it).
///
/// Number-valued cases are `constant` to `function`; the others are conditions.
package indirect enum RuleExpression: Hashable, Sendable {
  case constant(Double)
  case bar(BarField)
  /// The open position's entry fill price (`exit` only).
  case entryPrice
  /// Bars since the entry bar, 0 on it (`exit` only).
  case barsHeld
  case negate(RuleExpression)
  case arithmetic(BinaryOperator, RuleExpression, RuleExpression)
  /// The value `k` bars before the current one (a number or a condition).
  case lag(RuleExpression, Int)
  /// A function of number arguments (the periods are not among them), with its periods in the order written
  /// (none for `abs`, `min`, `max` and `obv`).
  case function(RuleFunction, [RuleExpression], periods: [Int])
  case compare(BinaryOperator, RuleExpression, RuleExpression)
  /// `a crosses_above b` (`above`) or `a crosses_below b`.
  case crosses(above: Bool, RuleExpression, RuleExpression)
  case and(RuleExpression, RuleExpression)
  case or(RuleExpression, RuleExpression)
  case not(RuleExpression)

  /// Whether the expression is true or false (else a number).
  var isCondition: Bool {
    switch self {
    case .compare, .crosses, .and, .or, .not: return true
    case .lag(let x, _): return x.isCondition
    default: return false
    }
  }

  /// Whether the value depends on the open position (`entry_price`, `bars_held`).
  package var readsPosition: Bool {
    switch self {
    case .entryPrice, .barsHeld: return true
    case .constant, .bar: return false
    case .negate(let x), .not(let x), .lag(let x, _): return x.readsPosition
    case .arithmetic(_, let a, let b), .compare(_, let a, let b), .crosses(_, let a, let b), .and(let a, let b), .or(let a, let b):
      return a.readsPosition || b.readsPosition
    case .function(_, let xs, _): return xs.contains { $0.readsPosition }
    }
  }

  /// The first bar at which the value is defined (before any division by
  /// zero): each function's warm-up after its input's, each lag's reach.
  var warmUp: Int {
    switch self {
    case .constant, .bar, .entryPrice, .barsHeld: return 0
    case .negate(let x), .not(let x): return x.warmUp
    case .lag(let x, let k): return x.warmUp + k
    case .arithmetic(_, let a, let b), .compare(_, let a, let b), .and(let a, let b), .or(let a, let b):
      return Swift.max(a.warmUp, b.warmUp)
    case .crosses(_, let a, let b): return Swift.max(a.warmUp, b.warmUp) + 1
    case .function(let f, let xs, let periods):
      let input = xs.first?.warmUp ?? 0
      let n = periods.first ?? 0
      switch f {
      case .sma, .ema, .wma, .std, .bollingerMiddle, .highest, .lowest: return input + n - 1
      case .bollingerUpper, .bollingerLower: return Swift.max(input + n - 1, xs[1].warmUp)
      case .rsi, .atr, .roc, .plusDI, .minusDI: return input + n
      case .adx: return 2 * n - 1
      case .willr, .cci: return n - 1
      case .obv: return 0
      // Each period's window after the previous one: %K's smoothing after the fast %K, %D after %K.
      case .stochK, .stochD: return periods.reduce(0) { $0 + $1 - 1 }
      // The line from the slower average's seed; the signal's window after it.
      case .macd: return input + Swift.max(periods[0], periods[1]) - 1
      case .macdSignal, .macdHistogram: return input + Swift.max(periods[0], periods[1]) - 1 + periods[2] - 1
      case .abs: return input
      case .min, .max: return Swift.max(xs[0].warmUp, xs[1].warmUp)
      }
    }
  }

  /// The expression and every expression inside it, outermost first.
  package var parts: [RuleExpression] {
    var found: [RuleExpression] = []
    func visit(_ e: RuleExpression) {
      found.append(e)
      switch e {
      case .constant, .bar, .entryPrice, .barsHeld: break
      case .negate(let x), .not(let x), .lag(let x, _): visit(x)
      case .arithmetic(_, let a, let b), .compare(_, let a, let b), .crosses(_, let a, let b), .and(let a, let b), .or(let a, let b):
        visit(a); visit(b)
      case .function(_, let xs, _): xs.forEach(visit)
      }
    }
    visit(self)
    return found
  }

  /// Every function call inside, outermost first, each once.
  package var functionCalls: [RuleExpression] {
    var found: [RuleExpression] = []
    func visit(_ e: RuleExpression) {
      switch e {
      case .constant, .bar, .entryPrice, .barsHeld: break
      case .negate(let x), .not(let x), .lag(let x, _): visit(x)
      case .arithmetic(_, let a, let b), .compare(_, let a, let b), .crosses(_, let a, let b), .and(let a, let b), .or(let a, let b):
        visit(a); visit(b)
      case .function(let f, let xs, _):
        if !f.isPointwise && !found.contains(e) { found.append(e) }
        xs.forEach(visit)
      }
    }
    visit(self)
    return found
  }

  // MARK: Text

  /// How tightly the expression binds, for parentheses (the grammar's levels, loosest 1).
  private var precedence: Int {
    switch self {
    case .or: return 1
    case .and: return 2
    case .not: return 3
    case .compare, .crosses: return 4
    case .arithmetic(let op, _, _): return op == .add || op == .subtract ? 5 : 6
    case .negate: return 7
    case .constant(let v): return v < 0 ? 7 : 9
    default: return 9
    }
  }

  /// The expression as a rule would write it, params as their values:
  /// `close < bb_lower(close, 20, 2) and rsi(close, 14) < 30`.
  var text: String {
    func operand(_ e: RuleExpression, _ minimum: Int) -> String { e.precedence < minimum ? "(\(e.text))" : e.text }
    switch self {
    case .constant(let v): return formatNumber(v)  // reads back as the same number
    case .bar(let field): return field.rawValue
    case .entryPrice: return "entry_price"
    case .barsHeld: return "bars_held"
    case .negate(let x): return "-" + operand(x, 8)
    case .not(let x): return "not " + operand(x, 3)
    case .lag(let x, let k): return operand(x, 9) + "[\(k)]"
    case .arithmetic(let op, let a, let b):
      let level = precedence
      return operand(a, level) + " \(op.rawValue) " + operand(b, level + 1)
    case .compare(let op, let a, let b): return operand(a, 5) + " \(op.rawValue) " + operand(b, 5)
    case .crosses(let above, let a, let b):
      return operand(a, 5) + (above ? " crosses_above " : " crosses_below ") + operand(b, 5)
    case .and(let a, let b): return operand(a, 2) + " and " + operand(b, 3)
    case .or(let a, let b): return operand(a, 1) + " or " + operand(b, 2)
    case .function(let f, let xs, let periods):
      var arguments = xs.map(\.text)
      for (k, n) in zip(f.periodArguments, periods) { arguments.insert(String(n), at: k) }
      return f.rawValue + "(" + arguments.joined(separator: ", ") + ")"
    }
  }

  /// A name for a CSV column or JSON key: `bb_lower_close_20_2`.
  var columnName: String {
    var out = ""
    for c in text.unicodeScalars {
      if (c.properties.isAlphabetic && c.isASCII) || ("0"..."9").contains(c) {
        out.unicodeScalars.append(c)
      } else if c == "." {
        out += "p"
      } else if !out.isEmpty && !out.hasSuffix("_") {
        out += "_"
      }
    }
    while out.hasSuffix("_") { out.removeLast() }
    return out
  }

  // MARK: Units, for charts and messages

  /// What a number measures: where a chart draws it, and how many decimals it shows.
  enum Unit: Equatable {
    /// A constant: takes the unit of what it meets.
    case scalar
    /// A price level (drawn over prices).
    case price
    case volume, rsi, atr, roc, deviation, count, other
    /// `adx`, `plus_di`, `minus_di`: from 0 to 100.
    case directional
    /// `stoch_k`, `stoch_d`: from 0 to 100.
    case stochastic
    /// `willr`: from -100 to 0.
    case williams
    /// `cci`: unbounded around 0 (±100 are its usual levels).
    case cci
    /// `macd`, `macd_signal`, `macd_hist`: differences of averages of their input.
    case macd
    /// `obv`: a running total of volumes.
    case obv
  }

  var unit: Unit {
    switch self {
    case .constant: return .scalar
    case .bar(let f): return f == .volume ? .volume : .price
    case .entryPrice: return .price
    case .barsHeld: return .count
    case .lag(let x, _): return x.unit
    case .negate(let x): return x.unit == .scalar ? .scalar : .other
    case .arithmetic(let op, let a, let b):
      let (u, v) = (a.unit, b.unit)
      switch op {
      case .add: return u == .scalar ? v : v == .scalar || u == v ? u : .other
      case .subtract: return u == .scalar ? (v == .scalar ? .scalar : .other) : v == .scalar ? u : .other
      default: return u == .scalar ? v : v == .scalar ? u : .other
      }
    case .function(let f, let xs, _):
      switch f {
      case .sma, .ema, .wma, .bollingerMiddle, .bollingerUpper, .bollingerLower, .highest, .lowest, .abs: return xs[0].unit
      case .min, .max:
        let (u, v) = (xs[0].unit, xs[1].unit)
        return u == .scalar ? v : v == .scalar || u == v ? u : .other
      case .std: return .deviation
      case .rsi: return .rsi
      case .atr: return .atr
      case .roc: return .roc
      case .adx, .plusDI, .minusDI: return .directional
      case .stochK, .stochD: return .stochastic
      case .willr: return .williams
      case .cci: return .cci
      case .macd, .macdSignal, .macdHistogram: return .macd
      case .obv: return .obv
      }
    default: return .other
    }
  }
}

/// The arithmetic and comparisons of the rule language, written once for the
/// whole-series evaluator and the per-bar program (so both give the same bits).
enum RuleArithmetic {
  /// `a op b`; undefined (`nan`) when an operand is, on division by zero, and
  /// when the result is not finite (overflow).
  @inline(__always)
  static func apply(_ op: BinaryOperator, _ a: Double, _ b: Double) -> Double {
    let r: Double
    switch op {
    case .add: r = a + b
    case .subtract: r = a - b
    case .multiply: r = a * b
    case .divide: r = b == 0 ? .nan : a / b
    default: preconditionFailure("\(op) is not arithmetic")
    }
    return r.isFinite ? r : .nan
  }

  /// `a op b`; false when an operand is undefined.
  @inline(__always)
  static func holds(_ op: BinaryOperator, _ a: Double, _ b: Double) -> Bool {
    switch op {
    case .less: return a < b
    case .lessOrEqual: return a <= b
    case .greater: return a > b
    case .greaterOrEqual: return a >= b
    case .equal: return a == b
    case .notEqual: return a == a && b == b && a != b
    default: preconditionFailure("\(op) is not a comparison")
    }
  }

  /// `a[1] <= b[1] and a > b` (above), or `a[1] >= b[1] and a < b`.
  @inline(__always)
  static func crosses(above: Bool, previous a0: Double, _ b0: Double, now a1: Double, _ b1: Double) -> Bool {
    above ? a0 <= b0 && a1 > b1 : a0 >= b0 && a1 < b1
  }

  /// `abs`, `min`, `max` of defined values; undefined when an argument is.
  @inline(__always)
  static func pointwise(_ f: RuleFunction, _ a: Double, _ b: Double) -> Double {
    switch f {
    case .abs: return Swift.abs(a)
    case .min: return a.isNaN || b.isNaN ? .nan : Swift.min(a, b)
    case .max: return a.isNaN || b.isNaN ? .nan : Swift.max(a, b)
    default: preconditionFailure("\(f) is not pointwise")
    }
  }

  /// The comparison that holds when `op` does not (for both operands defined).
  static func negation(_ op: BinaryOperator) -> BinaryOperator {
    switch op {
    case .less: return .greaterOrEqual
    case .lessOrEqual: return .greater
    case .greater: return .lessOrEqual
    case .greaterOrEqual: return .less
    case .equal: return .notEqual
    case .notEqual: return .equal
    default: return op
    }
  }
}
