import Foundation

/// Reads dividend files: `ex_date,pay_date,amount` (optionally `symbol`), or
/// Yahoo's download `Date,Dividends` (the ex-date and the amount; each paid on its ex-date).
public enum DividendReader {
  /// Returns the file's dividends in increasing ex-date order; with `symbol`, only that symbol's rows. `file` names the
  /// source in errors.
  ///
  /// - Throws: `InputError` for a header without the needed columns, a bad date or amount, a pay date before its
  ///   ex-date, an ex-date not after the previous one, or a symbol column without `symbol` (or no row for it).
  public static func read(_ data: Data, file: String, symbol: String? = nil) throws -> [Dividend] {
    try readFile(data, file: file, symbol: symbol).dividends
  }

  /// The dividends, and whether the file gave pay dates (else each is paid on its ex-date).
  public static func readFile(_ data: Data, file: String, symbol: String? = nil) throws -> (dividends: [Dividend], payDates: Bool) {
    var out: [Dividend] = []
    var payDates = false
    try [UInt8](data).withUnsafeBufferPointer { b in
      var scanner = CSVScanner(bytes: b, file: file)
      var fields: [CSVField] = []
      guard try scanner.next(into: &fields) else { throw InputError("empty file; expected 'ex_date,pay_date,amount'", at: SourceLocation(file: file, line: 1, column: 1)) }
      let header = fields.map { scanner.text($0).lowercased().trimmingSpaces() }
      guard let e = header.firstIndex(of: "ex_date") ?? header.firstIndex(of: "date"),
            let a = header.firstIndex(of: "amount") ?? header.firstIndex(of: "dividends") else {
        throw InputError("expected a header with ex_date and amount (pay_date optional), or Yahoo's Date,Dividends, found '\(excerpt(header.joined(separator: ",")))'",
                         at: SourceLocation(file: file, line: 1, column: 1))
      }
      let p = header.firstIndex(of: "pay_date"), s = header.firstIndex(of: "symbol")
      payDates = p != nil
      if s != nil && symbol == nil {
        throw InputError("the file has a symbol column; name the symbol whose dividends to use", at: SourceLocation(file: file, line: 1, column: 1))
      }
      var symbolsSeen: Set<String> = []
      while try scanner.next(into: &fields) {
        guard fields.count == header.count else {
          throw InputError("expected \(header.count) fields as in the header, found \(fields.count)", at: SourceLocation(file: file, line: scanner.line, column: 1))
        }
        if let s, let symbol {
          let text = scanner.text(fields[s]).trimmingSpaces()
          guard text == symbol else { symbolsSeen.insert(text); continue }
        }
        func day(_ k: Int) throws -> Int {
          guard case .date(let d)? = parseTimestamp(b, fields[k].start, fields[k].end) else {
            throw InputError("expected a date YYYY-MM-DD, found '\(scanner.shown(fields[k]))'", at: scanner.location(fields[k]))
          }
          return d
        }
        guard let amount = parseDecimal(b, fields[a].start, fields[a].end), BarCSVReader.priceRange.contains(amount) else {
          throw InputError("expected a positive amount per share up to 1e12, found '\(scanner.shown(fields[a]))'", at: scanner.location(fields[a]))
        }
        let ex = try day(e)
        let pay = try p.map(day) ?? ex
        if pay < ex { throw InputError("the pay date is before the ex-date; expected pay_date >= ex_date", at: scanner.location(fields[p!])) }
        if let last = out.last, ex <= last.exDay {
          throw InputError("ex-dates must increase; this one is not after \(CivilDate.isoDate(days: last.exDay))", at: scanner.location(fields[e]))
        }
        out.append(Dividend(exDay: ex, payDay: pay, amount: amount))
      }
      if let symbol, s != nil, out.isEmpty {
        let hint = closestMatch(to: symbol, in: symbolsSeen.sorted()).map { "; did you mean '\($0)'?" } ?? ""
        throw InputError("no dividend for symbol '\(symbol)' in the file\(hint)", at: SourceLocation(file: file, line: 1, column: 1))
      }
    }
    return (out, payDates)
  }
}
