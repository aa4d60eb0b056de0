import BacktestCore
import CommandLineSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one request may take: a whole answer within `seconds`, at most
/// `maximumBytes` of body (counted after decompression, so a gzip bomb stops
/// there too) and at most `maximumHeaders` header fields.
///
/// The header fields are counted once they have all arrived: URLSession shows
/// none before. libcurl (under FoundationNetworking, on Linux) refuses more
/// than 300 KB of them, which FoundationNetworking takes 5 to 11 s to read
/// (its time grows with the square of their number); that failure is not
/// retried, and `seconds` bounds it too.
struct RequestLimits: Sendable {
  /// Seconds for a whole request: `BACKTEST_FETCH_TIMEOUT`, else 60.
  var seconds: Double
  var maximumBytes = 64 << 20
  var maximumHeaders = 200

  static let variable = "BACKTEST_FETCH_TIMEOUT"

  /// The limits, with `BACKTEST_FETCH_TIMEOUT` (seconds, 0.1 to 3600) when set.
  ///
  /// - Throws: `UsageError` when that variable is not such a number.
  static func fromEnvironment() throws -> RequestLimits {
    guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else { return RequestLimits(seconds: 60) }
    guard let seconds = parseDecimal(text), seconds >= 0.1, seconds <= 3600 else {
      throw UsageError(message: "expected seconds from 0.1 to 3600 in \(variable), found '\(excerpt(escapingControlCharacters(text)))'")
    }
    return RequestLimits(seconds: seconds)
  }
}

/// GET requests with a client-side rate limit and retries with exponential
/// backoff on 429 and 5xx (honouring `Retry-After`); keys are redacted from every message.
/// Each request is bounded by `RequestLimits`; a request over them is not retried.
final class RateLimitedClient: @unchecked Sendable {
  let interval: Double
  let retries: Int
  let backoff: Double
  let limits: RequestLimits
  /// `scheme://host:port`: the only place requests (and so the key) go; `nil` when no key is sent.
  let origin: String?
  private let clock = ContinuousClock()
  private var last: ContinuousClock.Instant?
  private let session: URLSession
  private let transfers: Transfers

  init(requestsPerMinute: Double, retries: Int, backoffSeconds: Double, origin: String? = nil, limits: RequestLimits) {
    interval = 60 / requestsPerMinute
    self.retries = retries
    backoff = backoffSeconds
    self.origin = origin
    self.limits = limits
    let configuration = URLSessionConfiguration.ephemeral
    // The deadline is kept here (`perform`); the session's own timeouts only back it up.
    configuration.timeoutIntervalForRequest = limits.seconds + 30
    configuration.timeoutIntervalForResource = limits.seconds + 30
    transfers = Transfers(origin: origin, maximumBytes: limits.maximumBytes)
    session = URLSession(configuration: configuration, delegate: transfers, delegateQueue: nil)
  }

  func get(_ url: String) throws -> Data {
    // The URL as messages name it: keys hidden, cut (a server's next_url may be long).
    let path = Self.shown(url, limit: 300)
    guard let u = URL(string: url) else { throw OutputError(path: path, message: "not a valid URL") }
    var attempt = 0
    while true {
      if let last {
        let wait = interval - ProgressLine.seconds(clock.now - last)
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
      }
      last = clock.now
      let (status, headers, body, failure) = try perform(u, shownAs: path)
      if let failure {
        if attempt < retries { attempt += 1; Thread.sleep(forTimeInterval: backoffWait(attempt)); continue }
        throw OutputError(path: path, message: "request failed: \(redactingKeys(failure))")
      }
      switch status {
      case 200..<300:
        return body
      case 401 where origin != nil, 403 where origin != nil:
        throw OutputError(path: path, message: "the API key was refused (HTTP \(status)); check the key in the environment variable")
      case 429, 500..<600:
        if attempt < retries {
          attempt += 1
          // A server's wait, at most 5 minutes (a huge or infinite one would hang the fetch).
          let retryAfter = headers["retry-after"].flatMap { parseDecimal($0) }.flatMap { $0 >= 0 ? min($0, Self.longestWait) : nil }
          Thread.sleep(forTimeInterval: retryAfter ?? backoffWait(attempt))
          continue
        }
        throw OutputError(path: path, message: "HTTP \(status) after \(retries + 1) attempts; try again later or lower --rate")
      default:
        throw OutputError(path: path, message: "HTTP \(status): \(Self.shown(String(decoding: body.prefix(65_536), as: UTF8.self), limit: 200))")
      }
    }
  }

  /// One request: its status, headers (lower-cased names) and body, or a failure worth retrying (a connection
  /// refused or reset).
  ///
  /// - Throws: `OutputError` when the answer breaks `limits`, is redirected to another host or fails otherwise
  ///   (none of these is retried).
  private func perform(_ url: URL, shownAs path: String) throws -> (Int, [String: String], Data, String?) {
    let transfer = Transfer()
    let task = session.dataTask(with: url)
    transfers.begin(task.taskIdentifier, transfer)
    defer { transfers.end(task.taskIdentifier) }
    let start = clock.now
    task.resume()
    let host = url.port.map { "\(url.host ?? ""):\($0)" } ?? url.host ?? ""
    while transfer.done.wait(timeout: .now() + 0.05) == .timedOut {
      let (answered, bytes) = transfer.progress
      if ProgressLine.seconds(clock.now - start) >= limits.seconds {
        Transfers.cancel(task)
        let seconds = formatNumber(limits.seconds)
        if !answered {
          throw OutputError(path: path, message: "no answer from \(host) within \(seconds) s; expected an answer in that time")
        }
        throw OutputError(path: path, message: "the response from \(host) did not end within \(seconds) s (answered, then \(bytes) bytes); expected a whole answer in that time")
      }
    }
    let state = transfer.final
    if let refused = state.refusedRedirect {
      throw OutputError(path: path, message: "redirected to another host (\(Self.shown(refused, limit: 80))); expected \(origin ?? ""), the only host the API key is sent to")
    }
    if state.tooLarge {
      throw OutputError(path: path, message: "the response from \(host) exceeds \(limits.maximumBytes >> 20) MB; expected a smaller answer")
    }
    if let error = state.error {
      // Only a failure to connect may go better the next time; a malformed or oversized answer is not asked for again.
      guard Self.retried.contains((error as NSError).code) else {
        throw OutputError(path: path, message: "request failed: \(redactingKeys(error.localizedDescription))")
      }
      return (0, [:], Data(), error.localizedDescription)
    }
    guard let response = state.response else { return (0, [:], Data(), "no response") }
    if response.allHeaderFields.count > limits.maximumHeaders {
      throw OutputError(path: path, message: "the response from \(host) has \(response.allHeaderFields.count) header fields; expected at most \(limits.maximumHeaders)")
    }
    var headers: [String: String] = [:]
    for (k, v) in response.allHeaderFields { headers[String(describing: k).lowercased()] = String(describing: v) }
    return (response.statusCode, headers, state.body, nil)
  }

  /// The failures retried: those of reaching the server (URLError codes).
  static let retried: Set<Int> = [
    NSURLErrorTimedOut, NSURLErrorCannotFindHost, NSURLErrorCannotConnectToHost, NSURLErrorNetworkConnectionLost,
    NSURLErrorDNSLookupFailed, NSURLErrorNotConnectedToInternet, NSURLErrorSecureConnectionFailed,
  ]

  /// `text` from a server (an error body, a URL) as a message quotes it: keys hidden first, by name and by
  /// value (so that the cut cannot leave part of one), white space runs as one space, then cut to `limit`.
  static func shown(_ text: String, limit: Int) -> String {
    let hidden = Secrets.redact(redactingKeys(text))
    let flat = hidden.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\r\n" }).joined(separator: " ")
    return excerpt(flat, limit: limit)
  }

  /// The wait before retry `attempt` (1-based): `--backoff` doubled each time, at most `longestWait`.
  private func backoffWait(_ attempt: Int) -> Double { min(backoff * pow(2, Double(attempt - 1)), Self.longestWait) }
}

extension RateLimitedClient {
  /// The slowest `--rate`: a request every 100 minutes (a smaller one would wait for ever).
  static let slowestRate = 0.01
  /// The most `--retries`; each retry waits at most `longestWait`.
  static let mostRetries = 100
  static let longestWait = 300.0

  /// Reads `--rate`, `--retries` and `--backoff`.
  ///
  /// - Throws: `UsageError` for a value out of its range.
  static func options(_ a: Arguments) throws -> (requestsPerMinute: Double, retries: Int, backoffSeconds: Double) {
    (try a.number("rate", expected: "requests per minute from \(formatNumber(slowestRate)) (one every 100 minutes)") { $0 >= slowestRate }!,
     try a.integer("retries", minimum: 0, maximum: mostRetries)!,
     try a.number("backoff", expected: "seconds from 0 to 3600") { $0 >= 0 && $0 <= 3600 }!)
  }
}

/// What one request has received so far (written on the session's queue, read by the waiting thread).
private final class Transfer: @unchecked Sendable {
  struct State {
    var response: HTTPURLResponse?
    var body = Data()
    var bytes = 0
    var error: Error?
    /// The body passed the size cap (or its announced length did); the request was cancelled.
    var tooLarge = false
    /// A redirect to another origin, not followed.
    var refusedRedirect: String?
  }

  let done = DispatchSemaphore(value: 0)
  private let lock = NSLock()
  private var state = State()

  /// Whether the response headers have arrived, and the body's bytes so far (the body is not copied).
  var progress: (answered: Bool, bytes: Int) { lock.lock(); defer { lock.unlock() }; return (state.response != nil, state.bytes) }

  /// Everything received, once the transfer has ended.
  var final: State { lock.lock(); defer { lock.unlock() }; return state }

  func update<T>(_ change: (inout State) -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return change(&state)
  }
}

/// The session's delegate: collects each task's answer into its `Transfer` up to the size cap, and follows a
/// redirect only within one origin (scheme, host and port): the request URL carries the key, and a server's
/// `Location` may carry it on.
private final class Transfers: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  let origin: String?
  let maximumBytes: Int
  private let lock = NSLock()
  private var running: [Int: Transfer] = [:]

  init(origin: String?, maximumBytes: Int) {
    self.origin = origin
    self.maximumBytes = maximumBytes
  }

  /// Cancels `task` without waiting: `URLSessionTask.cancel` waits for the session's queue, which is busy for as
  /// long as libcurl reads what the socket holds (inflating a gzip bomb, parsing a flood of headers).
  static func cancel(_ task: URLSessionTask) {
    DispatchQueue.global().async { task.cancel() }
  }

  func begin(_ task: Int, _ transfer: Transfer) { lock.lock(); running[task] = transfer; lock.unlock() }
  func end(_ task: Int) { lock.lock(); running[task] = nil; lock.unlock() }
  private func transfer(_ task: URLSessionTask) -> Transfer? { lock.lock(); defer { lock.unlock() }; return running[task.taskIdentifier] }

  func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                  newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
    let target = request.url?.absoluteString ?? ""
    if origin == nil || FetchCommand.origin(target) == origin { return completionHandler(request) }
    transfer(task)?.update { $0.refusedRedirect = target }
    completionHandler(nil)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                  completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
    let announced = response.expectedContentLength
    guard let transfer = transfer(dataTask) else { return completionHandler(.cancel) }
    let tooLarge = transfer.update { state -> Bool in
      state.response = response as? HTTPURLResponse
      state.tooLarge = announced > Int64(maximumBytes)
      return state.tooLarge
    }
    completionHandler(tooLarge ? .cancel : .allow)
    if tooLarge { transfer.done.signal() }
  }

  /// Keeps the body up to `maximumBytes`; past that, the request ends at once for its caller (`done`) and the
  /// rest is dropped as fast as it comes (the session hands it over however much there is).
  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    guard let transfer = transfer(dataTask) else { return }
    let maximumBytes = self.maximumBytes
    let passedCap = transfer.update { state -> Bool in
      if state.tooLarge { return false }
      state.bytes += data.count
      guard state.bytes > maximumBytes else {
        state.body.append(data)
        return false
      }
      state.tooLarge = true
      state.body = Data()
      return true
    }
    if passedCap {
      transfer.done.signal()
      Self.cancel(dataTask)
    }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    guard let transfer = transfer(task) else { return }
    transfer.update { $0.error = error }
    transfer.done.signal()
  }
}
