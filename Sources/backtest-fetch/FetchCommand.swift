import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `backtest fetch SYMBOL|SERIES`: downloads bars from Polygon (or a series
/// from FRED) into the standard CSV, appending only what is new.
///
/// The API key comes from `POLYGON_API_KEY` / `FRED_API_KEY` and is never
/// printed, logged or written: it is hidden by value from every message
/// (`Secrets`), sent URL-encoded, and only to the host of `--base-url` (a
/// next page or a redirect elsewhere is refused).
struct FetchCommand {
  var name: String
  var source: String
  var interval: ResampleInterval
  var from: String
  var to: String
  var out: String
  var timeZone: TimeZone
  var baseURL: String
  var requestsPerMinute: Double
  var retries: Int
  var backoffSeconds: Double
  var limits: RequestLimits
  var quiet: Bool

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, command: .fetch, path: "fetch")
    guard a.positionals.count == 1 else { throw UsageError(message: "expected one symbol or series: backtest fetch SYMBOL --from DATE --to DATE --out FILE") }
    name = a.positionals[0]
    source = try a.choice("source")!
    let intervalText = a.option("interval")!
    guard let interval = ResampleInterval(intervalText) else { throw UsageError(message: "expected --interval like 30min, 1h or 1d, found '\(intervalText)'") }
    self.interval = interval
    let from = a.option("from")!, to = a.option("to")!
    for d in [from, to] where !Self.isDate(d) { throw UsageError(message: "expected a date YYYY-MM-DD, found '\(d)'") }
    self.from = from
    self.to = to
    out = a.option("out")!
    let zone = a.option("timezone")!
    guard let tz = TimeZone(identifier: zone) else { throw UsageError(message: "expected an IANA time zone for '--timezone', found '\(zone)'") }
    timeZone = tz
    baseURL = a.option("base-url") ?? (source == "polygon" ? "https://api.polygon.io" : "https://api.stlouisfed.org")
    (requestsPerMinute, retries, backoffSeconds) = try RateLimitedClient.options(a)
    limits = try RequestLimits.fromEnvironment()
    quiet = a.flag("quiet")
  }

  static func isDate(_ s: String) -> Bool {
    let bytes = Array(s.utf8)
    if case .date? = bytes.withUnsafeBufferPointer({ parseTimestamp($0, 0, bytes.count) }) { return true }
    return false
  }

  func run() throws -> Int32 {
    let variable = source == "polygon" ? "POLYGON_API_KEY" : "FRED_API_KEY"
    guard let key = ProcessInfo.processInfo.environment[variable], !key.isEmpty else {
      throw UsageError(message: "\(variable) is not set; expected your \(source == "polygon" ? "Polygon" : "FRED") API key in that environment variable")
    }
    Secrets.hide(key)
    guard let origin = Self.origin(baseURL) else {
      throw UsageError(message: "expected --base-url like https://api.polygon.io, found '\(excerpt(baseURL))'")
    }
    let client = RateLimitedClient(requestsPerMinute: requestsPerMinute, retries: retries, backoffSeconds: backoffSeconds, origin: origin, limits: limits)
    let encodedKey = Self.queryValue(key)
    return source == "polygon" ? try fetchPolygon(key: encodedKey, client: client) : try fetchFRED(key: encodedKey, client: client)
  }

  /// `scheme://host:port` of a URL, lower-cased, with the scheme's default port; `nil` when it has no host.
  static func origin(_ url: String) -> String? {
    guard let u = URLComponents(string: url), let scheme = u.scheme?.lowercased(), let host = u.host?.lowercased(), !host.isEmpty,
      scheme == "http" || scheme == "https"
    else { return nil }
    return "\(scheme)://\(host):\(u.port ?? (scheme == "https" ? 443 : 80))"
  }

  /// `text` percent-encoded for a query value: only unreserved characters stay (a key with `&` or `+` arrives whole).
  static func queryValue(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? text
  }

  /// Prints a line on standard output, with the key hidden.
  func say(_ text: String) {
    if !quiet { print(Secrets.redact(text)) }
  }

  /// The most pages of one fetch: Polygon's pages hold up to 50,000 minutes of data each, so 1000 pages are
  /// some 200 years of extended-hours minutes; FRED's hold 100,000 observations each.
  static let maximumPolygonPages = 1000, maximumFREDPages = 100
  /// The longest `next_url` followed (Polygon's are about 200 characters); each is kept to spot a repeat.
  static let longestNextURL = 8192

  /// A page's URL as messages name it: keys hidden, cut (a server's next_url may be long).
  static func shownURL(_ url: String) -> String { RateLimitedClient.shown(url, limit: 300) }

  func fetchPolygon(key: String, client: RateLimitedClient) throws -> Int32 {
    let first = PolygonAggregates.url(base: baseURL, symbol: name, interval: interval, from: from, to: to)
    var url = first
    var bars: [(time: Int64, open: Double, high: Double, low: Double, close: Double, volume: Double)] = []
    // Each page's URL and its number: a next_url seen before would loop for ever.
    var pageOfURL = [url: 1]
    var pages = 0
    let progress = PageProgress(label: "fetching \(name)", noun: "bars", enabled: !quiet)
    while true {
      let separator = url.contains("?") ? "&" : "?"
      let data = try client.get(url + separator + "apiKey=" + key)
      let page = try PolygonAggregates.parse(data, file: Self.shownURL(url))
      try PolygonAggregates.validate(page, data: data, file: Self.shownURL(url))
      bars += page.bars
      pages += 1
      progress.update(page: pages, items: bars.count)
      guard let next = page.nextURL, !next.isEmpty else { break }
      // The key goes only where --base-url points: a next page elsewhere is not followed.
      guard Self.origin(next) == client.origin else {
        throw OutputError(path: Self.shownURL(url), message: "the next page is on another host (\(RateLimitedClient.shown(next, limit: 80))); expected \(client.origin ?? ""), the only host the API key is sent to")
      }
      guard next.utf8.count <= Self.longestNextURL else {
        throw InputError("next_url of page \(pages) is \(next.utf8.count) characters long; expected a URL of at most \(Self.longestNextURL)", file: Self.shownURL(url))
      }
      if let earlier = pageOfURL[next] {
        throw InputError("page \(pages + 1) is page \(earlier) again (the same next_url); expected each page to lead to a new one", file: Self.shownURL(next))
      }
      guard pages < Self.maximumPolygonPages else {
        throw InputError("page \(pages + 1) of more than \(Self.maximumPolygonPages); expected the bars within \(Self.maximumPolygonPages) pages (fetch a shorter range with --from and --to)",
                         file: Self.shownURL(next))
      }
      pageOfURL[next] = pages + 1
      url = next
    }
    bars.sort { $0.time < $1.time }
    let daily = interval == .daily
    var existing = ""
    var after = Int64.min
    if FileManager.default.fileExists(atPath: out) {
      let old = try BarCSVReader(timeZone: timeZone).read(file: out)
      after = old.time[old.count - 1]
      existing = String(decoding: try readInputFile(out), as: UTF8.self)
      if !existing.hasSuffix("\n") { existing += "\n" }
    }
    var seen = Set<Int64>()
    let fresh = bars.filter { $0.time > after && seen.insert($0.time).inserted }
    let text = existing.isEmpty ? PolygonAggregates.csv(fresh, timeZone: timeZone, daily: daily)
                                : existing + PolygonAggregates.csv(fresh, timeZone: timeZone, daily: daily, header: false)
    try checkReadsBack(text, fresh: fresh, firstFreshLine: existing.isEmpty ? 2 : existing.utf8.count { $0 == 0x0A } + 1,
                       source: Self.shownURL(first))
    try writeAtomically(text)
    say("fetched \(bars.count) bars of \(name) in \(pages) page(s); \(existing.isEmpty ? "wrote" : "appended") \(fresh.count) new bar(s) to \(out)")
    return ExitCode.ok
  }

  /// Checks that `text` reads back as bars, as every later run reads it: each page's bars were checked
  /// (`PolygonAggregates.validate`), this catches what only shows once they are merged (two daily bars on
  /// one date, none at all).
  ///
  /// - Throws: `InputError` naming `source` and the fetched bar at fault, or saying that there is none.
  func checkReadsBack(_ text: String, fresh: [(time: Int64, open: Double, high: Double, low: Double, close: Double, volume: Double)],
                      firstFreshLine: Int, source: String) throws {
    let bytes = Array(text.utf8)
    do {
      _ = try bytes.withUnsafeBufferPointer { try BarCSVReader(timeZone: timeZone).read($0, file: out) }
    } catch let error as InputError {
      guard !fresh.isEmpty else {
        throw InputError("no bars of \(escapingControlCharacters(excerpt(name))) from \(from) to \(to); expected at least one (check the symbol and the dates)", file: source)
      }
      let k = min(max((error.location?.line ?? firstFreshLine) - firstFreshLine, 0), fresh.count - 1)
      let row = PolygonAggregates.csv([fresh[k]], timeZone: timeZone, daily: interval == .daily, header: false)
      throw InputError("the fetched bar of \(row.prefix { $0 != "," }): \(error.message)", file: source)
    }
  }

  func fetchFRED(key: String, client: RateLimitedClient) throws -> Int32 {
    var rows: [(date: String, value: String)] = []
    var offset = 0
    var pages = 0
    let progress = PageProgress(label: "fetching \(name)", noun: "observations", enabled: !quiet)
    while true {
      let url = FREDObservations.url(base: baseURL, series: name, from: from, to: to, offset: offset)
      guard pages < Self.maximumFREDPages else {
        throw InputError("page \(pages + 1) of more than \(Self.maximumFREDPages); expected the observations within \(Self.maximumFREDPages) pages (fetch a shorter range with --from and --to)",
                         file: redactingKeys(url))
      }
      let (page, count) = try FREDObservations.parse(try client.get(url + "&api_key=" + key), file: redactingKeys(url))
      rows += page
      offset += page.count
      pages += 1
      progress.update(page: pages, items: rows.count)
      if page.isEmpty || offset >= count { break }
    }
    var existingRows: [(date: String, value: String)] = []
    if FileManager.default.fileExists(atPath: out) {
      for line in String(decoding: try readInputFile(out), as: UTF8.self).textLines.dropFirst() where !line.isEmpty {
        let parts = line.split(separator: ",", maxSplits: 1).map(String.init)
        if parts.count == 2 { existingRows.append((parts[0], parts[1])) }
      }
    }
    let last = existingRows.last?.date ?? ""
    let fresh = rows.filter { $0.date > last }
    try writeAtomically(FREDObservations.csv(series: name, rows: existingRows + fresh))
    say("fetched \(rows.count) observations of \(name); \(existingRows.isEmpty ? "wrote" : "appended") \(fresh.count) new to \(out)")
    return ExitCode.ok
  }

  func writeAtomically(_ text: String) throws {
    let folder = (out as NSString).deletingLastPathComponent
    try AtomicWriter.write([ReportFile(name: (out as NSString).lastPathComponent, contents: text)], into: folder.isEmpty ? "." : folder)
  }
}
