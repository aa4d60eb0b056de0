import BacktestCore
import Foundation

extension SweepSettings {
  static let rankable = PerformanceSummary().fields.map(\.key)

  /// The run-file key path a swept name stands for: a strategy parameter's
  /// short name or its path inside `strategy:`, or a full key path; `nil` for anything else.
  package static func keyPath(of name: String, strategy: [ParameterInfo]) -> String? {
    if let p = strategy.first(where: { $0.alias == name || $0.path == name }) { return "strategy." + p.path }
    if ["strategy.", "portfolio.", "cycle."].contains(where: { name.hasPrefix($0) }) { return name }
    return nil
  }

  /// Reads the section; `strategy` holds the declared parameters of the run file's strategy.
  package static func read(_ node: YAMLNode, strategy: [ParameterInfo] = []) throws -> SweepSettings {
    let t = try ConfigTable(node, path: "sweep")
    let parametersTable = try t.table("parameters")
    var parameters: [Parameter] = []
    for entry in parametersTable.entries {
      parametersTable.allow(entry.key)
      guard let path = keyPath(of: entry.key, strategy: strategy) else {
        let names = strategy.map { $0.alias ?? $0.path }.sorted()
        let hint = closestMatch(to: entry.key, in: names + strategy.map(\.path)).map { "; did you mean '\($0)'?" } ?? ""
        let example = "strategy." + (strategy.last { if case .integer = $0.type { true } else { false } }?.path ?? "stop_loss")
        throw InputError("unknown sweep parameter '\(entry.key)'\(hint); expected "
                           + (names.isEmpty ? "" : "one of \(names.joined(separator: ", ")) or ") + "a key path such as \(example)",
                         at: entry.keyLocation)
      }
      // A param the strategy does not declare would be set and never read: the axis would change nothing.
      if path.hasPrefix("strategy.params."), !strategy.contains(where: { "strategy." + $0.path == path }) {
        let declared = strategy.filter { $0.path.hasPrefix("params.") }.map { $0.alias ?? $0.path }
        throw InputError("unknown sweep parameter '\(entry.key)': the strategy declares no param '\(path.dropFirst("strategy.params.".count))'; expected "
                           + (declared.isEmpty ? "a param written under strategy.params" : "one of \(declared.joined(separator: ", "))"),
                         at: entry.keyLocation)
      }
      // Two names for one key (`n` and `strategy.params.n`): the second would overwrite the first in every combination.
      if let other = parameters.first(where: { $0.path == path }) {
        throw InputError("'\(entry.key)' and '\(other.name)' both set \(path); expected each parameter once", at: entry.keyLocation)
      }
      parameters.append(Parameter(name: entry.key, path: path, values: try values(entry)))
    }
    if parameters.isEmpty {
      throw InputError("expected at least one parameter under 'sweep.parameters'", at: parametersTable.location)
    }
    let mode = Mode(rawValue: try t.choice("mode", ["grid", "random"], default: "grid")!)!
    let samples = try t.int("samples", in: 1...10_000_000)
    if mode == .random && samples == nil {
      throw InputError("expected 'sweep.samples' (how many random combinations) with mode: random", at: t.location)
    }
    let seed = UInt64(try t.int("seed", default: 1, in: 0...Int.max)!)
    let metric = try t.choice("metric", rankable, default: "sharpe")!
    let constraints = try t.table("constraints")
    let minTrades = try constraints.int("min_trades", default: 0, in: 0...Int.max)!
    var constraint: SweepConstraint?
    if let node = constraints.node("where") {
      guard case .scalar(let text, _) = node.kind else {
        throw InputError("expected a condition over the swept parameters, such as 'fast < slow', for 'sweep.constraints.where', found \(node.typeDescription)",
                         at: node.location)
      }
      do {
        constraint = try SweepConstraint(text, parameters: parameters.map { ($0.name, $0.values) }, key: "sweep.constraints.where")
      } catch {
        throw InputError(error.message, at: node.location(ofCharacter: error.offset), excerpt: node.markedLine(atCharacter: error.offset, width: error.width))
      }
    }
    try constraints.finish()
    let top = try t.int("top", default: 10, in: 1...10_000)!
    var heatmap: (x: Int, y: Int)? = parameters.count >= 2 ? (0, 1) : nil
    if let node = t.node("heatmap") {
      let names = try t.stringList("heatmap", default: [])
      guard names.count == 2, let i = parameters.firstIndex(where: { $0.name == names[0] }),
        let j = parameters.firstIndex(where: { $0.name == names[1] }), i != j
      else {
        throw InputError("expected two swept parameters for 'sweep.heatmap', such as [\(parameters.prefix(2).map(\.name).joined(separator: ", "))]",
                         at: node.location)
      }
      heatmap = (i, j)
    }
    var validation: HoldoutSplit?
    var walkForward: WalkForwardSettings?
    if let node = t.node("validation") {
      let v = try ConfigTable(node, path: "sweep.validation")
      if try v.choice("mode", ["holdout", "walk_forward"], default: "holdout") == "walk_forward" {
        walkForward = try WalkForwardSettings.read(v)
        try v.finish()
      } else {
        validation = try HoldoutSplit.read(node)
      }
    }
    try t.finish()
    var settings = SweepSettings(parameters: parameters, mode: mode, samples: samples, seed: seed, metric: metric,
                                 minTrades: minTrades, top: top, heatmap: heatmap, validation: validation, walkForward: walkForward)
    settings.constraint = constraint
    return settings
  }

  /// A parameter's values: a list of scalars, or `{from, to, step}`.
  static func values(_ entry: YAMLEntry) throws -> [String] {
    let where_ = "sweep.parameters.\(entry.key)"
    switch entry.value.kind {
    case .sequence(let items):
      let texts = try items.map { item -> String in
        guard case .scalar(let text, _) = item.kind else {
          throw InputError("expected scalar values in '\(where_)', found \(item.typeDescription)", at: item.location)
        }
        return text
      }
      if texts.isEmpty { throw InputError("expected at least one value in '\(where_)'", at: entry.value.location) }
      if Set(texts).count != texts.count { throw InputError("a value appears twice in '\(where_)'", at: entry.value.location) }
      return texts
    case .mapping:
      let range = try ConfigTable(entry.value, path: where_)
      guard let from = try range.double("from"), let to = try range.double("to") else {
        throw InputError("expected {from, to, step} in '\(where_)'", at: entry.value.location)
      }
      let step = try range.double("step", default: 1, where: { $0 > 0 }, expected: "a number > 0")!
      try range.finish()
      guard to >= from, (to - from) / step < 1_000_000 else {
        throw InputError("expected from <= to and fewer than a million steps in '\(where_)'", at: entry.value.location)
      }
      var out: [String] = []
      var k = 0.0
      while true {
        let v = ((from + k * step) * 1e9).rounded() / 1e9
        if v > to + step * 1e-9 { break }
        out.append(formatNumber(v))
        k += 1
      }
      return out
    case .scalar(let text, _):
      return [text]
    case .null:
      throw InputError("expected a list or {from, to, step} for '\(where_)'", at: entry.value.location)
    }
  }
}
