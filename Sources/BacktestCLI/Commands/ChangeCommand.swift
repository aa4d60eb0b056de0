import BacktestCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `--on-change CMD` of `backtest signal`: a shell command given the
/// signal's JSON on its standard input, stopped at a time limit.
///
/// It runs as `/bin/sh -c CMD` in a process group of its own, so that at the
/// limit everything it started is stopped (SIGTERM, then SIGKILL 2 s later).
/// Its standard output and error go to this process's standard error: the
/// standard output may be the JSON another program reads.
struct ChangeCommand {
  var command: String
  /// Seconds, at most `longestTimeLimit`.
  var timeLimit: Double

  /// The longest time limit `--on-change-timeout` takes: a day.
  static let longestTimeLimit = 86_400.0

  enum Outcome: Equatable {
    case succeeded
    case failed(status: Int32)
    case killedBySignal(Int32)
    case timedOut
    case notStarted(String)
  }

  /// What went wrong, for the error message; `nil` on success.
  func problem(_ outcome: Outcome) -> String? {
    switch outcome {
    case .succeeded: return nil
    case .failed(let status): return "exited with status \(status)"
    case .killedBySignal(let signal): return "was killed by signal \(signal)"
    case .timedOut: return "was still running after its time limit of \(formatPlain(timeLimit)) s and was stopped"
    case .notStarted(let why): return "could not start (\(why))"
    }
  }

  func run(input: String) -> Outcome {
    // A command that does not read its input must not kill this process with SIGPIPE.
    signal(SIGPIPE, SIG_IGN)
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return .notStarted(String(cString: strerror(errno))) }
    #if canImport(Darwin)
    var actions: posix_spawn_file_actions_t? = nil
    var attributes: posix_spawnattr_t? = nil
    #else
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
    #endif
    posix_spawn_file_actions_init(&actions)
    posix_spawnattr_init(&attributes)
    defer {
      posix_spawn_file_actions_destroy(&actions)
      posix_spawnattr_destroy(&attributes)
    }
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
    posix_spawn_file_actions_adddup2(&actions, 2, 1)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    posix_spawn_file_actions_addclose(&actions, fds[1])
    // Its own process group (to stop all of it), and SIGPIPE back to its default for the command.
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF))
    posix_spawnattr_setpgroup(&attributes, 0)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGPIPE)
    posix_spawnattr_setsigdefault(&attributes, &defaults)

    let words: [String] = ["/bin/sh", "-c", command]
    let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    let environment: [UnsafeMutablePointer<CChar>?] = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (arguments + environment).forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, arguments, environment)
    close(fds[0])
    guard spawned == 0 else {
      close(fds[1])
      return .notStarted(String(cString: strerror(spawned)))
    }
    // Written on its own thread: a command that reads nothing must not block us past the limit.
    let writeEnd = fds[1]
    let bytes = Array(input.utf8)
    Thread.detachNewThread {
      var offset = 0
      while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        offset += n
      }
      close(writeEnd)
    }
    let clock = ContinuousClock()
    // Bounded before the conversion, so that no limit can overflow it.
    let deadline = clock.now + .milliseconds(Int((min(max(timeLimit, 0), Self.longestTimeLimit) * 1000).rounded(.up)))
    var status: Int32 = 0
    while true {
      let r = waitpid(pid, &status, WNOHANG)
      if r == pid { break }
      if r < 0 && errno != EINTR { return .notStarted(String(cString: strerror(errno))) }
      if clock.now >= deadline {
        kill(-pid, SIGTERM)
        let grace = clock.now + .seconds(2)
        while waitpid(pid, &status, WNOHANG) == 0 && clock.now < grace { usleep(20_000) }
        kill(-pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return .timedOut
      }
      usleep(10_000)
    }
    let signalNumber = status & 0x7F
    if signalNumber != 0 { return .killedBySignal(signalNumber) }
    let code = (status >> 8) & 0xFF
    return code == 0 ? .succeeded : .failed(status: code)
  }
}
