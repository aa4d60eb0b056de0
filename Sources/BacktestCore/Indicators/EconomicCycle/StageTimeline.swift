/// The point-in-time stage lookup (§6): at an instant `t`, the stage of the
/// latest released quarter with `availableAt <= t`, or `unknown` before the
/// first release or when that release is older than `maxStageAgeDays`.
package struct StageTimeline: Sendable {
  /// Released quarters in release order (one per release instant: the latest quarter).
  package let releases: [QuarterRow]
  package let maxAgeSeconds: Int64

  package init(rows: [QuarterRow], settings: CycleSettings) {
    maxAgeSeconds = Int64(settings.maxStageAgeDays) * 86_400
    let released = rows.filter { $0.availableAt != nil }
      .sorted { ($0.availableAt!, $0.quarter) < ($1.availableAt!, $1.quarter) }
    var kept: [QuarterRow] = []
    for row in released {
      if let last = kept.last, row.quarter < last.quarter { continue }  // an older quarter released later
      if let last = kept.last, last.availableAt == row.availableAt { kept[kept.count - 1] = row } else { kept.append(row) }
    }
    releases = kept
  }

  /// The row in force at `t` (ignoring staleness), if any.
  package func row(at t: Int64) -> QuarterRow? {
    var low = 0, high = releases.count
    while low < high {
      let mid = (low + high) / 2
      if releases[mid].availableAt! <= t { low = mid + 1 } else { high = mid }
    }
    return low == 0 ? nil : releases[low - 1]
  }

  /// The stage a bar stamped `t` may use.
  package func stage(at t: Int64) -> CycleStage {
    guard let r = row(at: t), t - r.availableAt! <= maxAgeSeconds else { return .unknown }
    return r.stage
  }

  /// The stage at each of `times` (increasing instants) in one forward pass.
  ///
  /// - Complexity: O(times + releases).
  package func stages(at times: ContiguousArray<Int64>) -> ContiguousArray<CycleStage> {
    var out = ContiguousArray<CycleStage>()
    out.reserveCapacity(times.count)
    var k = -1
    for t in times {
      while k + 1 < releases.count && releases[k + 1].availableAt! <= t { k += 1 }
      if k < 0 || t - releases[k].availableAt! > maxAgeSeconds { out.append(.unknown) } else { out.append(releases[k].stage) }
    }
    return out
  }
}

extension StageTimeline {
  /// A moment the stage in force changes: at a release, or when the last release goes stale.
  package struct Change: Sendable, Equatable {
    package var instant: Int64
    package var stage: CycleStage
    /// The quarter in force (nil when the change is to `unknown` by staleness).
    package var row: QuarterRow?
  }

  /// Every change of `stage(at:)` over time, in order.
  package var changes: [Change] {
    var out: [Change] = []
    var current = CycleStage.unknown
    for (k, r) in releases.enumerated() {
      if r.stage != current {
        out.append(Change(instant: r.availableAt!, stage: r.stage, row: r))
        current = r.stage
      }
      let staleAt = r.availableAt! + maxAgeSeconds + 1
      let next = k + 1 < releases.count ? releases[k + 1].availableAt! : .max
      if staleAt < next && current != .unknown {
        out.append(Change(instant: staleAt, stage: .unknown, row: nil))
        current = .unknown
      }
    }
    return out
  }
}
