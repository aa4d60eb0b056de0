import Foundation

/// A holdout split of a sweep: rank on the in-sample bars, then run the best
/// combinations unchanged on the out-of-sample bars that follow.
public struct HoldoutSplit: Sendable, Equatable {
  public enum Point: Sendable, Equatable {
    /// The first out-of-sample day (days since 1970).
    case date(Int)
    /// The in-sample share of the bars (0.7 = the first 70%).
    case fraction(Double)
  }
  public var point: Point

  /// Reads `validation: {mode: holdout, split: 2012-01-01 | 0.7}`.
  static func read(_ node: YAMLNode) throws -> HoldoutSplit {
    let t = try ConfigTable(node, path: "sweep.validation")
    _ = try t.choice("mode", ["holdout"], default: "holdout")
    for key in ["anchored", "account"] where t.contains(key) {
      throw InputError("'sweep.validation.\(key)' applies to mode: walk_forward only (a holdout has one training and one test part)",
                       at: t.node(key)!.location)
    }
    guard let text = try t.string("split") else {
      throw InputError("expected 'split' (a date like 2012-01-01 or an in-sample fraction like 0.7) in 'sweep.validation'", at: t.location)
    }
    let point: Point
    if let d = parseDate(text) {
      point = .date(d)
    } else if let f = Double(text), f > 0, f < 1 {
      point = .fraction(f)
    } else {
      throw InputError("expected a date YYYY-MM-DD or a fraction between 0 and 1 for 'sweep.validation.split', found '\(text)'",
                       at: t.node("split")!.location)
    }
    try t.finish()
    return HoldoutSplit(point: point)
  }

  /// The index of the first out-of-sample bar; `nil` when a side would be empty.
  public func index(in bars: BarSeries) -> Int? {
    let k: Int
    switch point {
    case .date(let d): k = bars.day.firstIndex { Int($0) >= d } ?? bars.count
    case .fraction(let f): k = Int((Double(bars.count) * f).rounded())
    }
    return k > 0 && k < bars.count ? k : nil
  }

  public var description: String {
    switch point {
    case .date(let d): return "in-sample before \(CivilDate.isoDate(days: d)), out-of-sample from it"
    case .fraction(let f): return "in-sample the first \(formatPercentPlain(f)) of the bars, out-of-sample the rest"
    }
  }
}

/// In-sample against out-of-sample results of the top combinations.
public struct ValidationRow: Sendable {
  public var values: [String]
  public var inSample: SweepRecord
  public var outOfSample: PerformanceSummary
}

public enum SweepValidation {
  /// Runs the top `settings.top` in-sample combinations on the out-of-sample bars, `bars` from `start` on:
  /// a fresh account there, indicators computed over all of `bars` (the in-sample bars warm them).
  public static func evaluate(_ records: [SweepRecord], settings: SweepSettings, jobs: [SweepJob], bars: BarSeries,
                              outOfSampleStart start: Int) -> [ValidationRow] {
    let ranked = SweepReport.ranking(records, settings: settings).prefix(settings.top)
    let byValues = Dictionary(uniqueKeysWithValues: jobs.map { ($0.combination.values, $0) })
    let outOfSample = bars.filtered { $0 >= start }
    return ranked.compactMap { r in
      guard let job = byValues[r.values] else { return nil }
      let run = job.config.strategy.run(bars: bars, broker: job.config.broker, trading: start..<bars.count)
      return ValidationRow(values: r.values, inSample: r, outOfSample: PerformanceSummary(result: run.result, bars: outOfSample))
    }
  }

  public static let columns = ["total_return", "cagr", "max_drawdown", "sharpe", "total_trades", "win_rate"]

  public static func csv(_ rows: [ValidationRow], settings: SweepSettings) -> String {
    var out = (["rank"] + settings.parameters.map(\.name) + columns.map { "is_" + $0 } + columns.map { "oos_" + $0 }).joined(separator: ",") + "\n"
    for (k, row) in rows.enumerated() {
      let oos = Dictionary(uniqueKeysWithValues: row.outOfSample.fields.map { ($0.key, $0.value) })
      func text(_ key: String, _ v: Double?) -> String {
        guard let v else { return "" }
        return PerformanceSummary.integerKeys.contains(key) ? String(Int(v)) : v.description
      }
      let cells = [String(k + 1)] + row.values + columns.map { text($0, row.inSample.metric($0)) } + columns.map { text($0, oos[$0] ?? nil) }
      out += cells.joined(separator: ",") + "\n"
    }
    return out
  }

  /// A Markdown/HTML-ready table and an SVG chart of in-sample against out-of-sample Sharpe per rank.
  public static func markdown(_ rows: [ValidationRow], settings: SweepSettings, split: HoldoutSplit) -> String {
    var md = "\n## In-sample against out-of-sample\n\nHoldout: \(split.description). The top combinations in-sample, run unchanged out-of-sample "
    md += "(a fresh account from the first out-of-sample bar; the in-sample bars warm the indicators).\n\n"
    md += "![In-sample against out-of-sample](validation.svg)\n\n"
    md += "| # | " + settings.parameters.map(\.name).joined(separator: " | ") + " | IS sharpe | OOS sharpe | IS return | OOS return | IS max DD | OOS max DD | OOS trades |\n"
    md += "|---:|" + String(repeating: "---:|", count: settings.parameters.count + 7) + "\n"
    for (k, r) in rows.enumerated() {
      let o = r.outOfSample
      md += "| \(k + 1) | " + r.values.joined(separator: " | ")
      md += " | \(HumanFormat.ratio(r.inSample.metric("sharpe"))) | \(HumanFormat.ratio(o.sharpe)) | \(HumanFormat.percent(r.inSample.metric("total_return"))) | "
      md += "\(HumanFormat.percent(o.totalReturn)) | \(HumanFormat.percent(r.inSample.metric("max_drawdown"))) | \(HumanFormat.percent(o.maxDrawdown)) | \(o.totalTrades) |\n"
    }
    return md
  }

  public static func chart(_ rows: [ValidationRow]) -> String {
    let width = 700.0, height = 260.0, left = 60.0, right = 20.0, top = 40.0, bottom = 220.0
    let values = rows.flatMap { [$0.inSample.metric("sharpe"), $0.outOfSample.sharpe] }.compactMap { $0 }
    let lo = min(0, values.min() ?? 0), hi = max(0.1, values.max() ?? 1)
    var svg = SVGBuilder()
    let c = SVGBuilder.coordinate
    svg.raw("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(c(width)) \(c(height))\" width=\"\(c(width))\" height=\"\(c(height))\" id=\"validation\">")
    svg.raw("<title>Sharpe in-sample and out-of-sample by in-sample rank</title>" + RunCharts.style)
    svg.rect(x: 0, y: 0, width: width, height: height, attributes: "class=\"bg\"")
    svg.label("Sharpe by in-sample rank: in-sample (blue) and out-of-sample (orange)", x: left, y: 20, attributes: "class=\"title\"")
    func y(_ v: Double) -> Double { bottom - (v - lo) / (hi - lo) * (bottom - top) }
    for v in niceTicks(low: lo, high: hi) {
      svg.line(left, y(v), width - right, y(v), attributes: "class=\"grid\"")
      svg.label(String(format: "%.2f", v), x: left - 6, y: y(v) + 4, attributes: "class=\"label\" text-anchor=\"end\"")
    }
    svg.line(left, y(0), width - right, y(0), attributes: "class=\"axis\"")
    let slot = (width - left - right) / Double(max(1, rows.count))
    for (k, r) in rows.enumerated() {
      let x = left + slot * Double(k)
      for (j, (v, color)) in [(r.inSample.metric("sharpe"), "#0071E3"), (r.outOfSample.sharpe, "#FF9500")].enumerated() {
        guard let v else { continue }
        let y0 = y(0), y1 = y(v)
        svg.rect(x: x + slot * (0.15 + 0.35 * Double(j)), y: min(y0, y1), width: slot * 0.33, height: abs(y1 - y0),
                 attributes: "fill=\"\(color)\" data-rank=\"\(k + 1)\" data-\(j == 0 ? "is" : "oos")=\"\(v)\"")
      }
      svg.label(String(k + 1), x: x + slot / 2, y: bottom + 16, attributes: "class=\"label\" text-anchor=\"middle\"")
    }
    svg.raw("</svg>")
    return svg.text
  }
}

/// The significance of a sweep's best combination (probabilistic and deflated Sharpe ratios).
public struct SweepSignificance: Sendable {
  public var trials: Int
  public var observations: Int
  /// Per-day Sharpe ratio of the best combination, and the variance of the per-day Sharpe ratios across trials.
  public var sharpe: Double
  public var variance: Double
  public var skewness: Double
  public var kurtosis: Double
  public var expectedMaximum: Double
  public var psr: Double
  public var dsr: Double
  /// The probability of backtest overfitting over every combination's daily returns (up to 2,000 combinations).
  public var overfitting: BacktestOverfitting.Result?

  /// The tests over the combinations' daily returns: the best one's from
  /// `bestReturns` (as `SweepRunner.run` keeps them) or run again, the block
  /// sums of the others from `known` (by plan index, as `SweepRunner.run` keeps
  /// them) or from running them again; `nil` without a best or enough days.
  public static func evaluate(_ records: [SweepRecord], settings: SweepSettings, jobs: [SweepJob], bars: BarSeries,
                              dividends: [Dividend] = [], known: ConcurrentSlots<BacktestOverfitting.BlockSums>? = nil,
                              bestReturns: BestReturns? = nil) -> SweepSignificance? {
    let sharpes = records.compactMap { $0.metric("sharpe") }.map { $0 / 252.0.squareRoot() }
    guard let best = SweepReport.ranking(records, settings: settings).first, sharpes.count > 1,
      let job = jobs.first(where: { $0.combination.values == best.values }) else { return nil }
    let daily = bestReturns?.returns(of: best.values) ?? SweepRunner.dailyReturns(of: job, bars: bars, cycle: nil, dividends: dividends)
    var overfitting: BacktestOverfitting.Result?
    if jobs.count <= 2000 {
      let all = ConcurrentSlots<BacktestOverfitting.BlockSums>(count: jobs.count)
      DispatchQueue.concurrentPerform(iterations: jobs.count) { k in
        all.set(k, known?.peek(jobs[k].combination.index)
          ?? BacktestOverfitting.BlockSums(returns: SweepRunner.dailyReturns(of: jobs[k], bars: bars, cycle: nil, dividends: dividends)))
      }
      overfitting = BacktestOverfitting.pbo((0..<jobs.count).map { all.get($0) })
    }
    return SweepSignificance(bestReturns: daily, trialSharpes: sharpes, trials: records.count, overfitting: overfitting)
  }

  public var markdown: String {
    var md = "\n## Is the best combination believable?\n\n"
    md += "Probabilistic Sharpe ratio (probability that the true Sharpe exceeds 0): **\(String(format: "%.3f", psr))**. "
    md += "Deflated Sharpe ratio (the same against the best Sharpe expected from \(trials) trials with no skill, "
    md += "\(String(format: "%.3f", expectedMaximum * 252.0.squareRoot())) annualized): **\(String(format: "%.3f", dsr))**. "
    md += "Inputs: \(observations) daily returns of the best combination, skewness \(String(format: "%.2f", skewness)), kurtosis \(String(format: "%.2f", kurtosis)), "
    md += "variance of the trials' daily Sharpe ratios \(String(format: "%.3g", variance)). "
    md += "Bailey & López de Prado (2012, 2014); below 0.95 the winner may be luck of the search.\n"
    if let o = overfitting {
      md += "\nProbability of backtest overfitting (combinatorially symmetric cross-validation over \(o.blocks) blocks of days, \(o.logits.count) splits): "
      md += "**\(String(format: "%.2f", o.probability))**, the share of splits where the in-sample best combination ranks at or below the median out of sample "
      md += "(Bailey, Borwein, López de Prado & Zhu 2017; near 0.5 or above: the ranking carries no information).\n"
    }
    return md
  }
}

extension SweepSignificance {
  /// The tests from the best combination's daily returns and every trial's per-day Sharpe ratio (those
  /// defined; `trials` counts them all); `nil` for fewer than two Sharpe ratios or three days, or no deviation.
  init?(bestReturns daily: [Double], trialSharpes sharpes: [Double], trials: Int, overfitting: BacktestOverfitting.Result?) {
    guard sharpes.count > 1, let sd = sampleDeviation(daily), sd > 0, let m = mean(daily), let moments = SharpeSignificance.moments(daily),
      let variance = sampleDeviation(sharpes).map({ $0 * $0 }) else { return nil }
    let sr = m / sd
    let benchmark = SharpeSignificance.expectedMaximum(trials: trials, variance: variance)
    self.init(
      trials: trials, observations: daily.count, sharpe: sr, variance: variance, skewness: moments.skewness, kurtosis: moments.kurtosis,
      expectedMaximum: benchmark,
      psr: SharpeSignificance.probabilistic(sharpe: sr, benchmark: 0, observations: daily.count, skewness: moments.skewness, kurtosis: moments.kurtosis),
      dsr: SharpeSignificance.probabilistic(sharpe: sr, benchmark: benchmark, observations: daily.count, skewness: moments.skewness, kurtosis: moments.kurtosis),
      overfitting: overfitting)
  }
}
