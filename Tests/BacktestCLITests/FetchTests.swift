import BacktestCore
import BacktestRun
import Foundation
import Testing

/// The fetch client against a local server: paging, retries, rate limit, key hiding.
@Suite(.serialized) struct FetchTests {
  static let key = "sekret-KEY-123"
  static let env = ["POLYGON_API_KEY": key, "FRED_API_KEY": key]

  /// Polygon results for 30-minute bars starting at 2024-01-02 09:30 New York, `count` of them from `first`.
  static func page(_ first: Int, _ count: Int, next: String?) -> String {
    let start: Int64 = 1_704_205_800_000
    let results = (first..<(first + count)).map { k in
      "{\"t\": \(start + Int64(k) * 1_800_000), \"o\": \(100 + Double(k)), \"h\": \(101 + Double(k)), \"l\": \(99 + Double(k)), \"c\": \(100.5 + Double(k)), \"v\": 1000}"
    }
    return "{\"results\": [\(results.joined(separator: ","))]" + (next.map { ", \"next_url\": \"\($0)\"" } ?? "") + ", \"status\": \"OK\"}"
  }

  func fetch(_ server: LocalHTTPServer, out: String, extra: [String] = [], env: [String: String] = Self.env) throws -> CLI.Result {
    try CLI.run(["fetch", "GPIX", "--interval", "30min", "--from", "2024-01-02", "--to", "2024-01-03", "--out", out,
                 "--base-url", server.baseURL, "--rate", "6000", "--backoff", "0.05"] + extra, environment: env)
  }

  @Test("pages are followed through next_url with the key added back; the key never appears in output or files")
  func paging() throws {
    let holder = ServerHolder()
    let server = try LocalHTTPServer { path, index in
      index == 0 ? .init(status: 200, body: Self.page(0, 3, next: holder.base + "/v2/next?cursor=abc"))
                 : .init(status: 200, body: Self.page(3, 2, next: nil))
    }
    holder.base = server.baseURL
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/gpix.csv"
    let r = try fetch(server, out: out)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("fetched 5 bars of GPIX in 2 page(s); wrote 5 new bar(s)"))
    #expect(server.requests.count == 2)
    #expect(server.requests[0].hasPrefix("/v2/aggs/ticker/GPIX/range/30/minute/2024-01-02/2024-01-03?adjusted=true&sort=asc&limit=50000&apiKey=\(Self.key)"))
    #expect(server.requests[1] == "/v2/next?cursor=abc&apiKey=\(Self.key)")
    let csv = try String(contentsOfFile: out, encoding: .utf8)
    #expect(csv.hasPrefix("timestamp,open,high,low,close,volume\n2024-01-02T09:30:00-05:00,100.0,101.0,99.0,100.5,1000\n"))
    #expect(!csv.contains(Self.key) && !r.stdout.contains(Self.key) && !r.stderr.contains(Self.key))
    _ = try BarCSVReader(timeZone: TimeZone(identifier: "America/New_York")!).read(file: out)
  }

  @Test("a second fetch appends only the new bars")
  func appendOnlyNew() throws {
    let server = try LocalHTTPServer { _, index in .init(status: 200, body: index == 0 ? Self.page(0, 3, next: nil) : Self.page(1, 4, next: nil)) }
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/gpix.csv"
    #expect(try fetch(server, out: out).status == 0)
    let r = try fetch(server, out: out)
    #expect(r.stdout.contains("appended 2 new bar(s)"), "\(r.stdout)")
    let bars = try BarCSVReader(timeZone: TimeZone(identifier: "America/New_York")!).read(file: out)
    #expect(bars.count == 5 && bars.close[4] == 104.5)
  }

  @Test("429 and 5xx are retried with backoff, honouring Retry-After; giving up is a clear error without the key")
  func retries() throws {
    let server = try LocalHTTPServer { _, index in
      switch index {
      case 0: return .init(status: 429, body: "{}", headers: ["Retry-After": "0"])
      case 1: return .init(status: 503, body: "{}")
      default: return .init(status: 200, body: Self.page(0, 2, next: nil))
      }
    }
    defer { server.stop() }
    let r = try fetch(server, out: try CLI.temporaryFolder() + "/g.csv")
    #expect(r.status == 0 && server.requests.count == 3, "\(r.stderr)")

    let failing = try LocalHTTPServer { _, _ in .init(status: 503, body: "{\"error\": \"down\"}") }
    defer { failing.stop() }
    let f = try fetch(failing, out: try CLI.temporaryFolder() + "/g.csv", extra: ["--retries", "2"])
    #expect(f.status == 1 && f.stderr.contains("HTTP 503 after 3 attempts") && failing.requests.count == 3)
    #expect(f.stderr.contains("apiKey=***") && !f.stderr.contains(Self.key))
  }

  @Test("a refused or missing key is a clear message, and the key is never shown")
  func keys() throws {
    let server = try LocalHTTPServer { _, _ in .init(status: 403, body: "{\"error\": \"bad key \(Self.key)\"}") }
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/g.csv"
    let r = try fetch(server, out: out)
    #expect(r.status == 1 && r.stderr.contains("the API key was refused (HTTP 403)") && !r.stderr.contains(Self.key))
    let missing = try fetch(server, out: out, env: ["POLYGON_API_KEY": ""])
    #expect(missing.status == 64 && missing.stderr.contains("POLYGON_API_KEY is not set"))
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test("the key is URL-encoded, and hidden by value from every message, even when an error body echoes it")
  func keyHiddenByValue() throws {
    let key = "sek&ret+K/EY=1"
    let encoded = "sek%26ret%2BK%2FEY%3D1", lowerEscapes = "sek%26ret%2bK%2fEY%3d1"
    let server = try LocalHTTPServer { _, _ in
      .init(status: 400, body: "{\"error\": \"unknown key \(key) (\(encoded), \(lowerEscapes))\"}")
    }
    defer { server.stop() }
    let r = try fetch(server, out: try CLI.temporaryFolder() + "/g.csv", env: ["POLYGON_API_KEY": key])
    #expect(r.status == 1 && r.stderr.contains("HTTP 400: {\"error\": \"unknown key *** (***, ***)\"}"), "\(r.stderr)")
    #expect(server.requests.first?.hasSuffix("&apiKey=" + encoded) == true, "\(server.requests)")
    for form in [key, encoded, lowerEscapes, "sek&ret", "ret+K"] { #expect(!r.stderr.contains(form) && !r.stdout.contains(form)) }
  }

  @Test("a next page or a redirect to another host is not followed: the key goes only where --base-url points")
  func keyStaysOnItsHost() throws {
    let other = try LocalHTTPServer { _, _ in .init(status: 200, body: Self.page(0, 1, next: nil)) }
    defer { other.stop() }
    let paging = try LocalHTTPServer { _, _ in .init(status: 200, body: Self.page(0, 3, next: other.baseURL + "/v2/next?cursor=abc")) }
    defer { paging.stop() }
    let out = try CLI.temporaryFolder() + "/g.csv"
    var r = try fetch(paging, out: out)
    #expect(r.status == 1)
    #expect(r.stderr.hasSuffix("error: the next page is on another host (\(other.baseURL)/v2/next?cursor=abc); expected \(paging.baseURL), the only host the API key is sent to\n"), "\(r.stderr)")
    let redirecting = try LocalHTTPServer { path, _ in .init(status: 302, body: "", headers: ["Location": other.baseURL + path]) }
    defer { redirecting.stop() }
    r = try fetch(redirecting, out: out)
    #expect(r.status == 1 && r.stderr.contains("error: redirected to another host (\(other.baseURL)/v2/aggs/ticker/GPIX/"), "\(r.stderr)")
    #expect(r.stderr.contains("); expected \(redirecting.baseURL), the only host the API key is sent to") && !r.stderr.contains(Self.key))
    #expect(other.requests.isEmpty, "the other host was asked: \(other.requests)")
    #expect(!FileManager.default.fileExists(atPath: out))
    // A redirect within the host is followed.
    let moved = try LocalHTTPServer { path, index in
      index == 0 ? .init(status: 301, body: "", headers: ["Location": "/moved" + path]) : .init(status: 200, body: Self.page(0, 2, next: nil))
    }
    defer { moved.stop() }
    r = try fetch(moved, out: out)
    #expect(r.status == 0 && moved.requests.count == 2 && moved.requests[1].hasPrefix("/moved/v2/aggs/"), "\(r.stderr)")
  }

  @Test("the client-side rate limit spaces requests out")
  func rateLimit() throws {
    let holder = ServerHolder()
    let server = try LocalHTTPServer { _, index in
      .init(status: 200, body: Self.page(index * 2, 2, next: index < 2 ? holder.base + "/v2/next?cursor=\(index)" : nil))
    }
    holder.base = server.baseURL
    defer { server.stop() }
    let clock = ContinuousClock()
    let start = clock.now
    let r = try CLI.run(["fetch", "GPIX", "--from", "2024-01-02", "--to", "2024-01-03", "--out", try CLI.temporaryFolder() + "/g.csv",
                         "--base-url", server.baseURL, "--rate", "200"], environment: Self.env)
    let elapsed = clock.now - start
    #expect(r.status == 0 && server.requests.count == 3)
    #expect(elapsed >= .milliseconds(600), "3 requests at 200/min need at least 0.6 s, took \(elapsed)")
  }

  @Test("FRED observations become a FRED-style CSV the macro reader accepts")
  func fred() throws {
    let body = "{\"count\": 3, \"observations\": [{\"date\": \"2024-01-01\", \"value\": \"3.7\"}, {\"date\": \"2024-02-01\", \"value\": \".\"}, {\"date\": \"2024-03-01\", \"value\": \"3.8\"}]}"
    let server = try LocalHTTPServer { _, _ in .init(status: 200, body: body) }
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/UNRATE.csv"
    let r = try CLI.run(["fetch", "UNRATE", "--source", "fred", "--from", "2024-01-01", "--to", "2024-03-31", "--out", out,
                         "--base-url", server.baseURL], environment: Self.env)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "observation_date,UNRATE\n2024-01-01,3.7\n2024-02-01,.\n2024-03-01,3.8\n")
    #expect(server.requests[0].contains("series_id=UNRATE") && server.requests[0].contains("api_key=\(Self.key)"))
    #expect(try MacroReader.read(file: out).series[.unemploymentRate]?.count == 2)
  }

  @Test("fetch runs the backtest-fetch built next to backtest; without it, a clear error and exit 1")
  func helperNextToBinary() throws {
    let lone = try CLI.temporaryFolder()
    try FileManager.default.copyItem(atPath: CLI.binary, toPath: lone + "/backtest")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: lone + "/backtest")
    process.arguments = ["fetch", "GPIX", "--from", "2024-01-02", "--to", "2024-01-03", "--out", lone + "/x.csv"]
    let err = Pipe()
    process.standardError = err
    try process.run()
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 1)
    #expect(stderr == "backtest: error: backtest-fetch is missing from \(lone); it is built with backtest (swift build) and must be installed next to it\n")
    // Built side by side, it runs with the same arguments and its exit code comes back;
    // its messages name the program the user typed.
    let r = try CLI.run(["fetch", "GPIX", "--from", "2024-01-02", "--to", "soon", "--out", lone + "/x.csv"], environment: Self.env)
    #expect(r.status == 64)
    #expect(r.stderr == "backtest: error: expected a date YYYY-MM-DD, found 'soon'\nrun 'backtest fetch --help' for usage\n")
  }

  @Test("convert turns saved aggregates JSON into the standard CSV")
  func convert() throws {
    let dir = try CLI.temporaryFolder()
    try Self.page(0, 3, next: nil).write(toFile: dir + "/aggs.json", atomically: false, encoding: .utf8)
    let r = try CLI.run(["convert", "polygon", dir + "/aggs.json", "--out", dir + "/bars.csv"])
    #expect(r.status == 0)
    #expect(try String(contentsOfFile: dir + "/bars.csv", encoding: .utf8).split(separator: "\n").count == 4)
  }
}

final class ServerHolder: @unchecked Sendable { var base = "" }
