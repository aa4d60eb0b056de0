import Foundation

/// A timestamp as written in a data file, before time-zone resolution.
package enum WrittenTimestamp: Equatable, Sendable {
  /// `2024-01-02`: a calendar day (days since 1970-01-01).
  case date(days: Int)
  /// `2024-01-02T09:30:00`: a wall-clock time with no zone, as seconds since
  /// 1970-01-01T00:00 of that wall clock.
  case local(seconds: Int64)
  /// `2024-01-02T09:30:00-05:00` or `…Z`: an instant and the offset written with it.
  case zoned(instant: Int64, offset: Int)
  /// `1704205800` (seconds) or `1704205800000` (milliseconds, 12 digits or more).
  case epoch(instant: Int64)
}

extension WrittenTimestamp {
  /// Reads a time as people write one (`2024-11-13`, `2024-11-13 10:00`,
  /// with an offset, epoch seconds); `nil` for anything else.
  package init?(_ text: String) {
    let bytes = Array(text.utf8)
    guard let t = bytes.withUnsafeBufferPointer({ parseTimestamp($0, 0, bytes.count) }) else { return nil }
    self = t
  }

  /// Seconds since 1970 to order times by: the instant when it names one, a
  /// wall-clock time or a day's midnight read as UTC.
  package var secondsForOrdering: Int64 {
    switch self {
    case .zoned(let t, _), .epoch(let t): return t
    case .local(let s): return s
    case .date(let d): return Int64(d) * 86_400
    }
  }

  /// Whether it names an instant by itself (an offset or epoch), not a wall-clock time or date.
  package var isZoned: Bool {
    switch self {
    case .zoned, .epoch: return true
    case .date, .local: return false
    }
  }
}

extension WrittenTimestamp {
  /// What a time a user writes (`journal --time`, a position's `entry_time`) must be.
  package static let userTimeExpected =
    "an ISO 8601 date or date-time from the year 1 to 9999, such as 2024-11-13 or 2024-11-13T15:30:00-05:00"

  /// Reads a time a user writes: an ISO 8601 date or date-time (a real calendar
  /// day of a year from 1 to 9999, optionally with a time and an offset); `nil`
  /// for anything else: epoch numbers, spaces around it, `2024-02-30`, `10000-01-01`, `not a time`.
  package init?(userTime text: String) {
    guard text.first != " ", text.last != " ", let t = WrittenTimestamp(text), !t.isEpoch, !text.hasPrefix("0000") else { return nil }
    self = t
  }

  var isEpoch: Bool { if case .epoch = self { true } else { false } }
}

/// Parses a timestamp from bytes.
///
/// Accepted: ISO 8601 `YYYY-MM-DD`, optionally followed by `T` or a space and
/// `HH:MM[:SS[.fff]]`, optionally followed by `Z`, `±HH:MM`, `±HHMM` or `±HH`;
/// or epoch seconds (9 to 11 digits) or milliseconds (12 or more). A fraction
/// of a second must be zero (bars are resolved to whole seconds). Epoch values
/// beyond the year 9999 are refused.
///
/// - Returns: `nil` when the text is none of these or a field is out of range.
package func parseTimestamp(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> WrittenTimestamp? {
  var s = start, e = end
  while s < e && b[s] == 0x20 { s += 1 }
  while e > s && b[e - 1] == 0x20 { e -= 1 }
  let count = e - s
  if count >= 9, let value = parseUnsigned(b, s, e) {
    let seconds = count >= 12 ? Int64(value / 1000) : Int64(value)
    // Up to 9999-12-31T23:59:59Z, like the ISO forms; beyond is surely not a bar time.
    return seconds <= 253_402_300_799 ? .epoch(instant: seconds) : nil
  }
  @inline(__always) func digits(_ at: Int, _ n: Int) -> Int? {
    at + n <= e ? parseUnsigned(b, at, at + n) : nil
  }
  guard count >= 10, let year = digits(s, 4), b[s + 4] == UInt8(ascii: "-"),
    let month = digits(s + 5, 2), b[s + 7] == UInt8(ascii: "-"), let day = digits(s + 8, 2),
    TimestampFields.isDate(year: year, month: month, day: day)
  else { return nil }
  let days = CivilDate.days(year: year, month: month, day: day)
  var i = s + 10
  if i == e { return .date(days: days) }
  guard b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: " ") else { return nil }
  i += 1
  guard let hour = digits(i, 2), i + 2 < e, b[i + 2] == UInt8(ascii: ":"), let minute = digits(i + 3, 2) else { return nil }
  i += 5
  var second = 0
  if i < e && b[i] == UInt8(ascii: ":") {
    guard let sec = digits(i + 1, 2) else { return nil }
    second = sec
    i += 3
    if i < e && (b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",")) {
      i += 1
      let fractionStart = i
      while i < e, b[i] &- 0x30 < 10 {
        if b[i] != UInt8(ascii: "0") { return nil }
        i += 1
      }
      if i == fractionStart { return nil }
    }
  }
  guard TimestampFields.isClock(hour: hour, minute: minute, second: second) else { return nil }
  let local = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
  if i == e { return .local(seconds: local) }
  if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
    return i + 1 == e ? .zoned(instant: local, offset: 0) : nil
  }
  guard b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") else { return nil }
  let negative = b[i] == UInt8(ascii: "-")
  i += 1
  guard let offsetHours = digits(i, 2) else { return nil }
  i += 2
  var offsetMinutes = 0
  if i < e {
    if b[i] == UInt8(ascii: ":") { i += 1 }
    guard let m = digits(i, 2), i + 2 == e else { return nil }
    offsetMinutes = m
  }
  guard let offset = TimestampFields.offset(negative: negative, hours: offsetHours, minutes: offsetMinutes) else { return nil }
  return .zoned(instant: local - Int64(offset), offset: offset)
}

/// The ranges every written timestamp is held to: `parseTimestamp` and the CSV
/// reader's fixed-layout fast path (`BarCSVReader.zonedTimestamp`) both check them here.
enum TimestampFields {
  @inline(__always)
  static func isDate(year: Int, month: Int, day: Int) -> Bool {
    (1...12).contains(month) && day >= 1 && day <= CivilDate.daysInMonth(year: year, month: month)
  }

  @inline(__always)
  static func isClock(hour: Int, minute: Int, second: Int) -> Bool { hour < 24 && minute < 60 && second < 60 }

  /// The UTC offset in seconds, or `nil` beyond 18 hours or with 60 minutes or more.
  @inline(__always)
  static func offset(negative: Bool, hours: Int, minutes: Int) -> Int? {
    guard hours <= 18, minutes < 60 else { return nil }
    return (negative ? -1 : 1) * (hours * 3600 + minutes * 60)
  }
}

/// Converts between instants and wall-clock times of one IANA time zone,
/// caching the current offset so that a forward pass over bars calls the time
/// zone database about once per daylight-saving change.
package struct TimeZoneResolver {
  package let zone: TimeZone
  private let fixedOffset: Int?
  private var rangeStart: Int64 = 1
  private var rangeEnd: Int64 = 0
  private var rangeOffset = 0

  package init(_ zone: TimeZone) {
    self.zone = zone
    let hasTransitions = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: -2_208_988_800)) != nil
    fixedOffset = hasTransitions ? nil : zone.secondsFromGMT(for: Date(timeIntervalSince1970: 0))
  }

  /// Returns the zone's UTC offset in seconds at an instant.
  package mutating func offset(at instant: Int64) -> Int {
    if let fixedOffset { return fixedOffset }
    if instant >= rangeStart && instant < rangeEnd { return rangeOffset }
    let date = Date(timeIntervalSince1970: TimeInterval(instant))
    rangeOffset = zone.secondsFromGMT(for: date)
    rangeStart = instant
    if let next = zone.nextDaylightSavingTimeTransition(after: date) {
      rangeEnd = Int64(next.timeIntervalSince1970.rounded(.down))
    } else {
      rangeEnd = .max
    }
    return rangeOffset
  }

  private func directOffset(at instant: Int64) -> Int {
    zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))
  }

  /// Returns the instant of a wall-clock time in this zone.
  ///
  /// In the repeated hour when clocks go back, the earlier instant is taken
  /// unless it is not after `previous` (so an hourly file that walks through
  /// the repeated hour resolves in order); `nil` when the wall-clock time does
  /// not exist (skipped when clocks go forward).
  package mutating func instant(ofLocal local: Int64, after previous: Int64?) -> Int64? {
    if let fixedOffset { return local - Int64(fixedOffset) }
    let guess = offset(at: local - Int64(rangeOffset))
    let t = local - Int64(guess)
    if t - 86_400 >= rangeStart && t + 86_400 < rangeEnd && offset(at: t) == guess { return t }
    // Near a transition: check both offsets in force around it.
    var candidates: [Int64] = []
    for c in [directOffset(at: local - 172_800), directOffset(at: local + 172_800)] {
      let instant = local - Int64(c)
      if directOffset(at: instant) == c && !candidates.contains(instant) { candidates.append(instant) }
    }
    candidates.sort()
    guard let first = candidates.first else { return nil }
    if candidates.count > 1, let previous, first <= previous { return candidates[1] }
    return first
  }
}
