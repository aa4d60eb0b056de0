import BacktestCore
import BacktestRun
import Foundation
import Testing

func macro(_ text: String, file: String = "m.csv") throws -> MacroData {
  let bytes = Array(text.utf8)
  return try bytes.withUnsafeBufferPointer { try MacroReader.read($0, file: file) }
}

func instant(_ text: String) -> Int64 {
  let bytes = Array(text.utf8)
  switch bytes.withUnsafeBufferPointer({ parseTimestamp($0, 0, bytes.count) }) {
  case .zoned(let t, _)?: return t
  case .date(let d)?: return Int64(d) * 86_400
  case .local(let s)?: return s
  default: fatalError("bad instant \(text)")
  }
}

@Suite struct CycleTests {
  static let folder = Repo.fixtures + "/cycle"

  static func classify(_ files: [String], settings: CycleSettings = CycleSettings()) throws -> [QuarterRow] {
    var data = MacroData()
    for f in files { try data.merge(try MacroReader.read(file: f)) }
    return try CycleClassifier.classify(data, settings: settings)
  }

  /// Compares our stage table with the reference's: identical text columns, numbers to 1e-9 absolute.
  static func expectTable(_ rows: [QuarterRow], equals path: String) throws {
    let expected = try SimpleCSV(path: path)
    let actual = SimpleCSV(text: CycleStageTable.csv(rows).replacingOccurrences(of: "\"", with: ""))
    try #require(actual.rows.count == expected.rows.count, "row count")
    let exactColumns: Set<String> = ["period", "period_start", "period_end", "available_at", "direction", "base_stage",
                                     "unemployment_triggered", "stage"]
    for (e, a) in zip(expected.rows, actual.rows) {
      for column in CycleStageTable.columns.split(separator: ",").map(String.init) where column != "reason" {
        let x = e[expected.header.firstIndex(of: column)!], y = a[actual.header.firstIndex(of: column)!]
        if exactColumns.contains(column) || x.isEmpty || y.isEmpty {
          #expect(x == y, "\(e[0]) \(column): reference '\(x)', ours '\(y)'")
        } else {
          #expect(abs(Double(x)! - Double(y)!) <= 1e-9, "\(e[0]) \(column): reference \(x), ours \(y)")
        }
      }
    }
  }

  @Test("the bundled file's stage table equals the reference implementation's, row for row")
  func bundled() throws {
    let rows = try Self.classify([Repo.path("Data/us_macro_quarterly.csv")])
    #expect(rows.count == 203)
    try Self.expectTable(rows, equals: Self.folder + "/bundled.stages.csv")
  }

  @Test("the spec's worked example (section 10), to 1e-4 as printed there")
  func workedExample() throws {
    let rows = try Self.classify([Repo.path("Data/us_macro_quarterly.csv")])
    let table: [(String, String, Double, Double, Double, CycleStage, CycleStage)] = [
      ("2007Q2", "2007-08-04T00:00:00Z", 1.8632, 3.1708, -1.3076, .contraction, .peak),
      ("2007Q3", "2007-11-04T00:00:00Z", 2.7394, 3.1104, -0.3709, .recovery, .recovery),
      ("2008Q1", "2008-05-05T00:00:00Z", 2.0379, 3.0167, -0.9788, .contraction, .peak),
      ("2008Q2", "2008-08-04T00:00:00Z", 1.6002, 2.9546, -1.3544, .contraction, .contraction),
      ("2008Q4", "2009-02-04T00:00:00Z", -1.8619, 2.7975, -4.6594, .contraction, .contraction),
      ("2009Q3", "2009-11-04T00:00:00Z", -2.5086, 2.2048, -4.7134, .recovery, .recovery),
    ]
    for (period, released, growth, trend, gap, base, stage) in table {
      let r = try #require(rows.first { $0.period == period })
      #expect(r.availableAt.map(isoInstant) == released)
      #expect(abs(r.gdpYoY! - growth) < 1e-4 && abs(r.trend! - trend) < 1e-4 && abs(r.gap! - gap) < 1e-4, "\(period)")
      #expect(r.baseStage == base && r.stage == stage, "\(period)")
    }
    let tie = try #require(rows.first { $0.period == "2003Q2" })
    #expect(tie.unemploymentRate == 6.2 && tie.unemploymentMinPrior == 5.7 && tie.unemploymentTriggered == true)
  }

  @Test("point-in-time lookups of the spec's table (section 10)", arguments: [
    ("2008-08-03T23:59:59Z", CycleStage.peak), ("2008-08-04T00:00:00Z", .contraction), ("2008-08-04T09:00:00Z", .contraction),
    ("2009-11-04T00:00:00Z", .recovery), ("2010-05-13T00:00:00Z", .recovery), ("2010-05-13T00:00:01Z", .unknown),
    ("1962-11-03T23:59:59Z", .unknown), ("1962-11-04T00:00:00Z", .peak), ("1959-01-01T00:00:00Z", .unknown),
  ])
  func lookups(_ time: String, _ stage: CycleStage) throws {
    let rows = try Self.classify([Repo.path("Data/us_macro_quarterly.csv")])
    let timeline = StageTimeline(rows: rows, settings: CycleSettings())
    #expect(timeline.stage(at: instant(time)) == stage)
    #expect(timeline.stages(at: [instant(time)]) == [stage])
  }

  @Test("monthly unemployment, explicit available_at and gaps match the reference, table and lookups",
        arguments: ["tidy_monthly", "wide_monthly"])
  func ownFiles(_ name: String) throws {
    let rows = try Self.classify([Self.folder + "/\(name).csv"])
    try Self.expectTable(rows, equals: Self.folder + "/\(name).stages.csv")
    let timeline = StageTimeline(rows: rows, settings: CycleSettings())
    let lookups = try SimpleCSV(path: Self.folder + "/\(name).lookup.csv")
    #expect(lookups.rows.count > 500)
    let times = ContiguousArray(lookups.rows.map { instant($0[0]) })
    let stages = timeline.stages(at: times)
    for (k, row) in lookups.rows.enumerated() {
      #expect(stages[k].rawValue == row[1], "\(row[0])")
      #expect(timeline.stage(at: times[k]).rawValue == row[1], "\(row[0])")
    }
  }

  @Test("two FRED downloads (one series each) classify like the same data in one wide file")
  func fredFiles() throws {
    let fred = try Self.classify([Self.folder + "/GDPC1.csv", Self.folder + "/UNRATE.csv"])
    let wide = try Self.classify([Self.folder + "/wide_monthly.csv"])
    #expect(fred.map(\.stage) == wide.map(\.stage))
    #expect(fred.map(\.availableAt) == wide.map(\.availableAt))
    #expect(fred.map(\.gap) == wide.map(\.gap))
  }

  @Test("no look-ahead: classifying only what was released by D gives every stage before D unchanged")
  func truncation() throws {
    let text = try String(contentsOfFile: Self.folder + "/tidy_monthly.csv", encoding: .utf8)
    let full = StageTimeline(rows: try CycleClassifier.classify(try macro(text), settings: CycleSettings()), settings: CycleSettings())
    var rng = SplitMix64(seed: 17)
    for _ in 0..<12 {
      let cut = instant("1978-01-01") + Int64(rng.next() % UInt64(31 * 365 * 86_400))
      // Keep the observations whose own release is at or before the cut (spec section 11).
      var data = try macro(text)
      let settings = CycleSettings()
      for (series, observations) in data.series {
        data.series[series] = observations.filter { o in
          let c = CivilDate.components(days: o.day)
          let monthly = series != .realGDP && series != .cpi
          let month = monthly ? c.month : 3 * ((c.month - 1) / 3 + 1)
          let end = CivilDate.days(year: c.year, month: month, day: CivilDate.daysInMonth(year: c.year, month: month))
          return (o.availableAt ?? Int64(end + settings.releaseLagDays[series]!) * 86_400) <= cut
        }
      }
      let partial = StageTimeline(rows: try CycleClassifier.classify(data, settings: settings), settings: settings)
      for t in stride(from: cut - 3 * 365 * 86_400, through: cut, by: 86_400 / 2) {
        #expect(partial.stage(at: t) == full.stage(at: t), "cut \(isoInstant(cut)), t \(isoInstant(t))")
      }
    }
  }

  @Test("later release dates never make a quarter's stage usable earlier")
  func laterReleases() throws {
    let data = try macro(try String(contentsOfFile: Repo.path("Data/us_macro_quarterly.csv"), encoding: .utf8))
    let base = StageTimeline(rows: try CycleClassifier.classify(data, settings: CycleSettings()), settings: CycleSettings())
    var later = CycleSettings()
    later.releaseLagDays[.realGDP] = 64
    later.releaseLagDays[.unemploymentRate] = 40
    let delayed = StageTimeline(rows: try CycleClassifier.classify(data, settings: later), settings: later)
    for t in stride(from: instant("1962-01-01"), through: instant("2010-01-01"), by: 86_400) {
      let a = base.row(at: t)?.quarter ?? .min, b = delayed.row(at: t)?.quarter ?? .min
      #expect(b <= a, "at \(isoInstant(t)) the delayed data shows a newer quarter")
    }
  }

  @Test("bad macro input names file, line and column", arguments: [
    ("date,series,value\n2008-01-01,GDPC1,abc\n", "m.csv:2:18: error: expected a number for 'real_gdp', found 'abc'"),
    ("date,series,value\n2008-01-01,GDPC1,inf\n", "m.csv:2:18: error: expected a number for 'real_gdp', found 'inf'"),
    ("date,series,value\n2008-13-01,GDPC1,1\n", "m.csv:2:1: error: expected a date YYYY-MM-DD, found '2008-13-01'"),
    ("year,quarter,realgdp\n2008,5,1\n", "m.csv:2:6: error: expected a quarter from 1 to 4, found '5'"),
    ("year,quarter,realgdp,gdpc1\n2008,1,1,1\n", "m.csv:1:22: error: a second column for real_gdp ('gdpc1'); expected one column per series"),
    ("when,what\n1,2\n", "m.csv:1:1: error: expected columns date,series,value (tidy), or date, observation_date or year,quarter followed by series columns (wide), found 'when,what'"),
    ("date,series,value\n2008-01-01,GDPC1\n", "m.csv:2:17: error: expected 3 fields as in the header, found 2"),
  ])
  func badInput(_ text: String, _ message: String) {
    #expect(throws: (any Error).self) { try macro(text) }
    do { _ = try macro(text) } catch { #expect("\(error)" == message) }
  }

  @Test("inconsistent series are refused with the place named")
  func inconsistent() throws {
    let twoGDP = try macro("date,series,value\n2008-01-01,GDPC1,1\n2008-02-01,GDPC1,2\n2008-01-01,UNRATE,5\n")
    #expect(throws: InputError("a second real_gdp value in one quarter; expected quarterly real GDP",
                               at: SourceLocation(file: "m.csv", line: 3, column: 18))) {
      try CycleClassifier.classify(twoGDP, settings: CycleSettings())
    }
    let backwards = try macro("date,series,value,available_at\n2008-01-01,GDPC1,1,2008-06-01\n2008-04-01,GDPC1,2,2008-05-01\n2008-01-01,UNRATE,5,\n")
    #expect(throws: (any Error).self) { try CycleClassifier.classify(backwards, settings: CycleSettings()) }
    do { _ = try CycleClassifier.classify(backwards, settings: CycleSettings()) } catch {
      #expect("\(error)".hasPrefix("m.csv:3:18: error: real_gdp is released at 2008-05-01T00:00:00Z, before the previous period's value"))
    }
    let noUnemployment = try macro("date,series,value\n2008-01-01,GDPC1,1\n")
    #expect(throws: InputError("no unemployment_rate series; expected unemp, unemployment_rate or UNRATE (or cycle.unemployment_rule: off)", file: "m.csv")) {
      try CycleClassifier.classify(noUnemployment, settings: CycleSettings())
    }
  }
}
