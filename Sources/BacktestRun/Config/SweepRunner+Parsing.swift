import BacktestCore
import Foundation

/// Reading a sweep file: the base run configuration and one configuration per combination.
extension SweepRunner {
  /// Reads a sweep file: the base run configuration's YAML and the sweep section.
  ///
  /// Swept parameters are named by their key path, or by the short names the
  /// strategy (`strategy.type`, looked up in `catalog`) declares.
  package static func parse(_ text: String, file: String, overrides: [String] = [],
                           catalog: StrategyCatalog = BuiltInStrategies.catalog) throws -> (root: YAMLNode, settings: SweepSettings) {
    var root = try YAMLReader.parse(text, file: file)
    for (k, o) in overrides.enumerated() { root = try RunConfig.applyOverride(o, index: k, to: root, catalog: catalog) }
    guard case .mapping(var entries) = root.kind, let at = entries.firstIndex(where: { $0.key == "sweep" }) else {
      throw InputError("no 'sweep:' section; expected sweep.parameters with the values to try", at: root.location)
    }
    var settings = try SweepSettings.read(entries[at].value, strategy: try strategyParameters(root, catalog: catalog))
    // A universe adds the symbol as the first axis: each combination runs on each symbol's bars.
    if !PortfolioRunConfig.isPortfolio(root, catalog: catalog) {
      let universe = try RunConfig.universe(in: try ConfigTable(root, path: "").table("data"))
      if !universe.isEmpty {
        let sweep = try ConfigTable(entries[at].value, path: "sweep")
        if let node = sweep.node("validation") {
          throw InputError("sweep.validation over data.universe is not supported: each symbol has bars of its own to split; "
                           + "validate the chosen combination on each symbol with --set data.bars=FILE", at: node.location)
        }
        if let clash = settings.parameters.first(where: { $0.name == "symbol" }) {
          throw InputError("'symbol' names the universe's symbols in a universe sweep; expected another name than '\(clash.path)'", at: sweep.location)
        }
        settings.parameters.insert(SweepSettings.Parameter(name: "symbol", path: SweepSettings.symbolPath, values: universe.map(\.symbol)), at: 0)
        settings.heatmap = settings.heatmap.map { ($0.x + 1, $0.y + 1) }
        settings.constraint = settings.constraint?.shifted(by: 1)
      }
    }
    entries.remove(at: at)
    return (YAMLNode(.mapping(entries), at: root.location), settings)
  }

  /// The declared parameters of the strategy a run file names (none when it names none: the run file's own check reports that),
  /// with those the run file declares itself (a rule's `params`) when its strategy section reads.
  static func strategyParameters(_ root: YAMLNode, catalog: StrategyCatalog) throws -> [ParameterInfo] {
    let table = try ConfigTable(root, path: "").table("strategy")
    guard let name = try table.string("type") else { return [] }
    if let allocation = catalog.allocation(named: name) {
      return (try? allocation.declared(table)) ?? allocation.parameters
    }
    guard let entry = catalog.entry(named: name) else {
      _ = try catalog.configure(table)  // reports the unknown type with a suggestion
      return []
    }
    // A bad section is reported later, by the run file's own check, after the sweep section's errors.
    return (try? catalog.configure(table))?.parameterInfo ?? entry.parameters
  }

  /// Builds each combination's configuration, checking every value as a run file would; the first invalid one is
  /// an error.
  package static func jobs(root: YAMLNode, file: String, settings: SweepSettings, combinations: [SweepCombination],
                          catalog: StrategyCatalog = BuiltInStrategies.catalog) throws -> [SweepJob] {
    try jobs(root: root, file: file, settings: settings, combinations: combinations, catalog: catalog, skippingInvalid: false).jobs
  }

  /// Builds each combination's configuration; with `skippingInvalid`, a combination whose values are each valid but
  /// do not go together (`fast` not below `slow`, `top` above the assets, weights above 100%) is skipped with its
  /// reason instead of stopping the sweep. A value outside its own range, and the base settings' errors, are errors.
  package static func jobs(root: YAMLNode, file: String, settings: SweepSettings, combinations: [SweepCombination],
                          catalog: StrategyCatalog = BuiltInStrategies.catalog,
                          skippingInvalid: Bool) throws -> (jobs: [SweepJob], skipped: [Skipped]) {
    var skipped: [Skipped] = []
    // One combination's job, or (skipping) nil with its reason kept.
    func each(_ c: SweepCombination, _ make: () throws -> SweepJob) throws -> SweepJob? {
      guard skippingInvalid else { return try make() }
      do { return try make() } catch let error as InputError where error.isConflict {
        skipped.append(Skipped(combination: c, reason: error.message))
        return nil
      }
    }
    let jobs = try buildJobs(root: root, file: file, settings: settings, combinations: combinations, catalog: catalog, each: each)
    return (jobs, skipped)
  }

  private static func buildJobs(root: YAMLNode, file: String, settings: SweepSettings, combinations: [SweepCombination],
                                catalog: StrategyCatalog,
                                each: (SweepCombination, () throws -> SweepJob) throws -> SweepJob?) throws -> [SweepJob] {
    if PortfolioRunConfig.isPortfolio(root, catalog: catalog) {
      _ = try PortfolioRunConfig.parse(document: root, file: file, catalog: catalog)  // the base settings' errors first
      var overrides: [String: ConfigOverride] = [:]
      return try combinations.compactMap { c in
        try each(c) {
          var node = root
          for text in SweepPlan.overrides(c, settings) {
            let override = try overrides[text] ?? ConfigOverride(text)
            overrides[text] = override
            node = try override.apply(to: node)
          }
          return SweepJob(combination: c, run: .portfolio(try PortfolioRunConfig.parse(document: node, file: file, catalog: catalog)))
        }
      }
    }
    let base = try RunConfig.parse(document: root, file: file, catalog: catalog)
    if base.data.intrabar != nil {
      throw InputError("sweeps do not settle exits with finer intrabar bars yet; remove data.intrabar, "
                       + "or run single combinations with backtest run", at: root.location)
    }
    // When only strategy parameters vary, only the strategy section needs reading per combination.
    let strategyOnly = settings.parameters.allSatisfy { $0.path.hasPrefix("strategy.") || $0.path == SweepSettings.symbolPath }
    // A universe's combinations run on the symbol their first value names.
    let symbols = base.universe.map(\.symbol)
    func job(_ c: SweepCombination, _ config: RunConfig) -> SweepJob {
      guard settings.overUniverse, let k = symbols.firstIndex(of: c.values[0]) else { return SweepJob(combination: c, config: config) }
      var job = SweepJob(combination: c, config: config.member(k))
      job.member = k
      return job
    }
    guard case .mapping(let entries) = root.kind else { return [] }
    let strategyNode = entries.first { $0.key == "strategy" }?.value ?? YAMLNode(.null, at: root.location)
    // Each parameter value's override is read once (a grid repeats each many times).
    var overrides: [String: ConfigOverride] = [:]
    return try combinations.compactMap { c in
      try each(c) {
        var node = strategyOnly ? YAMLNode(.mapping([YAMLEntry(key: "strategy", keyLocation: root.location, value: strategyNode)]), at: root.location) : root
        for text in SweepPlan.overrides(c, settings) {
          let override = try overrides[text] ?? ConfigOverride(text)
          overrides[text] = override
          node = try override.apply(to: node)
        }
        if strategyOnly {
          var config = base
          let table = try ConfigTable(node, path: "").table("strategy")
          table.dataTimeZone = base.data.timeZone
          config.strategy = try catalog.configure(table)
          try RunConfig.checkSizing(config.broker.sizing, config.strategy, at: table.node("stop_loss")?.location ?? table.location)
          return job(c, config)
        }
        return job(c, try RunConfig.parse(document: node, file: file, catalog: catalog))
      }
    }
  }
}
