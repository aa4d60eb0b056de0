import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `backtest journal enter|exit|list`: the history of trades actually taken.
struct JournalCommand {
  var catalog: StrategyCatalog
  var action: String
  var file: String
  var config: RunConfig?
  var price: Double?
  var shares: Double?
  var time: String?
  var reason = JournalExitReason.manual
  var note = ""
  var quiet = false

  static let fileOption = OptionSpec.option("file", "FILE", "the journal, a CSV written atomically",
                                            default: .described("journal: of --config"), completion: .file)
  static let configOption = OptionSpec.option("config", "CONFIG", "a run file: its journal:, newest close and initial cash",
                                              completion: .runFile)
  static let priceOption = OptionSpec.option("price", "P", "the fill price", default: .described("the newest close, with --config"))
  static let timeOption = OptionSpec.option("time", "TIME", "when it happened: an ISO 8601 date or date-time",
                                            default: .described("the newest bar's time with --config, else now"))

  static let spec = CommandSpec(
    "journal", summary: "the history of trades actually taken, with the same analytics as a backtest",
    subcommands: [
      CommandSpec("enter", summary: "record a position you opened",
                  options: [fileOption, configOption, priceOption,
                            .option("shares", "N", "how many shares", default: .described("initial cash / price, with --config")),
                            timeOption, .option("note", "TEXT", "a note kept with the trade"), .quiet],
                  examples: ["journal enter --file journal.csv --price 26.40 --shares 100 --time 2024-11-13",
                             "journal enter --config Strategies/gpix.yaml --file journal.csv"]),
      CommandSpec("exit", summary: "close the open position",
                  options: [fileOption, configOption, priceOption, timeOption,
                            .option("reason", "REASON", "why it was closed", default: .value(JournalExitReason.manual.rawValue),
                                    completion: .choices(JournalExitReason.allCases.map(\.rawValue))), .quiet],
                  examples: ["journal exit --file journal.csv --price 27.10 --reason PROFIT_TARGET"]),
      CommandSpec("list", summary: "print every trade and the analytics of the closed ones",
                  options: [fileOption, configOption],
                  examples: ["journal list --file journal.csv"]),
    ],
    details: "The journal is kept in the file given by --file, or the journal: key of the run file given by --config; signal reads its open trade as your position.",
    examples: ["journal enter --file journal.csv --price 26.40 --shares 100", "journal list --file journal.csv"])

  init(_ args: ArraySlice<String>, catalog: StrategyCatalog) throws {
    self.catalog = catalog
    let (command, path, rest) = try Arguments.subcommand(args, of: Self.spec, path: "journal")
    let a = try Arguments(rest, command: command, path: path)
    if let extra = a.positionals.first { throw UsageError(message: "\(path) takes options only, found '\(extra)'") }
    action = command.name
    if let path = a.option("config") {
      let file = RunFileArgument(path: RunFileArgument.locate(path), overrides: [])
      config = try RunConfig.parse(try file.text(), file: file.path, catalog: catalog)
    }
    guard let file = a.option("file") ?? config?.journal else {
      throw UsageError(message: "expected --file JOURNAL.csv (or --config with a 'journal:' key)")
    }
    self.file = file
    func number(_ name: String) throws -> Double? {
      guard let text = a.option(name) else { return nil }
      guard let v = parseDecimal(text), v > 0, v <= ConfigTable.largestNumber else {
        throw UsageError(message: "expected a number > 0 up to 1e15 for '--\(name)', found '\(text)'")
      }
      return v
    }
    if action != "list" {
      price = try number("price")
      time = try a.option("time").map { text in
        guard WrittenTimestamp(userTime: text) != nil else {
          throw UsageError(message: "expected \(WrittenTimestamp.userTimeExpected) for '--time', found '\(printable(text))'")
        }
        return text
      }
      quiet = a.flag("quiet")
    }
    if action == "enter" {
      shares = try number("shares")
      note = a.option("note") ?? ""
    }
    if action == "exit" { reason = JournalExitReason(rawValue: try a.choice("reason")!)! }
  }

  func run() throws -> Int32 {
    // A folder is missing input (exit 66), for every action: not a lock that cannot be taken (exit 1).
    var info = stat()
    if stat(file, &info) == 0 && Int(info.st_mode) & Int(S_IFMT) == Int(S_IFDIR) {
      throw InputError("is a folder; expected a journal file", file: file, kind: .missingInput)
    }
    if action == "list" {
      printList(try Self.read(file))
      return ExitCode.ok
    }
    let (p, t) = try priceAndTime()
    let shares = action == "enter" ? self.shares ?? config.map({ ($0.broker.initialCash / p).rounded(.down) }) : nil
    if action == "enter", (shares ?? 0) <= 0 {
      throw UsageError(message: "expected --shares N (or --config to size from its initial cash)")
    }
    // Read, change and write under a lock: of several processes at once, each sees the others' trades.
    let folder = (file as NSString).deletingLastPathComponent
    let folderExisted = folder.isEmpty || FileManager.default.fileExists(atPath: folder)
    try makeFolder(folder.isEmpty ? "." : folder)
    let existed = FileManager.default.fileExists(atPath: file)
    let lock = try ExclusiveLock(file, create: true)
    var journal: Journal
    do {
      journal = try Self.read(file)
      do {
        if action == "enter" {
          try journal.enter(JournalEntry(entryTime: t, entryPrice: p, shares: shares!, note: note))
        } else {
          try journal.exit(time: t, price: p, reason: reason)
        }
      } catch let e as InputError {
        throw InputError(e.message, file: file)
      }
      try AtomicWriter.write([ReportFile(name: (file as NSString).lastPathComponent, contents: journal.text)],
                             into: folder.isEmpty ? "." : folder)
    } catch {
      // The empty file the lock needed is not left behind.
      var info = stat()
      if !existed, stat(file, &info) == 0, info.st_size == 0 { unlink(file) }
      if !folderExisted { rmdir(folder) }
      throw error
    }
    lock.unlock()
    guard !quiet else { return ExitCode.ok }
    if action == "enter" {
      print("entered \(formatNumber(shares!)) shares at \(HumanFormat.price(p)) on \(t)")
    } else {
      let last = journal.entries.last!
      print("exited at \(HumanFormat.price(p)) on \(t) (\(reason.rawValue)): \(HumanFormat.money(last.pnl)), \(HumanFormat.percent(last.returnFraction))")
    }
    return ExitCode.ok
  }

  /// The journal in `file`; empty when there is no such file.
  static func read(_ file: String) throws -> Journal {
    guard FileManager.default.fileExists(atPath: file) else { return Journal() }
    return try Journal.parse(String(decoding: try readInputFile(file), as: UTF8.self), file: file)
  }

  /// `--price` and `--time`, or the newest bar's close and time from `--config`.
  func priceAndTime() throws -> (Double, String) {
    var p = price, t = time
    if p == nil || t == nil, let config {
      let (bars, _) = try Backtest.loadBars(for: config)
      p = p ?? bars.close[bars.count - 1]
      t = t ?? bars.timeLabel(bars.count - 1)
    }
    guard let p else { throw UsageError(message: "expected --price P (or --config to take the newest close)") }
    return (p, t ?? isoInstant(Int64(Date().timeIntervalSince1970)))
  }

  func printList(_ journal: Journal) {
    print("\(file): \(journal.entries.count) trade(s)")
    for (k, e) in journal.entries.enumerated() {
      // The times are the file's text: shown cut short, with any control characters escaped.
      let exit = e.exitPrice.map { "→ \(HumanFormat.price($0)) on \(printable(e.exitTime ?? "")) \(e.exitReason?.rawValue ?? ""): \(HumanFormat.money(e.pnl)) (\(HumanFormat.percent(e.returnFraction)))" } ?? "open"
      print("  \(k + 1). \(formatNumber(e.shares)) shares at \(HumanFormat.price(e.entryPrice)) on \(printable(e.entryTime)) \(exit)")
    }
    let s = journal.summary
    print("  closed trades \(s.totalTrades), win rate \(HumanFormat.percent(s.winRate)), average win \(HumanFormat.percent(s.avgWin)), "
      + "average loss \(HumanFormat.percent(s.avgLoss)), best \(HumanFormat.percent(s.bestTrade)), worst \(HumanFormat.percent(s.worstTrade)), "
      + "total P&L \(HumanFormat.money(s.totalPnl))")
    for reason in JournalExitReason.allCases {
      let n = journal.entries.filter { $0.exitReason == reason }.count
      if n > 0 { print("  \(reason.rawValue): \(n)") }
    }
  }
}
