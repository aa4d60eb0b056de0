import BacktestCore
import CommandLineSupport

/// One command of the tool: what the parser, `help` and the completions know
/// of it (its spec, next to its parser in `Commands/`), and what runs it.
struct Command: Sendable {
  var spec: CommandSpec
  var run: @Sendable (ArraySlice<String>, StrategyCatalog) throws -> Int32

  init(_ spec: CommandSpec, run: @escaping @Sendable (ArraySlice<String>, StrategyCatalog) throws -> Int32) {
    self.spec = spec
    self.run = run
  }
}

/// Every command, in the order `help` lists them.
enum CommandTable {
  static let commands: [Command] = [
    Command(RunCommand.spec) { try RunCommand($0, catalog: $1).run() },
    Command(SignalCommand.spec) { try SignalCommand($0, catalog: $1).run() },
    Command(JournalCommand.spec) { try JournalCommand($0, catalog: $1).run() },
    Command(.fetch) { args, _ in
      // Checked here too, so that help and mistakes need no helper; the helper parses the same spec.
      let (command, path, rest) = try Arguments.subcommand(args, of: .fetch, path: "fetch")
      _ = try Arguments(rest, command: command, path: path)
      return try runHelper("backtest-fetch", command: "fetch", arguments: args)
    },
    Command(ConvertCommand.spec) { args, _ in try ConvertCommand(args).run() },
    Command(AnalyzeCommand.spec) { args, _ in try AnalyzeCommand(args).run() },
    Command(ScreenCommand.spec) { args, _ in try ScreenCommand(args).run() },
    Command(FundsCommand.spec) { args, _ in
      let (command, path, rest) = try Arguments.subcommand(args, of: FundsCommand.spec, path: "funds")
      guard command.name == CommandSpec.fundSearch.name else { return try FundsCommand(args).run() }
      // `funds search` downloads, so the helper runs it (checked here first, like fetch).
      _ = try Arguments(rest, command: command, path: path)
      return try runHelper("backtest-fetch", command: "funds", arguments: rest)
    },
    Command(LedgerCommand.spec) { args, _ in try LedgerCommand(args).run() },
    Command(MonteCarloCommand.spec) { try MonteCarloCommand($0, catalog: $1).run() },
    Command(SynthCommand.spec) { args, _ in try SynthCommand(args).run() },
    Command(SweepCommand.spec) { try SweepCommand($0, catalog: $1).run() },
    Command(MergeCommand.spec) { try MergeCommand($0, catalog: $1).run() },
    Command(CycleCommand.spec) { try CycleCommand($0, catalog: $1).run() },
    Command(RegressCommand.spec) { try RegressCommand($0, catalog: $1).run() },
    Command(CompareCommand.spec) { args, _ in try CompareCommand(args).run() },
    Command(BenchCommand.spec) { args, _ in try BenchCommand(args).run() },
    Command(StrategiesCommand.spec) { try StrategiesCommand.run($0, catalog: $1) },
    Command(CompletionsCommand.spec) { try CompletionsCommand.run($0, catalog: $1) },
    Command(VersionCommand.spec) { args, _ in try VersionCommand.run(args) },
    Command(HelpCommand.spec) { args, _ in try HelpCommand.run(args) },
  ]

  static func command(named name: String) -> Command? { commands.first { $0.spec.name == name } }
}

extension ArgumentSpec {
  /// The run file most commands read.
  static let config = ArgumentSpec("CONFIG", "a run file: a path, or a name in Strategies/ (gpix or gpix.yaml)", completion: .runFile)
}

extension OptionSpec {
  /// `--out DIR`: the folder a command writes into.
  static func out(_ doc: String, default described: String? = nil, required: Bool = false) -> OptionSpec {
    .option("out", "DIR", doc, default: described.map { .described($0) } ?? .none, required: required, completion: .directory)
  }

  /// `--set KEY=VALUE`: overrides one value of the run file.
  static let set = OptionSpec.option(
    "set", "KEY=VALUE", "override one value of the run file, checked as if it were written there (strategy.stop_loss=1.5%)",
    repeatable: true, completion: .strategy(prefix: "strategy.type="))

  static let quiet = OptionSpec.flag("quiet", "print nothing on success")

  static let jobs = OptionSpec.option("jobs", "N", "worker threads", default: .described("all cores"))
}

/// `backtest help [COMMAND [SUBCOMMAND]]`.
enum HelpCommand {
  static let spec = CommandSpec(
    "help", summary: "show the commands, or one command's options and examples",
    arguments: [ArgumentSpec("COMMAND", "a command (and a subcommand: journal enter)", count: .optional, completion: .command)],
    examples: ["help", "help run", "help journal enter"])

  static func run(_ args: ArraySlice<String>) throws -> Int32 {
    let a = try Arguments(args, command: spec, path: "help")
    guard let name = a.positionals.first else {
      print(BacktestCLI.overview(), terminator: "")
      return ExitCode.ok
    }
    guard a.positionals.count <= 2 else { throw UsageError(message: "expected a command and at most one subcommand") }
    guard var spec = CommandTable.command(named: name)?.spec else {
      let hint = closestMatch(to: name, in: CommandTable.commands.map(\.spec.name)).map { "; did you mean '\($0)'?" } ?? ""
      throw UsageError(message: "unknown command '\(name)'\(hint)")
    }
    var path = name
    if a.positionals.count == 2 {
      let names = spec.subcommands.map { name + " " + $0.name }
      (spec, path, _) = try Arguments.subcommand(a.positionals[1...], of: spec, path: name)
      if path == name {
        throw UsageError(message: names.isEmpty ? "\(name) has no subcommands, found '\(a.positionals[1])'"
                                                : "expected \(listed(names)), found '\(a.positionals[1])'")
      }
    }
    print(HelpText.command(spec, path: path, program: Program.name), terminator: "")
    return ExitCode.ok
  }
}

/// `backtest version`.
enum VersionCommand {
  static let spec = CommandSpec(
    "version", summary: "print the engine's version (the same as --version)",
    details: "The release number, then + and the commit for a binary built with make (0.1.0+1a2b3c4d5e6f).",
    examples: ["version"])

  static func run(_ args: ArraySlice<String>) throws -> Int32 {
    let a = try Arguments(args, command: spec, path: "version")
    if let extra = a.positionals.first { throw UsageError(message: "version takes no arguments, found '\(extra)'") }
    print(BacktestCLI.versionLine)
    return ExitCode.ok
  }
}

/// `backtest completions SHELL`.
enum CompletionsCommand {
  static let spec = CommandSpec(
    "completions", summary: "print the shell completion script for bash, zsh or fish",
    arguments: [ArgumentSpec("SHELL", "bash, zsh or fish", completion: .choices(ShellCompletions.Shell.allCases.map(\.rawValue)))],
    details: """
      The script completes commands, subcommands, options, run files (also the names in Strategies/) and strategy names. make install puts it where each shell looks. By hand:

      bash: backtest completions bash > ~/.local/share/bash-completion/completions/backtest

      zsh: backtest completions zsh > ~/.zfunc/_backtest (with fpath+=(~/.zfunc) before compinit in ~/.zshrc)

      fish: backtest completions fish > ~/.config/fish/completions/backtest.fish
      """,
    examples: ["completions bash", "completions zsh"])

  static func run(_ args: ArraySlice<String>, catalog: StrategyCatalog) throws -> Int32 {
    let a = try Arguments(args, command: spec, path: "completions")
    let shells = ShellCompletions.Shell.allCases.map(\.rawValue)
    guard a.positionals.count == 1, let shell = ShellCompletions.Shell(rawValue: a.positionals[0]) else {
      let found = a.positionals.first.map { ", found '\($0)'" } ?? ""
      let hint = a.positionals.first.flatMap { closestMatch(to: $0, in: shells) }.map { "; did you mean '\($0)'?" } ?? ""
      throw UsageError(message: "expected one shell: \(listed(shells))\(found)\(hint)")
    }
    let completions = ShellCompletions(program: Program.name, commands: CommandTable.commands.map(\.spec), strategies: catalog.allNames)
    print(completions.script(for: shell), terminator: "")
    return ExitCode.ok
  }
}
