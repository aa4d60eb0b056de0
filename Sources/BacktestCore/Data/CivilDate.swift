/// Calendar arithmetic on the proleptic Gregorian calendar, in days since
/// 1970-01-01, without Foundation's `Calendar` (fast, and the same everywhere).
package enum CivilDate {
  /// Returns the day number of `year-month-day` (1970-01-01 is 0).
  ///
  /// Howard Hinnant's `days_from_civil`; valid for every year of the proleptic
  /// Gregorian calendar.
  @inlinable
  package static func days(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// Returns `(year, month, day)` of a day number (the inverse of `days`).
  @inlinable
  package static func components(days z0: Int) -> (year: Int, month: Int, day: Int) {
    let z = z0 + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// Returns the number of days in a month.
  @inlinable
  package static func daysInMonth(year: Int, month: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  /// Returns the day `months` calendar months after `day` (negative: before), the day of the
  /// month clamped to the target month's length (31 March − 1 month = 28/29 February).
  package static func adding(months: Int, to day: Int) -> Int {
    let c = components(days: day)
    let total = c.year * 12 + (c.month - 1) + months
    let y = total >= 0 ? total / 12 : (total - 11) / 12
    let m = total - y * 12 + 1
    return days(year: y, month: m, day: min(c.day, daysInMonth(year: y, month: m)))
  }

  /// Returns the weekday of a day number, 0 = Monday … 6 = Sunday.
  @inlinable
  package static func weekday(days: Int) -> Int {
    ((days % 7) + 7 + 3) % 7  // 1970-01-01 was a Thursday
  }

  /// Floor division of seconds into days.
  @inlinable
  package static func day(ofSeconds s: Int64) -> Int {
    Int(s >= 0 ? s / 86_400 : (s - 86_399) / 86_400)
  }

  /// Formats a day number as `YYYY-MM-DD`.
  package static func isoDate(days: Int) -> String {
    let c = components(days: days)
    return pad(c.year, 4) + "-" + pad(c.month, 2) + "-" + pad(c.day, 2)
  }

  /// Formats an instant as `YYYY-MM-DDTHH:MM:SS` followed by the offset
  /// (`Z` for 0, else `±HH:MM`), in local time at that offset.
  package static func isoDateTime(seconds: Int64, offset: Int) -> String {
    let local = seconds + Int64(offset)
    let d = day(ofSeconds: local)
    let sod = Int(local - Int64(d) * 86_400)
    var text = isoDate(days: d) + "T" + pad(sod / 3600, 2) + ":" + pad(sod / 60 % 60, 2) + ":" + pad(sod % 60, 2)
    if offset == 0 {
      text += "Z"
    } else {
      let a = abs(offset)
      text += (offset < 0 ? "-" : "+") + pad(a / 3600, 2) + ":" + pad(a / 60 % 60, 2)
    }
    return text
  }

  package static func pad(_ value: Int, _ width: Int) -> String {
    let s = String(value)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
  }
}
