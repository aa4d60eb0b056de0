/// One command of the tool as the parser, `help` and the shell completions
/// all see it: its arguments, its options with their defaults and docs, its
/// subcommands and a few real examples.
///
/// A command's options exist only here: `Arguments` accepts exactly these,
/// `HelpText` lists exactly these, and `Completions` completes exactly these.
package struct CommandSpec: Sendable {
  /// The name as typed: `run`, or `enter` under `journal`.
  package var name: String
  /// One line, lower case, no final period: what the command does.
  package var summary: String
  package var arguments: [ArgumentSpec]
  package var options: [OptionSpec]
  /// `journal enter|exit|list`: the first argument names one of these, which parses the rest. A command
  /// with arguments or options of its own runs as itself when the first argument names none
  /// (`fetch SYMBOL …` beside `fetch mf SCHEME_CODE …`).
  package var subcommands: [CommandSpec]
  /// Paragraphs after the summary in the command's help (separated by blank lines).
  package var details: String
  /// Command lines without the program name (`run Strategies/gpix.yaml`), each
  /// optionally followed by `  # what it does`.
  package var examples: [String]

  package init(_ name: String, summary: String, arguments: [ArgumentSpec] = [], options: [OptionSpec] = [],
              subcommands: [CommandSpec] = [], details: String = "", examples: [String] = []) {
    self.name = name
    self.summary = summary
    self.arguments = arguments
    self.options = options
    self.subcommands = subcommands
    self.details = details
    self.examples = examples
  }

  /// The option named `name` (without dashes), if the command has it.
  package func option(_ name: String) -> OptionSpec? { options.first { $0.name == name } }

  /// The subcommand named `name`, if any.
  package func subcommand(_ name: String) -> CommandSpec? { subcommands.first { $0.name == name } }

  /// Whether the command only groups its subcommands (`journal`): one of them must be named.
  package var isGroup: Bool { !subcommands.isEmpty && arguments.isEmpty && options.isEmpty }
}

/// A positional argument: `CONFIG`, `[DIR]`, `FILE...`.
package struct ArgumentSpec: Sendable {
  package enum Count: Sendable { case one, optional, oneOrMore }
  /// The placeholder in the usage line (`CONFIG`).
  package var name: String
  package var doc: String
  package var count: Count
  package var completion: Completion

  package init(_ name: String, _ doc: String, count: Count = .one, completion: Completion = .none) {
    self.name = name
    self.doc = doc
    self.count = count
    self.completion = completion
  }

  /// The argument as the usage line shows it.
  package var synopsis: String {
    switch count {
    case .one: name
    case .optional: "[\(name)]"
    case .oneOrMore: "\(name)..."
    }
  }
}

/// One `--name` a command accepts: a flag, or an option with a value.
package struct OptionSpec: Sendable {
  /// What the command uses when the option is not given.
  package enum Default: Sendable, Equatable {
    /// Nothing: the option is simply absent.
    case none
    /// This text, parsed exactly as if it had been given.
    case value(String)
    /// Something that depends on the machine or the input, said in words (`all cores`).
    case described(String)
  }

  /// The name without dashes: `out` for `--out`.
  package var name: String
  /// The placeholder of the value (`DIR`); `nil` for a flag.
  package var value: String?
  package var doc: String
  package var defaultValue: Default
  /// A missing required option is a usage error.
  package var required: Bool
  /// Given several times, every value counts (`--set`); otherwise the last one does.
  package var repeatable: Bool
  package var completion: Completion

  /// A flag: `--quiet`.
  package static func flag(_ name: String, _ doc: String) -> OptionSpec {
    OptionSpec(name: name, value: nil, doc: doc, defaultValue: .none, required: false, repeatable: false, completion: .none)
  }

  /// An option with a value: `--out DIR`.
  package static func option(_ name: String, _ value: String, _ doc: String, default defaultValue: Default = .none,
                            required: Bool = false, repeatable: Bool = false, completion: Completion = .none) -> OptionSpec {
    OptionSpec(name: name, value: value, doc: doc, defaultValue: defaultValue, required: required, repeatable: repeatable,
               completion: completion)
  }

  package var isFlag: Bool { value == nil }

  /// The option as the usage line shows it: `[--out DIR]`, `--to DATE`, `[--set KEY=VALUE]...`.
  package var synopsis: String {
    let text = "--" + name + (value.map { " " + $0 } ?? "")
    return (required ? text : "[" + text + "]") + (repeatable ? "..." : "")
  }
}

/// What a positional argument or an option's value completes to in a shell.
package enum Completion: Sendable, Equatable {
  /// Free text: nothing to offer.
  case none
  case file
  case directory
  /// A run file: `*.yaml` and `*.yml` files, and the names of those in `Strategies/`.
  case runFile
  case choices([String])
  /// The strategy names of the catalog, each after `prefix` (`strategy.type=`).
  case strategy(prefix: String)
  /// A command of the tool (`help COMMAND`).
  case command
}
