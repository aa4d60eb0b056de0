import BacktestCore

/// A command-line usage error: exit 64 (`EX_USAGE`).
package struct UsageError: Error, CustomStringConvertible {
  package var message: String
  package init(message: String) { self.message = message }
  package var description: String { "\(Program.name): error: \(message)" }
}

/// `--help` or `-h` was given: the caller prints `command`'s help and exits 0.
package struct HelpRequest: Error {
  package var command: CommandSpec
  /// The words that name the command after the program: `journal enter`.
  package var path: String
}

/// The arguments of one command, parsed as its `CommandSpec` declares them:
/// positionals, `--flag`, `--option value` or `--option=value`, repeatable
/// options, `--` before positionals that start with a dash, and `--help`/`-h`.
package struct Arguments {
  package private(set) var positionals: [String] = []
  private var flags: Set<String> = []
  private var given: [String: [String]] = [:]
  private let command: CommandSpec

  /// Parses `args` for `command` (named `path` after the program, in messages).
  ///
  /// - Throws: `HelpRequest` at `--help` or `-h`; `UsageError` for an option the
  ///   command does not declare (with the closest one it does), a flag given a
  ///   value, an option without its value, or a required option missing.
  package init(_ args: ArraySlice<String>, command: CommandSpec, path: String) throws {
    self.command = command
    var i = args.startIndex
    while i < args.endIndex {
      let arg = args[i]
      if arg == "--" {
        positionals += args[(i + 1)...]
        break
      }
      if arg == "-h" { throw HelpRequest(command: command, path: path) }
      if arg.hasPrefix("--") {
        var name = String(arg.dropFirst(2))
        var value: String?
        if let eq = name.firstIndex(of: "=") {
          value = String(name[name.index(after: eq)...])
          name = String(name[..<eq])
        }
        if name == "help" {
          if value != nil { throw UsageError(message: "option '--help' takes no value") }
          throw HelpRequest(command: command, path: path)
        }
        guard let option = command.option(name) else {
          let hint = closestMatch(to: name, in: command.options.map(\.name) + ["help"]).map { "; did you mean '--\($0)'?" } ?? ""
          throw UsageError(message: "unknown option '--\(name)'\(hint)")
        }
        if option.isFlag {
          if value != nil { throw UsageError(message: "option '--\(name)' takes no value") }
          flags.insert(name)
        } else {
          if value == nil {
            i += 1
            guard i < args.endIndex else { throw UsageError(message: "option '--\(name)' needs a value (\(option.value!))") }
            value = args[i]
          }
          given[name, default: []].append(value!)
        }
      } else if arg.hasPrefix("-") && arg.count > 1 && Double(arg) == nil {
        let long = closestMatch(to: String(arg.drop { $0 == "-" }), in: command.options.map(\.name) + ["help"])
        throw UsageError(message: "unknown option '\(arg)'; " + (long.map { "did you mean '--\($0)'?" } ?? "options are written with two dashes (--name)"))
      } else {
        positionals.append(arg)
      }
      i += 1
    }
    for option in command.options where option.required && given[option.name] == nil {
      throw UsageError(message: "expected --\(option.name) \(option.value!)")
    }
  }

  /// Splits off the subcommand that the first argument names (`journal enter …`); for a command
  /// that is not only a group, `command` itself with every argument when the first names none
  /// (`fetch GPIX …`).
  ///
  /// - Throws: `HelpRequest` for a group at `--help` or `-h`;
  ///   `UsageError` when the first argument names no subcommand of a group.
  package static func subcommand(_ args: ArraySlice<String>, of command: CommandSpec,
                                path: String) throws -> (command: CommandSpec, path: String, rest: ArraySlice<String>) {
    if !command.isGroup {
      guard let first = args.first, let sub = command.subcommand(first) else { return (command, path, args) }
      return (sub, path + " " + first, args.dropFirst())
    }
    let names = command.subcommands.map(\.name)
    let expected = "expected " + listed(names.map { path + " " + $0 })
    guard let first = args.first else { throw UsageError(message: expected) }
    if first == "--help" || first == "-h" { throw HelpRequest(command: command, path: path) }
    guard let sub = command.subcommand(first) else {
      let hint = closestMatch(to: first, in: names).map { "; did you mean '\($0)'?" } ?? ""
      throw UsageError(message: "\(expected), found '\(first)'\(hint)")
    }
    return (sub, path + " " + first, args.dropFirst())
  }

  /// The option's value: the last one given, else its default value, else `nil`.
  package func option(_ name: String) -> String? {
    let spec = declared(name)
    precondition(!spec.isFlag, "--\(name) is a flag of '\(command.name)'")
    if let value = given[name]?.last { return value }
    if case .value(let value) = spec.defaultValue { return value }
    return nil
  }

  /// Every value of a repeatable option, in the order given.
  package func values(_ name: String) -> [String] {
    precondition(declared(name).repeatable, "--\(name) of '\(command.name)' is not repeatable")
    return given[name] ?? []
  }

  /// Whether the flag was given.
  package func flag(_ name: String) -> Bool {
    precondition(declared(name).isFlag, "--\(name) of '\(command.name)' takes a value")
    return flags.contains(name)
  }

  /// The option's value (given or default) as one of its choices, spelled as
  /// the choice is (the value may differ in case); `nil` when it has neither.
  package func choice(_ name: String) throws -> String? {
    guard case .choices(let choices) = declared(name).completion else { preconditionFailure("--\(name) has no choices") }
    guard let text = option(name) else { return nil }
    guard let match = choices.first(where: { $0.lowercased() == text.lowercased() }) else {
      let hint = closestMatch(to: text, in: choices).map { "; did you mean '\($0)'?" } ?? ""
      throw UsageError(message: "expected --\(name) \(listed(choices)), found '\(text)'\(hint)")
    }
    return match
  }

  /// The option's value (given or default) as an integer from `minimum` to
  /// `maximum`; `nil` when it has neither.
  package func integer(_ name: String, minimum: Int = 1, maximum: Int = .max) throws -> Int? {
    guard let text = option(name) else { return nil }
    guard let v = Int(text.replacingOccurrences(of: "_", with: "")), v >= minimum, v <= maximum else {
      let range = maximum == .max ? ">= \(minimum)" : "from \(minimum) to \(maximum)"
      throw UsageError(message: "expected an integer \(range) for '--\(name)', found '\(excerpt(text))'")
    }
    return v
  }

  /// The option's value (given or default) as a decimal number (`2.5`, `1e-3`;
  /// not `0x10`, `inf` or `nan`) for which `valid` holds; `nil` when it has neither.
  package func number(_ name: String, expected: String, where valid: (Double) -> Bool) throws -> Double? {
    guard let text = option(name) else { return nil }
    guard let v = parseDecimal(text), v.isFinite, valid(v) else {
      throw UsageError(message: "expected \(expected) for '--\(name)', found '\(excerpt(text))'")
    }
    return v
  }

  /// The spec of an option the command reads; asking for an undeclared one is our mistake.
  private func declared(_ name: String) -> OptionSpec {
    guard let spec = command.option(name) else { preconditionFailure("'\(command.name)' declares no option --\(name)") }
    return spec
  }
}

/// Returns `a`, `a or b`, `a, b or c`.
package func listed(_ items: [String]) -> String {
  items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " or " + items.last!
}
