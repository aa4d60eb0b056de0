import BacktestCore
import Foundation

/// `results.csv` and `sweep.md`.
package enum SweepReport {
  /// The summary keys of each record, in `results.csv`'s order.
  package static var metricKeys: [String] { SweepRanking.metricKeys }

  package static func header(_ s: SweepSettings) -> String {
    (s.parameters.map(\.name) + metricKeys + ["fingerprint"]).joined(separator: ",")
  }

  /// One CSV line, without its newline.
  package static func line(_ r: SweepRecord) -> String {
    var out = TextBuffer(capacity: 512)
    var first = true
    @inline(__always) func separate() {
      if !first { out.append(byte: UInt8(ascii: ",")) }
      first = false
    }
    for value in r.values {
      separate()
      out.append(csvField(value))
    }
    for (k, v) in r.metrics.enumerated() {
      separate()
      appendMetric(v, integer: integerMetric[k], to: &out)
    }
    separate()
    out.append(r.fingerprint)
    return out.string
  }

  /// A metric as a CSV field: an integer count as an integer, another number as `description` writes it, undefined empty.
  static func appendMetric(_ v: Double?, integer: Bool, to out: inout TextBuffer) {
    guard let v, v.isFinite else { return }
    if integer { out.append(integer: Int64(v)) } else { out.append(v) }
  }

  /// Whether each of `metricKeys` is an integer count.
  static let integerMetric = metricKeys.map { PerformanceSummary.integerKeys.contains($0) }

  /// Reads `results.csv`; a last line cut short by a kill is dropped (`complete` is then false).
  ///
  /// - Throws: `InputError` when the header does not match the sweep's columns or a line is malformed.
  package static func parse(_ text: String, file: String, settings: SweepSettings) throws -> (records: [SweepRecord], complete: Bool) {
    var lines = text.textLines.map(String.init)
    // No final line break: the last line was cut short.
    let complete = text.isEmpty || text.utf8.last == UInt8(ascii: "\n")
    if !complete { lines.removeLast() }
    guard let first = lines.first else { return ([], complete) }
    guard first == header(settings) else {
      throw InputError("the columns of results.csv differ from this sweep's (\(header(settings).prefix(60))…); expected the same parameters, or use --fresh or another --out",
                       at: SourceLocation(file: file, line: 1, column: 1))
    }
    let p = settings.parameters.count
    var records: [SweepRecord] = []
    for (k, line) in lines.dropFirst().enumerated() {
      let bytes = Array(line.utf8)
      var fields: [String] = []
      try bytes.withUnsafeBufferPointer { b in
        var scanner = CSVScanner(bytes: b, file: file)
        var raw: [CSVField] = []
        if try scanner.next(into: &raw) { fields = raw.map { scanner.text($0) } }
      }
      guard fields.count == p + metricKeys.count + 1 else {
        throw InputError("expected \(p + metricKeys.count + 1) fields, found \(fields.count)",
                         at: SourceLocation(file: file, line: k + 2, column: 1))
      }
      // Every value a sweep writes is a finite number or empty: `nan`, `inf` or text is a damaged line.
      var metrics: [Double?] = []
      for (j, text) in fields[p..<(p + metricKeys.count)].enumerated() {
        if text.isEmpty { metrics.append(nil); continue }
        guard text.utf8.allSatisfy({ (48...57).contains($0) || $0 == 45 || $0 == 43 || $0 == 46 || $0 == 101 || $0 == 69 }),
          let v = Double(text), v.isFinite else {
          throw InputError("expected a finite number or nothing for '\(metricKeys[j])', found '\(excerpt(text))'",
                           at: SourceLocation(file: file, line: k + 2, column: 1))
        }
        metrics.append(v)
      }
      records.append(SweepRecord(values: Array(fields[0..<p]), metrics: Array(metrics), fingerprint: fields[fields.count - 1]))
    }
    return (records, complete)
  }

  /// The whole file, records in plan order.
  package static func csv(_ records: [SweepRecord], settings: SweepSettings) -> String {
    ([header(settings)] + records.map(line)).joined(separator: "\n") + "\n"
  }

  /// `sweep.md`: the top combinations, the best one's metrics, and the sensitivity of the metric to each parameter.
  package static func markdown(_ records: [SweepRecord], settings: SweepSettings, title: String, total: Int) -> String {
    let ranked = SweepRanking.ranking(records, settings: settings)
    var md = "# Sweep: \(title)\n\n"
    md += "\(HumanFormat.integer(records.count)) of \(HumanFormat.integer(total)) combinations finished; "
    md += "\(HumanFormat.integer(ranked.count)) meet the constraints (min_trades \(settings.minTrades)); ranked by `\(settings.metric)` (higher is better).\n\n"
    let names = settings.parameters.map(\.name)
    let shown = ["total_trades", "win_rate", "total_return", "max_drawdown", "sharpe"].filter { $0 != settings.metric }
    md += "## Top \(min(settings.top, ranked.count))\n\n| # | " + names.joined(separator: " | ")
    md += " | **\(settings.metric)** | " + shown.joined(separator: " | ") + " |\n"
    md += "|---:|" + String(repeating: "---:|", count: names.count + 1 + shown.count) + "\n"
    for (k, r) in ranked.prefix(settings.top).enumerated() {
      md += "| \(k + 1) | " + r.values.joined(separator: " | ") + " | **\(formatMetric(r.metric(settings.metric)))** | "
      md += shown.map { key -> String in
        let v = r.metric(key)
        switch key {
        case "total_trades": return String(Int(v ?? 0))
        case "sharpe": return HumanFormat.ratio(v)
        default: return HumanFormat.percent(v)
        }
      }.joined(separator: " | ") + " |\n"
    }
    if let best = ranked.first {
      md += "\n## Best combination\n\n" + zip(names, best.values).map { "`\($0)` = \($1)" }.joined(separator: ", ") + "\n\n"
      md += "| Metric | Value |\n|---|---:|\n"
      for (key, value) in zip(metricKeys, best.metrics) { md += "| \(key) | \(formatMetric(value)) |\n" }
    } else {
      md += "\nNo combination meets the constraints.\n"
    }
    md += acrossSymbolsMarkdown(records, settings: settings)
    if settings.heatmap != nil { md += "\n![Heatmap of \(settings.metric)](heatmap.svg)\n" }
    md += "\n## Sensitivity\n\nThe ranking metric (`\(settings.metric)`) over the combinations that meet the constraints, per value of each parameter.\n"
    for (k, p) in settings.parameters.enumerated() {
      md += "\n### \(p.name)\n\n| value | combinations | mean | best |\n|---|---:|---:|---:|\n"
      // One pass over the ranking per parameter (a filter per value was values × records).
      var groups: [String: [Double]] = [:]
      for r in ranked { if let m = r.metric(settings.metric) { groups[r.values[k], default: []].append(m) } }
      for v in p.values {
        let group = groups[v] ?? []
        md += "| \(v) | \(group.count) | \(formatMetric(mean(group))) | \(formatMetric(group.max())) |\n"
      }
    }
    return md
  }

  /// A universe sweep's ranking across symbols (nothing for another sweep).
  static func acrossSymbolsMarkdown(_ records: [SweepRecord], settings: SweepSettings) -> String {
    let rows = SweepRanking.acrossSymbols(records, settings: settings)
    guard let best = rows.first else { return "" }
    let names = settings.parameters.dropFirst().map(\.name), symbols = settings.parameters[0].values.count
    var md = "\n## Across symbols\n\nEach combination's `\(settings.metric)` over the \(symbols) symbols (the rows that meet the constraints), "
    md += "those defined on every symbol first, then best mean: the robust choice is the first, not the best single row above.\n\n"
    md += "| # | " + names.joined(separator: " | ") + " | symbols | mean | median | worst |\n|---:|" + String(repeating: "---:|", count: names.count + 4) + "\n"
    for (k, r) in rows.prefix(settings.top).enumerated() {
      md += "| \(k + 1) | " + r.values.joined(separator: " | ") + " | \(r.symbols) | **\(formatMetric(r.mean))** | \(formatMetric(r.median)) | \(formatMetric(r.worst)) |\n"
    }
    if let sturdy = rows.max(by: { $0.worst < $1.worst }), sturdy.values != best.values {
      md += "\nThe best worst case: " + zip(names, sturdy.values).map { "`\($0)` = \($1)" }.joined(separator: ", ")
        + " (worst \(formatMetric(sturdy.worst)), mean \(formatMetric(sturdy.mean))).\n"
    }
    return md
  }

  /// The grid points `constraints.where` left out and the combinations skipped as invalid (with the first reasons).
  static func skippedMarkdown(settings: SweepSettings, skipped: [SweepRunner.Skipped]) -> String {
    var lines: [String] = []
    let constrained = SweepPlan.constrainedOut(settings)
    if constrained > 0, let c = settings.constraint {
      lines.append("\(HumanFormat.integer(constrained)) grid point\(constrained == 1 ? "" : "s") left out by `constraints.where: \(c.text)`.")
    }
    if !skipped.isEmpty {
      lines.append("\(HumanFormat.integer(skipped.count)) combination\(skipped.count == 1 ? "" : "s") skipped as invalid (a run file with their values is refused):")
      for s in skipped.prefix(5) {
        lines.append("- " + zip(settings.parameters.map(\.name), s.combination.values).map { "`\($0)` = \($1)" }.joined(separator: ", ") + ": " + s.reason)
      }
      if skipped.count > 5 { lines.append("- … and \(skipped.count - 5) more") }
    }
    return lines.joined(separator: "\n")
  }

  package static func formatMetric(_ x: Double?) -> String {
    guard let x, x.isFinite else { return "—" }
    return String(format: "%.4f", x)
  }
}

extension SweepReport {
  /// The report files of a finished sweep: `sweep.md`, and with two or more
  /// parameters `heatmap.svg` and `sweep.html`; with a validation split also
  /// `validation.csv` and `validation.svg` (and the comparison in both reports).
  package static func reportFiles(_ records: [SweepRecord], settings: SweepSettings, title: String, total: Int,
                                 validation: (rows: [ValidationRow], split: HoldoutSplit)? = nil,
                                 significance: @autoclosure () -> SweepSignificance? = nil,
                                 walkForward: (result: WalkForward.Result, bars: BarSeries)? = nil) -> [ReportFile] {
    // The charts first: `significance` is asked for last, so a caller can compute it meanwhile.
    var charts: [ReportFile] = []
    if let h = settings.heatmap {
      charts = [ReportFile(name: "heatmap.svg", contents: SweepCharts.heatmap(records, settings: settings, x: h.x, y: h.y) + "\n")]
    }
    var md = markdown(records, settings: settings, title: title, total: total)
    let significance = significance()
    if let significance { md += significance.markdown }
    if let h = settings.heatmap {
      charts.append(ReportFile(name: "sweep.html", contents: SweepCharts.html(records, settings: settings, title: title, total: total,
                                                                           x: h.x, y: h.y, validation: validation, significance: significance,
                                                                           walkForward: walkForward)))
    }
    var extra: [ReportFile] = []
    if let wf = walkForward {
      md += WalkForward.markdown(wf.result, settings: settings, bars: wf.bars)
      extra.append(ReportFile(name: "walkforward.csv", contents: WalkForward.csv(wf.result, settings: settings, bars: wf.bars)))
    }
    var files: [ReportFile] = []
    if let v = validation {
      md += SweepValidation.markdown(v.rows, settings: settings, split: v.split)
      files += [ReportFile(name: "validation.csv", contents: SweepValidation.csv(v.rows, settings: settings)),
                ReportFile(name: "validation.svg", contents: SweepValidation.chart(v.rows) + "\n")]
    }
    files.insert(ReportFile(name: "sweep.md", contents: md), at: 0)
    return files + extra + charts
  }
}

extension YAMLNode {
  /// A canonical one-line rendering (for fingerprints).
  package var canonicalText: String {
    switch kind {
    case .null: return "null"
    case .scalar(let s, let quoted): return quoted ? "\"" + s + "\"" : s
    case .sequence(let items): return "[" + items.map(\.canonicalText).joined(separator: ",") + "]"
    case .mapping(let entries): return "{" + entries.map { $0.key + ":" + $0.value.canonicalText }.joined(separator: ",") + "}"
    }
  }
}

/// What a sweep's study (`SweepReport.study`) reads besides its rows: the settings, the jobs that run a combination
/// again, the data and its holdout split, and what the sweep kept of its runs.
package struct SweepStudyInputs {
  package var settings: SweepSettings
  /// The jobs of the combinations the study may run again (the holdout's top, the significance tests' best, every
  /// combination for a walk-forward).
  package var jobs: [SweepJob]
  /// Every bar, with the holdout.
  package var data: SweepData
  /// The bars before the holdout (`SweepData.split`): the sweep's own, the walk-forward's and the significance tests'.
  package var inSample: SweepData
  /// The holdout's first bar, when there is one.
  package var outOfSampleStart: Int?
  package var initialCash: Double
  /// Threads for the walk-forward's runs.
  package var workers: Int
  /// The block sums the sweep kept of its runs, so that the significance tests need not run them again.
  package var known: ConcurrentSlots<BacktestOverfitting.BlockSums>?
  /// The best combinations' daily returns, as the sweep kept them.
  package var best: BestReturns?
  /// Combinations the plan left out or that could not run, with their reasons.
  package var skipped: [SweepRunner.Skipped]

  package init(settings: SweepSettings, jobs: [SweepJob], data: SweepData, split: (inSample: SweepData, outOfSampleStart: Int?),
               initialCash: Double, workers: Int, known: ConcurrentSlots<BacktestOverfitting.BlockSums>? = nil,
               best: BestReturns? = nil, skipped: [SweepRunner.Skipped] = []) {
    self.settings = settings
    self.jobs = jobs
    self.data = data
    (inSample, outOfSampleStart) = split
    self.initialCash = initialCash
    self.workers = workers
    self.known = known
    self.best = best
    self.skipped = skipped
  }
}

/// The sweep's own pipeline after its combinations ran: the holdout, walk-forward and significance, and every report.
extension SweepReport {
  /// What `study` makes: every report file (besides `results.csv` and `sweep.json`), with the figures a terminal
  /// shows: the significance tests and the chained walk-forward.
  package struct Study: Sendable {
    package var files: [ReportFile]
    package var significance: SweepSignificance?
    package var walkForward: WalkForward.Result?
    package var validation: [ValidationRow]
  }

  /// Every report of a sweep of `total` combinations with `records` finished: the holdout's out-of-sample runs of the
  /// top combinations over `inputs.data`, the walk-forward windows and the significance tests over `inputs.inSample`
  /// (on another core meanwhile).
  package static func study(_ records: [SweepRecord], _ inputs: SweepStudyInputs, title: String, total: Int) -> Study {
    let settings = inputs.settings, jobs = inputs.jobs
    let significance = OnOtherThread {
      SweepSignificance.evaluate(records, settings: settings, jobs: jobs, data: inputs.inSample, known: inputs.known, bestReturns: inputs.best)
    }
    let validation = inputs.outOfSampleStart.map { start in
      (rows: SweepValidation.evaluate(records, settings: settings, jobs: jobs, data: inputs.data, outOfSampleStart: start),
       split: settings.validation!)
    }
    let walkForward = settings.walkForward.map {
      (WalkForward.run($0, jobs: jobs, settings: settings, data: inputs.inSample, initialCash: inputs.initialCash, workers: inputs.workers),
       inputs.inSample.timeline)
    }
    var files = reportFiles(records, settings: settings, title: title, total: total, validation: validation,
                            significance: significance.value, walkForward: walkForward)
    // What the plan left out and what could not run, said where the counts are.
    let note = skippedMarkdown(settings: settings, skipped: inputs.skipped)
    if !note.isEmpty, let k = files.firstIndex(where: { $0.name == "sweep.md" }) {
      var text = files[k].contents
      // After the paragraph that counts the combinations (the second blank line).
      if let title = text.range(of: "\n\n"), let end = text.range(of: "\n\n", range: title.upperBound..<text.endIndex) {
        text.insert(contentsOf: "\n\n" + note, at: end.lowerBound)
      }
      files[k].contents = text
    }
    return Study(files: files, significance: significance.value, walkForward: walkForward?.0, validation: validation?.rows ?? [])
  }
}
