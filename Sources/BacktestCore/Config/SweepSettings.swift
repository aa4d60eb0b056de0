import Foundation

/// The `sweep:` section of a sweep file: what to vary and how to rank.
public struct SweepSettings: Sendable {
  /// One swept parameter: its column name, the run-file key it sets, and its values as text.
  public struct Parameter: Sendable {
    public var name: String
    public var path: String
    public var values: [String]
  }
  public enum Mode: String, Sendable { case grid, random }

  public var parameters: [Parameter]
  public var mode: Mode
  public var samples: Int?
  public var seed: UInt64
  /// The summary key to rank by (higher is better).
  public var metric: String
  public var minTrades: Int
  public var top: Int
  /// The two parameters (indices) of the heatmap; the first two by default.
  public var heatmap: (x: Int, y: Int)?
  /// A holdout split: rank in-sample, then run the top combinations out-of-sample.
  public var validation: HoldoutSplit?
  /// Walk-forward windows (`validation: {mode: walk_forward, …}`).
  public var walkForward: WalkForwardSettings?

  static let rankable = PerformanceSummary().fields.map(\.key)

  /// The run-file key path a swept name stands for: a strategy parameter's
  /// short name or its path inside `strategy:`, or a full key path; `nil` for anything else.
  public static func keyPath(of name: String, strategy: [ParameterInfo]) -> String? {
    if let p = strategy.first(where: { $0.alias == name || $0.path == name }) { return "strategy." + p.path }
    if ["strategy.", "portfolio.", "cycle."].contains(where: { name.hasPrefix($0) }) { return name }
    return nil
  }

  /// Reads the section; `strategy` holds the declared parameters of the run file's strategy.
  public static func read(_ node: YAMLNode, strategy: [ParameterInfo] = []) throws -> SweepSettings {
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
    return SweepSettings(parameters: parameters, mode: mode, samples: samples, seed: seed, metric: metric,
                         minTrades: minTrades, top: top, heatmap: heatmap, validation: validation, walkForward: walkForward)
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

/// One combination of swept values.
public struct SweepCombination: Sendable, Equatable {
  /// Position in the full plan (grid order, or sampling order), the same on every machine.
  public var index: Int
  public var values: [String]
}

/// The combinations of a sweep, in a fixed order, and the slice a shard runs.
public enum SweepPlan {
  /// Every combination: the grid (first parameter varying slowest), or a
  /// seeded random sample of it.
  public static func combinations(_ s: SweepSettings) -> [SweepCombination] {
    var all: [[String]] = [[]]
    for p in s.parameters {
      all = all.flatMap { prefix in p.values.map { prefix + [$0] } }
    }
    if s.mode == .random, let samples = s.samples, samples < all.count {
      var rng = SplitMix64(seed: s.seed)
      var order = Array(all.indices)
      for i in stride(from: order.count - 1, to: 0, by: -1) {
        order.swapAt(i, Int(rng.next() % UInt64(i + 1)))
      }
      all = order.prefix(samples).sorted().map { all[$0] }
    }
    return all.enumerated().map { SweepCombination(index: $0.offset, values: $0.element) }
  }

  /// The combinations of shard `i` of `n` (0-based): every `n`-th, starting at `i`.
  public static func shard(_ all: [SweepCombination], index i: Int, of n: Int) -> [SweepCombination] {
    all.filter { $0.index % n == i }
  }

  /// The `--set`-style overrides of one combination.
  public static func overrides(_ c: SweepCombination, _ s: SweepSettings) -> [String] {
    zip(s.parameters, c.values).map { "\($0.path)=\($1)" }
  }
}
