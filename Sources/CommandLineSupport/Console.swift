import BacktestCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exit codes (sysexits): 0 ok, 64 bad command line, 65 bad data or config,
/// 66 missing input, 1 anything else.
package enum ExitCode {
  package static let ok: Int32 = 0
  package static let failure: Int32 = 1
  package static let usage: Int32 = 64
  package static let dataError: Int32 = 65
  package static let noInput: Int32 = 66
}

/// The running tool, as its messages and usage lines name it.
package enum Program {
  /// The file name the tool was started as (`backtest`, or the name of your own
  /// executable that calls `BacktestCLI.main`). `backtest fetch` starts its
  /// helper as `NAME fetch`, and the helper started directly calls itself
  /// `backtest`, so both print the name the user typed.
  package static let name: String = {
    let started = CommandLine.arguments.first ?? "backtest"
    let file = started.split(separator: "/").last.map(String.init) ?? started
    let name = file.split(separator: " ").first.map(String.init) ?? "backtest"
    return name == "backtest-fetch" ? "backtest" : name
  }()
}

/// How output looks on this terminal, or in a pipe or a log.
package enum Terminal {
  /// Whether text for a stream gets colours: only on a terminal (`TERM` not
  /// `dumb`), never with `NO_COLOR` set to anything non-empty
  /// (https://no-color.org); `CLICOLOR_FORCE=1` asks for them in a pipe too.
  package static func colors(isTerminal: Bool, environment: [String: String]) -> Bool {
    if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
    if let force = environment["CLICOLOR_FORCE"], !force.isEmpty, force != "0" { return true }
    return isTerminal && environment["TERM"] != "dumb"
  }

  /// Whether progress may be drawn as a live bar (redrawn in place on stderr):
  /// only when both stdout and stderr are terminals and `TERM` is not `dumb`;
  /// otherwise progress is a plain line every few seconds, readable in logs.
  package static func liveProgress(stdoutIsTerminal: Bool, stderrIsTerminal: Bool, environment: [String: String]) -> Bool {
    stdoutIsTerminal && stderrIsTerminal && environment["TERM"] != "dumb"
  }

  /// Colours for standard output, decided once.
  package static let colorsOnStdout = colors(isTerminal: isatty(1) != 0, environment: ProcessInfo.processInfo.environment)
  /// Colours for standard error, decided once.
  package static let colorsOnStderr = colors(isTerminal: isatty(2) != 0, environment: ProcessInfo.processInfo.environment)
  /// A live progress bar, decided once.
  package static let liveProgress = liveProgress(stdoutIsTerminal: isatty(1) != 0, stderrIsTerminal: isatty(2) != 0,
                                                environment: ProcessInfo.processInfo.environment)
}

/// An ANSI text style, applied only where `Terminal` allows colours.
package enum TextStyle: String, Sendable {
  case red = "31", green = "32", bold = "1", boldRed = "1;31"

  /// Returns `text` in this style for standard output (unchanged when colours are off).
  package func stdout(_ text: String) -> String { Terminal.colorsOnStdout ? apply(text) : text }
  /// Returns `text` in this style for standard error (unchanged when colours are off).
  package func stderr(_ text: String) -> String { Terminal.colorsOnStderr ? apply(text) : text }
  func apply(_ text: String) -> String { "\u{1B}[\(rawValue)m\(text)\u{1B}[0m" }
}

/// Values this process must never print (an API key): every line written to
/// standard error, and whatever a command passes through `redact`, has each
/// of them replaced by `***`, as written and as URL-encoded.
package enum Secrets {
  private static let lock = NSLock()
  nonisolated(unsafe) private static var values: [String] = []

  /// Hides `secret` from every message from now on.
  package static func hide(_ secret: String) {
    guard !secret.isEmpty else { return }
    let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
    let encoded = secret.addingPercentEncoding(withAllowedCharacters: unreserved) ?? secret
    let forms = [secret, encoded, lowercasedEscapes(encoded), secret.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? secret]
    lock.lock()
    defer { lock.unlock() }
    // Longest first: a form that contains another is replaced whole.
    values = Array(Set(values + forms)).sorted { $0.count > $1.count }
  }

  /// `text` with every hidden value replaced by `***`, in any case (a server may echo a URL lower-cased).
  package static func redact(_ text: String) -> String {
    lock.lock()
    let values = self.values
    lock.unlock()
    var text = text
    for value in values where text.range(of: value, options: .caseInsensitive) != nil {
      text = text.replacingOccurrences(of: value, with: "***", options: .caseInsensitive)
    }
    return text
  }

  /// `%2F` written `%2f`, as some servers echo it.
  private static func lowercasedEscapes(_ text: String) -> String {
    var out = ""
    var rest = Substring(text)
    while let percent = rest.firstIndex(of: "%") {
      out += rest[..<percent] + "%"
      rest = rest[rest.index(after: percent)...]
      out += rest.prefix(2).lowercased()
      rest = rest.dropFirst(2)
    }
    return out + rest
  }
}

/// Writes one line to standard error (hidden values redacted).
package func printError(_ text: String) {
  FileHandle.standardError.write((Secrets.redact(text) + "\n").data(using: .utf8)!)
}

/// Writes a message to standard error with its first `error:` in bold red where
/// colours are on. Control characters in it (from an input it quotes) are
/// written as `\u{1B}`, so they cannot act on the terminal, and the values of
/// key-like `NAME=value` pairs (`API_KEY=…`) as `***` (see `redactingSecrets`).
package func printErrorMessage(_ text: String) {
  let text = escapingControlCharacters(redactingSecrets(text))
  guard Terminal.colorsOnStderr, let range = text.range(of: "error:") else { return printError(text) }
  printError(text.replacingCharacters(in: range, with: TextStyle.boldRed.stderr("error:")))
}

/// Prints an input error, with the offending line of a YAML file under it.
package func report(_ error: InputError) {
  var text = error.description
  // Read as every input is (a regular file of a user's own, never a pipe that would not end).
  if let location = error.location, error.excerpt == nil,
    location.file.hasSuffix(".yaml") || location.file.hasSuffix(".yml"),
    let bytes = try? readInputFile(location.file, limit: 64 << 20)
  {
    let source = String(decoding: bytes, as: UTF8.self)
    let lines = source.textLines
    if location.line >= 1 && location.line <= lines.count {
      text += "\n" + sourceExcerpt(line: String(lines[location.line - 1]), number: location.line, column: location.column)
    }
  }
  printErrorMessage(text)
}

/// Runs a command and turns what it throws into a message and an exit code:
/// a help request prints that help on stdout (0); usage errors 64 (with a
/// pointer to the help of `path`, the command's words after the program),
/// bad data or config 65, missing input 66, anything else 1.
package func exitCode(path: String? = nil, of command: () throws -> Int32) -> Int32 {
  do {
    return try command()
  } catch let help as HelpRequest {
    print(HelpText.command(help.command, path: help.path, program: Program.name), terminator: "")
    return ExitCode.ok
  } catch let error as UsageError {
    printErrorMessage(error.description)
    printError("run '\(Program.name) \(path.map { $0 + " --help" } ?? "help")' for usage")
    return ExitCode.usage
  } catch let error as InputError {
    report(error)
    return error.kind == .missingInput ? ExitCode.noInput : ExitCode.dataError
  } catch let error as OutputError {
    // It names its path: `path: error: message`.
    printErrorMessage(error.description)
    return ExitCode.failure
  } catch {
    printErrorMessage("\(Program.name): error: \(error)")
    return ExitCode.failure
  }
}
