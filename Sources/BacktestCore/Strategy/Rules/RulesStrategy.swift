import Foundation

/// A strategy whose entry and exit are conditions written in the run file
/// (`strategy.type: rules`; the language is `Docs/spec/rules.md`, for
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
package struct RulesStrategy: Strategy {
  /// The rule as the run file writes it: params, conditions, stop and target.
  package struct Parameters: StrategyParameters {
    /// One named number of `params`.
    package struct Param: Sendable, Equatable {
      package var name: String
      package var value: Double
    }
    /// The named numbers, in the order written.
    package internal(set) var params: [Param] = []
    /// The conditions, checked and with params replaced by their values (`entry` never holds when only
    /// `short_entry` is written).
    package var entry: RuleExpression = Self.never
    package var exit: RuleExpression?
    /// Short sales: tested while flat after `entry` (a long entry on the same close wins), and the short's exit.
    package var shortEntry: RuleExpression?
    package var shortExit: RuleExpression?
    /// The conditions as written, on one line (runs of spaces and line breaks made one space).
    package internal(set) var entryText = "0 < 0"
    package internal(set) var exitText: String?
    package internal(set) var shortEntryText: String?
    package internal(set) var shortExitText: String?
    /// How entries are placed (`entry_order`): at the next open, or a limit or stop at a price computed at the decision.
    package var order = RuleOrder()
    /// Fraction below the entry price; `nil` (the default) disables the stop.
    package var stopLoss: Double?
    /// Fraction above the entry price; `nil` disables the target.
    package var profitTarget: Double?
    /// A stop that follows the best close since the entry at this distance (`Docs/orders.md`); `nil` for none.
    package var trailingStop: Double?
    /// Sells at the next open once the position has been held this many bars (the entry bar counts 1); 0 for never.
    package var maxBarsHeld = 0

    package init() {}

    /// The condition that never holds: `entry` of a rule that only sells short.
    static let never = RuleExpression.compare(.less, .constant(0), .constant(0))

    /// Whether every entry is a plain market buy with only the stop and target as broker exits (what the fused sweep loop simulates).
    package var plainOrders: Bool { trailingStop == nil && maxBarsHeld == 0 && shortEntry == nil && order.kind == .market }

    /// The entry the rule asks for on `side` at a close where the order's price is `price` (ignored at the market):
    /// the plain market buy unless an order type, a trailing stop or a time exit is set.
    func entrySignal(_ side: EntryOrder.Side, price: Double) -> Signal {
      if side == .long && plainOrders { return .enterLong(stopLoss: stopLoss, profitTarget: profitTarget) }
      let kind: EntryOrder.Kind = switch order.kind {
      case .market: .market
      case .limit: .limit(price)
      case .stop: .stop(price)
      }
      return .enter(EntryOrder(side: side, kind: kind, validBars: order.validBars, stopLoss: stopLoss, profitTarget: profitTarget,
                               trailingStop: trailingStop, maxBarsHeld: maxBarsHeld > 0 ? maxBarsHeld : nil))
    }

    /// The keys every strategy shares; `params`, `entry` and `exit` are read by `read(from:)`.
    package static let declarations: [Parameter<Parameters>] = [
      .fraction("stop_loss", \.stopLoss, .between(0, 1), alias: "stop_loss", doc: "stop below the entry fill (2%; default none)"),
      .fraction("profit_target", \.profitTarget, .above(0), alias: "profit_target", doc: "target above the entry fill (3% or none)"),
      .fraction("trailing_stop", \.trailingStop, .between(0, 1), alias: "trailing_stop",
                doc: "stop at this distance below the best close since the entry, raised at each close (3% or none)"),
      .integer("max_bars_held", \.maxBarsHeld, in: 0...10_000_000, alias: "max_bars_held",
               doc: "sell at the next open once held this many bars, the entry bar counting 1 (0: never)"),
    ]

    /// Reads `params`, then `entry` and `exit`, `short_entry` and `short_exit` as conditions (`entry` or
    /// `short_entry` required), `entry_order`, then the stop and target.
    ///
    /// - Throws: `InputError` at the offending token of an expression, with an excerpt and a caret under it.
    package static func read(from section: ConfigTable) throws -> Parameters {
      var values = Parameters()
      values.params = try readParams(section)
      let params = Dictionary(values.params.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
      let shortNode = section.node("short_entry")
      if let entryNode = section.node("entry") {
        values.entry = try condition(entryNode, key: "strategy.entry", params: params, positionAllowed: false)
        values.entryText = tidy(entryNode)
      } else if shortNode != nil {
        values.entryText = "none"
      } else {
        throw InputError("missing 'strategy.entry'; expected a condition such as 'close > sma(close, 200)' (or 'short_entry' for a rule that only sells short)",
                         at: section.entries.first { $0.key == "entry" }?.value.location ?? section.location)
      }
      if let exitNode = section.node("exit") {
        values.exit = try condition(exitNode, key: "strategy.exit", params: params, positionAllowed: true)
        values.exitText = tidy(exitNode)
      }
      if let shortNode {
        values.shortEntry = try condition(shortNode, key: "strategy.short_entry", params: params, positionAllowed: false)
        values.shortEntryText = tidy(shortNode)
      }
      if let node = section.node("short_exit") {
        guard values.shortEntry != nil else {
          throw InputError("'strategy.short_exit' without 'short_entry'; expected 'short_entry' too, or no 'short_exit'", at: node.location)
        }
        values.shortExit = try condition(node, key: "strategy.short_exit", params: params, positionAllowed: true)
        values.shortExitText = tidy(node)
      }
      if section.node("entry_order") != nil { values.order = try RuleOrder.read(try section.table("entry_order"), params: params) }
      for d in declarations { try d.read(section, d.path, &values) }
      return values
    }

    /// Reads `params`: named numbers (a percentage reads as its fraction), in the order written.
    static func readParams(_ section: ConfigTable) throws -> [Param] {
      let table = try section.table("params")
      var params: [Param] = []
      for entry in table.entries {
        table.allow(entry.key)
        params.append(Param(name: entry.key, value: try param(entry, in: table)))
      }
      try table.finish()
      return params
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

    static func condition(_ node: YAMLNode, key: String, params: [String: Double], positionAllowed: Bool) throws -> RuleExpression {
      try expression(node, key: key, expected: "a condition (an expression)") { (text: String) throws(RuleError) in
        try RuleChecker.condition(text, params: params, positionAllowed: positionAllowed, key: key)
      }
    }

    /// Checks the expression written at `node` with `check`; a wrong token is reported at its line and column
    /// in the run file, with an excerpt and a caret under it.
    ///
    /// - Throws: `InputError` for a node that is no scalar (naming `expected`), or at the token `check` refuses.
    static func expression(_ node: YAMLNode, key: String, expected: String,
                           _ check: (String) throws(RuleError) -> RuleExpression) throws -> RuleExpression {
      guard case .scalar(let text, _) = node.kind else {
        throw InputError("expected \(expected) for '\(key)', found \(node.typeDescription)", at: node.location)
      }
      do {
        return try check(text)
      } catch {
        throw InputError(error.message, at: node.location(ofCharacter: error.offset),
                         excerpt: node.markedLine(atCharacter: error.offset, width: error.width))
      }
    }

    /// The expression on one line: runs of spaces and line breaks made one space.
    static func tidy(_ node: YAMLNode) -> String {
      guard case .scalar(let text, _) = node.kind else { return "" }
      return text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }

    /// The params, the conditions and the order (the short conditions and the order only when written), the stop and target.
    package var summary: [(name: String, value: String)] {
      var lines = params.map { ("params.\($0.name)", formatPlain($0.value)) } + [("entry", entryText), ("exit", exitText ?? "none")]
      if let shortEntryText { lines += [("short_entry", shortEntryText), ("short_exit", shortExitText ?? "none")] }
      if order.kind != .market { lines.append(("entry_order", order.text)) }
      return lines + Self.declarations.map { ($0.path, $0.text(self)) }
    }

    /// The params (path `params.n`, short name `n`) and the stop and target.
    package var parameterInfo: [ParameterInfo] {
      let declared = Self.info
      let taken = Set(declared.flatMap { [$0.path] + ($0.alias.map { [$0] } ?? []) })
      return params.map {
        ParameterInfo(path: "params." + $0.name, alias: taken.contains($0.name) ? nil : $0.name, doc: "a param of the rule",
                      type: .number(.any), defaultText: formatPlain($0.value))
      } + declared
    }
  }

  package static let name = "rules"
  package static let summary = "entry and exit conditions written as expressions in the run file, with short sales and limit or stop entries (see Docs/rules.md)"

  package let parameters: Parameters
  let rule: CompiledRule
  package var firstDecisionBar: Int { rule.firstDecisionBar }
  package let indicatorColumns: [IndicatorColumn]
  let bars: BarSeries

  package init(parameters: Parameters, bars: BarSeries) {
    let evaluator = RuleEvaluator(bars: bars)
    self.parameters = parameters
    self.bars = bars
    rule = CompiledRule(parameters, evaluator: evaluator)
    indicatorColumns = Self.columns(parameters, evaluator: evaluator)
  }

  /// A strategy over a rule compiled already (the sweep kernel's, shared by combinations); no indicator columns.
  package init(parameters: Parameters, rule: CompiledRule, bars: BarSeries) {
    self.parameters = parameters
    self.rule = rule
    self.bars = bars
    indicatorColumns = []
  }

  /// Flat: buy when `entry` holds, else sell short when `short_entry` holds. Long: sell when `exit` holds.
  /// Short: buy back when `short_exit` holds.
  @inline(__always)
  package mutating func decide(at i: Int, position: PositionView) -> Signal {
    if !position.isOpen {
      if rule.entry[i] { return parameters.entrySignal(.long, price: rule.price(at: i)) }
      return rule.shortEntry[i] ? parameters.entrySignal(.short, price: rule.price(at: i)) : .hold
    }
    if position.isShort {
      return rule.shortExits(at: i, entryPrice: position.entryPrice, entryBar: position.entryBar) ? .exitShort(.technical) : .hold
    }
    return rule.exits(at: i, entryPrice: position.entryPrice, entryBar: position.entryBar) ? .exitLong(.technical) : .hold
  }

  package func exitLevels(forEntryAt i: Int) -> (stopLoss: Double?, profitTarget: Double?) {
    (parameters.stopLoss, parameters.profitTarget)
  }

  // MARK: Explanations

  /// Why the rule gave `signal`, with the value of each operand at bar `i`:
  /// `close 26.51 < bb_lower(close, 20, 2) 26.60 and rsi(close, 14) 27.4 < 30`.
  package func explain(_ signal: Signal, at i: Int, position: PositionView) -> String {
    let explainer = RuleExplainer(bars: bars, at: i, position: position)
    let p = parameters
    switch signal {
    case .enter(let order) where order.side == .short:
      return explainer.why(p.shortEntry ?? Parameters.never, holds: true) + orderNote(order)
    case .enter(let order): return explainer.why(p.entry, holds: true) + orderNote(order)
    case .enterLong, .enterShort: return explainer.why(p.entry, holds: true)
    case .exitShort: return p.shortExit.map { explainer.why($0, holds: true) } ?? "the short exit rule holds"
    case .exitLong: return p.exit.map { explainer.why($0, holds: true) } ?? "the exit rule holds"
    case .hold where position.isShort:
      guard let exit = p.shortExit else { return "holding the short: no short exit rule (only the stop-loss and profit target close it)" }
      return "holding the short: " + explainer.why(exit, holds: false)
    case .hold where position.isOpen:
      guard let exit = p.exit else { return "holding: no exit rule (only the stop-loss and profit target close it)" }
      return "holding: " + explainer.why(exit, holds: false)
    case .hold:
      if i < firstDecisionBar {
        return "not enough bars yet for every indicator of the entry rule (the first decision is at bar \(firstDecisionBar))"
      }
      let long = p.entry == Parameters.never ? nil : explainer.why(p.entry, holds: false)
      let short = p.shortEntry.map { "no short: " + explainer.why($0, holds: false) }
      return [long.map { "no entry: " + $0 }, short].compactMap { $0 }.joined(separator: "; ")
    }
  }

  /// Each indicator's value at bar `i`, and the rule's conditions.
  package func details(at i: Int) -> StrategyDetails {
    let decimals = HumanFormat.decimals(of: bars.close[i])
    var lines = ["entry: " + parameters.entryText, "exit: " + (parameters.exitText ?? "none")]
    if let text = parameters.shortEntryText { lines += ["short_entry: " + text, "short_exit: " + (parameters.shortExitText ?? "none")] }
    if parameters.order.kind != .market { lines.append("entry_order: " + parameters.order.text) }
    for (column, call) in zip(indicatorColumns, Self.calls(parameters)) {
      lines.append("\(call.text): " + RuleExplainer.format(column.values[i], unit: call.unit, decimals: decimals))
    }
    return StrategyDetails(values: indicatorColumns.map { ($0.name, $0.values[i].isNaN ? nil : $0.values[i]) }, lines: lines)
  }

  /// `, limit 98.51 for 3 bars` (nothing at the market; `undefined` for a price that is not a number).
  private func orderNote(_ order: EntryOrder) -> String {
    guard let price = order.kind.price else { return "" }
    let text = price.isNaN ? "undefined (no order)" : formatPlain(price)
    return "; \(parameters.order.kind.rawValue) \(text) for \(order.validBars) bar\(order.validBars == 1 ? "" : "s")"
  }

  /// The functions the rule calls, each once, in the order written (entry, exit, the short's, the order's price):
  /// its indicator columns.
  static func calls(_ p: Parameters) -> [RuleExpression] {
    var found = p.entry.functionCalls
    for e in [p.exit, p.shortEntry, p.shortExit, p.order.price].compactMap({ $0 }) {
      for c in e.functionCalls where !found.contains(c) { found.append(c) }
    }
    return found
  }

  // MARK: Charts

  /// The columns' colours, in order: none is the green or red of trades' profit and loss, or the candles' teal and grey.
  static let palette = ["#4F46E5", "#F59E0B", "#0EA5E9", "#AF52DE", "#A2845E", "#EC4899", "#FFCC00", "#64748B"]

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
      case .directional: return ("adx", "ADX and DI")
      case .stochastic: return ("stoch", "Stochastic")
      case .williams: return ("willr", "Williams %R")
      case .cci: return ("cci", "CCI")
      case .macd: return ("macd", "MACD")
      case .obv: return ("obv", "On-balance volume")
      case .scalar, .count, .other: return ("indicator", "Indicators")
      }
    }
    // The value axis of the bounded oscillators.
    func range(_ unit: RuleExpression.Unit) -> ClosedRange<Double>? {
      switch unit {
      case .rsi, .directional, .stochastic: return 0...100
      case .williams: return -100...0
      default: return nil
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
    for e in [p.entry == Parameters.never ? nil : p.entry, p.exit, p.shortEntry, p.shortExit].compactMap({ $0 }) { collect(e) }
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
                                 range: range(c.unit), levels: (levels[key.id] ?? []).sorted())
      return IndicatorColumn(name, evaluator.number(c), plot: .panel(panel, color: color))
    }
  }
}

/// A rule's conditions as bits and, for an exit that reads the position, a
/// compiled program: what a decision reads.
package struct CompiledRule: Sendable {
  /// An exit condition as a decision reads it: bits, or a compiled program when it reads the position.
  package struct Exit: Sendable {
    package enum Kind: Sendable { case none, bits, program }
    package let kind: Kind
    /// The exit's bits (all clear without an exit, or when it reads the position).
    package let bits: Bits
    let program: RuleProgram

    init(_ exit: RuleExpression?, evaluator: RuleEvaluator) {
      let none = { Bits(words: ContiguousArray(repeating: 0, count: (evaluator.count + 63) / 64)) }
      switch exit {
      case nil: (kind, bits, program) = (.none, none(), RuleProgram())
      case let exit? where exit.readsPosition: (kind, bits, program) = (.program, none(), RuleProgram(exit, evaluator: evaluator))
      case let exit?: (kind, bits, program) = (.bits, evaluator.condition(exit), RuleProgram())
      }
    }

    /// Whether the exit holds at the close of bar `i` for a position entered at `entryPrice` on `entryBar`.
    @inline(__always)
    func holds(at i: Int, entryPrice: Double, entryBar: Int) -> Bool {
      switch kind {
      case .none: return false
      case .bits: return bits[i]
      case .program: return program.holds(at: i, entryPrice: entryPrice, entryBar: entryBar)
      }
    }
  }

  package let entry: Bits
  package let exit: Exit
  /// The short sale's condition (all clear without one) and the short's exit.
  let shortEntry: Bits
  let shortExit: Exit
  /// The limit or stop price of `entry_order` at each close (empty for market orders).
  let prices: ContiguousArray<Double>
  /// The entries' warm-up: the first bar where every series some entry condition reads is defined.
  package let firstDecisionBar: Int

  package init(_ p: RulesStrategy.Parameters, evaluator: RuleEvaluator) {
    // With a short side, decisions start at the earlier warm-up, so each side's bits are cleared before its own
    // (a long rule decides from the same bar with or without a short side).
    entry = p.shortEntry == nil ? evaluator.condition(p.entry) : evaluator.condition(p.entry).clearing(below: p.entry.warmUp)
    exit = Exit(p.exit, evaluator: evaluator)
    shortEntry = p.shortEntry.map { evaluator.condition($0).clearing(below: $0.warmUp) }
      ?? Bits(words: ContiguousArray(repeating: 0, count: (evaluator.count + 63) / 64))
    shortExit = Exit(p.shortExit, evaluator: evaluator)
    prices = p.order.price.map(evaluator.number) ?? []
    let warmUps = (p.entry == RulesStrategy.Parameters.never ? [] : [p.entry.warmUp]) + (p.shortEntry.map { [$0.warmUp] } ?? [])
    firstDecisionBar = warmUps.min() ?? 0
  }

  /// Whether the exit holds at the close of bar `i` for a long entered at `entryPrice` on `entryBar`.
  @inline(__always)
  func exits(at i: Int, entryPrice: Double, entryBar: Int) -> Bool { exit.holds(at: i, entryPrice: entryPrice, entryBar: entryBar) }

  /// Whether `short_exit` holds at the close of bar `i` for a short entered at `entryPrice` on `entryBar`.
  @inline(__always)
  func shortExits(at i: Int, entryPrice: Double, entryBar: Int) -> Bool {
    shortExit.holds(at: i, entryPrice: entryPrice, entryBar: entryBar)
  }

  /// The entry order's price at the close of bar `i` (NaN where undefined; 0 for market orders, which ignore it).
  @inline(__always)
  func price(at i: Int) -> Double { prices.isEmpty ? 0 : prices[i] }
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

  /// A value for people: prices (and MACD) at the data's decimals, oscillators with one, counts and volumes with none;
  /// `undefined` for `nan`.
  static func format(_ v: Double, unit: RuleExpression.Unit, decimals: Int) -> String {
    guard !v.isNaN else { return "undefined" }
    switch unit {
    case .scalar: return formatPlain(v)
    case .rsi, .directional, .stochastic, .williams, .cci: return String(format: "%.1f", v)
    case .count, .volume, .obv: return String(format: "%.0f", v)
    case .roc: return String(format: "%.4f", v)
    case .price, .atr, .deviation, .macd, .other: return String(format: "%.\(decimals)f", v)
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
