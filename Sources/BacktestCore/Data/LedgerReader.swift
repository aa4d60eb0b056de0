import Foundation

/// Reads ledger files: a CSV whose header names `date` and `amount`, optionally
/// `category`, `note`, `account` and `owner`; or the income tracker's JSON export.
package enum LedgerReader {
  /// Reads either form (a document starting with `[` or `{` is read as the JSON export).
  ///
  /// - Throws: `InputError` naming line and column: a bad date, an amount that is not a plain
  ///   number (a thousands separator gets its own hint), a missing field of the export.
  package static func read(_ data: Data, file: String) throws -> CashFlowLedger {
    if let first = data.first(where: { !$0.isWhitespace }), first == UInt8(ascii: "[") || first == UInt8(ascii: "{") {
      return try readExport(data, file: file)
    }
    var entries: [LedgerEntry] = []
    try [UInt8](data).withUnsafeBufferPointer { b in
      var scanner = CSVScanner(bytes: b, file: file)
      var fields: [CSVField] = []
      let start = SourceLocation(file: file, line: 1, column: 1)
      guard try scanner.next(into: &fields) else { throw InputError("empty file; expected 'date,amount,category,note'", at: start) }
      let header = fields.map { scanner.text($0).lowercased().trimmingSpaces() }
      guard let d = header.firstIndex(of: "date"), let a = header.firstIndex(of: "amount") else {
        throw InputError("expected a header with date and amount (and optionally category, note), found '\(excerpt(header.joined(separator: ",")))'", at: start)
      }
      let c = header.firstIndex(of: "category"), n = header.firstIndex(of: "note")
      let account = header.firstIndex(of: "account"), owner = header.firstIndex(of: "owner")
      while try scanner.next(into: &fields) {
        guard fields.count == header.count else {
          // An unquoted `-1,200.50` splits the amount in two: say so where it starts.
          if fields.count > header.count && a + 1 < fields.count {
            let joined = scanner.text(fields[a]) + "," + scanner.text(fields[a + 1])
            if hasThousandsSeparator(joined) {
              throw InputError("expected an amount without a thousands separator, found '\(joined)' (read as two fields); write \(joined.replacingOccurrences(of: ",", with: ""))",
                               at: scanner.location(fields[a]))
            }
          }
          throw InputError("expected \(header.count) fields as in the header, found \(fields.count)", at: SourceLocation(file: file, line: scanner.line, column: 1))
        }
        guard case .date(let day)? = parseTimestamp(b, fields[d].start, fields[d].end) else {
          throw InputError("expected a date YYYY-MM-DD, found '\(scanner.shown(fields[d]))'", at: scanner.location(fields[d]))
        }
        guard let amount = parseDecimal(b, fields[a].start, fields[a].end), amount.isFinite else {
          let text = scanner.text(fields[a]).trimmingSpaces()
          if hasThousandsSeparator(text) {
            throw InputError("expected an amount without a thousands separator, found '\(text)'; write \(text.replacingOccurrences(of: ",", with: ""))",
                             at: scanner.location(fields[a]))
          }
          throw InputError("expected an amount (income positive, expenses negative), found '\(scanner.shown(fields[a]))'", at: scanner.location(fields[a]))
        }
        guard abs(amount) <= ConfigTable.largestNumber else {
          throw InputError("expected an amount of at most 1e15, found '\(scanner.shown(fields[a]))'", at: scanner.location(fields[a]))
        }
        let category = c.map { scanner.text(fields[$0]).trimmingSpaces() } ?? ""
        entries.append(LedgerEntry(day: day, amount: amount, category: category.isEmpty ? "uncategorized" : category,
                                   note: n.map { scanner.text(fields[$0]) } ?? "",
                                   account: account.map { scanner.text(fields[$0]).trimmingSpaces() } ?? "",
                                   owner: owner.map { scanner.text(fields[$0]).trimmingSpaces() } ?? ""))
      }
      if entries.isEmpty { throw InputError("no entries; expected lines of date,amount,category,note after the header", at: start) }
    }
    return CashFlowLedger(entries: entries)
  }

  /// `1,200.50` or `-12,000`: digits grouped by threes with commas.
  static func hasThousandsSeparator(_ text: String) -> Bool {
    var body = Substring(text)
    if body.hasPrefix("-") || body.hasPrefix("+") { body = body.dropFirst() }
    let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
    let groups = parts[0].split(separator: ",", omittingEmptySubsequences: false)
    guard groups.count > 1, (1...3).contains(groups[0].count), groups.dropFirst().allSatisfy({ $0.count == 3 }) else { return false }
    return groups.allSatisfy { $0.allSatisfy { ("0"..."9").contains($0) } } && (parts.count == 1 || parts[1].allSatisfy { ("0"..."9").contains($0) })
  }

  /// The fields of one transaction in the income tracker's JSON export.
  package static let exportFields = "id, date, description, category, type, amount, account, owner, notes"

  /// Reads the income tracker's JSON export: a list of `{id, date, description, category, type, amount,
  /// account, owner, notes}`, `type` `income` or `expense`, `amount` positive (the type gives the sign),
  /// `date` ISO 8601 (`2026-02-10T12:00:00Z`: the day as written, before any time-zone conversion).
  /// `date`, `category`, `type` and `amount` are required; the rest may be absent or `null`.
  package static func readExport(_ data: Data, file: String) throws -> CashFlowLedger {
    let root = try JSONReader.parse(data, file: file)
    guard let items = root.array else {
      throw InputError("expected a list of transactions (\(exportFields)), found \(root.typeDescription)", at: root.location)
    }
    var entries: [LedgerEntry] = []
    // Where each id was first written: an export read twice (pasted twice, or two exports joined) would count every
    // transaction twice.
    var seen: [String: (transaction: Int, location: SourceLocation)] = [:]
    for (k, item) in items.enumerated() {
      let idNode = item["id"]
      let id = idNode.flatMap { node -> String? in
        if case .number(let written) = node.kind { return written }
        return node.string
      }
      let which = "transaction \(k + 1)" + (id.map { " (id \(excerpt($0)))" } ?? "")
      guard item.members != nil else {
        throw InputError("expected an object for \(which), found \(item.typeDescription)", at: item.location)
      }
      if let id, let idNode {
        if let first = seen[id] {
          throw InputError("\(which): expected each transaction once, found the id of transaction \(first.transaction) "
                             + "(line \(first.location.line), column \(first.location.column)) again (is the export in the file twice?)",
                           at: idNode.location)
        }
        seen[id] = (k + 1, idNode.location)
      }
      func required(_ key: String, _ expected: String) throws -> JSONNode {
        guard let node = item[key], !node.isNull else {
          throw InputError("\(which): missing '\(key)'; expected \(expected)", at: item.location)
        }
        return node
      }
      func text(_ key: String) throws -> String {
        guard let node = item[key], !node.isNull else { return "" }
        guard let s = node.string else {
          throw InputError("\(which): expected a string for '\(key)', found \(node.typeDescription)", at: node.location)
        }
        return s.trimmingSpaces()
      }
      let dateNode = try required("date", "an ISO 8601 date such as 2026-02-10T12:00:00Z")
      guard let dateText = dateNode.string, let day = exportDay(dateText) else {
        throw InputError("\(which): expected an ISO 8601 date such as 2026-02-10T12:00:00Z for 'date', found \(dateNode.string.map { "'\($0)'" } ?? dateNode.typeDescription)",
                         at: dateNode.location)
      }
      let typeNode = try required("type", "income or expense")
      let typeText = typeNode.string?.lowercased() ?? ""
      guard typeText == "income" || typeText == "expense" else {
        let hint = closestMatch(to: typeText, in: ["income", "expense"]).map { "; did you mean '\($0)'?" } ?? ""
        throw InputError("\(which): expected income or expense for 'type', found \(typeNode.string.map { "'\($0)'" } ?? typeNode.typeDescription)\(hint)",
                         at: typeNode.location)
      }
      let amountNode = try required("amount", "a positive number")
      // A JSON number, or a string holding a decimal number (not `0x1p10`, `inf` or `nan`).
      let amountText: String?, found: String
      switch amountNode.kind {
      case .number(let written): (amountText, found) = (written, excerpt(written))
      case .string(let written): (amountText, found) = (written, "'\(excerpt(written))'")
      default: (amountText, found) = (nil, amountNode.typeDescription)
      }
      guard let amount = amountText.flatMap({ parseDecimal($0) }), amount >= 0 else {
        throw InputError("\(which): expected a positive number for 'amount' (the type gives the sign), found \(found)",
                         at: amountNode.location)
      }
      // As in the CSV form: sums and cents of amounts up to 1e15 stay exact enough and finite.
      guard amount <= ConfigTable.largestNumber else {
        throw InputError("\(which): expected an amount of at most 1e15 for 'amount', found \(found)", at: amountNode.location)
      }
      _ = try required("category", "a category such as groceries")
      let category = try text("category")
      let description = try text("description"), notes = try text("notes")
      entries.append(LedgerEntry(day: day, amount: typeText == "income" ? amount : -amount, category: category.isEmpty ? "uncategorized" : category,
                                 note: notes.isEmpty ? description : description.isEmpty ? notes : description + " (" + notes + ")",
                                 account: try text("account"), owner: try text("owner")))
    }
    if entries.isEmpty { throw InputError("no transactions; expected a list of \(exportFields)", at: root.location) }
    return CashFlowLedger(entries: entries)
  }

  /// The calendar day written in an ISO 8601 date or date-time (`2026-02-10`, `2026-02-10T12:00:00Z`, with an offset).
  /// A fraction of a second (`2024-05-18T12:25:00.123Z`, as JavaScript's `toISOString` writes) is read and dropped.
  static func exportDay(_ text: String) -> Int? {
    var bytes = Array(text.utf8)
    // `YYYY-MM-DDTHH:MM:SS` then `.` or `,` and digits: only the day is taken, so the fraction goes.
    if bytes.count > 20, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
      bytes[19] == UInt8(ascii: ".") || bytes[19] == UInt8(ascii: ",")
    {
      var end = 20
      while end < bytes.count, bytes[end] &- 0x30 < 10 { end += 1 }
      guard end > 20 else { return nil }
      bytes.removeSubrange(19..<end)
    }
    switch bytes.withUnsafeBufferPointer({ parseTimestamp($0, 0, bytes.count) }) {
    case .date(let d)?: return d
    case .local(let s)?: return CivilDate.day(ofSeconds: s)
    case .zoned(let t, let offset)?: return CivilDate.day(ofSeconds: t + Int64(offset))
    default: return nil
    }
  }
}
