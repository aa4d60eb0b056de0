import BacktestCore
import BacktestRun
import Foundation
import PersonalFinance
import Testing

/// Feeds every parser random and mutated bytes for a bounded number of rounds
/// (deterministic seeds). A crash or a trap fails the whole test run; a hang
/// hits the time limit. Errors are fine: they must be `InputError`s.
@Suite(.timeLimit(.minutes(2))) struct FuzzTests {
  static let seeds: [UInt64] = [1, 2, 3, 4]

  /// Valid inputs that mutations start from.
  static let barSeeds: [String] = [
    "timestamp,open,high,low,close,volume\n2024-01-02T09:30:00-05:00,1,2,0.5,1.5,10\n2024-01-02T10:00:00-05:00,1.5,2,1,1.8,11\n",
    ",Open,High,Low,Close,Volume\r\n2017-04-19 09:00:00,1.0716,1.0722,1.07083,1.07219,1413\r\n",
    "\u{FEFF}date,open,high,low,close\n\"2024-01-02\",1,1,1,1\n1704206100000,1,1,1,1",
  ]
  static let yamlSeeds: [String] = [
    try! String(contentsOfFile: Repo.path("Strategies/gpix.yaml"), encoding: .utf8),
    // Rules with short sales, and with limit entries and every broker exit.
    try! String(contentsOfFile: Repo.path("Strategies/goog-rsi2-long-short.yaml"), encoding: .utf8),
    try! String(contentsOfFile: Repo.path("Strategies/goog-pullback-limit.yaml"), encoding: .utf8),
    "a: [1, {b: 'c', d: \"e\\u0041\"}]\nlist:\n- x: 1\n  y: [2]\n- - 3\n",
  ]
  static let alphabet = Array(",\n\r\"':-+.eE0123456789TZ {}[]#&*!|>\t ".utf8) + [0xFF, 0x00, 0xC3]

  static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
    var bytes = input
    let edits = 1 + Int(rng.next() % 8)
    for _ in 0..<edits {
      let choice = rng.next() % 4
      let position = bytes.isEmpty ? 0 : Int(rng.next() % UInt64(bytes.count))
      let byte = rng.next() % 3 == 0 ? UInt8(truncatingIfNeeded: rng.next()) : alphabet[Int(rng.next() % UInt64(alphabet.count))]
      switch choice {
      case 0 where !bytes.isEmpty: bytes[position] = byte
      case 1: bytes.insert(byte, at: position)
      case 2 where !bytes.isEmpty: bytes.remove(at: position)
      default:
        let n = min(bytes.count - position, Int(rng.next() % 20))
        if n > 0 { bytes.insert(contentsOf: bytes[position..<(position + n)], at: position) }
      }
    }
    return bytes
  }

  static func randomBytes(_ rng: inout SplitMix64) -> [UInt8] {
    (0..<Int(rng.next() % 200)).map { _ in
      rng.next() % 2 == 0 ? UInt8(truncatingIfNeeded: rng.next()) : alphabet[Int(rng.next() % UInt64(alphabet.count))]
    }
  }

  @Test("the bar reader survives random and mutated bytes", arguments: seeds)
  func bars(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    let zone = TimeZone(identifier: "America/New_York")!
    for round in 0..<4000 {
      let input = round % 4 == 0 ? Self.randomBytes(&rng)
        : Self.mutate(Array(Self.barSeeds[round % Self.barSeeds.count].utf8), &rng)
      input.withUnsafeBufferPointer { b in
        do {
          let bars = try BarCSVReader(timeZone: zone).read(b, file: "fuzz.csv")
          _ = bars.filtered(session: .regular, timeZone: zone).resampled(to: .minutes(60), session: .regular, timeZone: zone)
        } catch is InputError {
        } catch {
          Issue.record("seed \(seed) round \(round): unexpected \(error)")
        }
      }
    }
  }

  @Test("the YAML reader and run-file reader survive random and mutated text", arguments: seeds)
  func yaml(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    for round in 0..<4000 {
      let input = round % 4 == 0 ? Self.randomBytes(&rng)
        : Self.mutate(Array(Self.yamlSeeds[round % Self.yamlSeeds.count].utf8), &rng)
      let text = String(decoding: input, as: UTF8.self)
      do {
        _ = try RunConfig.parse(text, file: "fuzz.yaml", overrides: round % 3 == 0 ? ["strategy.stop_loss=" + text.prefix(8)] : [])
      } catch is InputError {
      } catch {
        Issue.record("seed \(seed) round \(round): unexpected \(error)")
      }
    }
  }

  @Test("numbers and timestamps: random bytes never trap", arguments: seeds)
  func scalars(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    let digits = Array("0123456789".utf8)
    for round in 0..<50_000 {
      var input = Self.randomBytes(&rng)
      if round % 2 == 0 { input = (0..<Int(rng.next() % 24)).map { _ in digits[Int(rng.next() % 10)] } }
      input.withUnsafeBufferPointer { b in
        _ = parseDecimal(b, 0, b.count)
        _ = parseTimestamp(b, 0, b.count)
      }
    }
  }

  @Test("extreme but well-formed timestamps are errors or instants, never a trap")
  func extremeTimestamps() throws {
    for stamp in ["999999999999999999", "100000000000", "9999-12-31T23:59:59+18:00", "0000-01-01", "0001-01-01T00:00:00Z"] {
      let text = "timestamp,open,high,low,close\n\(stamp),1,1,1,1\n"
      do { _ = try readBars(text) } catch is InputError {}
    }
  }
}

/// The parsers added after the bar and YAML readers get the same treatment.
@Suite(.timeLimit(.minutes(2))) struct MoreFuzzTests {
  static let seeds: [UInt64] = [5, 6, 7]

  static func inputs(_ seedText: String, _ rng: inout SplitMix64, _ round: Int) -> [UInt8] {
    round % 4 == 0 ? FuzzTests.randomBytes(&rng) : FuzzTests.mutate(Array(seedText.utf8), &rng)
  }

  static func expectOnlyInputErrors(_ seed: UInt64, _ round: Int, _ body: () throws -> Void) {
    do { try body() } catch is InputError {} catch { Issue.record("seed \(seed) round \(round): unexpected \(error)") }
  }

  @Test("macro, dividend, ledger, portfolio-file, NAV, journal and sweep-result readers survive random and mutated bytes", arguments: seeds)
  func readers(seed: UInt64) throws {
    var rng = SplitMix64(seed: seed)
    let macroSeed = "year,quarter,realgdp,unemp\n2000,1,100,4\n2000,2,101,4.1\n2000,3,102,4.2\n"
    let tidySeed = "date,series,value,available_at\n2008-01-01,GDPC1,1,2008-05-01\n2008-01-01,UNRATE,5,\n2008-02-01,UNRATE,.,\n"
    let dividendSeed = "ex_date,pay_date,amount,symbol\n2024-01-02,2024-01-09,0.25,X\n2024-02-01,2024-02-08,0.26,X\n"
    let navSeed = "{\"meta\": {\"scheme_code\": 1}, \"data\": [{\"date\": \"02-01-2024\", \"nav\": \"10.5\"}, {\"date\": \"01-01-2024\", \"nav\": \"10.4\"}]}"
    let journalSeed = Journal.columns + "\n2024-01-02,100.0,10,2024-01-05,110.0,PROFIT_TARGET,100.0,0.1,\n2024-02-01,50.0,20,,,,,,note\n"
    let sweepText = "name: s\ndata: {bars: x.csv}\nstrategy: {type: bollinger_rsi}\nsweep:\n  parameters:\n    bb_period: [10, 20]\n"
    let settings = try SweepRunner.parse(sweepText, file: "s.yaml").settings
    let resultsSeed = SweepReport.header(settings) + "\n" + "10" + String(repeating: ",1", count: SweepReport.metricKeys.count) + ",f\n"
    let holdingsSeed = "analysis_date: 2024-01-01\nholdings:\n  - {name: A, shares: 1, purchase_price: 1, purchase_date: 2023-01-01, current_price: 2}\n"
    let ledgerSeed = "date,amount,category,note\n2024-01-25,3000,salary,\n2024-01-03,-1200.50,rent,\"a, b\"\n2024-03-02,-80,food,\n"
    let portfolioSeed = "data:\n  assets:\n    - {symbol: A, bars: a.csv}\n    - {symbol: B, bars: b.csv}\nstrategy: {type: portfolio, weights: {A: 60%, B: 40%}, rebalance: {drift: 5%}}\nportfolio: {contributions: {monthly: 100, day: 31}, drip: true}\n"
    let rotationSeed = "data:\n  assets:\n    - {symbol: A, bars: a.csv}\n    - {symbol: B, bars: b.csv}\nstrategy:\n  type: rotation\n  params: {n: 63}\n"
      + "  score: roc(close, n) / std(close, 20)\n  top: 1\n  rebalance: weekly\n  weighting: score\nportfolio: {fractional_shares: true}\n"
    for round in 0..<1500 {
      let macro = Self.inputs(round % 2 == 0 ? macroSeed : tidySeed, &rng, round)
      Self.expectOnlyInputErrors(seed, round) {
        let data = try macro.withUnsafeBufferPointer { try MacroReader.read($0, file: "m.csv") }
        _ = try CycleClassifier.classify(data, settings: CycleSettings())
      }
      let dividends = Data(Self.inputs(dividendSeed, &rng, round))
      Self.expectOnlyInputErrors(seed, round) { _ = try DividendReader.read(dividends, file: "d.csv", symbol: "X") }
      let nav = Data(Self.inputs(round % 2 == 0 ? navSeed : "date,nav\n2024-01-01,10\n2024-01-02,11\n", &rng, round))
      Self.expectOnlyInputErrors(seed, round) { _ = FundPerformance(try NAVHistory.read(nav, file: "f.json")) }
      let journal = String(decoding: Self.inputs(journalSeed, &rng, round), as: UTF8.self)
      Self.expectOnlyInputErrors(seed, round) { _ = try Journal.parse(journal, file: "j.csv").summary }
      let results = String(decoding: Self.inputs(resultsSeed, &rng, round), as: UTF8.self)
      Self.expectOnlyInputErrors(seed, round) { _ = try SweepReport.parse(results, file: "r.csv", settings: settings) }
      let ledger = Data(Self.inputs(ledgerSeed, &rng, round))
      Self.expectOnlyInputErrors(seed, round) {
        let l = try LedgerReader.read(ledger, file: "l.csv")
        _ = (l.monthly, l.byCategory, l.monthlyNetContributions)
      }
      let portfolio = String(decoding: Self.inputs(round % 2 == 0 ? portfolioSeed : rotationSeed, &rng, round), as: UTF8.self)
      Self.expectOnlyInputErrors(seed, round) { _ = try AnyRunConfig.parse(portfolio, file: "p.yaml") }
      let holdings = String(decoding: Self.inputs(holdingsSeed, &rng, round), as: UTF8.self)
      Self.expectOnlyInputErrors(seed, round) { _ = HoldingsReport(try HoldingsReport.read(holdings, file: "h.yaml")) }
      let json = Data(Self.inputs("{\"results\": [{\"t\": 1704205800000, \"o\": 1, \"h\": 2, \"l\": 0.5, \"c\": 1.5, \"v\": 10}], \"next_url\": \"x\"}", &rng, round))
      Self.expectOnlyInputErrors(seed, round) { _ = try PolygonAggregates.parse(json, file: "p.json") }
      Self.expectOnlyInputErrors(seed, round) { _ = try FREDObservations.parse(json, file: "f.json") }
    }
  }
}

@Suite struct PolygonInputTests {
  @Test("a timestamp beyond the year 9999 in Polygon JSON is an error (it used to trap converting to Int64)")
  func hugeTimestamp() {
    let json = Data("{\"results\": [{\"t\": 1e300, \"o\": 1, \"h\": 1, \"l\": 1, \"c\": 1}]}".utf8)
    #expect(throws: InputError("result 1: expected 't' in epoch milliseconds, found 1e+300", at: SourceLocation(file: "p.json", line: 1, column: 14))) {
      try PolygonAggregates.parse(json, file: "p.json")
    }
  }
}
