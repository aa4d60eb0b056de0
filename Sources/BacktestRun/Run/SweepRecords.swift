import BacktestCore
import Foundation

/// One finished combination as `results.csv` holds it.
package struct SweepRecord: Sendable, Equatable {
  package var values: [String]
  /// Summary values in `PerformanceSummary.fields` order (`nil` = null).
  package var metrics: [Double?]
  package var fingerprint: String

  package init(values: [String], metrics: [Double?], fingerprint: String) {
    self.values = values
    self.metrics = metrics
    self.fingerprint = fingerprint
  }

  package var key: String { values.joined(separator: "\u{1F}") }

  package func metric(_ name: String) -> Double? {
    SweepRanking.metricIndex[name].flatMap { metrics[$0] }
  }
}

/// How a sweep's records rank: the metric, the constraints, plan order.
package enum SweepRanking {
  /// The summary keys a record holds, in `PerformanceSummary.fields` order.
  package static let metricKeys = PerformanceSummary().fields.map(\.key)
  /// Each of `metricKeys`' position.
  static let metricIndex = Dictionary(uniqueKeysWithValues: metricKeys.enumerated().map { ($1, $0) })

  /// The record of combination `c` with its summary.
  package static func record(_ c: SweepCombination, _ summary: PerformanceSummary, fingerprint: String) -> SweepRecord {
    SweepRecord(values: c.values, metrics: summary.fields.map(\.value), fingerprint: fingerprint)
  }

  /// Records meeting the constraints, best first by the metric (undefined last, then plan order).
  package static func ranking(_ records: [SweepRecord], settings: SweepSettings) -> [SweepRecord] {
    // Each record's metric is looked up once, not at every comparison.
    let eligible = records.indices.filter { isEligible(trades: records[$0].metric("total_trades"), settings: settings) }
    let values = eligible.map { records[$0].metric(settings.metric) }
    return eligible.indices.sorted { a, b in ranksBefore(values[a], eligible[a], values[b], eligible[b]) }.map { records[eligible[$0]] }
  }

  /// Whether a combination with `trades` trades meets the constraints.
  package static func isEligible(trades: Double?, settings: SweepSettings) -> Bool {
    (trades ?? 0) >= Double(settings.minTrades)
  }

  /// Whether metric value `x` of the combination at plan position `i` ranks
  /// before `y` at `j`: higher first, undefined last, then plan order.
  package static func ranksBefore(_ x: Double?, _ i: Int, _ y: Double?, _ j: Int) -> Bool {
    // A value that is not a number ranks as undefined (NaN would break the order).
    let x = x.flatMap { $0.isNaN ? nil : $0 }, y = y.flatMap { $0.isNaN ? nil : $0 }
    switch (x, y) {
    case (let x?, let y?) where x != y: return x > y
    case (_?, nil): return true
    case (nil, _?): return false
    default: return i < j
    }
  }
}

/// A universe sweep's combination over its symbols: the ranking metric's mean, median and worst over the symbols
/// whose row meets the constraints and defines it.
package struct AcrossSymbols: Sendable, Equatable {
  /// The combination's values without the symbol.
  package var values: [String]
  package var symbols: Int
  package var mean: Double
  package var median: Double
  package var worst: Double
}

extension SweepRanking {
  /// A universe sweep's combinations ranked across symbols: those with the metric on every symbol first, then by the
  /// highest mean (then median, then worst, then plan order): the choice that does well on every symbol, not on one.
  package static func acrossSymbols(_ records: [SweepRecord], settings: SweepSettings) -> [AcrossSymbols] {
    guard settings.overUniverse else { return [] }
    var order: [[String]] = [], values: [[String]: [Double]] = [:]
    for r in records {
      let key = Array(r.values.dropFirst())
      if values[key] == nil { order.append(key); values[key] = [] }
      guard isEligible(trades: r.metric("total_trades"), settings: settings), let v = r.metric(settings.metric), v.isFinite else { continue }
      values[key]!.append(v)
    }
    let rows = order.compactMap { key -> AcrossSymbols? in
      let v = values[key]!.sorted()
      guard !v.isEmpty else { return nil }
      let n = v.count
      return AcrossSymbols(values: key, symbols: n, mean: v.reduce(0, +) / Double(n),
                           median: n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, worst: v[0])
    }
    return rows.enumerated().sorted { a, b in
      let (x, y) = (a.element, b.element)
      if x.symbols != y.symbols { return x.symbols > y.symbols }
      if x.mean != y.mean { return x.mean > y.mean }
      if x.median != y.median { return x.median > y.median }
      if x.worst != y.worst { return x.worst > y.worst }
      return a.offset < b.offset
    }.map(\.element)
  }
}
