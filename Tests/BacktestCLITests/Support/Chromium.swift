import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Headless Chromium driven over its DevTools protocol through a pipe
/// (`--remote-debugging-pipe`: JSON messages ending in a NUL byte; the browser
/// reads file descriptor 3 and writes 4), with one page attached.
final class Chromium {
  struct Failure: Error, CustomStringConvertible { var description: String }

  /// The browser to use: `$CHROMIUM`, else the first of the usual names on `PATH`, else the macOS app; `nil` when none.
  static let executable: String? = {
    let fm = FileManager.default
    if let path = ProcessInfo.processInfo.environment["CHROMIUM"], fm.isExecutableFile(atPath: path) { return path }
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"] {
      for directory in directories where fm.isExecutableFile(atPath: "\(directory)/\(name)") { return "\(directory)/\(name)" }
    }
    let mac = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
    return fm.isExecutableFile(atPath: mac) ? mac : nil
  }()

  private let process: pid_t
  private let toBrowser: Int32, fromBrowser: Int32
  private var buffer: [UInt8] = []
  private var nextID = 1
  private var session = ""
  private let profile: String
  /// Every event the page sent (method and params), in order.
  private(set) var events: [(method: String, params: [String: Any])] = []

  /// Starts the browser with a window of `width` × `height` and attaches to a blank page.
  init(width: Int = 1100, height: Int = 1300) throws {
    guard let executable = Self.executable else { throw Failure(description: "no Chromium") }
    profile = NSTemporaryDirectory() + "backtest-chromium-" + UUID().uuidString
    var input: [Int32] = [0, 0], output: [Int32] = [0, 0]
    guard pipe(&input) == 0, pipe(&output) == 0 else { throw Failure(description: "pipe failed") }
    for fd in [input[1], output[0]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    let arguments = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
                     "--hide-scrollbars", "--force-device-scale-factor=1", "--window-size=\(width),\(height)", "--user-data-dir=\(profile)",
                     "about:blank"]
    #if canImport(Glibc)
    var actions = posix_spawn_file_actions_t()
    #else
    var actions: posix_spawn_file_actions_t?
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, input[0], 3)
    posix_spawn_file_actions_adddup2(&actions, output[1], 4)
    // The browser's own output would only clutter the test log.
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    close(input[0]); close(output[1])
    guard status == 0 else { close(input[1]); close(output[0]); throw Failure(description: "could not start \(executable): \(status)") }
    process = pid
    toBrowser = input[1]
    fromBrowser = output[0]
    let target = try call("Target.createTarget", ["url": "about:blank"], inPage: false)
    let attached = try call("Target.attachToTarget", ["targetId": target["targetId"] as! String, "flatten": true], inPage: false)
    session = attached["sessionId"] as! String
    for domain in ["Page", "Runtime", "Log"] { _ = try call(domain + ".enable") }
  }

  deinit {
    close(toBrowser); close(fromBrowser)
    kill(process, SIGKILL)
    var status: Int32 = 0
    waitpid(process, &status, 0)
    try? FileManager.default.removeItem(atPath: profile)
  }

  /// Sends a command (to the page unless `inPage` is false) and returns its result, keeping the events that come meanwhile.
  @discardableResult
  func call(_ method: String, _ params: [String: Any] = [:], inPage: Bool = true) throws -> [String: Any] {
    let id = nextID
    nextID += 1
    var message: [String: Any] = ["id": id, "method": method, "params": params]
    if inPage { message["sessionId"] = session }
    var data = [UInt8](try JSONSerialization.data(withJSONObject: message))
    data.append(0)
    try data.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let n = write(toBrowser, raw.baseAddress! + offset, raw.count - offset)
        guard n > 0 else { throw Failure(description: "writing to the browser failed") }
        offset += n
      }
    }
    while true {
      let reply = try receive()
      if reply["id"] as? Int == id {
        if let error = reply["error"] { throw Failure(description: "\(method): \(error)") }
        return reply["result"] as? [String: Any] ?? [:]
      }
    }
  }

  /// The next message from the browser; events are recorded on the way.
  private func receive(timeout: Double = 60) throws -> [String: Any] {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if let end = buffer.firstIndex(of: 0) {
        let json = try JSONSerialization.jsonObject(with: Data(buffer[..<end])) as? [String: Any] ?? [:]
        buffer.removeSubrange(...end)
        if let method = json["method"] as? String { events.append((method, json["params"] as? [String: Any] ?? [:])) }
        return json
      }
      var poller = pollfd(fd: fromBrowser, events: Int16(POLLIN), revents: 0)
      let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
      guard left > 0, poll(&poller, 1, left) > 0 else { throw Failure(description: "the browser did not answer in \(Int(timeout)) s") }
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      let n = read(fromBrowser, &chunk, chunk.count)
      guard n > 0 else { throw Failure(description: "the browser closed the pipe") }
      buffer.append(contentsOf: chunk[..<n])
    }
  }

  /// Opens `path` and waits for its load event.
  func open(_ path: String) throws {
    let seen = events.count
    try call("Page.navigate", ["url": URL(fileURLWithPath: path).absoluteString])
    while !events[seen...].contains(where: { $0.method == "Page.loadEventFired" }) { _ = try receive() }
  }

  /// The value of a JavaScript expression (awaited when it is a promise), as JSON gives it.
  func evaluate(_ expression: String) throws -> Any? {
    let result = try call("Runtime.evaluate", ["expression": expression, "awaitPromise": true, "returnByValue": true])
    if let exception = result["exceptionDetails"] { throw Failure(description: "\(expression): \(exception)") }
    return (result["result"] as? [String: Any])?["value"]
  }

  /// Waits until the page has drawn its next frame.
  func nextFrame() throws {
    _ = try evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))")
  }

  func mouse(_ type: String, x: Double, y: Double, buttons: Int = 0, modifiers: Int = 0) throws {
    var params: [String: Any] = ["type": type, "x": x, "y": y, "buttons": buttons, "modifiers": modifiers]
    if type == "mousePressed" || type == "mouseReleased" { params["button"] = "left"; params["clickCount"] = 1 }
    try call("Input.dispatchMouseEvent", params)
  }

  func wheel(x: Double, y: Double, deltaY: Double) throws {
    try call("Input.dispatchMouseEvent", ["type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": deltaY])
  }

  /// Touches the screen at (x, y) and lifts the finger there: a tap (with touch emulation on).
  func tap(x: Double, y: Double) throws {
    try call("Input.dispatchTouchEvent", ["type": "touchStart", "touchPoints": [["x": x, "y": y]]])
    try call("Input.dispatchTouchEvent", ["type": "touchEnd", "touchPoints": [[String: Any]]()])
  }

  /// Presses and releases the key that types `key` (`+`, `0`) or is named `key` (`ArrowLeft`).
  func press(_ key: String) throws {
    var down: [String: Any] = ["type": "keyDown", "key": key]
    if key.count == 1 { down["text"] = key }
    try call("Input.dispatchKeyEvent", down)
    try call("Input.dispatchKeyEvent", ["type": "keyUp", "key": key])
  }

  /// A PNG of the window.
  func screenshot(to path: String) throws {
    let result = try call("Page.captureScreenshot", ["format": "png"])
    try Data(base64Encoded: result["data"] as! String)!.write(to: URL(fileURLWithPath: path))
  }

  /// Console errors, uncaught exceptions and error log entries so far, as text.
  var errors: [String] {
    events.compactMap { e in
      switch e.method {
      case "Runtime.exceptionThrown": return "exception: \(e.params["exceptionDetails"] ?? "")"
      case "Runtime.consoleAPICalled" where ["error", "assert"].contains(e.params["type"] as? String):
        return "console.\(e.params["type"]!): \(e.params["args"] ?? "")"
      case "Log.entryAdded":
        let entry = e.params["entry"] as? [String: Any] ?? [:]
        return entry["level"] as? String == "error" ? "log: \(entry["text"] ?? "") \(entry["url"] ?? "")" : nil
      default: return nil
      }
    }
  }
}
