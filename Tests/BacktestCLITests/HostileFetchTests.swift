import BacktestCore
import BacktestRun
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A raw HTTP server on 127.0.0.1 for hostile answers: each connection gets its own thread and a
/// script that writes whatever bytes it likes (slowly, endlessly, compressed, with 30,000 headers),
/// until it returns or the client goes away.
final class HostileHTTPServer: @unchecked Sendable {
  /// One accepted connection, as the script sees it.
  struct Connection {
    let fd: Int32

    /// Sends `bytes`; `false` once the client has gone (no SIGPIPE).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
      var offset = 0
      while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n <= 0 { return false }
        offset += n
      }
      return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Waits until the client closes the connection (or `seconds` pass).
    func waitForClose(seconds: Double = 120) {
      var byte: UInt8 = 0
      let end = Date().addingTimeInterval(seconds)
      while Date() < end {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        if poll(&p, 1, 100) > 0 && recv(fd, &byte, 1, 0) <= 0 { return }
      }
    }

    /// A complete response with `body` and a `Content-Length`.
    func respond(status: Int = 200, _ body: String, headers: String = "") {
      send("HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\(headers)\r\n" + body)
    }
  }

  private let lock = NSLock()
  private var recorded: [String] = []
  private let socketFD: Int32
  private(set) var port: UInt16 = 0
  private let script: @Sendable (_ path: String, _ index: Int, _ connection: Connection) -> Void

  init(script: @escaping @Sendable (_ path: String, _ index: Int, _ connection: Connection) -> Void) throws {
    self.script = script
    socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var yes: Int32 = 1
    setsockopt(socketFD, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(socketFD, 16) == 0 else { throw NSError(domain: "HostileHTTPServer", code: 1) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
    }
    port = UInt16(bigEndian: address.sin_port)
    Thread { [self] in accepting() }.start()
  }

  var baseURL: String { "http://127.0.0.1:\(port)" }
  var host: String { "127.0.0.1:\(port)" }
  var requests: [String] { lock.lock(); defer { lock.unlock() }; return recorded }

  func stop() {
    shutdown(socketFD, Int32(SHUT_RDWR))
    close(socketFD)
  }

  private func accepting() {
    while true {
      let client = accept(socketFD, nil, nil)
      if client < 0 { return }
      Thread { [self] in serve(client) }.start()
    }
  }

  private func serve(_ client: Int32) {
    defer { close(client) }
    var request = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !request.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) && request.count < 65_536 {
      let n = read(client, &buffer, buffer.count)
      if n <= 0 { return }
      request += buffer[0..<n]
    }
    let line = String(decoding: request, as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
    let path = line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
    lock.lock()
    recorded.append(path)
    let index = recorded.count - 1
    lock.unlock()
    script(path, index, Connection(fd: client))
  }
}

/// A gzip stream that inflates to `megabytes` MB of zero bytes: one literal and then matches
/// of 258 bytes at distance 1, in a fixed-Huffman deflate block (about 1/1300 of its inflated size).
/// Its trailer (CRC and length) is zeros: a client that stops at its size cap never reads it.
func gzipOfZeros(megabytes: Int) -> [UInt8] {
  var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]
  var bits: UInt64 = 0, count = 0
  func put(_ value: UInt32, _ n: Int) {
    bits |= UInt64(value) << count
    count += n
    while count >= 8 { out.append(UInt8(bits & 0xFF)); bits >>= 8; count -= 8 }
  }
  // Huffman codes go most significant bit first.
  func code(_ value: UInt32, _ n: Int) {
    var reversed: UInt32 = 0
    for i in 0..<n { reversed |= ((value >> i) & 1) << (n - 1 - i) }
    put(reversed, n)
  }
  put(1, 1)  // the last block
  put(1, 2)  // fixed Huffman codes
  code(0x30, 8)  // the literal 0
  for _ in 0..<((megabytes << 20) / 258) {
    code(0xC5, 8)  // length 258 (code 285)
    code(0, 5)  // distance 1
  }
  code(0, 7)  // end of block
  if count > 0 { out.append(UInt8(bits & 0xFF)) }
  return out + [UInt8](repeating: 0, count: 8)
}

/// Runs the binary like `runBounded`, sampling the peak resident memory of the process
/// (Linux, from /proc) while it runs; stops it after `seconds`, or once that peak passes 1 GB.
func runMeasured(_ arguments: [String], seconds: Double, environment: [String: String] = [:])
  throws -> (result: CLI.Result, timedOut: Bool, elapsed: Double, peakMegabytes: Int) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: CLI.binary)
  process.arguments = arguments
  process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  let out = try CLI.temporaryFolder()
  _ = FileManager.default.createFile(atPath: out + "/stdout", contents: nil)
  _ = FileManager.default.createFile(atPath: out + "/stderr", contents: nil)
  process.standardOutput = FileHandle(forWritingAtPath: out + "/stdout")
  process.standardError = FileHandle(forWritingAtPath: out + "/stderr")
  let start = Date()
  try process.run()
  let deadline = start.addingTimeInterval(seconds)
  var peak = 0
  // `backtest` becomes `backtest-fetch` (exec), whose memory is what grows.
  func currentPeak() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 / 1024 } ?? 0
  }
  // A client that grows without bound is stopped at 1 GB (the test fails on its peak, the machine lives).
  while process.isRunning && Date() < deadline && peak < 1_024 {
    peak = max(peak, currentPeak())
    usleep(5_000)
  }
  let timedOut = process.isRunning
  if timedOut {
    kill(process.processIdentifier, SIGKILL)
  }
  process.waitUntilExit()
  let elapsed = Date().timeIntervalSince(start)
  let text = { (name: String) in (try? String(contentsOfFile: out + "/" + name, encoding: .utf8)) ?? "" }
  return (CLI.Result(status: process.terminationStatus, stdout: text("stdout"), stderr: text("stderr")), timedOut, elapsed, peak)
}

/// `fetch`, `fetch mf` and `funds search` against servers that misbehave: slow, silent, endless,
/// compressed, looping, or sending what must not reach the terminal or a data file.
@Suite(.serialized) struct HostileFetchTests {
  static let key = FetchTests.key
  static let env = FetchTests.env

  static func mf(_ server: HostileHTTPServer, out: String, extra: [String] = []) -> [String] {
    ["fetch", "mf", "119551", "--out", out, "--base-url", server.baseURL, "--rate", "6000", "--backoff", "0.05"] + extra
  }

  static func polygon(_ server: HostileHTTPServer, out: String, extra: [String] = []) -> [String] {
    ["fetch", "GPIX", "--interval", "30min", "--from", "2024-01-02", "--to", "2024-01-03", "--out", out,
     "--base-url", server.baseURL, "--rate", "60000", "--backoff", "0.05"] + extra
  }

  static func fred(_ server: HostileHTTPServer, out: String, extra: [String] = []) -> [String] {
    ["fetch", "UNRATE", "--source", "fred", "--from", "2024-01-01", "--to", "2024-12-31", "--out", out,
     "--base-url", server.baseURL, "--rate", "60000", "--backoff", "0.05"] + extra
  }

  // MARK: Deadlines and size caps

  @Test("a server sending a byte every half second is given up at the deadline, in words, without retries")
  func drippingServer() throws {
    let server = try HostileHTTPServer { _, _, c in
      c.send("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
      while c.send("[") { usleep(500_000) }
    }
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/f.json"
    let (r, timedOut, elapsed, _) = try runMeasured(Self.mf(server, out: out), seconds: 60, environment: ["BACKTEST_FETCH_TIMEOUT": "2"])
    #expect(!timedOut && elapsed < 15, "took \(elapsed) s")
    #expect(r.status == 1)
    // A byte every half second: some 4 in 2 s.
    #expect(r.stderr.hasPrefix("\(server.baseURL)/mf/119551: error: the response from \(server.host) did not end within 2 s (answered, then ")
            && r.stderr.hasSuffix(" bytes); expected a whole answer in that time\n") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    #expect(server.requests.count == 1)
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test("a server that never answers: 'no answer from HOST within N s', not an NSURLErrorDomain code")
  func silentServer() throws {
    let server = try HostileHTTPServer { _, _, c in c.waitForClose() }
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/f.json"
    let (r, timedOut, elapsed, _) = try runMeasured(Self.mf(server, out: out), seconds: 60, environment: ["BACKTEST_FETCH_TIMEOUT": "1.5"])
    #expect(!timedOut && elapsed < 10, "took \(elapsed) s")
    #expect(r.status == 1 && r.stderr == "\(server.baseURL)/mf/119551: error: no answer from \(server.host) within 1.5 s; expected an answer in that time\n", "\(r.stderr)")
  }

  @Test("BACKTEST_FETCH_TIMEOUT that is not seconds from 0.1 to 3600 is a usage error")
  func badTimeoutVariable() throws {
    for value in ["soon", "0", "1e9"] {
      let r = try CLI.run(["fetch", "mf", "119551", "--out", try CLI.temporaryFolder() + "/f.json", "--base-url", "http://127.0.0.1:9", "--retries", "0"],
                          environment: ["BACKTEST_FETCH_TIMEOUT": value])
      #expect(r.status == 64 && r.stderr.hasPrefix("backtest: error: expected seconds from 0.1 to 3600 in BACKTEST_FETCH_TIMEOUT, found '\(value)'\n"), "\(r.stderr)")
    }
  }

  @Test("an endless chunked body is refused at 64 MB, with bounded memory")
  func endlessBody() throws {
    let server = try HostileHTTPServer { _, _, c in
      c.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
      let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "["), count: 65_536) + Array("\r\n".utf8)
      while c.send(chunk) {}
    }
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/f.json"
    let (r, timedOut, _, peak) = try runMeasured(Self.mf(server, out: out), seconds: 60)
    #expect(!timedOut)
    #expect(r.status == 1 && r.stderr == "\(server.baseURL)/mf/119551: error: the response from \(server.host) exceeds 64 MB; expected a smaller answer\n", "\(r.stderr)")
    #expect(peak < 400, "peak memory \(peak) MB")
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test("a body announced larger than 64 MB is refused before it is read")
  func announcedTooLarge() throws {
    let server = try HostileHTTPServer { _, _, c in
      c.send("HTTP/1.1 200 OK\r\nContent-Length: 900000000000\r\n\r\n[")
      c.waitForClose(seconds: 30)
    }
    defer { server.stop() }
    let (r, timedOut, elapsed, _) = try runMeasured(Self.mf(server, out: try CLI.temporaryFolder() + "/f.json"), seconds: 60)
    #expect(!timedOut && elapsed < 10, "took \(elapsed) s")
    #expect(r.status == 1 && r.stderr == "\(server.baseURL)/mf/119551: error: the response from \(server.host) exceeds 64 MB; expected a smaller answer\n", "\(r.stderr)")
  }

  @Test("a gzip bomb (6 MB that inflate to 1 GB) is refused at 64 MB inflated, with bounded memory")
  func gzipBomb() throws {
    let bomb = gzipOfZeros(megabytes: 1_024)
    let server = try HostileHTTPServer { _, _, c in
      c.send(Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(bomb.count)\r\n\r\n".utf8) + bomb)
      c.waitForClose(seconds: 30)
    }
    defer { server.stop() }
    let (r, timedOut, _, peak) = try runMeasured(Self.mf(server, out: try CLI.temporaryFolder() + "/f.json"), seconds: 60)
    #expect(!timedOut)
    #expect(r.status == 1 && r.stderr == "\(server.baseURL)/mf/119551: error: the response from \(server.host) exceeds 64 MB; expected a smaller answer\n", "\(r.stderr)")
    #expect(peak < 400, "peak memory \(peak) MB")
  }

  @Test("a response with 500 header fields is refused, and not asked for again")
  func manyHeaders() throws {
    let headers = (0..<500).map { "X-\($0): v\r\n" }.joined()
    let server = try HostileHTTPServer { _, _, c in c.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n" + headers + "\r\n[]") }
    defer { server.stop() }
    let (r, _, _, _) = try runMeasured(Self.mf(server, out: try CLI.temporaryFolder() + "/f.json"), seconds: 60)
    #expect(r.status == 1 && r.stderr == "\(server.baseURL)/mf/119551: error: the response from \(server.host) has 501 header fields; expected at most 200\n", "\(r.stderr)")
    #expect(server.requests.count == 1)
  }

  @Test("30,000 response headers (300 KB, which libcurl refuses) fail once: not retried, so bounded by one read of them")
  func headerFlood() throws {
    let headers = (0..<30_000).map { "X-\($0): v\r\n" }.joined()
    let server = try HostileHTTPServer { _, _, c in
      c.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n" + headers + "\r\n[]")
      c.waitForClose(seconds: 30)
    }
    defer { server.stop() }
    let (r, timedOut, elapsed, _) = try runMeasured(["funds", "search", "flexi", "--cache", try CLI.temporaryFolder() + "/c.json",
                                                     "--base-url", server.baseURL, "--rate", "6000", "--backoff", "0.05"], seconds: 90)
    #expect(!timedOut && elapsed < 30, "took \(elapsed) s")
    #expect(r.status == 1 && r.stderr.hasPrefix("\(server.baseURL)/mf?limit=5000&offset=0: error: request failed: "), "\(r.stderr)")
    #expect(server.requests.count == 1, "retried \(server.requests.count - 1) times")
  }

  // MARK: Pagination

  @Test("a Polygon next_url that repeats an earlier page is refused at once")
  func repeatingNextURL() throws {
    let holder = ServerHolder()
    let server = try HostileHTTPServer { _, index, c in c.respond(FetchTests.page(index, 1, next: holder.base + "/v2/next?cursor=same")) }
    holder.base = server.baseURL
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/g.csv"
    let (r, timedOut, _, _) = try runMeasured(Self.polygon(server, out: out), seconds: 60, environment: Self.env)
    #expect(!timedOut)
    #expect(r.status == 65 && r.stderr == "\(server.baseURL)/v2/next?cursor=same: error: page 3 is page 2 again (the same next_url); expected each page to lead to a new one\n",
            "\(r.stderr)")
    #expect(server.requests.count == 2)
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test("a next_url longer than 8192 characters is refused (each one is kept to spot a repeat)")
  func longNextURL() throws {
    let holder = ServerHolder()
    let server = try HostileHTTPServer { _, index, c in
      c.respond(FetchTests.page(index, 1, next: holder.base + "/v2/next?cursor=" + String(repeating: "x", count: 9_000)))
    }
    holder.base = server.baseURL
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/g.csv"
    let (r, timedOut, _, _) = try runMeasured(Self.polygon(server, out: out), seconds: 60, environment: Self.env)
    #expect(!timedOut)
    #expect(r.status == 65 && r.stderr == "\(server.baseURL)/v2/aggs/ticker/GPIX/range/30/minute/2024-01-02/2024-01-03?adjusted=true&sort=asc&limit=50000: "
            + "error: next_url of page 1 is \(server.baseURL.count + 9_016) characters long; expected a URL of at most 8192\n", "\(r.stderr.prefix(300))")
    #expect(server.requests.count == 1 && !FileManager.default.fileExists(atPath: out))
  }

  @Test("Polygon pages that never end stop at 1000 pages with an error")
  func endlessPolygonPages() throws {
    let holder = ServerHolder()
    let server = try HostileHTTPServer { _, index, c in c.respond(FetchTests.page(index, 1, next: holder.base + "/v2/next?cursor=\(index)")) }
    holder.base = server.baseURL
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/g.csv"
    let (r, timedOut, _, _) = try runMeasured(Self.polygon(server, out: out), seconds: 120, environment: Self.env)
    #expect(!timedOut)
    let lines = r.stderr.split(separator: "\n")
    #expect(r.status == 65 && lines.last == "\(server.baseURL)/v2/next?cursor=999: error: page 1001 of more than 1000; expected the bars within 1000 pages (fetch a shorter range with --from and --to)",
            "\(r.stderr.suffix(300))")
    #expect(server.requests.count == 1000)
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test("progress of a slow pagination shows on stderr, and not with --quiet")
  func paginationProgress() throws {
    let holder = ServerHolder()
    let server = try HostileHTTPServer { _, index, c in
      c.respond(FetchTests.page(index * 2, 2, next: index < 3 ? holder.base + "/v2/next?cursor=\(index)" : nil))
    }
    holder.base = server.baseURL
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/g.csv"
    // 40 requests a minute: a page every 1.5 s.
    let (r, _, _, _) = try runMeasured(Self.polygon(server, out: out, extra: ["--rate", "40"]), seconds: 60, environment: Self.env)
    #expect(r.status == 0, "\(r.stderr)")
    let progress = r.stderr.split(separator: "\n").filter { $0.hasPrefix("fetching GPIX: page ") }
    #expect(!progress.isEmpty && progress.allSatisfy { $0.hasSuffix(" bars so far") }, "\(r.stderr)")
    let quiet = try runMeasured(Self.polygon(server, out: out + "2", extra: ["--rate", "40", "--quiet"]), seconds: 60, environment: Self.env)
    #expect(quiet.result.status == 0 && quiet.result.stderr.isEmpty && quiet.result.stdout.isEmpty, "\(quiet.result.stderr)")
  }

  @Test("FRED pages that never end (count 1e18, one observation a page) stop at 100 pages with an error")
  func endlessFREDPages() throws {
    let server = try HostileHTTPServer { _, index, c in
      c.respond("{\"count\": 1e18, \"observations\": [{\"date\": \"\(CivilDate.isoDate(days: 18_000 + index))\", \"value\": \"1\"}]}")
    }
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/U.csv"
    let (r, timedOut, _, _) = try runMeasured(Self.fred(server, out: out), seconds: 60, environment: Self.env)
    #expect(!timedOut)
    #expect(r.status == 65 && r.stderr.split(separator: "\n").last?.hasSuffix("&offset=100&limit=100000: error: page 101 of more than 100; expected the observations within 100 pages (fetch a shorter range with --from and --to)") == true,
            "\(r.stderr.suffix(300))")
    #expect(server.requests.count == 100)
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test("a scheme list that keeps sending full pages stops at 50 pages with an error")
  func endlessSchemeList() throws {
    let server = try HostileHTTPServer { _, index, c in
      let names = (0..<5_000).map { "{\"schemeCode\": \(index * 5_000 + $0), \"schemeName\": \"F\"}" }
      c.respond("[" + names.joined(separator: ",") + "]")
    }
    defer { server.stop() }
    let cache = try CLI.temporaryFolder() + "/c.json"
    let (r, timedOut, _, _) = try runMeasured(["funds", "search", "flexi", "--cache", cache, "--base-url", server.baseURL, "--rate", "60000"], seconds: 120)
    #expect(!timedOut)
    #expect(r.status == 65 && r.stderr.split(separator: "\n").last == "\(server.baseURL)/mf?limit=5000&offset=250000: error: page 51 of more than 50; expected the scheme list within 50 pages of 5000",
            "\(r.stderr.suffix(300))")
    #expect(server.requests.count == 50)
    #expect(!FileManager.default.fileExists(atPath: cache))
  }

  // MARK: Validation before writing

  struct BadBar: CustomTestStringConvertible, Sendable {
    var name: String
    var fields: String
    var message: String
    var testDescription: String { name }

    static let all = [
      BadBar(name: "negative open", fields: "\"o\": -10, \"h\": 101, \"l\": 99, \"c\": 100", message: "expected a positive number for 'o' (open), found -10"),
      BadBar(name: "high below low", fields: "\"o\": 100, \"h\": 98, \"l\": 99, \"c\": 100", message: "expected 'h' (high) >= max(open, close) = 100, found 98"),
      BadBar(name: "low above close", fields: "\"o\": 100, \"h\": 101, \"l\": 100.5, \"c\": 100", message: "expected 'l' (low) <= min(open, close) = 100, found 100.5"),
      BadBar(name: "close 1e300", fields: "\"o\": 100, \"h\": 101, \"l\": 99, \"c\": 1e300", message: "expected a price from 1e-12 to 1e12 for 'c' (close), found 1e+300"),
      BadBar(name: "volume -5", fields: "\"o\": 100, \"h\": 101, \"l\": 99, \"c\": 100, \"v\": -5", message: "expected a non-negative number for 'v' (volume), found -5"),
    ]
  }

  @Test("a fetched Polygon bar the bar reader would refuse is refused before writing, naming the page and the result", arguments: BadBar.all)
  func badPolygonBar(_ bad: BadBar) throws {
    let body = "{\"results\": [\n  {\"t\": 1704205800000, \"o\": 100, \"h\": 101, \"l\": 99, \"c\": 100.5, \"v\": 1000},\n  {\"t\": 1704207600000, \(bad.fields)}\n]}"
    let server = try HostileHTTPServer { _, _, c in c.respond(body) }
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/g.csv"
    let (r, _, _, _) = try runMeasured(Self.polygon(server, out: out), seconds: 60, environment: Self.env)
    #expect(r.status == 65)
    #expect(r.stderr == "\(server.baseURL)/v2/aggs/ticker/GPIX/range/30/minute/2024-01-02/2024-01-03?adjusted=true&sort=asc&limit=50000:3:3: error: result 2: \(bad.message)\n",
            "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test("two daily bars on one date, or no bar at all, are refused before writing (the file would not read back)")
  func barsThatDoNotReadBack() throws {
    // 05:00 and 15:00 UTC on 2024-01-02: one New York date.
    let twice = "{\"results\": [{\"t\": 1704171600000, \"o\": 1, \"h\": 1, \"l\": 1, \"c\": 1}, {\"t\": 1704207600000, \"o\": 1, \"h\": 1, \"l\": 1, \"c\": 1}]}"
    for (body, message) in [
      (twice, "the fetched bar of 2024-01-02: duplicate timestamp '2024-01-02' (line 2 has the same instant); expected strictly increasing timestamps"),
      ("{\"results\": [], \"status\": \"OK\"}", "no bars of GPIX from 2024-01-02 to 2024-01-03; expected at least one (check the symbol and the dates)"),
    ] {
      let server = try HostileHTTPServer { _, _, c in c.respond(body) }
      defer { server.stop() }
      let out = try CLI.temporaryFolder() + "/g.csv"
      let (r, _, _, _) = try runMeasured(Self.polygon(server, out: out, extra: ["--interval", "1d"]), seconds: 60, environment: Self.env)
      #expect(r.status == 65)
      #expect(r.stderr == "\(server.baseURL)/v2/aggs/ticker/GPIX/range/1/day/2024-01-02/2024-01-03?adjusted=true&sort=asc&limit=50000: error: \(message)\n", "\(r.stderr)")
      #expect(!FileManager.default.fileExists(atPath: out))
    }
  }

  @Test("a FRED date or value holding a line break (or not a date or number) is refused; nothing is written")
  func badFREDObservations() throws {
    let cases = [
      ("\"2024-01-01\\n2024-02-01\"", "\"3.7\"", "observation 2: expected 'date' as YYYY-MM-DD, found '2024-01-01\\u{A}2024-02-01'"),
      ("\"2024-01-01\"", "\"3.7\\n2024-05-01,9\"", "observation 2: expected 'value' as a number (at most 1e15 in size) or '.', found '3.7\\u{A}2024-05-01,9'"),
      ("\"soon\"", "\"3.7\"", "observation 2: expected 'date' as YYYY-MM-DD, found 'soon'"),
      ("\"2024-01-01\"", "\"1e999\"", "observation 2: expected 'value' as a number (at most 1e15 in size) or '.', found '1e999'"),
    ]
    for (date, value, message) in cases {
      let body = "{\"count\": 2, \"observations\": [\n{\"date\": \"2023-12-01\", \"value\": \"3.6\"},\n{\"date\": \(date), \"value\": \(value)}]}"
      let server = try HostileHTTPServer { _, _, c in c.respond(body) }
      defer { server.stop() }
      let out = try CLI.temporaryFolder() + "/U.csv"
      let (r, _, _, _) = try runMeasured(Self.fred(server, out: out), seconds: 60, environment: Self.env)
      #expect(r.status == 65)
      #expect(r.stderr.hasSuffix("&offset=0&limit=100000:3:1: error: \(message)\n"), "\(r.stderr)")
      #expect(!FileManager.default.fileExists(atPath: out))
    }
  }

  // MARK: Keys in error bodies

  @Test("an error body is redacted before it is cut: no part of the key survives at the cut")
  func redactBeforeCutting() throws {
    for filler in 180...199 {
      let server = try HostileHTTPServer { _, _, c in c.respond(status: 400, String(repeating: "x", count: filler) + Self.key + " trailing") }
      defer { server.stop() }
      let (r, _, _, _) = try runMeasured(Self.polygon(server, out: try CLI.temporaryFolder() + "/g.csv"), seconds: 60, environment: Self.env)
      #expect(r.status == 1 && r.stderr.contains("error: HTTP 400: xxxx"), "\(r.stderr)")
      #expect(!r.stderr.contains("sek"), "filler \(filler): \(r.stderr)")
    }
  }

  @Test("a server echoing the URL in another case (apikey=, API_KEY=) has the key hidden")
  func redactAnyCase() throws {
    for echo in ["apikey=\(Self.key.lowercased())&x=1", "API_KEY=\(Self.key.uppercased())", "ApiKey=\(Self.key)", "api-key: \(Self.key.lowercased())"] {
      let server = try HostileHTTPServer { _, _, c in c.respond(status: 400, "{\"error\": \"bad request \(echo)\"}") }
      defer { server.stop() }
      let (r, _, _, _) = try runMeasured(Self.polygon(server, out: try CLI.temporaryFolder() + "/g.csv"), seconds: 60, environment: Self.env)
      #expect(r.status == 1 && r.stderr.contains("error: HTTP 400: {\"error\": \"bad request "), "\(r.stderr)")
      #expect(!r.stderr.lowercased().contains(Self.key.lowercased()), "\(r.stderr)")
    }
  }

  // MARK: What reaches the terminal

  @Test("a scheme name with terminal escapes, 100 KB long, is printed escaped and cut")
  func hostileSchemeName() throws {
    let name = "\u{1B}]0;owned\u{07}\u{1B}[2J" + String(repeating: "n", count: 100_000)
    let body = MutualFundFetchTests.scheme(["01-04-2024"]).replacingOccurrences(of: "Sample Flexi Cap Fund - Direct Plan - Growth", with: name)
      .replacingOccurrences(of: "\u{1B}", with: "\\u001b").replacingOccurrences(of: "\u{07}", with: "\\u0007")
    let server = try HostileHTTPServer { _, _, c in c.respond(body) }
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/f.json"
    let (r, _, _, _) = try runMeasured(Self.mf(server, out: out), seconds: 60)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(!r.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    #expect(r.stdout.hasPrefix("fetched 1 NAVs of \\u{1B}]0;owned\\u{7}\\u{1B}[2Jnnn") && r.stdout.count < 400, "\(r.stdout.prefix(300))")
  }

  @Test("a long next_url is named cut in a message, with the key hidden before the cut")
  func longURLNamedCut() throws {
    let holder = ServerHolder()
    let server = try HostileHTTPServer { _, index, c in
      c.respond(FetchTests.page(index, 1, next: holder.base + "/v2/next?cursor=" + String(repeating: "x", count: 5_000) + Self.key))
    }
    holder.base = server.baseURL
    defer { server.stop() }
    let (r, _, _, _) = try runMeasured(Self.polygon(server, out: try CLI.temporaryFolder() + "/g.csv"), seconds: 60, environment: Self.env)
    #expect(r.status == 65 && r.stderr.hasPrefix("\(server.baseURL)/v2/next?cursor=xxxx") && r.stderr.hasSuffix("…: error: page 3 is page 2 again (the same next_url); expected each page to lead to a new one\n"),
            "\(r.stderr.prefix(400))")
    #expect(r.stderr.count < 500 && !r.stderr.contains("sek"), "\(r.stderr.count) characters")
  }

  @Test("funds search prints names with terminal escapes escaped, and long names cut")
  func hostileSchemeList() throws {
    let list = "[{\"schemeCode\": 1, \"schemeName\": \"Evil Flexi Cap Fund \\u001b]0;owned\\u0007\\u001b[2J - Direct Plan - Growth\"},"
      + " {\"schemeCode\": 2, \"schemeName\": \"Long Flexi Cap Fund \(String(repeating: "n", count: 100_000))\"}]"
    let server = try HostileHTTPServer { _, _, c in c.respond(list) }
    defer { server.stop() }
    let (r, _, _, _) = try runMeasured(["funds", "search", "flexi", "--cache", try CLI.temporaryFolder() + "/c.json", "--base-url", server.baseURL], seconds: 60)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(!r.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    #expect(r.stdout.contains("Evil Flexi Cap Fund \\u{1B}]0;owned\\u{7}\\u{1B}[2J - Direct Plan - Growth"), "\(r.stdout.prefix(500))")
    #expect(r.stdout.count < 2_000, "\(r.stdout.count) characters")
  }

  // MARK: mfapi has no key

  @Test("an mfapi 401 is not called a refused API key (mfapi has none)")
  func mfapiUnauthorized() throws {
    let server = try HostileHTTPServer { _, _, c in c.respond(status: 401, "{\"error\": \"unauthorized\"}") }
    defer { server.stop() }
    let (r, _, _, _) = try runMeasured(Self.mf(server, out: try CLI.temporaryFolder() + "/f.json"), seconds: 60)
    #expect(r.status == 1)
    #expect(r.stderr == "\(server.baseURL)/mf/119551: error: HTTP 401: {\"error\": \"unauthorized\"}\n", "\(r.stderr)")
  }
}
