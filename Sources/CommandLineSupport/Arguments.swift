import BacktestCore

/// A command-line usage error: exit 64 (`EX_USAGE`).
public struct UsageError: Error, CustomStringConvertible {
  public var message: String
  public init(message: String) { self.message = message }
  public var description: String { "backtest: error: \(message)" }
}

/// The arguments of one subcommand: positionals, `--flag`, `--option value`
/// (or `--option=value`), and repeatable options, checked against what the
/// subcommand declares.
public struct Arguments {
  public var positionals: [String] = []
  public var flags: Set<String> = []
  public var options: [String: [String]] = [:]

  /// Parses `args` for a subcommand that takes the given flags and options.
  public init(_ args: ArraySlice<String>, flags allowedFlags: [String], options allowedOptions: [String]) throws {
    var i = args.startIndex
    while i < args.endIndex {
      let arg = args[i]
      if arg == "--" {
        positionals += args[(i + 1)...]
        break
      }
      if arg.hasPrefix("--") {
        var name = String(arg.dropFirst(2))
        var value: String?
        if let eq = name.firstIndex(of: "=") {
          value = String(name[name.index(after: eq)...])
          name = String(name[..<eq])
        }
        if allowedFlags.contains(name) {
          if value != nil { throw UsageError(message: "option '--\(name)' takes no value") }
          flags.insert(name)
        } else if allowedOptions.contains(name) {
          if value == nil {
            i += 1
            guard i < args.endIndex else { throw UsageError(message: "option '--\(name)' needs a value") }
            value = args[i]
          }
          options[name, default: []].append(value!)
        } else {
          let hint = closestMatch(to: name, in: allowedFlags + allowedOptions).map { "; did you mean '--\($0)'?" } ?? ""
          throw UsageError(message: "unknown option '--\(name)'\(hint)")
        }
      } else if arg.hasPrefix("-") && arg.count > 1 && Double(arg) == nil {
        throw UsageError(message: "unknown option '\(arg)'; options are written with two dashes (--name)")
      } else {
        positionals.append(arg)
      }
      i += 1
    }
  }

  public func option(_ name: String) -> String? { options[name]?.last }

  public func integer(_ name: String, default fallback: Int, minimum: Int = 1) throws -> Int {
    guard let text = option(name) else { return fallback }
    guard let v = Int(text.replacingOccurrences(of: "_", with: "")), v >= minimum else {
      throw UsageError(message: "expected an integer >= \(minimum) for '--\(name)', found '\(text)'")
    }
    return v
  }
}
