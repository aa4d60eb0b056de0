import BacktestCore
import Foundation

/// Why a journaled trade was closed.
package enum JournalExitReason: String, Sendable, CaseIterable {
  case stopLoss = "STOP_LOSS", profitTarget = "PROFIT_TARGET", technical = "TECHNICAL", manual = "MANUAL"
}

/// One trade actually taken: open while `exitPrice` is nil.
package struct JournalEntry: Sendable, Equatable {
  package var entryTime: String
  package var entryPrice: Double
  package var shares: Double
  package var exitTime: String?
  package var exitPrice: Double?
  package var exitReason: JournalExitReason?
  package var note: String

  package init(entryTime: String, entryPrice: Double, shares: Double, note: String = "") {
    self.entryTime = entryTime
    self.entryPrice = entryPrice
    self.shares = shares
    self.note = note
  }

  package var isOpen: Bool { exitPrice == nil }
  package var pnl: Double? { exitPrice.map { shares * ($0 - entryPrice) } }
  package var returnFraction: Double? { exitPrice.map { $0 / entryPrice - 1 } }
}

/// The trade journal: a CSV file of trades actually taken.
package struct Journal: Sendable, Equatable {
  package static let columns = "entry_time,entry_price,shares,exit_time,exit_price,exit_reason,pnl,return,note"
  package var entries: [JournalEntry] = []

  package init(entries: [JournalEntry] = []) { self.entries = entries }

  /// The open trade, if any (at most one: the strategy is long-only, one position at a time).
  package var openTrade: JournalEntry? { entries.last.flatMap { $0.isOpen ? $0 : nil } }

  package mutating func enter(_ entry: JournalEntry) throws {
    if let open = openTrade {
      throw InputError("a trade is already open (entered \(open.entryTime) at \(open.entryPrice)); expected 'journal exit' first",
                       file: "journal")
    }
    entries.append(entry)
  }

  package mutating func exit(time: String, price: Double, reason: JournalExitReason) throws {
    guard !entries.isEmpty, entries[entries.count - 1].isOpen else {
      throw InputError("no open trade to exit; expected 'journal enter' first", file: "journal")
    }
    if let message = Self.exitBeforeEntry(entry: entries[entries.count - 1].entryTime, exit: time) {
      throw InputError(message, file: "journal")
    }
    entries[entries.count - 1].exitTime = time
    entries[entries.count - 1].exitPrice = price
    entries[entries.count - 1].exitReason = reason
  }

  /// The complaint when `exit` is earlier than `entry` (both read as times); `nil` when it is not, or either is free text.
  static func exitBeforeEntry(entry: String, exit: String) -> String? {
    guard let e = WrittenTimestamp(entry), let x = WrittenTimestamp(exit), x.secondsForOrdering < e.secondsForOrdering else {
      return nil
    }
    return "the exit time \(excerpt(exit)) is before the entry time \(excerpt(entry)); expected an exit at or after its entry"
  }

  /// The statistics of the closed trades, as a backtest's summary computes them.
  package var summary: PerformanceSummary {
    var accumulator = SummaryAccumulator()
    for e in entries {
      guard let exit = e.exitPrice else { continue }
      accumulator.add(Trade(entryBar: 0, entryPrice: e.entryPrice, exitBar: 0, exitPrice: exit, shares: e.shares,
                            exitReason: .technical), calendarDays: 0)
    }
    var s = accumulator.summary(initialCash: 1, calendarDays: 0)
    // A journal has no bars: nothing is counted in bars or days.
    (s.averageBarsHeld, s.longestBarsHeld, s.averageTradeDays, s.longestTradeDays) = (nil, nil, nil, nil)
    return s
  }

  package var text: String {
    var out = Self.columns + "\n"
    for e in entries {
      out += [e.entryTime, e.entryPrice.description, formatNumber(e.shares), e.exitTime ?? "", e.exitPrice.map { $0.description } ?? "",
              e.exitReason?.rawValue ?? "", e.pnl.map { $0.description } ?? "", e.returnFraction.map { $0.description } ?? "", csvField(e.note)]
        .joined(separator: ",") + "\n"
    }
    return out
  }

  /// Reads a journal file.
  package static func parse(_ text: String, file: String) throws -> Journal {
    var journal = Journal()
    let bytes = Array(text.utf8)
    try bytes.withUnsafeBufferPointer { b in
      var scanner = CSVScanner(bytes: b, file: file)
      var fields: [CSVField] = []
      guard try scanner.next(into: &fields) else { return }
      guard fields.map({ scanner.text($0) }).joined(separator: ",") == columns else {
        throw InputError("expected the journal header '\(columns)'", at: SourceLocation(file: file, line: scanner.line, column: 1))
      }
      while try scanner.next(into: &fields) {
        guard fields.count == 9 else {
          throw InputError("expected 9 fields as in the header, found \(fields.count)", at: SourceLocation(file: file, line: scanner.line, column: 1))
        }
        func price(_ k: Int, _ name: String) throws -> Double {
          guard let v = parseDecimal(b, fields[k].start, fields[k].end), v > 0, v <= ConfigTable.largestNumber else {
            throw InputError("expected a positive number up to 1e15 for '\(name)', found '\(scanner.shown(fields[k]))'", at: scanner.location(fields[k]))
          }
          return v
        }
        var entry = JournalEntry(entryTime: scanner.text(fields[0]), entryPrice: try price(1, "entry_price"),
                                 shares: try price(2, "shares"), note: scanner.text(fields[8]))
        if !scanner.text(fields[4]).isEmpty {
          entry.exitTime = scanner.text(fields[3])
          if let message = exitBeforeEntry(entry: entry.entryTime, exit: scanner.text(fields[3])) {
            throw InputError(message, at: scanner.location(fields[3]))
          }
          entry.exitPrice = try price(4, "exit_price")
          guard let reason = JournalExitReason(rawValue: scanner.text(fields[5])) else {
            throw InputError("expected an exit reason (\(JournalExitReason.allCases.map(\.rawValue).joined(separator: ", "))), found '\(scanner.shown(fields[5]))'",
                             at: scanner.location(fields[5]))
          }
          entry.exitReason = reason
        }
        if let open = journal.openTrade {
          throw InputError("a trade opened at \(open.entryTime) has no exit before this one; expected one open trade at most, the last",
                           at: SourceLocation(file: file, line: scanner.line, column: 1))
        }
        journal.entries.append(entry)
      }
    }
    return journal
  }
}
