import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation
import PersonalFinance

/// The client options every mutual-fund request takes (`CommandSpec.mutualFundClientOptions`):
/// `--base-url`, `--rate`, `--retries`, `--backoff`.
struct MutualFundClientOptions {
  var base: String
  var client: RateLimitedClient

  init(_ a: Arguments) throws {
    base = a.option("base-url")!
    while base.hasSuffix("/") { base.removeLast() }
    let (rate, retries, backoff) = try RateLimitedClient.options(a)
    client = RateLimitedClient(requestsPerMinute: rate, retries: retries, backoffSeconds: backoff, limits: try RequestLimits.fromEnvironment())
  }
}

/// `backtest fetch mf SCHEME_CODE --out FILE.json`: a scheme's NAV history from mfapi, in the form
/// `backtest funds` reads; into an existing file only the NAVs of dates it lacks are merged.
struct MutualFundFetchCommand {
  var code: String
  var out: String
  var options: MutualFundClientOptions
  var quiet: Bool

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, command: .mutualFund, path: "fetch mf")
    guard a.positionals.count == 1, let code = a.positionals.first else {
      throw UsageError(message: "expected one scheme code: \(Program.name) fetch mf 119551 --out FILE.json (find codes with: \(Program.name) funds search NAME)")
    }
    // ASCII digits only: `½` and `١٢٣` are numbers to Swift, not scheme codes.
    guard (1...12).contains(code.utf8.count), code.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
      throw UsageError(message: "expected a scheme code of 1 to 12 digits 0-9, like 119551, found '\(escapingControlCharacters(excerpt(code)))' (find codes with: \(Program.name) funds search NAME)")
    }
    self.code = code
    out = a.option("out")!
    options = try MutualFundClientOptions(a)
    quiet = a.flag("quiet")
  }

  func run() throws -> Int32 {
    let url = MutualFundAPI.schemeURL(base: options.base, code: code)
    let fresh = try MutualFundAPI.parseScheme(try options.client.get(url), file: url)
    guard !fresh.navs.isEmpty else {
      throw InputError("no NAVs for scheme \(code); expected a known scheme code (find one with: \(Program.name) funds search NAME)", file: url)
    }
    var scheme = fresh
    var added = fresh.navs.count
    let existed = FileManager.default.fileExists(atPath: out)
    if existed {
      (scheme, added) = try MutualFundAPI.parseScheme(try readInputFile(out), file: out).merging(fresh)
    }
    let folder = (out as NSString).deletingLastPathComponent
    try AtomicWriter.write([ReportFile(name: (out as NSString).lastPathComponent, contents: scheme.json)], into: folder.isEmpty ? "." : folder)
    // The server's name for it, cut and with control characters escaped: it cannot act on the terminal.
    let name = fresh.meta.first { $0.0 == "scheme_name" }.flatMap { if case .string(let t) = $0.1 { printable(t, limit: 200) } else { nil } } ?? "scheme \(code)"
    if quiet { return ExitCode.ok }
    print("fetched \(fresh.navs.count) NAVs of \(name); \(existed ? "merged" : "wrote") \(added) new NAV(s) into \(out)"
      + " (\(scheme.navs.count) in all, to \(CivilDate.isoDate(days: scheme.navs[0].day)))")
    return ExitCode.ok
  }
}

/// `backtest funds search TEXT`: schemes whose name holds every word, from mfapi's scheme list,
/// cached with its date (`--refresh` fetches it again), with the fund house, category, plan and
/// option read from each name.
struct FundSearchCommand {
  static let pageSize = 5_000
  var query: String
  var refresh: Bool
  var cache: String
  var top: Int
  var options: MutualFundClientOptions

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, command: .fundSearch, path: "funds search")
    guard !a.positionals.isEmpty else { throw UsageError(message: "expected words to look for: \(Program.name) funds search flexi cap direct") }
    query = a.positionals.joined(separator: " ")
    refresh = a.flag("refresh")
    top = try a.integer("top")!
    options = try MutualFundClientOptions(a)
    if let c = a.option("cache") {
      cache = c
    } else {
      let environment = ProcessInfo.processInfo.environment
      let folder = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((environment["HOME"] ?? ".") + "/.cache")
      cache = folder + "/backtest/mfapi-schemes.json"
    }
  }

  /// The most pages of the list: 250,000 schemes, some five times mfapi's list.
  static let maximumPages = 50

  /// Every page of the list: `limit` schemes a page until a short (or an unpaged, longer) one.
  ///
  /// - Throws: `InputError` when the pages do not end within `maximumPages`.
  func fetchList() throws -> [MutualFundAPI.Listing] {
    var all: [MutualFundAPI.Listing] = []
    var seen = Set<String>()
    let progress = PageProgress(label: "fetching the scheme list", noun: "schemes", enabled: true)
    for page in 0... {
      let url = MutualFundAPI.listURL(base: options.base, limit: Self.pageSize, offset: page * Self.pageSize)
      guard page < Self.maximumPages else {
        throw InputError("page \(page + 1) of more than \(Self.maximumPages); expected the scheme list within \(Self.maximumPages) pages of \(Self.pageSize)", file: url)
      }
      let listings = try MutualFundAPI.parseList(try options.client.get(url), file: url)
      let fresh = listings.filter { seen.insert($0.code).inserted }
      all += fresh
      progress.update(page: page + 1, items: all.count)
      // A server that ignores paging sends everything at once (or the same page again).
      if listings.count != Self.pageSize || fresh.isEmpty { break }
    }
    return all
  }

  func run() throws -> Int32 {
    var list: MutualFundAPI.SchemeList?
    if !refresh, FileManager.default.fileExists(atPath: cache) {
      let cached: MutualFundAPI.SchemeList
      do {
        cached = try MutualFundAPI.SchemeList.parse(try readInputFile(cache), file: cache)
      } catch var error as InputError where error.kind == .badInput && !error.message.contains("--refresh") {
        error.message += "; the cache is rebuilt with --refresh"
        throw error
      }
      if cached.base == options.base { list = cached }
    }
    let fetched = list == nil
    if list == nil {
      let today = CivilDate.day(ofSeconds: Int64(Date().timeIntervalSince1970))
      list = MutualFundAPI.SchemeList(fetchedDay: today, base: options.base, schemes: try fetchList())
      let folder = (cache as NSString).deletingLastPathComponent
      try AtomicWriter.write([ReportFile(name: (cache as NSString).lastPathComponent, contents: list!.json)], into: folder.isEmpty ? "." : folder)
    }
    let schemes = list!
    let matches = schemes.search(query)
    // Codes and names come from the server: cut and with control characters escaped, they cannot act on the terminal.
    let rows = matches.prefix(top).map { s -> [String] in
      let info = SchemeNameInfo(name: s.name)
      return [printable(s.code, limit: 20), printable(info.fundHouse, limit: 40), info.category ?? "—", info.plan ?? "—", info.option ?? "—", printable(s.name, limit: 150)]
    }
    let query = printable(self.query, limit: 100)
    if rows.isEmpty {
      print("no scheme matches '\(query)'")
    } else {
      printTable(["Code", "Fund house", "Category", "Plan", "Option", "Scheme"], rows)
    }
    let shown = matches.count > top ? "; the first \(top) shown (--top N for more)" : ""
    print("\(matches.count) of \(schemes.schemes.count) schemes match '\(query)'\(shown); scheme list of \(CivilDate.isoDate(days: schemes.fetchedDay))"
      + (fetched ? ", fetched now" : " (cached in \(cache); --refresh to fetch it again)"))
    if !rows.isEmpty { print("fetch one with: \(Program.name) fetch mf \(rows[0][0]) --out Data/funds/\(rows[0][0]).json") }
    return ExitCode.ok
  }
}

/// `text` from a server or the command line, for printing: cut to `limit` characters, control characters escaped.
func printable(_ text: String, limit: Int) -> String { escapingControlCharacters(excerpt(text, limit: limit)) }

/// Prints rows as an aligned table (first and last columns left, the rest left too: they are names).
func printTable(_ header: [String], _ rows: [[String]]) {
  let widths = header.indices.map { k in ([header] + rows).map { $0[k].count }.max() ?? 0 }
  func line(_ cells: [String]) -> String {
    cells.enumerated().map { k, c in k == cells.count - 1 ? c : c + String(repeating: " ", count: widths[k] - c.count) }.joined(separator: "  ")
  }
  print(line(header))
  print(line(widths.map { String(repeating: "-", count: $0) }))
  for r in rows { print(line(r)) }
}
