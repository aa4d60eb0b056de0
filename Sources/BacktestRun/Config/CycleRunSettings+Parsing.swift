import BacktestCore
import Foundation

extension CycleRunSettings {
  static let stageNames = CycleStage.allCases.filter { $0 != .unknown }.map(\.rawValue)

  /// Reads the section; `nil` when the run file has none.
  static func read(_ table: ConfigTable, directory: String) throws -> CycleRunSettings? {
    guard let node = table.node("cycle") else { return nil }
    let t = try ConfigTable(node, path: "cycle")
    var files: [String]
    if let f = t.node("macro_file"), case .sequence(let items) = f.kind {
      files = try zip(t.stringList("macro_file", default: []), items).map { resolvePath($0, relativeTo: $1.location.pathBase) }
    } else if let f = try t.path("macro_file") {
      files = [f]
    } else {
      files = []
    }
    let filter = try t.choice("filter", ["true", "false"], default: "true")! == "true"
    if files.isEmpty {
      throw InputError("missing 'cycle.macro_file'; expected the path of a macro CSV (required for the cycle filter and stages)",
                       at: t.location)
    }
    var s = CycleSettings()
    s.trend = CycleSettings.Trend(rawValue: try t.choice("trend", ["trailing", "fixed"], default: "trailing")!)!
    s.trendWindowQuarters = try t.int("trend_window_quarters", default: 40, in: 1...10_000)!
    s.trendMinQuarters = try t.int("trend_min_quarters", default: 8, in: 1...s.trendWindowQuarters)!
    s.fixedTrendPct = try t.double("fixed_trend_pct", default: 3.0)!
    s.momentumQuarters = try t.int("momentum_quarters", default: 2, in: 1...10_000)!
    s.unemploymentRule = CycleSettings.UnemploymentRule(rawValue: try t.choice("unemployment_rule", ["require", "off"], default: "require")!)!
    s.unemploymentThresholdPP = try t.double("unemployment_threshold_pp", default: 0.5, where: { $0 > 0 }, expected: "a number > 0")!
    s.unemploymentLookbackQuarters = try t.int("unemployment_lookback_quarters", default: 4, in: 1...10_000)!
    s.maxStageAgeDays = try t.int("max_stage_age_days", default: 190, in: 0...1_000_000)!
    let lags = try t.table("release_lag_days")
    for series in MacroSeries.allCases {
      s.releaseLagDays[series] = try lags.int(series.rawValue, default: series.defaultReleaseLagDays, in: 0...10_000)!
    }
    try lags.finish()
    func stages(_ key: String, default fallback: [String]) throws -> Set<CycleStage> {
      var out: Set<CycleStage> = []
      for name in try t.stringList(key, default: fallback) {
        guard let stage = CycleStage(name: name), stage != .unknown else {
          let hint = closestMatch(to: name, in: stageNames).map { "; did you mean '\($0)'?" } ?? ""
          throw InputError("unknown stage '\(name)' in 'cycle.\(key)'\(hint); expected some of \(stageNames.joined(separator: ", "))",
                           at: t.node(key)!.location)
        }
        out.insert(stage)
      }
      return out
    }
    let buy = try stages("buy_stages", default: ["Expansion"])
    if buy.isEmpty {
      throw InputError("expected at least one stage in 'cycle.buy_stages'", at: t.node("buy_stages")!.location)
    }
    let exit = try stages("exit_stages", default: [])
    /// Where `key` names `stage`: its entry in the list, or the value when it is a single name.
    func location(of stage: CycleStage, in key: String) -> SourceLocation {
      let node = t.node(key)!
      guard case .sequence(let items) = node.kind else { return node.location }
      for item in items {
        if case .scalar(let text, _) = item.kind, CycleStage(name: text) == stage { return item.location }
      }
      return node.location
    }
    if let both = CycleStage.allCases.first(where: { buy.contains($0) && exit.contains($0) }) {
      throw InputError("stage '\(both.rawValue)' is in both 'cycle.buy_stages' and 'cycle.exit_stages'; expected exit stages that are not buy stages",
                       at: location(of: both, in: "exit_stages"))
    }
    try t.finish()
    return CycleRunSettings(macroFiles: files, classifier: s, filter: filter, buyStages: buy, exitStages: exit)
  }

  /// Loads and classifies the macro files.
  package func classify() throws -> [QuarterRow] { try load().rows }

  /// Loads the macro files and classifies them: the series as read and the quarters.
  package func load() throws -> (data: MacroData, rows: [QuarterRow]) { try load { try readInputFile($0) } }

  /// Loads the macro files, each read by `read` (which may record what it read), and classifies them.
  func load(reading read: (String) throws -> Data) throws -> (data: MacroData, rows: [QuarterRow]) {
    var data = MacroData()
    for file in macroFiles {
      try data.merge(try read(file).withUnsafeBytes { try MacroReader.read($0.bindMemory(to: UInt8.self), file: file) })
    }
    return (data, try CycleClassifier.classify(data, settings: classifier))
  }
}
