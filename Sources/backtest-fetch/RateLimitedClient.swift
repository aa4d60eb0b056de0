import BacktestCore
import CommandLineSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// GET requests with a client-side rate limit and retries with exponential
/// backoff on 429 and 5xx (honouring `Retry-After`); keys are redacted from every message.
final class RateLimitedClient: @unchecked Sendable {
  let interval: Double
  let retries: Int
  let backoff: Double
  /// `scheme://host:port`: the only place requests (and so the key) go; `nil` when no key is sent.
  let origin: String?
  private let clock = ContinuousClock()
  private var last: ContinuousClock.Instant?
  private let session: URLSession
  private let redirects: SameOriginRedirects

  init(requestsPerMinute: Double, retries: Int, backoffSeconds: Double, origin: String? = nil) {
    interval = 60 / requestsPerMinute
    self.retries = retries
    backoff = backoffSeconds
    self.origin = origin
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = 60
    redirects = SameOriginRedirects(origin: origin)
    session = URLSession(configuration: configuration, delegate: redirects, delegateQueue: nil)
  }

  func get(_ url: String) throws -> Data {
    guard let u = URL(string: url) else { throw OutputError(path: redactingKeys(url), message: "not a valid URL") }
    var attempt = 0
    while true {
      if let last {
        let wait = interval - ProgressLine.seconds(clock.now - last)
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
      }
      last = clock.now
      let (status, headers, body, failure) = perform(u)
      if let refused = redirects.takeRefused() {
        throw OutputError(path: redactingKeys(url), message: "redirected to another host (\(excerpt(redactingKeys(refused), limit: 80))); expected \(origin ?? ""), the only host the API key is sent to")
      }
      if let failure {
        if attempt < retries { attempt += 1; Thread.sleep(forTimeInterval: backoff * pow(2, Double(attempt - 1))); continue }
        throw OutputError(path: redactingKeys(url), message: "request failed: \(redactingKeys(failure))")
      }
      switch status {
      case 200..<300:
        return body
      case 401, 403:
        throw OutputError(path: redactingKeys(url), message: "the API key was refused (HTTP \(status)); check the key in the environment variable")
      case 429, 500..<600:
        if attempt < retries {
          attempt += 1
          // A server's wait, at most 5 minutes (a huge or infinite one would hang the fetch).
          let retryAfter = headers["retry-after"].flatMap { parseDecimal($0) }.flatMap { $0 >= 0 ? min($0, 300) : nil }
          Thread.sleep(forTimeInterval: retryAfter ?? backoff * pow(2, Double(attempt - 1)))
          continue
        }
        throw OutputError(path: redactingKeys(url), message: "HTTP \(status) after \(retries + 1) attempts; try again later or lower --rate")
      default:
        let text = redactingKeys(String(decoding: body.prefix(200), as: UTF8.self))
        throw OutputError(path: redactingKeys(url), message: "HTTP \(status): \(text)")
      }
    }
  }

  private func perform(_ url: URL) -> (Int, [String: String], Data, String?) {
    let done = DispatchSemaphore(value: 0)
    let box = ResponseBox()
    let task = session.dataTask(with: url) { data, response, error in
      box.set(data: data, response: response as? HTTPURLResponse, error: error)
      done.signal()
    }
    task.resume()
    done.wait()
    return box.result
  }
}

/// Follows a redirect only within one origin (scheme, host and port): the
/// request URL carries the key, and a server's `Location` may carry it on.
private final class SameOriginRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
  let origin: String?
  private let lock = NSLock()
  private var refused: String?

  init(origin: String?) { self.origin = origin }

  func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                  newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
    let target = request.url?.absoluteString ?? ""
    if origin == nil || FetchCommand.origin(target) == origin { return completionHandler(request) }
    lock.lock()
    refused = target
    lock.unlock()
    completionHandler(nil)
  }

  /// The redirect target refused during the last request, if any (cleared).
  func takeRefused() -> String? {
    lock.lock()
    defer { refused = nil; lock.unlock() }
    return refused
  }
}

private final class ResponseBox: @unchecked Sendable {
  private let lock = NSLock()
  private var value: (Int, [String: String], Data, String?) = (0, [:], Data(), "no response")
  func set(data: Data?, response: HTTPURLResponse?, error: Error?) {
    lock.lock()
    defer { lock.unlock() }
    if let error { value = (0, [:], Data(), error.localizedDescription); return }
    var headers: [String: String] = [:]
    for (k, v) in response?.allHeaderFields ?? [:] { headers[String(describing: k).lowercased()] = String(describing: v) }
    value = (response?.statusCode ?? 0, headers, data ?? Data(), nil)
  }
  var result: (Int, [String: String], Data, String?) { lock.lock(); defer { lock.unlock() }; return value }
}
