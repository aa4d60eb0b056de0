import BacktestCore
import BacktestRun
import Foundation
import Testing

@Suite struct LiveSignalTests {
  static let base = "name: g\ndata: {bars: ../Data/GOOG.csv, timezone: America/New_York}\nstrategy: {type: bollinger_rsi}\n"

  /// The full GOOG run, to find bars where each kind of signal happens.
  static let full = try! Backtest.run(try! runConfig(base))

  /// The signal with the data cut after the bar labelled `date`.
  static func signal(endingAt date: String, extra: String = "", held: HeldPosition? = nil) throws -> LiveSignal {
    let output = try Backtest.run(try runConfig(base + extra, overrides: ["data.end=\(date)"]))
    return LiveSignalAnalyzer.analyze(output, position: held.map { .user($0) } ?? .backtest, alerts: output.config.alerts, holidays: [], now: nil)
  }

  static func label(_ i: Int) -> String { full.bars.timeLabel(i) }

  @Test("BUY: close below the lower band and RSI oversold, on the bar before a backtest entry")
  func buy() throws {
    let entry = try #require(Self.full.run.result.trades.first).entryBar
    let s = try Self.signal(endingAt: Self.label(entry - 1))
    #expect(s.action == .buy && s.position == nil)
    #expect(s.reason.hasPrefix("close ") && s.reason.contains(" < lower band ") && s.reason.contains("and RSI"))
    #expect(s.details.labels.first { $0.key == "rsi_zone" }?.value == "oversold" && s.value("percent_b")! < 0)
  }

  @Test("SELL: the close above the upper band, or the RSI overbought, with the backtest's open position")
  func sell() throws {
    let technical = Self.full.run.result.trades.filter { $0.exitReason == .technical }
    let rsi = Self.full.run.indicators.first { $0.name == "rsi" }!.values
    let upper = Self.full.run.indicators.first { $0.name == "bb_upper" }!.values
    var seen: Set<String> = []
    for t in technical {
      let k = t.exitBar - 1
      let s = try Self.signal(endingAt: Self.label(k))
      #expect(s.action == .sell)
      #expect(s.position?.source == "backtest" && s.position?.entryPrice == t.entryPrice)
      if Self.full.bars.close[k] > upper[k] {
        #expect(s.reason.contains("> upper band")); seen.insert("band")
      } else {
        #expect(rsi[k] > 70 && s.reason.hasPrefix("RSI ") && s.reason.contains("> 70")); seen.insert("rsi")
      }
      #expect(s.position?.exitCondition == s.reason)
    }
    #expect(!seen.isEmpty)
  }

  @Test("HOLD while flat says which entry condition is missing; HOLD while long says no exit is met")
  func hold() throws {
    let trade = try #require(Self.full.run.result.trades.first { $0.barsHeld > 3 && $0.exitReason != .endOfData })
    let flat = try Self.signal(endingAt: Self.label(trade.entryBar - 5))
    #expect(flat.action == .hold && flat.reason.hasPrefix("no entry: "))
    let long = try Self.signal(endingAt: Self.label(trade.entryBar + 1))
    #expect(long.action == .hold && long.reason.hasPrefix("holding: ") && long.position != nil)
    #expect(long.position?.stopLevel == trade.entryPrice * (1 - 0.02))
    #expect(long.position?.barsHeld == 2)
  }

  @Test("a user's position replaces the backtest's: P&L, levels and bars held from it")
  func userPosition() throws {
    let held = HeldPosition(entryPrice: 300, entryTime: "2005-01-03", entryInstant: nil, shares: 10)
    let s = try Self.signal(endingAt: "2005-01-10", extra: "", held: held)
    #expect(s.position?.source == "user" && s.position?.shares == 10)
    #expect(abs(s.position!.unrealizedPnl - 10 * (s.close - 300)) < 1e-9)
    #expect(s.position?.stopLevel == 300 * (1 - 0.02))
  }

  /// The signal for a user's position held since before the bar labelled `date`, the data cut after it.
  static func userSignal(endingAt k: Int, entryPrice: Double, overrides: [String] = []) throws -> LiveSignal {
    let output = try Backtest.run(try runConfig(base, overrides: ["data.end=\(label(k))"] + overrides))
    let held = HeldPosition(entryPrice: entryPrice, entryTime: label(k - 5), entryInstant: full.bars.time[k - 5], shares: 10)
    return LiveSignalAnalyzer.analyze(output, position: .user(held), alerts: [], holidays: [], now: nil)
  }

  @Test("the user's stop traded through on the newest bar: SELL with STOP_LOSS (it used to stay HOLD with only exit_condition set)")
  func userStopHit() throws {
    let bars = Self.full.bars
    let k = try #require((300..<bars.count).first { bars.low[$0] < bars.open[$0] * 0.98 && bars.close[$0] > bars.low[$0] })
    // A stop halfway between the open and the low: touched inside the bar.
    let s = try Self.userSignal(endingAt: k, entryPrice: (bars.open[k] + bars.low[k]) / 2 / 0.98)
    let stop = try #require(s.position?.stopLevel)
    #expect(bars.low[k] <= stop && stop < bars.open[k])
    #expect(s.action == .sell && s.exitReason == .stopLoss)
    #expect(s.reason == "the bar traded down to the stop \(String(format: "%.2f", stop)) (STOP_LOSS)")
    #expect(s.position?.exitCondition == s.reason)
    // The open already below the stop: the bar gapped through it.
    let gap = try Self.userSignal(endingAt: k, entryPrice: bars.open[k] * 1.01 / 0.98)
    #expect(gap.action == .sell && gap.exitReason == .stopLoss && gap.reason.hasPrefix("the bar opened at \(String(format: "%.2f", bars.open[k])), through the stop "))
    // A stop below the low is not hit: the strategy's own decision stands.
    let safe = try Self.userSignal(endingAt: k, entryPrice: bars.low[k] * 0.99 / 0.98)
    #expect(safe.exitReason != .stopLoss && !safe.reason.contains("STOP_LOSS"))
  }

  @Test("the user's target reached on the newest bar: SELL with PROFIT_TARGET")
  func userTargetHit() throws {
    let bars = Self.full.bars
    let k = try #require((300..<bars.count).first { bars.high[$0] > bars.open[$0] * 1.02 && bars.low[$0] > bars.open[$0] * 0.995 })
    // Target 3% above the entry, halfway between the open and the high; the stop (2% below) far under the low.
    let target = (bars.open[k] + bars.high[k]) / 2
    let s = try Self.userSignal(endingAt: k, entryPrice: target / 1.03, overrides: ["strategy.profit_target=3%"])
    #expect(s.action == .sell && s.exitReason == .profitTarget)
    #expect(s.reason == "the bar reached the target \(String(format: "%.2f", s.position!.targetLevel!)) (PROFIT_TARGET)")
  }

  @Test("the backtest's own position stopped out on the newest bar: SELL with STOP_LOSS, not a silent HOLD")
  func backtestStopHit() throws {
    let trade = try #require(Self.full.run.result.trades.first { $0.exitReason == .stopLoss })
    let s = try Self.signal(endingAt: Self.label(trade.exitBar))
    #expect(s.action == .sell && s.exitReason == .stopLoss && s.position == nil)
    #expect(s.reason == "the backtest's position hit its stop at \(String(format: "%.2f", trade.exitPrice)) on the newest bar (STOP_LOSS)")
  }

  @Test("cycle details: the quarter in force at the newest bar, its age, and each series' latest released value")
  func cycleDetails() throws {
    let extra = "cycle: {macro_file: ../Data/us_macro_quarterly.csv}\n"
    let d = try #require(try Self.signal(endingAt: "2008-12-01", extra: extra).cycleDetails)
    // 2008Q3 ends 2008-09-30: real GDP is released 35 days later (2008-11-04), unemployment 12 days later.
    #expect(d.quarter?.period == "2008Q3" && d.quarter?.availableAt == instant("2008-11-04T00:00:00Z"))
    #expect(d.ageDays == 27 && d.maxAgeDays == 190 && d.momentumQuarters == 2 && d.stage == .contraction)
    #expect(d.series.map(\.series) == [.realGDP, .unemploymentRate, .cpi, .inflation, .shortRate])
    let gdp = try #require(d.series.first)
    #expect(gdp.value == 13324.6 && gdp.period == "2008Q3" && gdp.releasedAt == instant("2008-11-04T00:00:00Z"))
    #expect(d.series[1].value == 6 && d.series[1].releasedAt == instant("2008-10-12T00:00:00Z"))
    // The gap and momentum are the classifier's: gap = growth − trend.
    let q = try #require(d.quarter)
    #expect(abs(q.gap! - (q.gdpYoY! - q.trend!)) < 1e-12)
    // Point in time: on 2008-11-03 the 2008Q3 GDP is not out yet, so 2008Q2 is in force and GDP reads 2008Q2's.
    let before = try #require(try Self.signal(endingAt: "2008-11-03", extra: extra).cycleDetails)
    #expect(before.quarter?.period == "2008Q2" && before.series.first?.value == 13415.266 && before.series.first?.period == "2008Q2")
    // The JSON writes the classifier's percentages as fractions.
    let json = SignalJSON.render(try Self.signal(endingAt: "2008-12-01", extra: extra), strategy: "s", data: "d").rendered()
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let details = try #require(object["cycle_details"] as? [String: Any])
    #expect(details["gdp_growth"] as? Double == q.gdpYoY! / 100 && details["unemployment_rate"] as? Double == 0.06)
  }

  @Test("signal state: only the signal, its exit reason, the position and crossed alerts make a change; the file reads back")
  func state() throws {
    let entry = try #require(Self.full.run.result.trades.first).entryBar
    let buy = SignalSummary(try Self.signal(endingAt: Self.label(entry - 1)))
    let hold = SignalSummary(try Self.signal(endingAt: Self.label(entry - 5)))
    let held = SignalSummary(try Self.signal(endingAt: Self.label(entry + 1)))
    #expect(buy.signal == .buy && hold.signal == .hold && held.signal == .hold && held.position != nil)
    #expect(buy.differs(from: hold) && held.differs(from: hold))
    var later = hold
    later.time = "later"; later.close += 1; later.reason = "other words"
    #expect(!later.differs(from: hold))
    later.alertsCrossed = [PriceAlert(direction: .above, level: 1)]
    #expect(later.differs(from: hold))
    let state = SignalState(last: held, failedAttempts: 2, checkedAt: 0)
    #expect(try SignalState.parse(Data(state.text.utf8), file: "s.json") == SignalState(last: held, failedAttempts: 2))
    #expect(throws: InputError("expected a signal state file (\"schema\": \"backtest.signal-state/1\"); refusing to overwrite it",
                               at: SourceLocation(file: "s.json", line: 1, column: 1))) {
      try SignalState.parse(Data("{\"signal\": \"BUY\"}".utf8), file: "s.json")
    }
  }

  @Test("targets state: the file reads back, a changed weight is a change, another state file is refused by its kind")
  func targetsState() throws {
    let text = #"{"schema": "backtest.targets-state/1", "failed_attempts": 1, "last": {"time": "t", "decided_at": null, "targets": {"A": 0.6, "B": 0.4}}}"#
    let state = try TargetsState.parse(Data(text.utf8), file: "t.json")
    let last = try #require(state.last)
    #expect(state.failedAttempts == 1 && last.time == "t" && last.decidedAt == nil)
    #expect(last.weights.map(\.symbol) == ["A", "B"] && last.weights.map(\.weight) == [0.6, 0.4])
    #expect(try TargetsState.parse(Data(state.text.utf8), file: "t.json") == state)
    var moved = last
    #expect(!state.isChange(moved))
    moved.weights[0].weight = 0.5
    #expect(state.isChange(moved) && TargetsState(last: nil).isChange(moved))
    #expect(throws: InputError("expected a targets state file (\"schema\": \"backtest.targets-state/1\"); refusing to overwrite it",
                               at: SourceLocation(file: "t.json", line: 1, column: 1))) {
      try TargetsState.parse(Data(#"{"schema": "backtest.signal-state/1", "last": null}"#.utf8), file: "t.json")
    }
  }

  @Test("a journal that says flat is flat: no SELL from the backtest's position (it used to only hide the position)")
  func journalFlat() throws {
    let t = try #require(Self.full.run.result.trades.first { $0.exitReason == .technical })
    let output = try Backtest.run(try runConfig(Self.base, overrides: ["data.end=\(Self.label(t.exitBar - 1))"]))
    let backtest = LiveSignalAnalyzer.analyze(output, position: .backtest, alerts: [], holidays: [], now: nil)
    let flat = LiveSignalAnalyzer.analyze(output, position: .flat, alerts: [], holidays: [], now: nil)
    #expect(backtest.action == .sell && backtest.position != nil)
    #expect(flat.action == .hold && flat.position == nil && flat.reason.hasPrefix("no entry"))
  }

  @Test("BUY conditions in a stage the cycle filter blocks give HOLD with the stage named")
  func blockedByCycle() throws {
    let extra = "cycle: {macro_file: ../Data/us_macro_quarterly.csv, buy_stages: [Expansion]}\n"
    let output = try Backtest.run(try runConfig(Self.base + extra, overrides: ["data.end=2009-12-31"]))
    let blockedAt = try #require(Self.full.run.result.trades.first { output.cycle!.gate.stages[$0.entryBar - 1] != .expansion })
    let s = try Self.signal(endingAt: Self.label(blockedAt.entryBar - 1), extra: extra)
    #expect(s.action == .hold && s.reason.contains("but the cycle stage") && s.cycle != nil)
  }

  @Test("before every indicator is defined there is no decision")
  func warmUp() throws {
    let s = try Self.signal(endingAt: Self.label(10))
    #expect(s.action == .hold && s.reason == "not enough bars yet for every indicator" && s.value("rsi") == nil)
  }

  @Test("alerts fire when the newest close crosses their level")
  func alerts() throws {
    let k = 300
    let previous = Self.full.bars.close[k - 1], close = Self.full.bars.close[k]
    let (lo, hi) = (min(previous, close), max(previous, close))
    let level = (lo + hi) / 2
    let direction = close > previous ? "above" : "below"
    let s = try Self.signal(endingAt: Self.label(k), extra: "alerts: [{\(direction): \(level)}, {above: \(hi * 2)}]\n")
    #expect(s.alerts.map(\.crossed) == [true, false])
  }

  @Test("the next bar close skips nights, weekends and holidays")
  func nextBarClose() throws {
    let bars = try BarCSVReader(timeZone: TimeZone(identifier: "America/New_York")!).read(file: Repo.path("Data/synthetic_gpix_30min.csv"))
    let ny = TimeZone(identifier: "America/New_York")!
    #expect(NextBarClose.interval(bars) == 1800)
    // Wednesday 2024-11-13 15:45 New York → 16:00 the same day.
    #expect(NextBarClose.after(now: instant("2024-11-13T20:45:00Z"), bars: bars, session: .regular, timeZone: ny, holidays: [])
            == instant("2024-11-13T21:00:00Z"))
    // Friday evening → Monday 10:00 (the close of the 09:30 bar).
    #expect(NextBarClose.after(now: instant("2024-11-15T23:00:00Z"), bars: bars, session: .regular, timeZone: ny, holidays: [])
            == instant("2024-11-18T15:00:00Z"))
    // Thanksgiving 2024-11-28 as a holiday: Wednesday night → Friday.
    let thanksgiving = CivilDate.days(year: 2024, month: 11, day: 28)
    #expect(NextBarClose.after(now: instant("2024-11-28T02:00:00Z"), bars: bars, session: .regular, timeZone: ny, holidays: [thanksgiving])
            == instant("2024-11-29T15:00:00Z"))
  }

  @Test("signal staleness: daily bars close at the session's close (16:00 New York), not at midnight; a bar's age counts from its close")
  func dailyBarsCloseAtTheSessionClose() throws {
    let bars = try BarCSVReader(timeZone: TimeZone(identifier: "America/New_York")!).read(file: Repo.path("Data/GOOG.csv"))
    let ny = TimeZone(identifier: "America/New_York")!
    // Friday 2013-03-01, the newest bar: it closed at 16:00 New York (21:00Z).
    #expect(NextBarClose.close(of: bars.count - 1, bars: bars, session: .all, timeZone: ny) == instant("2013-03-01T21:00:00Z"))
    // Friday 20:00Z → that bar's close an hour later; Saturday → Monday's close, not a midnight.
    #expect(NextBarClose.after(now: instant("2013-03-01T20:00:00Z"), bars: bars, session: .all, timeZone: ny, holidays: [])
            == instant("2013-03-01T21:00:00Z"))
    #expect(NextBarClose.after(now: instant("2013-03-02T12:00:00Z"), bars: bars, session: .all, timeZone: ny, holidays: [])
            == instant("2013-03-04T21:00:00Z"))
    // Intraday bars close one interval after their start.
    let gpix = try BarCSVReader(timeZone: ny).read(file: Repo.path("Data/synthetic_gpix_30min.csv"))
    #expect(NextBarClose.close(of: gpix.count - 1, bars: gpix, session: .regular, timeZone: ny) == instant("2024-11-13T21:00:00Z"))
  }

  @Test("the JSON output has every key of Docs/signal.schema.json with the declared types")
  func schema() throws {
    let schemaData = try Data(contentsOf: URL(fileURLWithPath: Repo.path("Docs/signal.schema.json")))
    let schema = try JSONSerialization.jsonObject(with: schemaData) as! [String: Any]
    let entry = try #require(Self.full.run.result.trades.first).entryBar
    for (signal, held) in [(try Self.signal(endingAt: Self.label(entry - 1)), false), (try Self.signal(endingAt: Self.label(entry + 1)), true)] {
      let text = SignalJSON.render(signal, strategy: "bollinger_rsi", data: "x").rendered()
      let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
      try Self.check(json, against: schema, path: "")
      #expect((json["position"] is NSNull) == !held)
      #expect(json["schema"] as? String == "backtest.signal/1")
    }
  }

  @Test("the schema allows every signal the engine gives, in the result and in the stored previous one, and every exit reason a SELL can have")
  func schemaEnums() throws {
    let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Repo.path("Docs/signal.schema.json"))))
                              as? [String: Any])
    let properties = try #require(schema["properties"] as? [String: Any])
    func options(_ node: Any?) -> Set<String> { Set(((node as? [String: Any])?["enum"] as? [Any] ?? []).compactMap { $0 as? String }) }
    let actions: Set<String> = ["BUY", "SELL", "HOLD", "SHORT", "COVER"]
    #expect(actions == Set([LiveSignal.Action.buy, .sell, .hold, .short, .cover].map(\.rawValue)))
    #expect(options(properties["signal"]) == actions)
    let previous = try #require((properties["previous"] as? [String: Any])?["properties"] as? [String: Any])
    #expect(options(previous["signal"]) == actions, "a stored SHORT or COVER must pass the schema at the next check")
    #expect(Set(ExitReason.allCases.filter { $0 != .endOfData }.map(\.rawValue)).isSubset(of: options(properties["exit_reason"])))
  }

  /// A small JSON Schema checker: required keys, types, enums and consts.
  static func check(_ value: Any, against schema: [String: Any], path: String) throws {
    if let c = schema["const"] as? String { #expect(value as? String == c, "\(path)") }
    if let options = schema["enum"] as? [Any] {
      let ok = options.contains { o in (o is NSNull && value is NSNull) || ((o as? String) != nil && (o as? String) == (value as? String)) }
      #expect(ok, "\(path): \(value) not in \(options)")
    }
    if let t = schema["type"] {
      let types = (t as? [String]) ?? [t as! String]
      let ok = types.contains { type in
        switch type {
        case "null": return value is NSNull
        case "string": return value is String
        case "boolean": return value is Bool
        case "integer": return (value as? NSNumber).map { $0.doubleValue == $0.doubleValue.rounded() } ?? false
        case "number": return value is NSNumber
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        default: return false
        }
      }
      #expect(ok, "\(path): \(value) is not \(types)")
    }
    if let object = value as? [String: Any] {
      for key in schema["required"] as? [String] ?? [] { #expect(object[key] != nil, "\(path).\(key) missing") }
      let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
      for (key, sub) in properties { if let v = object[key] { try check(v, against: sub, path: path + "." + key) } }
    }
    if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
      for (k, v) in array.enumerated() { try check(v, against: items, path: "\(path)[\(k)]") }
    }
  }
}

@Suite struct JournalTests {
  @Test("journal analytics worked by hand: +10%, -10%, +10% with P&L +100, -100, +10")
  func analytics() throws {
    var j = Journal()
    try j.enter(JournalEntry(entryTime: "2024-01-02", entryPrice: 100, shares: 10))
    try j.exit(time: "2024-01-05", price: 110, reason: .profitTarget)
    try j.enter(JournalEntry(entryTime: "2024-02-01", entryPrice: 50, shares: 20))
    try j.exit(time: "2024-02-03", price: 45, reason: .stopLoss)
    try j.enter(JournalEntry(entryTime: "2024-03-01", entryPrice: 20, shares: 5, note: "a note, with a comma"))
    try j.exit(time: "2024-03-04", price: 22, reason: .manual)
    let s = j.summary
    #expect(s.totalTrades == 3 && s.wins == 2 && s.losses == 1 && s.winRate == 2.0 / 3)
    #expect(abs(s.avgWin! - 0.1) < 1e-12 && abs(s.avgLoss! + 0.1) < 1e-12)
    #expect(abs(s.bestTrade! - 0.1) < 1e-12 && abs(s.worstTrade! + 0.1) < 1e-12)
    #expect(abs(s.totalPnl - 10) < 1e-9 && abs(s.profitFactor! - 1.1) < 1e-12)
    // The file reads back the same.
    #expect(try Journal.parse(j.text, file: "j.csv") == j)
  }

  @Test("one open trade at most: entering twice or exiting when flat is refused")
  func rules() throws {
    var j = Journal()
    #expect(throws: InputError.self) { try j.exit(time: "t", price: 1, reason: .manual) }
    try j.enter(JournalEntry(entryTime: "t", entryPrice: 1, shares: 1))
    #expect(j.openTrade != nil)
    #expect(throws: InputError.self) { try j.enter(JournalEntry(entryTime: "t2", entryPrice: 1, shares: 1)) }
    #expect(throws: InputError("expected an exit reason (STOP_LOSS, PROFIT_TARGET, TECHNICAL, MANUAL), found 'OOPS'",
                               at: SourceLocation(file: "j.csv", line: 2, column: 20))) {
      try Journal.parse(Journal.columns + "\n2024-01-02,1,1,t,2,OOPS,,,\n", file: "j.csv")
    }
  }
}

@Suite struct RedactionTests {
  @Test("every API key in a text is hidden, however many (index reuse after replacing used to be unsafe)")
  func redaction() {
    #expect(redactingKeys("GET /a?x=1&apiKey=SECRET&y=2") == "GET /a?x=1&apiKey=***&y=2")
    #expect(redactingKeys("u?apiKey=AAA and v?api_key=BBB\"") == "u?apiKey=*** and v?api_key=***\"")
    #expect(redactingKeys("apiKey=K1 apiKey=K2 apiKey=K3") == "apiKey=*** apiKey=*** apiKey=***")
    #expect(redactingKeys("no keys here") == "no keys here")
  }
}
