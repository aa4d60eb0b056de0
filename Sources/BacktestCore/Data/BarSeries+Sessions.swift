import Foundation

/// The part of each day whose bars a run keeps, in the data's time zone.
public enum SessionWindow: Sendable, Equatable, CustomStringConvertible {
  /// Every bar (24-hour markets such as FX).
  case all
  /// Bars stamped from `start` (inclusive) to `end` (exclusive), in minutes after midnight.
  case window(start: Int, end: Int)

  /// US equities' regular session, 09:30–16:00.
  public static let regular = SessionWindow.window(start: 570, end: 960)

  /// Parses `regular`, `all` or `HH:MM-HH:MM`.
  public init?(_ text: String) {
    switch text.lowercased() {
    case "all": self = .all
    case "regular": self = .regular
    default:
      let parts = text.split(separator: "-")
      guard parts.count == 2, let a = Self.minutes(parts[0]), let b = Self.minutes(parts[1]), a < b else { return nil }
      self = .window(start: a, end: b)
    }
  }

  static func minutes(_ s: Substring) -> Int? {
    let p = s.trimmingCharacters(in: .whitespaces).split(separator: ":")
    guard p.count == 2, p[0].count == 2, p[1].count == 2, let h = Int(p[0]), let m = Int(p[1]),
      (0...24).contains(h), (0..<60).contains(m), h * 60 + m <= 1440 else { return nil }
    return h * 60 + m
  }

  public var description: String {
    switch self {
    case .all: return "all"
    case .window(let a, let b):
      func twoDigits(_ v: Int) -> String { v < 10 ? "0\(v)" : String(v) }
      return "\(twoDigits(a / 60)):\(twoDigits(a % 60))-\(twoDigits(b / 60)):\(twoDigits(b % 60))"
    }
  }
}

/// A bar length to resample to.
public enum ResampleInterval: Sendable, Equatable, CustomStringConvertible {
  /// Buckets of this many minutes, aligned to the session's start (or midnight), never crossing a day.
  case minutes(Int)
  /// One bar per calendar day (`BarSeries.day`).
  case daily

  /// Parses `30min`, `15m`, `1h`, `2h`, `1d` or `daily`.
  public init?(_ text: String) {
    let t = text.lowercased()
    if t == "1d" || t == "daily" || t == "day" { self = .daily; return }
    for (suffix, scale) in [("min", 1), ("m", 1), ("h", 60)] where t.hasSuffix(suffix) {
      guard let n = Int(t.dropLast(suffix.count)), n > 0, n * scale <= 1440, 1440 % (n * scale) == 0 else { return nil }
      self = .minutes(n * scale)
      return
    }
    return nil
  }

  public var description: String {
    switch self {
    case .daily: return "1d"
    case .minutes(let m): return m % 60 == 0 ? "\(m / 60)h" : "\(m)min"
    }
  }
}

extension BarSeries {
  /// Returns the bars whose local time of day lies in `session`; date-only
  /// (daily) bars are all kept.
  public func filtered(session: SessionWindow, timeZone: TimeZone) -> BarSeries {
    guard case .window(let start, let end) = session, !isDateOnly else { return self }
    /// Whether the bar at `instant` starts inside the session.
    @Sendable func inside(_ instant: Int64, _ resolver: inout TimeZoneResolver) -> Bool {
      let local = instant + Int64(resolver.offset(at: instant))
      let minute = Int((local - Int64(CivilDate.day(ofSeconds: local)) * 86_400) / 60)
      return minute >= start && minute < end
    }
    // Most files hold only bars inside the session, which are kept as they are: that is
    // checked first, a part of the bars on each core when there are many.
    let time = self.time
    let parts = count >= 1 << 18 ? ProcessInfo.processInfo.activeProcessorCount : 1
    let allInside = ConcurrentSlots<Bool>(count: parts)
    runJobs(parts, workers: parts) { k in
      var resolver = TimeZoneResolver(timeZone)
      var all = true
      for i in (time.count * k / parts)..<(time.count * (k + 1) / parts) where !inside(time[i], &resolver) {
        all = false
        break
      }
      allInside.set(k, all)
    }
    if (0..<parts).allSatisfy(allInside.get) { return self }
    var resolver = TimeZoneResolver(timeZone)
    return filtered { inside(time[$0], &resolver) }
  }

  /// Aggregates bars into `interval` buckets: first open, highest high, lowest
  /// low, last close, summed volume.
  ///
  /// Intraday buckets are aligned to the session's start (or midnight) in
  /// local time and never cross a day, so a 09:30 session resampled to 1h
  /// gives 09:30, 10:30, …, 15:30 (the last one half an hour long). Each
  /// bucket is stamped with its start, written in ISO 8601 with the local
  /// offset (or as a date for daily buckets).
  public func resampled(to interval: ResampleInterval, session: SessionWindow, timeZone: TimeZone) -> BarSeries {
    var resolver = TimeZoneResolver(timeZone)
    var out = BarSeries(source: source, capacity: count)
    out.isDateOnly = interval == .daily
    let anchor: Int
    if case .window(let s, _) = session { anchor = s } else { anchor = 0 }
    var i = 0
    while i < count {
      let local = time[i] + Int64(resolver.offset(at: time[i]))
      let day = Int(day[i])
      let bucket: Int
      var bucketStartLocal: Int64
      switch interval {
      case .daily:
        bucket = 0
        bucketStartLocal = Int64(day) * 86_400
      case .minutes(let m):
        let minute = Int(local - Int64(CivilDate.day(ofSeconds: local)) * 86_400) / 60
        bucket = (minute - anchor >= 0 ? (minute - anchor) / m : (minute - anchor - m + 1) / m)
        bucketStartLocal = Int64(CivilDate.day(ofSeconds: local)) * 86_400 + Int64((anchor + bucket * m) * 60)
      }
      var j = i
      var high = self.high[i], low = self.low[i], volume = 0.0
      while j < count && Int(self.day[j]) == day {
        let lj = time[j] + Int64(resolver.offset(at: time[j]))
        if case .minutes(let m) = interval {
          let minute = Int(lj - Int64(CivilDate.day(ofSeconds: lj)) * 86_400) / 60
          let b = (minute - anchor >= 0 ? (minute - anchor) / m : (minute - anchor - m + 1) / m)
          if b != bucket { break }
        }
        high = max(high, self.high[j]); low = min(low, self.low[j]); volume += self.volume[j]
        j += 1
      }
      let label: String
      let instant: Int64
      if interval == .daily {
        label = CivilDate.isoDate(days: day)
        instant = resolver.instant(ofLocal: bucketStartLocal, after: nil) ?? time[i]
      } else {
        instant = resolver.instant(ofLocal: bucketStartLocal, after: out.time.last) ?? time[i]
        bucketStartLocal = instant + Int64(resolver.offset(at: instant))
        label = CivilDate.isoDateTime(seconds: instant, offset: Int(bucketStartLocal - instant))
      }
      out.append(time: max(instant, (out.time.last ?? .min) + 1), day: Int32(day), open: open[i], high: high, low: low,
                 close: close[j - 1], volume: volume, label: Array(label.utf8))
      i = j
    }
    return out
  }
}
