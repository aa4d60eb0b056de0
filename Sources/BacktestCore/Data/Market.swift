/// The bars a run trades: one asset, or several on one timeline.
///
/// The timeline holds every instant at which some asset has a bar; for one
/// asset it is that asset's bars, and the asset's bar at timeline bar `t` is `t`.
public struct Market: Sendable {
  /// Every instant at which some asset has a bar (labels from the first asset that has it).
  public let timeline: BarSeries
  /// Each asset's own bars.
  public let assets: [BarSeries]
  /// With several assets: asset `a`'s bar at timeline bar `t` (`-1` when it has none there).
  @usableFromInline let index: [ContiguousArray<Int>]

  /// One asset: the timeline is its bars.
  public init(bars: BarSeries) {
    self.init(timeline: bars, assets: [bars], index: [])
  }

  private init(timeline: BarSeries, assets: [BarSeries], index: [ContiguousArray<Int>]) {
    self.timeline = timeline
    self.assets = assets
    self.index = index
    isSingleAsset = index.isEmpty
  }

  /// Several assets merged on one timeline.
  public init(assets: [BarSeries]) {
    if assets.count == 1 {
      self.init(bars: assets[0])
      return
    }
    let timeline = Self.mergedTimeline(assets)
    let n = timeline.count
    var index = [ContiguousArray<Int>](repeating: ContiguousArray(repeating: -1, count: n), count: assets.count)
    for (a, asset) in assets.enumerated() {
      var k = 0
      for t in 0..<n {
        while k < asset.count && asset.time[k] < timeline.time[t] { k += 1 }
        if k < asset.count && asset.time[k] == timeline.time[t] { index[a][t] = k }
      }
    }
    self.init(timeline: timeline, assets: assets, index: index)
  }

  /// Whether every asset shares the timeline's bars (one asset).
  ///
  /// Stored, not read from `index`: the bar loop asks at every bar, and the array's count was not always inlined.
  public let isSingleAsset: Bool

  /// Asset `a`'s bar at timeline bar `t`, or `-1` when it has none there.
  @inlinable @inline(__always)
  public func bar(of a: Int, at t: Int) -> Int { isSingleAsset ? t : index[a][t] }

  /// Every instant at which some asset has a bar, in order, labelled as the first asset with that bar writes it.
  static func mergedTimeline(_ assets: [BarSeries]) -> BarSeries {
    var out = BarSeries(source: assets.map(\.source).joined(separator: ", "))
    out.isDateOnly = assets.allSatisfy(\.isDateOnly)
    var next = [Int](repeating: 0, count: assets.count)
    while true {
      var best: (time: Int64, asset: Int)?
      for (a, bars) in assets.enumerated() where next[a] < bars.count {
        let time = bars.time[next[a]]
        if best == nil || time < best!.time { best = (time, a) }
      }
      guard let (time, a) = best else { break }
      let bars = assets[a], k = next[a]
      out.append(time: time, day: bars.day[k], open: 0, high: 0, low: 0, close: 0, volume: 0, label: Array(bars.timeLabel(k).utf8))
      for (b, asset) in assets.enumerated() where next[b] < asset.count && asset.time[next[b]] == time { next[b] += 1 }
    }
    return out
  }
}
