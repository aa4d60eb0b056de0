/// The macro series the classifier knows (`Docs/spec/economic-cycle.md` §2.1).
package enum MacroSeries: String, Sendable, CaseIterable, Comparable {
  case realGDP = "real_gdp"
  case unemploymentRate = "unemployment_rate"
  case cpi
  case inflation
  case shortRate = "short_rate"
  case longRate = "long_rate"

  /// Column or series names that mean this series (matched case-insensitively).
  static let aliases: [String: MacroSeries] = [
    "real_gdp": .realGDP, "realgdp": .realGDP, "gdpc1": .realGDP,
    "unemployment_rate": .unemploymentRate, "unemp": .unemploymentRate, "unrate": .unemploymentRate,
    "cpi": .cpi, "cpiaucsl": .cpi, "inflation": .inflation, "infl": .inflation,
    "short_rate": .shortRate, "tbilrate": .shortRate, "tb3ms": .shortRate, "long_rate": .longRate, "gs10": .longRate,
  ]

  /// Default release lag in days after the period's last day (§3.2).
  package var defaultReleaseLagDays: Int {
    switch self {
    case .realGDP: return 35
    case .unemploymentRate: return 12
    case .cpi, .inflation: return 25
    case .shortRate, .longRate: return 1
    }
  }

  package static func < (a: MacroSeries, b: MacroSeries) -> Bool {
    allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
  }
}

/// One value of a macro series.
package struct MacroObservation: Sendable, Equatable {
  /// A day inside the observation's period (days since 1970-01-01).
  package var day: Int
  package var value: Double
  /// An explicit release instant (seconds since 1970, UTC), replacing the default lag.
  package var availableAt: Int64?
  package var location: SourceLocation

  /// An observation given as a value (`location` names where it came from in messages).
  package init(day: Int, value: Double, availableAt: Int64? = nil, location: SourceLocation = SourceLocation(file: "(in memory)", line: 0, column: 0)) {
    self.day = day
    self.value = value
    self.availableAt = availableAt
    self.location = location
  }
}

/// Macro observations by series, as read from one or more files.
package struct MacroData: Sendable {
  package var series: [MacroSeries: [MacroObservation]] = [:]
  package var files: [String] = []

  package init() {}

  /// Adds another file's series; a series in two files is an error.
  package mutating func merge(_ other: MacroData) throws {
    for (name, observations) in other.series.sorted(by: { $0.key < $1.key }) {
      if let existing = series[name], let first = existing.first, let again = observations.first {
        throw InputError("\(name.rawValue) is also in \(first.location.file); expected each series in one file only",
                         at: again.location)
      }
      series[name] = observations
    }
    files += other.files
  }
}

/// Reads macro CSV files: tidy (`date,series,value[,available_at]`), wide (a
/// `date` or `observation_date` column, or `year` and `quarter`, then one
/// column per series), which also covers FRED downloads (`observation_date,UNRATE`).
///
/// Missing values (empty, `NA`, `NaN`, `.`) are skipped. A value that is not
/// a finite number, a bad date, a short row, two columns for one series or
/// an unknown layout is an `InputError` naming line and column.
package enum MacroReader {
  package static func read(_ bytes: UnsafeBufferPointer<UInt8>, file: String) throws -> MacroData {
    var scanner = CSVScanner(bytes: bytes, file: file)
    var fields: [CSVField] = []
    guard try scanner.next(into: &fields) else {
      throw InputError("empty file; expected a header such as 'date,series,value' or 'year,quarter,realgdp,unemp'",
                       at: SourceLocation(file: file, line: 1, column: 1))
    }
    let headerLine = scanner.line
    let header = fields.map { scanner.text($0).trimmingSpaces().lowercased() }
    let headerFields = fields
    func column(_ names: String...) -> Int? { header.firstIndex { names.contains($0) } }
    var data = MacroData()
    data.files = [file]

    func value(_ f: CSVField, _ name: String) throws -> Double? {
      let text = scanner.text(f).trimmingSpaces()
      if text.isEmpty || ["NA", "NAN", "."].contains(text.uppercased()) { return nil }
      guard let v = parseDecimal(bytes, f.start, f.end) else {
        throw InputError("expected a number for '\(name)', found '\(scanner.shown(f))'", at: scanner.location(f))
      }
      guard abs(v) <= ConfigTable.largestNumber else {
        throw InputError("expected a finite number of at most 1e15 for '\(name)', found '\(scanner.shown(f))'", at: scanner.location(f))
      }
      return v
    }
    func day(_ f: CSVField) throws -> Int {
      let end = min(f.end, f.start + 10)
      guard f.end - f.start >= 10, case .date(let d)? = parseTimestamp(bytes, f.start, end) else {
        throw InputError("expected a date YYYY-MM-DD, found '\(scanner.shown(f))'", at: scanner.location(f))
      }
      return d
    }
    func release(_ f: CSVField) throws -> Int64? {
      if scanner.text(f).trimmingSpaces().isEmpty { return nil }
      switch parseTimestamp(bytes, f.start, f.end) {
      case .date(let d)?: return Int64(d) * 86_400
      case .local(let s)?: return s
      case .zoned(let t, _)?: return t
      default:
        throw InputError("expected an ISO-8601 date or date-time for 'available_at', found '\(scanner.shown(f))'",
                         at: scanner.location(f))
      }
    }
    func checkWidth() throws {
      if fields.count < header.count {
        throw InputError("expected \(header.count) fields as in the header, found \(fields.count)",
                         at: SourceLocation(file: file, line: scanner.line, column: (fields.last.map { $0.end - $0.start + $0.column } ?? 1)))
      }
    }

    if let d = column("date"), let s = column("series"), let v = column("value") {
      let a = column("available_at", "release_date")
      while try scanner.next(into: &fields) {
        try checkWidth()
        guard let name = MacroSeries.aliases[scanner.text(fields[s]).trimmingSpaces().lowercased()] else { continue }
        guard let x = try value(fields[v], name.rawValue) else { continue }
        let observation = MacroObservation(day: try day(fields[d]), value: x, availableAt: try a.flatMap { try release(fields[$0]) },
                                           location: scanner.location(fields[v]))
        data.series[name, default: []].append(observation)
      }
      return data
    }
    let dateColumn = column("date", "observation_date")
    let yearColumn = column("year"), quarterColumn = column("quarter")
    guard dateColumn != nil || (yearColumn != nil && quarterColumn != nil) else {
      throw InputError(
        "expected columns date,series,value (tidy), or date, observation_date or year,quarter followed by series columns (wide), found '\(excerpt(header.joined(separator: ",")))'",
        at: SourceLocation(file: file, line: headerLine, column: 1))
    }
    let releaseColumn = column("available_at", "release_date")
    var seriesColumns: [(Int, MacroSeries)] = []
    for (k, name) in header.enumerated() {
      guard let s = MacroSeries.aliases[name] else { continue }
      if seriesColumns.contains(where: { $0.1 == s }) {
        throw InputError("a second column for \(s.rawValue) ('\(name)'); expected one column per series",
                         at: SourceLocation(file: file, line: headerLine, column: headerFields[k].column))
      }
      seriesColumns.append((k, s))
    }
    while try scanner.next(into: &fields) {
      try checkWidth()
      let d: Int
      if let dateColumn {
        d = try day(fields[dateColumn])
      } else {
        let yf = fields[yearColumn!], qf = fields[quarterColumn!]
        guard let year = Int(scanner.text(yf).trimmingSpaces()), (1...9999).contains(year) else {
          throw InputError("expected a year, found '\(scanner.shown(yf))'", at: scanner.location(yf))
        }
        guard let quarter = Int(scanner.text(qf).trimmingSpaces()), (1...4).contains(quarter) else {
          throw InputError("expected a quarter from 1 to 4, found '\(scanner.shown(qf))'", at: scanner.location(qf))
        }
        d = CivilDate.days(year: year, month: 3 * quarter - 2, day: 1)
      }
      let releasedAt = try releaseColumn.flatMap { try release(fields[$0]) }
      for (k, s) in seriesColumns {
        guard let x = try value(fields[k], header[k]) else { continue }
        data.series[s, default: []].append(
          MacroObservation(day: d, value: x, availableAt: releasedAt, location: scanner.location(fields[k])))
      }
    }
    return data
  }

  /// Reads a macro file from disk.
  package static func read(file path: String) throws -> MacroData {
    let data = try readInputFile(path)
    return try data.withUnsafeBytes { try read($0.bindMemory(to: UInt8.self), file: path) }
  }
}
