import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

/// `backtest signal CONFIG`: the signal for the newest closed bar.
struct SignalCommand {
  var catalog: StrategyCatalog
  /// The run file named on the command line, with the `--set` overrides.
  let file: RunFileArgument
  var positionFile: String?
  var journalFile: String?
  var json: Bool
  var now: String?
  /// `--state FILE`: the last result, to say what changed.
  var statePath: String?
  /// `--on-change CMD`: run with the JSON on its standard input when something changed.
  var onChange: ChangeCommand?

  static let spec = CommandSpec(
    "signal", summary: "the BUY, SELL or HOLD signal at the newest closed bar, with its reason",
    arguments: [.config],
    options: [
      .flag("json", "print the signal as JSON (schema backtest.signal/1, Docs/signal.schema.json) for an app"),
      .option("position", "FILE", "your open position: a YAML file with entry_price, shares and optionally entry_time",
              default: .described("the backtest's own position"), completion: .file),
      .option("journal", "FILE", "take the position from this journal's open trade", default: .described("journal: of the run file"),
              completion: .file),
      .option("now", "TIME", "the clock, an ISO 8601 time (for the time to the next bar's close)", default: .described("the system clock")),
      .set,
      .option("state", "FILE", "remember the result in FILE (written atomically) and say what changed since the last check (JSON changed and previous)",
              completion: .file),
      .option("on-change", "CMD", "with --state: run CMD with /bin/sh when the signal, its exit reason, the position or a crossed alert changed, the JSON on its standard input"),
      .option("on-change-timeout", "SECONDS", "stop --on-change, and everything it started, after this long (at most 86400, a day)", default: .value("30")),
    ],
    details: """
      On a portfolio or rotation run file (an allocation strategy): the targets of its newest decision (traded at the next open when made at the newest close), each asset's score and rank, and what the run holds now; --json has schema backtest.targets/1, --state remembers the targets and says whether they changed.

      Runs the strategy over every bar and reports its decision at the newest close: the price and the day's change, when the next bar closes, the indicator panel, the cycle stage with the classifier's inputs, the position with its unrealized P&L, stop and target, and the alerts the close crossed. A stop or target the newest bar traded through sells your position (SELL, exit reason STOP_LOSS or PROFIT_TARGET). The signal goes to stdout, errors to stderr, so --json can be piped.

      A failed --on-change command (non-zero exit, a signal, the time limit) is reported with exit status 1 and tried again by the next check; after 3 failed attempts the change is saved and not sent again.
      """,
    examples: [
      "signal Strategies/gpix.yaml", "signal gpix.yaml --json --now 2024-11-13T16:00:00-05:00",
      "signal gpix.yaml --state state/gpix.json --on-change ./notify.sh  # run notify.sh when the signal changes",
    ])

  init(_ args: ArraySlice<String>, catalog: StrategyCatalog) throws {
    self.catalog = catalog
    let a = try Arguments(args, command: Self.spec, path: "signal")
    file = try RunFileArgument(a, usage: "backtest signal CONFIG")
    positionFile = a.option("position")
    journalFile = a.option("journal")
    json = a.flag("json")
    now = a.option("now")
    statePath = a.option("state")
    let limitText = a.option("on-change-timeout")!
    guard let limit = parseDecimal(limitText), limit > 0, limit <= ChangeCommand.longestTimeLimit else {
      throw UsageError(message: "expected seconds > 0 up to \(formatPlain(ChangeCommand.longestTimeLimit)) (a day) for '--on-change-timeout', found '\(excerpt(limitText))'")
    }
    if let command = a.option("on-change") {
      guard statePath != nil else { throw UsageError(message: "--on-change needs --state FILE (where the last result is kept, to know what changed)") }
      onChange = ChangeCommand(command: command, timeLimit: limit)
    }
  }

  /// Reads `--position FILE`: `entry_price`, `shares` and optionally `entry_time`.
  static func readPosition(_ path: String) throws -> HeldPosition {
    let root = try YAMLReader.parse(String(decoding: try readInputFile(path), as: UTF8.self), file: path)
    let t = try ConfigTable(root, path: "")
    guard let price = try t.double("entry_price", where: { $0 > 0 }, expected: "a price > 0"),
      let shares = try t.double("shares", where: { $0 > 0 }, expected: "a number of shares > 0")
    else { throw InputError("expected entry_price and shares (and optionally entry_time)", at: t.location) }
    let time = try t.string("entry_time", default: "")!
    if !time.isEmpty && WrittenTimestamp(userTime: time) == nil {
      throw InputError("expected \(WrittenTimestamp.userTimeExpected) for 'entry_time', found '\(excerpt(time))'", at: t.node("entry_time")!.location)
    }
    try t.finish()
    return HeldPosition(entryPrice: price, entryTime: time, entryInstant: instant(time), shares: shares)
  }

  static func instant(_ text: String) -> Int64? {
    let bytes = Array(text.utf8)
    switch bytes.withUnsafeBufferPointer({ parseTimestamp($0, 0, bytes.count) }) {
    case .zoned(let t, _)?: return t
    case .epoch(let t)?: return t
    case .local(let s)?: return s
    case .date(let d)?: return Int64(d) * 86_400
    case nil: return nil
    }
  }

  func run() throws -> Int32 {
    let config: RunConfig
    switch try file.config(catalog: catalog) {
    case .swing(let swing): config = swing
    case .portfolio(let portfolio): return try targets(portfolio)
    case .universe(let universe):
      throw InputError(universe.universe.oneAtATime("signal answers for one asset"), file: file.path)
    }
    var source = LiveSignalAnalyzer.PositionSource.backtest
    if let positionFile {
      source = .user(try Self.readPosition(positionFile))
    } else if let journal = journalFile ?? config.journal, FileManager.default.fileExists(atPath: journal) {
      let j = try Journal.parse(String(decoding: try readInputFile(journal), as: UTF8.self), file: journal)
      source = j.openTrade.map {
        .user(HeldPosition(entryPrice: $0.entryPrice, entryTime: $0.entryTime, entryInstant: Self.instant($0.entryTime), shares: $0.shares))
      } ?? .flat
    }
    let nowInstant: Int64
    if let now {
      guard let t = Self.instant(now) else { throw UsageError(message: "expected an ISO 8601 time for '--now', found '\(now)'") }
      nowInstant = t
    } else {
      nowInstant = Int64(Date().timeIntervalSince1970)
    }
    // The run answers the question for this position as it decides at the newest close.
    var (bars, barsInFile) = try Backtest.loadBars(for: config)
    bars = try Self.closed(bars, by: nowInstant, data: config.data)
    let inputs = RunInputs(bars: bars, barsInFile: barsInFile, cycle: try Backtest.loadCycle(config, bars: bars),
                           intrabar: try Backtest.loadIntrabar(config.data), dividends: try Backtest.loadDividends(config.data))
    let output = Backtest.execute(config, inputs, explain: LiveSignalAnalyzer.question(for: source, bars: bars))
    let signal = LiveSignalAnalyzer.analyze(output, position: source, alerts: config.alerts, holidays: config.data.holidays, now: nowInstant)
    // One check of a state file at a time: from reading it to writing it (with the notifier between), others wait.
    let lock = try lockState()
    defer { lock?.unlock() }
    // Read before anything is printed: a state file that cannot be read stops the check.
    let stored = try storedState(SignalState.self)
    let current = SignalSummary(signal)
    let changed = stored?.isChange(current) ?? true
    let document = SignalJSON.render(signal, strategy: config.strategy.name, data: config.data.bars,
                                     state: statePath.map { _ in (changed, stored?.last?.json ?? .null) }).rendered()
    if json {
      print(document)
    } else {
      printText(signal, config)
      if statePath != nil {
        print(stored?.last.map { "  changed since the last check: \(changed ? "yes (was \($0.signal.rawValue) at \($0.time))" : "no")" }
          ?? "  first check: nothing stored yet")
      }
    }
    return try deliver(document, changed: changed, current: current, stored: stored)
  }

  /// With `--state FILE`: the lock on `.FILE.lock` beside it, held from reading the state to writing it, so that checks
  /// at once notify a change once.
  func lockState() throws -> ExclusiveLock? {
    guard let statePath else { return nil }
    let folder = (statePath as NSString).deletingLastPathComponent
    try makeFolder(folder.isEmpty ? "." : folder)
    let path = (folder.isEmpty ? "" : folder + "/") + "." + (statePath as NSString).lastPathComponent + ".lock"
    return try ExclusiveLock(path, create: true)
  }

  /// With `--state`, the state file as the last check left it (`nil` before the first).
  func storedState<Summary>(_ type: WatchState<Summary>.Type) throws -> WatchState<Summary>? {
    try statePath.flatMap { path in
      FileManager.default.fileExists(atPath: path) ? try WatchState<Summary>.parse(try readInputFile(path), file: path) : nil
    }
  }

  /// With `--state`: runs `--on-change` with `document` when something `changed`, and writes the state file with
  /// `current`, or with the `stored` summary (to notify it again at the next check) while a failing notification has
  /// attempts left.
  func deliver<Summary>(_ document: String, changed: Bool, current: Summary, stored: WatchState<Summary>?) throws -> Int32 {
    guard let statePath else { return ExitCode.ok }
    let checkedAt = Int64(Date().timeIntervalSince1970)
    var text = WatchState(last: current, checkedAt: checkedAt).text
    var status = ExitCode.ok
    if changed, let onChange {
      if let problem = onChange.problem(onChange.run(input: document + "\n")) {
        let attempts = (stored?.failedAttempts ?? 0) + 1
        var message = "\(Program.name): error: the --on-change command \(problem)"
        if attempts < WatchState<Summary>.maximumAttempts {
          // Keep the stored result: the next check sees the same change and notifies again.
          text = WatchState(last: stored?.last, failedAttempts: attempts, checkedAt: checkedAt).text
          message += "; the next check tries again (attempt \(attempts) of \(WatchState<Summary>.maximumAttempts))"
        } else {
          message += "; giving up after \(attempts) attempts: the change is saved and will not be sent again"
        }
        printErrorMessage(message)
        status = ExitCode.failure
      }
    }
    let folder = (statePath as NSString).deletingLastPathComponent
    try AtomicWriter.write([ReportFile(name: (statePath as NSString).lastPathComponent, contents: text)], into: folder.isEmpty ? "." : folder)
    return status
  }

  /// `signal` for a strategy over several assets: the targets of its newest decision, each asset's score and rank
  /// there, and what the run holds at the newest close (the bars closed by `--now` only).
  func targets(_ config: PortfolioRunConfig) throws -> Int32 {
    if positionFile != nil || journalFile != nil {
      throw UsageError(message: "--position and --journal apply to a strategy over one asset; \(config.strategy.name) allocates among several")
    }
    let nowInstant: Int64
    if let now {
      guard let t = Self.instant(now) else { throw UsageError(message: "expected an ISO 8601 time for '--now', found '\(now)'") }
      nowInstant = t
    } else {
      nowInstant = Int64(Date().timeIntervalSince1970)
    }
    var (assets, ledger, manifest) = try PortfolioBacktest.loadInputs(config)
    for a in assets.indices {
      assets[a].bars = try Self.closed(assets[a].bars, by: nowInstant, data: DataSettings(bars: config.assets[a].bars, timeZone: config.timeZone))
    }
    let output = PortfolioBacktest.execute(config, assets: assets, ledger: ledger, manifest: manifest)
    let signal = AllocationSignal(output, description: PortfolioReport.strategyText(output))
    let lock = try lockState()
    defer { lock?.unlock() }
    let stored = try storedState(TargetsState.self)
    let current = TargetsSummary(signal)
    let changed = stored?.isChange(current) ?? true
    let document = signal.json(state: statePath.map { _ in (changed, stored?.last?.json ?? .null) }).rendered()
    if json {
      print(document)
    } else {
      print("\(config.name): targets \(signal.decidedAt.map { "decided at the close of \($0)" } ?? "held from the start")"
        + " (newest bar \(signal.time))")
      print("  \(signal.description)")
      if signal.newDecision { print("  " + TextStyle.bold.stdout("new decision") + ": the account trades to these targets at the next open") }
      printTable(["", "target", "score", "rank", "held now", "close"], signal.targets.map { t in
        [t.symbol, HumanFormat.percent(t.weight), t.score.isNaN ? "—" : formatPlain((t.score * 10_000).rounded() / 10_000),
         t.rank.map(String.init) ?? "—", HumanFormat.percent(t.held), t.close.isNaN ? "—" : HumanFormat.price(t.close)]
      })
      if statePath != nil {
        print(stored?.last.map { "  changed since the last check: \(changed ? "yes (the targets at \($0.time) differ)" : "no")" }
          ?? "  first check: nothing stored yet")
      }
    }
    return try deliver(document, changed: changed, current: current, stored: stored)
  }

  /// The bars that closed by `now`: a bar still forming (or after `--now`) is no
  /// input to the decision. An intraday bar closes one bar length after it
  /// starts, a bar stamped with a date at its session's end.
  /// `4m 30s`, `5h 16m 48s`, `730d 4h`: a span for people.
  static func duration(_ seconds: Int64) -> String {
    let d = seconds / 86_400, h = seconds / 3600 % 24, m = seconds / 60 % 60, sec = seconds % 60
    if d > 0 { return "\(d)d \(h)h" }
    return "\(h > 0 ? "\(h)h " : "")\(m)m \(sec)s"
  }

  static func closed(_ bars: BarSeries, by now: Int64, data: DataSettings) throws -> BarSeries {
    let step = NextBarClose.interval(bars)
    func close(_ i: Int) -> Int64 {
      // A date-only bar closes at its session's close, as the next close is told (16:00 for daily bars with session all).
      if bars.isDateOnly { return NextBarClose.close(of: i, bars: bars, session: data.session, timeZone: data.timeZone) }
      return step < 86_400 ? bars.time[i] + step : bars.time[i]
    }
    var n = bars.count
    while n > 0 && close(n - 1) > now { n -= 1 }
    if n == 0 {
      throw InputError("no bar closes by \(isoInstant(now)) (the first closes at \(isoInstant(close(0)))); expected a later --now", file: data.bars)
    }
    if n < bars.count {
      printError("note: \(bars.count - n) bar\(bars.count - n == 1 ? "" : "s") of \(data.bars) close\(bars.count - n == 1 ? "s" : "") after \(isoInstant(now)) (the newest from \(bars.timeLabel(bars.count - 1))): left out, not yet closed")
    }
    return n == bars.count ? bars : bars.prefix(n)
  }

  func printText(_ s: LiveSignal, _ c: RunConfig) {
    let decimals = HumanFormat.decimals(of: s.close)
    let price = { (x: Double) in HumanFormat.price(x, decimals: decimals) }
    let style: TextStyle = switch s.action { case .buy, .cover: .green; case .sell, .short: .red; case .hold: .bold }
    print("\(c.name): \(style.stdout(s.action.rawValue)) at the close of \(s.time) (newest bar)")
    if let d = c.data.description { print("  \(d)") }
    print("  \(s.reason)")
    var line = "  price \(price(s.close))"
    if let change = s.dayChange, let fraction = s.dayChangeFraction {
      line += ", day \(change >= 0 ? "+" : "-")\(HumanFormat.money(abs(change))) (\(fraction >= 0 ? "+" : "")\(HumanFormat.percent(fraction)))"
    }
    print(line)
    if s.stale == true, let age = s.barAgeSeconds {
      print("  " + TextStyle.red.stdout("warning: stale data") + ": the newest bar closed \(Self.duration(age)) ago and newer bars should have "
            + "closed since; fetch the new bars before acting on this signal")
    } else if let seconds = s.secondsToNextBarClose, let at = s.nextBarClose {
      print("  next bar closes in \(Self.duration(seconds)) (\(isoInstant(at)))")
    }
    for detail in s.details.lines { print("  " + detail) }
    if let cycle = s.cycle { print("  economic cycle: \(cycle.rawValue)") }
    if let d = s.cycleDetails { for line in d.lines { print("    " + line) } }
    if let pos = s.position {
      print("  position (\(pos.source)): \(formatNumber(pos.shares)) shares from \(HumanFormat.price(pos.entryPrice))"
        + (pos.entryTime.isEmpty ? "" : " on \(printable(pos.entryTime))") + ", unrealized \(pos.unrealizedPnl >= 0 ? "+" : "")\(HumanFormat.money(pos.unrealizedPnl)) (\(HumanFormat.percent(pos.unrealizedReturn)))")
      var levels: [String] = []
      if let stop = pos.stopLevel { levels.append("stop \(price(stop))") }
      if let target = pos.targetLevel { levels.append("target \(price(target))") }
      if let bars = pos.barsHeld { levels.append("\(bars) bars held") }
      if !levels.isEmpty { print("    " + levels.joined(separator: ", ")) }
      print("    exit condition: \(pos.exitCondition ?? "none met")")
    } else {
      print("  position: flat")
    }
    for a in s.alerts where a.crossed {
      print("  ALERT: the close crossed \(a.alert.direction.rawValue) \(HumanFormat.price(a.alert.level))")
    }
  }
}
