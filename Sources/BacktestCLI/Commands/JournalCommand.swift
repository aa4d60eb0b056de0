import BacktestCore
import CommandLineSupport
import Foundation

/// `backtest journal enter|exit|list`: the history of trades actually taken.
struct JournalCommand {
  var catalog: StrategyCatalog
  var action: String
  var file: String
  var config: RunConfig?
  var price: Double?
  var shares: Double?
  var time: String?
  var reason: JournalExitReason
  var note: String

  init(_ args: ArraySlice<String>, catalog: StrategyCatalog) throws {
    self.catalog = catalog
    let a = try Arguments(args, flags: [], options: ["file", "config", "price", "shares", "time", "reason", "note"])
    guard let action = a.positionals.first, ["enter", "exit", "list"].contains(action), a.positionals.count == 1 else {
      throw UsageError(message: "expected journal enter, journal exit or journal list")
    }
    self.action = action
    if let path = a.option("config") {
      let path = RunCommand.locate(path)
      config = try RunConfig.parse(String(decoding: try readInputFile(path), as: UTF8.self), file: path, catalog: catalog)
    }
    guard let file = a.option("file") ?? config?.journal else {
      throw UsageError(message: "expected --file JOURNAL.csv (or --config with a 'journal:' key)")
    }
    self.file = file
    func number(_ name: String) throws -> Double? {
      guard let text = a.option(name) else { return nil }
      guard let v = Double(text), v.isFinite, v > 0 else { throw UsageError(message: "expected a number > 0 for '--\(name)', found '\(text)'") }
      return v
    }
    price = try number("price")
    shares = try number("shares")
    time = a.option("time")
    let reasonText = a.option("reason") ?? "MANUAL"
    guard let r = JournalExitReason(rawValue: reasonText.uppercased()) else {
      throw UsageError(message: "expected --reason \(JournalExitReason.allCases.map(\.rawValue).joined(separator: "|")), found '\(reasonText)'")
    }
    reason = r
    note = a.option("note") ?? ""
  }

  func run() throws -> Int32 {
    var journal = Journal()
    if FileManager.default.fileExists(atPath: file) {
      journal = try Journal.parse(String(decoding: try readInputFile(file), as: UTF8.self), file: file)
    }
    switch action {
    case "list":
      printList(journal)
      return ExitCode.ok
    case "enter":
      let (p, t) = try priceAndTime()
      guard let shares = shares ?? config.map({ ($0.broker.initialCash / p).rounded(.down) }), shares > 0 else {
        throw UsageError(message: "expected --shares N (or --config to size from its initial cash)")
      }
      do { try journal.enter(JournalEntry(entryTime: t, entryPrice: p, shares: shares, note: note)) } catch let e as InputError {
        throw InputError(e.message, file: file)
      }
      print("entered \(formatNumber(shares)) shares at \(HumanFormat.price(p)) on \(t)")
    default:
      let (p, t) = try priceAndTime()
      do { try journal.exit(time: t, price: p, reason: reason) } catch let e as InputError { throw InputError(e.message, file: file) }
      let last = journal.entries.last!
      print("exited at \(HumanFormat.price(p)) on \(t) (\(reason.rawValue)): \(HumanFormat.money(last.pnl)), \(HumanFormat.percent(last.returnFraction))")
    }
    let folder = (file as NSString).deletingLastPathComponent
    try AtomicWriter.write([ReportFile(name: (file as NSString).lastPathComponent, contents: journal.text)],
                           into: folder.isEmpty ? "." : folder)
    return ExitCode.ok
  }

  /// `--price` and `--time`, or the newest bar's close and time from `--config`.
  func priceAndTime() throws -> (Double, String) {
    var p = price, t = time
    if p == nil || t == nil, let config {
      let (bars, _) = try Backtest.loadBars(config.data)
      p = p ?? bars.close[bars.count - 1]
      t = t ?? bars.timeLabel(bars.count - 1)
    }
    guard let p else { throw UsageError(message: "expected --price P (or --config to take the newest close)") }
    return (p, t ?? isoInstant(Int64(Date().timeIntervalSince1970)))
  }

  func printList(_ journal: Journal) {
    print("\(file): \(journal.entries.count) trade(s)")
    for (k, e) in journal.entries.enumerated() {
      let exit = e.exitPrice.map { "→ \(HumanFormat.price($0)) on \(e.exitTime ?? "") \(e.exitReason?.rawValue ?? ""): \(HumanFormat.money(e.pnl)) (\(HumanFormat.percent(e.returnFraction)))" } ?? "open"
      print("  \(k + 1). \(formatNumber(e.shares)) shares at \(HumanFormat.price(e.entryPrice)) on \(e.entryTime) \(exit)")
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
