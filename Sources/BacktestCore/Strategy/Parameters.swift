/// The values a number parameter may take: an interval whose ends may be open,
/// closed or absent.
public struct NumberRange: Sendable, Equatable {
  /// The lower end; `nil` for none.
  public var lower: Double?
  /// Whether `lower` itself is allowed.
  public var lowerInclusive: Bool
  /// The upper end; `nil` for none.
  public var upper: Double?
  /// Whether `upper` itself is allowed.
  public var upperInclusive: Bool

  /// Creates a range from its ends.
  public init(lower: Double?, lowerInclusive: Bool, upper: Double?, upperInclusive: Bool) {
    self.lower = lower
    self.lowerInclusive = lowerInclusive
    self.upper = upper
    self.upperInclusive = upperInclusive
  }

  /// Any finite number.
  public static let any = NumberRange(lower: nil, lowerInclusive: false, upper: nil, upperInclusive: false)
  /// Above `x` (`> x`).
  public static func above(_ x: Double) -> NumberRange { NumberRange(lower: x, lowerInclusive: false, upper: nil, upperInclusive: false) }
  /// `x` or more.
  public static func atLeast(_ x: Double) -> NumberRange { NumberRange(lower: x, lowerInclusive: true, upper: nil, upperInclusive: false) }
  /// From `r.lowerBound` to `r.upperBound`, both included.
  public static func from(_ r: ClosedRange<Double>) -> NumberRange {
    NumberRange(lower: r.lowerBound, lowerInclusive: true, upper: r.upperBound, upperInclusive: true)
  }
  /// Strictly between `a` and `b`.
  public static func between(_ a: Double, _ b: Double) -> NumberRange {
    NumberRange(lower: a, lowerInclusive: false, upper: b, upperInclusive: false)
  }

  /// Whether `x` lies within the range; no end excludes a NaN.
  public func contains(_ x: Double) -> Bool {
    if let lower, lowerInclusive ? x < lower : x <= lower { return false }
    if let upper, upperInclusive ? x > upper : x >= upper { return false }
    return true
  }

  /// The range for messages: `> 0`, `from 0 to 100`, `between 0 and 1`; empty for any number.
  public var phrase: String {
    switch (lower, upper) {
    case (nil, nil): return ""
    case (let a?, nil): return (lowerInclusive ? ">= " : "> ") + formatPlain(a)
    case (nil, let b?): return (upperInclusive ? "<= " : "< ") + formatPlain(b)
    case (let a?, let b?):
      if lowerInclusive && upperInclusive { return "from \(formatPlain(a)) to \(formatPlain(b))" }
      if !lowerInclusive && !upperInclusive { return "between \(formatPlain(a)) and \(formatPlain(b))" }
      return (lowerInclusive ? "[" : "(") + formatPlain(a) + ", " + formatPlain(b) + (upperInclusive ? "]" : ")")
    }
  }
}

/// What a declared parameter holds and which values it takes.
public enum ParameterType: Sendable, Equatable {
  /// A whole number within the range.
  case integer(ClosedRange<Int>)
  /// A number within the range.
  case number(NumberRange)
  /// A fraction written `0.02` or `2%`, or `none` to turn the feature off.
  case fraction(NumberRange)
  /// A word or a symbol (`INCM`), or an expression of the rule language.
  case text

  /// The type for people: `integer`, `number`, `fraction or none`.
  public var name: String {
    switch self {
    case .integer: return "integer"
    case .number: return "number"
    case .fraction: return "fraction or none"
    case .text: return "text"
    }
  }

  /// The allowed values for people: `2 to 100000`, `> 0`, `between 0 and 1`.
  public var rangeText: String {
    switch self {
    case .integer(let r): return r.upperBound == .max ? ">= \(r.lowerBound)" : "\(r.lowerBound) to \(r.upperBound)"
    case .number(let r), .fraction(let r): return r.phrase.isEmpty ? "any" : r.phrase
    case .text: return "any"
    }
  }
}

/// One declared parameter of a strategy: where a run file writes it, its type
/// and range, its default, one line of documentation, and how it is stored in
/// the strategy's parameter value.
///
/// Declared once, it drives the run-file reader, `--set`, sweep axes (by its
/// path, or its alias), `backtest strategies` and the reports.
public struct Parameter<Values>: Sendable {
  /// The key path inside the `strategy:` section, e.g. `bollinger.period`.
  public let path: String
  /// A short name sweeps and `--set` also accept, e.g. `bb_period`.
  public let alias: String?
  /// One line for `backtest strategies`.
  public let doc: String
  /// The parameter's type and allowed values.
  public let type: ParameterType
  let read: @Sendable (ConfigTable, String, inout Values) throws -> Void
  let text: @Sendable (Values) -> String

  /// An integer parameter stored at `key`.
  public static func integer(_ path: String, _ key: WritableKeyPath<Values, Int> & Sendable, in range: ClosedRange<Int>,
                             alias: String? = nil, doc: String) -> Parameter {
    Parameter(path: path, alias: alias, doc: doc, type: .integer(range),
              read: { table, name, values in
                values[keyPath: key] = try table.int(name, default: values[keyPath: key], in: range)! },
              text: { String($0[keyPath: key]) })
  }

  /// A number parameter stored at `key`.
  public static func number(_ path: String, _ key: WritableKeyPath<Values, Double> & Sendable, _ range: NumberRange,
                            alias: String? = nil, doc: String) -> Parameter {
    let expected = range.phrase.isEmpty ? "a number" : "a number " + range.phrase
    return Parameter(path: path, alias: alias, doc: doc, type: .number(range),
                     read: { table, name, values in
                       values[keyPath: key] = try table.double(name, default: values[keyPath: key], where: range.contains,
                                                               expected: expected)! },
                     text: { formatPlain($0[keyPath: key]) })
  }

  /// A fraction parameter (`0.02` or `2%`; `none` or `off` for `nil`) stored at `key`.
  public static func fraction(_ path: String, _ key: WritableKeyPath<Values, Double?> & Sendable, _ range: NumberRange,
                              alias: String? = nil, doc: String) -> Parameter {
    let expected = range.phrase.isEmpty ? "a fraction" : "a fraction " + range.phrase
    return Parameter(path: path, alias: alias, doc: doc, type: .fraction(range),
                     read: { table, name, values in
                       values[keyPath: key] = try table.fraction(name, default: values[keyPath: key], expected: expected,
                                                                 where: range.contains) },
                     text: { $0[keyPath: key].map(formatPercentPlain) ?? "none" })
  }
}

extension Parameter {
  /// A text parameter (a symbol such as `INCM`) stored at `key`; empty text is refused.
  public static func text(_ path: String, _ key: WritableKeyPath<Values, String> & Sendable, alias: String? = nil,
                          doc: String) -> Parameter {
    Parameter(path: path, alias: alias, doc: doc, type: .text,
              read: { table, name, values in
                guard let text = try table.string(name, default: values[keyPath: key]), !text.isEmpty else {
                  throw InputError("expected a non-empty text for '\(table.keyPath(name))'", at: table.node(name)?.location ?? table.location)
                }
                values[keyPath: key] = text },
              text: { $0[keyPath: key] })
  }
}

/// A parameter as reports and `backtest strategies` show it, whatever the strategy.
public struct ParameterInfo: Sendable, Equatable {
  /// The key path inside the `strategy:` section, e.g. `bollinger.period`.
  public var path: String
  /// A short name sweeps and `--set` also accept, e.g. `bb_period`; `nil` for none.
  public var alias: String?
  /// One line for `backtest strategies`.
  public var doc: String
  /// The parameter's type and allowed values.
  public var type: ParameterType
  /// The default value as a run file would write it.
  public var defaultText: String
}

/// Two parameters whose values do not go together (`fast` must be below
/// `slow`); the reader reports it at the place of `path`.
public struct ParameterConflict: Error, Sendable {
  /// The parameter to point at (a declared path).
  public var path: String
  /// What does not go together, as an `InputError` message: lower case, no trailing period.
  public var message: String
  /// Creates a conflict reported at the parameter `path`.
  public init(path: String, message: String) {
    self.path = path
    self.message = message
  }
}

/// A strategy's parameters as a value (one per sweep combination), declared
/// once in `declarations`; `init()` gives the defaults.
public protocol StrategyParameters: Sendable, Equatable {
  /// The default parameters.
  init()
  /// Every parameter, in the order a run file and reports list them.
  static var declarations: [Parameter<Self>] { get }
  /// Checks relations between parameters (for example `fast < slow`).
  func validate() throws(ParameterConflict)
  /// Reads the parameters from the `strategy:` section (all but `type`).
  ///
  /// The default reads each declaration in turn; a strategy whose parameters
  /// are not known before the run file is read (rules) reads them itself.
  /// - Throws: `InputError` for a wrong or out-of-range value, or an unknown key inside a sub-table.
  static func read(from table: ConfigTable) throws -> Self
  /// The parameters for reports, as (name, value) text pairs in a fixed order.
  var summary: [(name: String, value: String)] { get }
  /// The parameters as `backtest strategies` lists them.
  static var info: [ParameterInfo] { get }
  /// The parameters of this value: `info`, plus any its run file declared
  /// itself (a rule strategy's `params`), which sweeps may then name.
  var parameterInfo: [ParameterInfo] { get }
  /// Checks the parameters against the bars they are to run on (a signals
  /// file's times must be bars' times); called once per run after loading.
  /// - Throws: `InputError` naming where the mismatch is written.
  func check(against bars: BarSeries) throws
}

extension StrategyParameters {
  public func validate() throws(ParameterConflict) {}

  public func check(against bars: BarSeries) throws {}

  public static func read(from section: ConfigTable) throws -> Self {
    var values = Self()
    // Sub-tables (`bollinger:`) are opened once, in the order first met, and checked for unknown keys at the end.
    var tables: [(prefix: String, table: ConfigTable)] = []
    func table(for prefix: Substring) throws -> ConfigTable {
      if prefix.isEmpty { return section }
      if let found = tables.first(where: { $0.prefix == prefix }) { return found.table }
      let parent = prefix.lastIndex(of: ".").map { prefix[..<$0] } ?? ""
      let name = prefix.lastIndex(of: ".").map { String(prefix[prefix.index(after: $0)...]) } ?? String(prefix)
      let sub = try table(for: parent).table(name)
      tables.append((String(prefix), sub))
      return sub
    }
    for d in declarations {
      let dot = d.path.lastIndex(of: ".")
      let prefix = dot.map { d.path[..<$0] } ?? ""
      let key = dot.map { String(d.path[d.path.index(after: $0)...]) } ?? d.path
      try d.read(try table(for: prefix), key, &values)
    }
    for t in tables { try t.table.finish() }
    do {
      try values.validate()
    } catch {
      var conflict = InputError(error.message, at: location(of: error.path, in: section))
      conflict.isConflict = true
      throw conflict
    }
    return values
  }

  public var summary: [(name: String, value: String)] {
    Self.declarations.map { ($0.path, $0.text(self)) }
  }

  public var parameterInfo: [ParameterInfo] { Self.info }

  public static var info: [ParameterInfo] {
    let defaults = Self()
    return declarations.map { ParameterInfo(path: $0.path, alias: $0.alias, doc: $0.doc, type: $0.type, defaultText: $0.text(defaults)) }
  }

  /// Where `path` is written inside `table`, else the closest enclosing place.
  @usableFromInline
  static func location(of path: String, in table: ConfigTable) -> SourceLocation {
    var node: YAMLNode? = nil
    var entries = table.entries
    for key in path.split(separator: ".") {
      guard let found = entries.first(where: { $0.key == key })?.value else { break }
      node = found
      if case .mapping(let inner) = found.kind { entries = inner } else { entries = [] }
    }
    return node?.location ?? table.location
  }
}
