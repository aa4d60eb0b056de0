import BacktestCore
/// `sweep.constraints.where`: a condition of the rule language over the swept parameters (`fast < slow`), true for
/// the grid points a sweep runs; the others are skipped, as backtesting.py's `constraint=` skips them.
package struct SweepConstraint: Sendable {
  /// The condition as written, on one line.
  package let text: String
  /// The swept parameters' names it may read, with their position among the parameters.
  let names: [(name: String, index: Int)]
  let key: String

  /// Checks `text` against the swept parameters `parameters` (name and values as text): every name it reads must
  /// be one of them, with numbers (or percentages) for values, and it may read nothing else (no bar, no indicator).
  ///
  /// - Throws: `RuleError` at the offending token.
  init(_ text: String, parameters: [(name: String, values: [String])], key: String) throws(RuleError) {
    self.text = text
    self.key = key
    var names: [(name: String, index: Int)] = []
    for (k, p) in parameters.enumerated() where p.values.allSatisfy({ Self.number($0) != nil }) { names.append((p.name, k)) }
    self.names = names
    // Every point's values must give a condition of constants: checked here on the first values of each.
    let sample = Dictionary(names.map { ($0.name, Self.number(parameters[$0.index].values[0])!) }, uniquingKeysWith: { a, _ in a })
    let expression = try RuleChecker.condition(text, params: sample, positionAllowed: false, key: key)
    guard expression.constantTruth != nil else {
      throw RuleError("expected a condition over the swept parameters (\(names.map(\.name).joined(separator: ", "))) and numbers only in '\(key)', found one that reads the bars",
                      at: 0, width: text.utf8.count)
    }
  }

  /// The same constraint once `count` parameters are put before the swept ones (a universe's symbol).
  func shifted(by count: Int) -> SweepConstraint {
    SweepConstraint(text: text, names: names.map { ($0.name, $0.index + count) }, key: key)
  }

  private init(text: String, names: [(name: String, index: Int)], key: String) {
    self.text = text
    self.names = names
    self.key = key
  }

  /// Whether the grid point with `values` (one per swept parameter, as text) is run.
  package func holds(_ values: [String]) -> Bool {
    let params = Dictionary(names.map { ($0.name, Self.number(values[$0.index]) ?? .nan) }, uniquingKeysWith: { a, _ in a })
    // The names and shape were checked on the first point; another point only changes the params' values.
    return (try? RuleChecker.condition(text, params: params, positionAllowed: false, key: key))?.constantTruth ?? false
  }

  /// A swept value as a number: `20`, `1.5`, `2%` (0.02); `nil` for text (`monthly`).
  static func number(_ text: String) -> Double? {
    text.hasSuffix("%") ? parseDecimal(String(text.dropLast())).map { $0 / 100 } : parseDecimal(text)
  }
}
