import Foundation

/// A strategy whose entry and exit are conditions written in the run file
/// (`strategy.type: rules`; the language is `shared/spec/rules.md`, for
/// users `Docs/rules.md`):
///
///     strategy:
///       type: rules
///       params: {n: 20, k: 2, rp: 14, lo: 30, hi: 70}
///       entry: close < bb_lower(close, n, k) and rsi(close, rp) < lo
///       exit: close > bb_upper(close, n, k) or rsi(close, rp) > hi
///       stop_loss: 2%
///
/// Flat, `entry` is tested at each close and buys at the next open; long,
/// `exit` is tested at each close and sells at the next open (`TECHNICAL`).
/// The expressions are parsed and checked when the run file is read; the
/// strategy computes each distinct indicator once over the whole series and
/// turns the conditions into bits, so a decision is a bit test (or, for an
/// exit that reads the position, a few steps of a compiled program).
public struct RulesStrategy: Strategy {
  /// The rule as the run file writes it: params, conditions, stop and target.
  public struct Parameters: StrategyParameters {
    /// One named number of `params`.
    public struct Param: Sendable, Equatable {
      public var name: String
      public var value: Double
    }
    /// The named numbers, in the order written.
    public internal(set) var params: [Param] = []
    /// The conditions, checked and with params replaced by their values.
    var entry: RuleExpression = .compare(.less, .constant(0), .constant(0))
    var exit: RuleExpression?
    /// The conditions as written, on one line (runs of spaces and line breaks made one space).
    public internal(set) var entryText = "0 < 0"
    public internal(set) var exitText: String?
    /// Fraction below the entry price; `nil` (the default) disables the stop.
    public var stopLoss: Double?
    /// Fraction above the entry price; `nil` disables the target.
    public var profitTarget: Double?
    /// A stop that follows the best close since the entry at this distance (`Docs/orders.md`); `nil` for none.
    public var trailingStop: Double?
    /// Sells at the next open once the position has been held this many bars (the entry bar counts 1); 0 for never.
    public var maxBarsHeld = 0

    public init() {}

    /// The entry the rule asks for: the plain market entry unless a trailing stop or a time exit is set.
    var entrySignal: Signal {
      trailingStop == nil && maxBarsHeld == 0
        ? .enterLong(stopLoss: stopLoss, profitTarget: profitTarget)
        : .enter(EntryOrder(stopLoss: stopLoss, profitTarget: profitTarget, trailingStop: trailingStop,
                            maxBarsHeld: maxBarsHeld > 0 ? maxBarsHeld : nil))
    }

    /// The keys every strategy shares; `params`, `entry` and `exit` are read by `read(from:)`.
    public static let declarations: [Parameter<Parameters>] = [
      .fraction("stop_loss", \.stopLoss, .between(0, 1), alias: "stop_loss", doc: "stop below the entry fill (2%; default none)"),
      .fraction("profit_target", \.profitTarget, .above(0), alias: "profit_target", doc: "target above the entry fill (3% or none)"),
      .fraction("trailing_stop", \.trailingStop, .between(0, 1), alias: "trailing_stop",
                doc: "stop at this distance below the best close since the entry, raised at each close (3% or none)"),
      .integer("max_bars_held", \.maxBarsHeld, in: 0...10_000_000, alias: "max_bars_held",
               doc: "sell at the next open once held this many bars, the entry bar counting 1 (0: never)"),
    ]

    /// Reads `params`, then `entry` (required) and `exit` (optional) as conditions, then the stop and target.
    ///
    /// - Throws: `InputError` at the offending token of an expression, with an excerpt and a caret under it.
    public static func read(from section: ConfigTable) throws -> Parameters {
      var values = Parameters()
      let table = try section.table("params")
      for entry in table.entries {
        table.allow(entry.key)
        values.params.append(Param(name: entry.key, value: try param(entry, in: table)))
      }
      try table.finish()
      let params = Dictionary(values.params.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
      guard let entryNode = section.node("entry") else {
        throw InputError("missing 'strategy.entry'; expected a condition such as 'close > sma(close, 200)'",
                         at: section.entries.first { $0.key == "entry" }?.value.location ?? section.location)
      }
      values.entry = try condition(entryNode, key: "strategy.entry", params: params, positionAllowed: false)
      values.entryText = tidy(entryNode)
      if let exitNode = section.node("exit") {
        values.exit = try condition(exitNode, key: "strategy.exit", params: params, positionAllowed: true)
        values.exitText = tidy(exitNode)
      }
      for d in declarations { try d.read(section, d.path, &values) }
      return values
    }

    private static func param(_ entry: YAMLEntry, in table: ConfigTable) throws -> Double {
      let name = entry.key
      let valid = name.first.map { $0.isASCII && ($0.isLetter || $0 == "_") } == true
        && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
      guard valid else {
        throw InputError("expected a param name of letters, digits and '_' (not starting with a digit), found '\(excerpt(name))'",
                         at: entry.keyLocation)
      }
      if RuleChecker.reserved.contains(name) {
        throw InputError("the param '\(name)' would hide the built-in name '\(name)'; expected another name", at: entry.keyLocation)
      }
      let expected = "expected a number (or a percentage such as 2%) for 'strategy.params.\(name)'"
      guard case .scalar(let text, _) = entry.value.kind else {
        throw InputError("\(expected), found \(entry.value.typeDescription)", at: entry.value.location)
      }
      // Read as every number of a run file: decimal, a percentage as `stop_loss` reads one, at most 1e15 in magnitude.
      let number = text.hasSuffix("%") ? percentValue(String(text.dropLast()).trimmingSpaces()) : parseDecimal(text)
      guard let number else { throw InputError("\(expected), found '\(excerpt(text))'", at: entry.value.location) }
      guard abs(number) <= ConfigTable.largestNumber else {
        throw InputError("\(expected) (at most 1e15 in magnitude), found \(excerpt(text))", at: entry.value.location)
      }
      return number
    }

    private static func condition(_ node: YAMLNode, key: String, params: [String: Double], positionAllowed: Bool) throws -> RuleExpression {
      guard case .scalar(let text, _) = node.kind else {
        throw InputError("expected a condition (an expression) for '\(key)', found \(node.typeDescription)", at: node.location)
      }
      do {
        return try RuleChecker.condition(text, params: params, positionAllowed: positionAllowed, key: key)
      } catch {
        throw InputError(error.message, at: node.location(ofCharacter: error.offset),
                         excerpt: node.markedLine(atCharacter: error.offset, width: error.width))
      }
    }

    /// The expression on one line: runs of spaces and line breaks made one space.
    private static func tidy(_ node: YAMLNode) -> String {
      guard case .scalar(let text, _) = node.kind else { return "" }
      return text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }

    public var summary: [(name: String, value: String)] {
      params.map { ("params.\($0.name)", formatPlain($0.value)) } + [("entry", entryText), ("exit", exitText ?? "none")]
        + Self.declarations.map { ($0.path, $0.text(self)) }
    }

    /// The params (path `params.n`, short name `n`) and the stop and target.
    public var parameterInfo: [ParameterInfo] {
      let declared = Self.info
      let taken = Set(declared.flatMap { [$0.path] + ($0.alias.map { [$0] } ?? []) })
      return params.map {
        ParameterInfo(path: "params." + $0.name, alias: taken.contains($0.name) ? nil : $0.name, doc: "a param of the rule",
                      type: .number(.any), defaultText: formatPlain($0.value))
      } + declared
    }
  }

  public static let name = "rules"
  public static let summary = "entry and exit conditions written as expressions in the run file (see Docs/rules.md)"

  public let parameters: Parameters
  let rule: CompiledRule
  public var firstDecisionBar: Int { rule.firstDecisionBar }
  public let indicatorColumns: [IndicatorColumn]
  let bars: BarSeries

  public init(parameters: Parameters, bars: BarSeries) {
    let evaluator = RuleEvaluator(bars: bars)
    self.parameters = parameters
    self.bars = bars
    rule = CompiledRule(entry: parameters.entry, exit: parameters.exit, evaluator: evaluator)
    indicatorColumns = Self.columns(parameters, evaluator: evaluator)
  }

  /// A strategy over a rule compiled already (the sweep kernel's, shared by combinations); no indicator columns.
  init(parameters: Parameters, rule: CompiledRule, bars: BarSeries) {
    self.parameters = parameters
    self.rule = rule
    self.bars = bars
    indicatorColumns = []
  }

  /// Flat: buy when `entry` holds. Long: sell when `exit` holds.
  public mutating func decide(at i: Int, position: PositionView) -> Signal {
    if !position.isOpen {
      return rule.entry[i] ? parameters.entrySignal : .hold
    }
    return rule.exits(at: i, entryPrice: position.entryPrice, entryBar: position.entryBar) ? .exitLong(.technical) : .hold
  }

  public func exitLevels(forEntryAt i: Int) -> (stopLoss: Double?, profitTarget: Double?) {
    (parameters.stopLoss, parameters.profitTarget)
  }

  // MARK: Explanations

  /// Why the rule gave `signal`, with the value of each operand at bar `i`:
  /// `close 26.51 < bb_lower(close, 20, 2) 26.60 and rsi(close, 14) 27.4 < 30`.
  public func explain(_ signal: Signal, at i: Int, position: PositionView) -> String {
    let explainer = RuleExplainer(bars: bars, at: i, position: position)
    switch signal {
    case .enterLong, .enterShort, .enter: return explainer.why(parameters.entry, holds: true)
    case .exitLong, .exitShort: return parameters.exit.map { explainer.why($0, holds: true) } ?? "the exit rule holds"
    case .hold where position.isOpen:
      guard let exit = parameters.exit else { return "holding: no exit rule (only the stop-loss and profit target close it)" }
      return "holding: " + explainer.why(exit, holds: false)
    case .hold:
      if i < firstDecisionBar {
        return "not enough bars yet for every indicator of the entry rule (the first decision is at bar \(firstDecisionBar))"
      }
      return "no entry: " + explainer.why(parameters.entry, holds: false)
    }
  }

  /// Each indicator's value at bar `i`, and the rule's conditions.
  public func details(at i: Int) -> StrategyDetails {
    let decimals = HumanFormat.decimals(of: bars.close[i])
    var lines = ["entry: " + parameters.entryText, "exit: " + (parameters.exitText ?? "none")]
    for (column, call) in zip(indicatorColumns, Self.calls(parameters)) {
      lines.append("\(call.text): " + RuleExplainer.format(column.values[i], unit: call.unit, decimals: decimals))
    }
    return StrategyDetails(values: indicatorColumns.map { ($0.name, $0.values[i].isNaN ? nil : $0.values[i]) }, lines: lines)
  }

  /// The functions the rule calls, each once, in the order written (entry first): its indicator columns.
  static func calls(_ p: Parameters) -> [RuleExpression] {
    var found = p.entry.functionCalls
    for c in p.exit?.functionCalls ?? [] where !found.contains(c) { found.append(c) }
    return found
  }

  // MARK: Charts

  static let palette = ["#0071E3", "#FF9500", "#34C759", "#FF3B30", "#AF52DE", "#5AC8FA", "#FFCC00", "#8E8E93"]

  /// One column per function the rule calls: price levels over the price
  /// chart, everything else in a panel per kind (RSI from 0 to 100 with the
  /// levels the rule compares it with).
  static func columns(_ p: Parameters, evaluator: RuleEvaluator) -> [IndicatorColumn] {
    let calls = calls(p)
    func panelKey(_ unit: RuleExpression.Unit) -> (id: String, name: String)? {
      switch unit {
      case .price: return nil
      case .rsi: return ("rsi", "RSI")
      case .atr: return ("atr", "ATR")
      case .roc: return ("roc", "Rate of change")
      case .deviation: return ("std", "Standard deviation")
      case .volume: return ("volume", "Volume")
      case .scalar, .count, .other: return ("indicator", "Indicators")
      }
    }
    // The levels each panel's values are compared with.
    var levels: [String: Set<Double>] = [:]
    func collect(_ e: RuleExpression) {
      switch e {
      case .compare(_, let a, let b), .crosses(_, let a, let b):
        for (x, y) in [(a, b), (b, a)] {
          if case .constant(let v) = y, let key = panelKey(x.unit) { levels[key.id, default: []].insert(v) }
        }
      case .and(let a, let b), .or(let a, let b): collect(a); collect(b)
      case .not(let x), .lag(let x, _): collect(x)
      default: break
      }
    }
    collect(p.entry)
    if let exit = p.exit { collect(exit) }
    var titles: [String: [String]] = [:]
    for c in calls { if let key = panelKey(c.unit) { titles[key.id, default: []].append(c.text) } }
    var names: Set<String> = []
    return calls.enumerated().map { k, c in
      var name = c.columnName, suffix = 2
      while names.contains(name) { name = c.columnName + "_\(suffix)"; suffix += 1 }
      names.insert(name)
      let color = palette[k % palette.count]
      guard let key = panelKey(c.unit) else {
        return IndicatorColumn(name, evaluator.number(c), plot: .overlay(label: c.text, color: color))
      }
      let panel = IndicatorPanel(id: key.id, name: key.name, title: titles[key.id]!.joined(separator: ", "),
                                 range: c.unit == .rsi ? 0...100 : nil, levels: (levels[key.id] ?? []).sorted())
      return IndicatorColumn(name, evaluator.number(c), plot: .panel(panel, color: color))
    }
  }
}

/// A rule's conditions as bits and, for an exit that reads the position, a
/// compiled program: what a decision reads.
struct CompiledRule: Sendable {
  enum ExitKind: Sendable { case none, bits, program }
  let entry: Bits
  let exitKind: ExitKind
  /// The exit's bits (all clear without an exit, or when it reads the position).
  let exitBits: Bits
  let exitProgram: RuleProgram
  /// The entry's warm-up: the first bar where every series it reads is defined.
  let firstDecisionBar: Int

  init(entry: RuleExpression, exit: RuleExpression?, evaluator: RuleEvaluator) {
    self.entry = evaluator.condition(entry)
    firstDecisionBar = entry.warmUp
    let none = { Bits(words: ContiguousArray(repeating: 0, count: (evaluator.count + 63) / 64)) }
    switch exit {
    case nil:
      (exitKind, exitBits, exitProgram) = (.none, none(), RuleProgram())
    case let exit? where exit.readsPosition:
      (exitKind, exitBits, exitProgram) = (.program, none(), RuleProgram(exit, evaluator: evaluator))
    case let exit?:
      (exitKind, exitBits, exitProgram) = (.bits, evaluator.condition(exit), RuleProgram())
    }
  }

  /// Whether the exit holds at the close of bar `i` for a position entered at `entryPrice` on `entryBar`.
  @inline(__always)
  func exits(at i: Int, entryPrice: Double, entryBar: Int) -> Bool {
    switch exitKind {
    case .none: return false
    case .bits: return exitBits[i]
    case .program: return exitProgram.holds(at: i, entryPrice: entryPrice, entryBar: entryBar)
    }
  }
}

/// Says why a condition holds or not at one bar, with the operands' values.
struct RuleExplainer {
  let evaluator: RuleEvaluator
  let i: Int
  let position: PositionView
  let decimals: Int

  init(bars: BarSeries, at i: Int, position: PositionView) {
    evaluator = RuleEvaluator(bars: bars)
    self.i = i
    self.position = position
    decimals = HumanFormat.decimals(of: bars.close[i])
  }

  /// A value for people: prices at the data's decimals, RSI with one, counts with none; `undefined` for `nan`.
  static func format(_ v: Double, unit: RuleExpression.Unit, decimals: Int) -> String {
    guard !v.isNaN else { return "undefined" }
    switch unit {
    case .scalar: return formatPlain(v)
    case .rsi: return String(format: "%.1f", v)
    case .count, .volume: return String(format: "%.0f", v)
    case .roc: return String(format: "%.4f", v)
    case .price, .atr, .deviation, .other: return String(format: "%.\(decimals)f", v)
    }
  }

  private func value(_ e: RuleExpression, at bar: Int? = nil) -> Double {
    evaluator.value(e, at: bar ?? i, position: position)
  }

  private func operand(_ e: RuleExpression, at bar: Int? = nil) -> String {
    if case .constant(let v) = e { return formatPlain(v) }
    return e.text + " " + Self.format(value(e, at: bar), unit: e.unit, decimals: decimals)
  }

  /// Why `e` holds (`holds`) or does not at the bar: its comparisons with their values.
  func why(_ e: RuleExpression, holds: Bool) -> String {
    switch e {
    case .and(let a, let b), .or(let a, let b):
      let isAnd: Bool = if case .and = e { true } else { false }
      // An `and` that holds, or an `or` that does not: both sides say why. Otherwise the sides that decide.
      if isAnd == holds { return why(a, holds: holds) + (holds ? " and " : "; ") + why(b, holds: holds) }
      let deciding = [a, b].filter { evaluator.holds($0, at: i, position: position) == holds }
      return deciding.map { why($0, holds: holds) }.joined(separator: holds ? " and " : "; ")
    case .not(let x):
      return why(x, holds: !holds)
    case .compare(let op, let a, let b):
      let (x, y) = (value(a), value(b))
      if x.isNaN || y.isNaN {
        let undefined = [a, b].filter { value($0).isNaN }.map { "\($0.text) is undefined" }
        return undefined.joined(separator: " and ")
      }
      return operand(a) + " \((holds ? op : RuleArithmetic.negation(op)).rawValue) " + operand(b)
    case .crosses(let above, let a, let b):
      let verb = holds ? (above ? "crosses above" : "crosses below") : (above ? "does not cross above" : "does not cross below")
      var text = operand(a) + " \(verb) " + operand(b)
      if i >= 1 { text += " (previous bar: \(operand(a, at: i - 1)), \(operand(b, at: i - 1)))" }
      return text
    case .lag(let x, let k):
      guard i >= k else { return "\(e.text) reaches before the first bar" }
      return "\(k) bar\(k == 1 ? "" : "s") ago, " + RuleExplainer(evaluator: evaluator, i: i - k, position: position, decimals: decimals)
        .why(x, holds: holds)
    default:
      return e.text
    }
  }

  private init(evaluator: RuleEvaluator, i: Int, position: PositionView, decimals: Int) {
    self.evaluator = evaluator
    self.i = i
    self.position = position
    self.decimals = decimals
  }
}
