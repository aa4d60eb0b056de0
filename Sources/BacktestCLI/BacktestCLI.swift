import BacktestCore
import CommandLineSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The whole `backtest` command-line tool, for any catalog of strategies.
///
/// An executable of your own gets every command (`run`, `sweep`, `signal`,
/// `montecarlo`, `regress`, …) for your strategies with one call:
///
/// ```swift
/// import BacktestCLI
/// import BacktestCore
///
/// BacktestCLI.main(catalog: BuiltInStrategies.catalog.adding(Donchian.self))
/// ```
public enum BacktestCLI {
  /// Runs the command in the process's arguments and exits with its status.
  public static func main(catalog: StrategyCatalog) -> Never {
    tuneAllocator()
    exitPromptly(run(Array(CommandLine.arguments.dropFirst()), catalog: catalog))
  }

  /// Runs one command (the arguments after the executable's name) and returns its exit status.
  public static func run(_ arguments: [String], catalog: StrategyCatalog) -> Int32 {
    let args = arguments[...]
    guard let name = args.first else {
      printError(String(overview().dropLast()))
      return ExitCode.usage
    }
    switch name {
    case "--help", "-h":
      print(overview(), terminator: "")
      return ExitCode.ok
    case "--version":
      print(versionLine)
      return ExitCode.ok
    default:
      break
    }
    guard let command = CommandTable.command(named: name) else {
      return exitCode {
        if name.hasPrefix("-") {
          let hint = closestMatch(to: name, in: ["--help", "--version"]).map { "did you mean '\($0)'?" } ?? "expected a command first"
          throw UsageError(message: "unknown option '\(name)'; \(hint)")
        }
        let hint = closestMatch(to: name, in: CommandTable.commands.map(\.spec.name)).map { "; did you mean '\($0)'?" } ?? ""
        throw UsageError(message: "unknown command '\(name)'\(hint)")
      }
    }
    return exitCode(path: name) { try command.run(args.dropFirst(), catalog) }
  }

  /// `backtest --version`: the program's name and the engine's version.
  static var versionLine: String { "\(Program.name) \(BacktestVersion.string)" }

  /// `backtest help`: every command with its summary.
  static func overview() -> String {
    let program = Program.name
    return """
      usage: \(program) COMMAND [options]
             \(program) COMMAND --help
             \(program) --version

      commands:

      """
      + HelpText.table(CommandTable.commands.map { ($0.spec.name, $0.spec.summary) }) + "\n"
      + HelpText.paragraphs("""
        Run '\(program) help COMMAND' or '\(program) COMMAND --help' for a command's options and examples.

        Results go to stdout; errors, warnings and progress to stderr. NO_COLOR turns colours off; in a pipe or a log there are no colours and no progress bar. Exit codes: 0 ok, 64 bad command line, 65 bad data or config, 66 missing input, 1 anything else.
        """)
  }

  /// Keeps freed memory for reuse instead of returning it to the kernel: fresh
  /// pages cost ~0.5 ms per MB here (page faults and zeroing), and a sweep frees
  /// and allocates tens of megabytes (indicator columns, results, reports).
  /// One arena for all threads, so that memory one thread frees is what another
  /// allocates next (measured when a file was parsed in two halves: -1,100
  /// faults a sweep). glibc's mallopt (not in the Swift Glibc module); -3 is
  /// M_MMAP_THRESHOLD, -1 M_TRIM_THRESHOLD, -8 M_ARENA_MAX.
  static func tuneAllocator() {
    #if canImport(Glibc)
    if let mallopt = cLibraryFunction("mallopt", as: (@convention(c) (Int32, Int32) -> Int32).self) {
      _ = mallopt(-3, 1 << 30)
      _ = mallopt(-1, 1 << 30)
      _ = mallopt(-8, 1)
    }
    #endif
  }
}

/// `backtest strategies [NAME]`: the strategies of the catalog with their parameters.
enum StrategiesCommand {
  static let spec = CommandSpec(
    "strategies", summary: "list the strategies with their parameters (type, default, range)",
    arguments: [ArgumentSpec("NAME", "show only this strategy", count: .optional, completion: .strategy(prefix: ""))],
    examples: ["strategies", "strategies bollinger_rsi"])

  static func run(_ args: ArraySlice<String>, catalog: StrategyCatalog) throws -> Int32 {
    let a = try Arguments(args, command: spec, path: "strategies")
    guard a.positionals.count <= 1 else { throw UsageError(message: "expected at most one strategy name") }
    let only = a.positionals.first
    let names = catalog.allNames
    if let only, !names.contains(only) {
      let hint = closestMatch(to: only, in: names).map { "; did you mean '\($0)'?" } ?? ""
      throw UsageError(message: "unknown strategy '\(only)'\(hint); expected one of \(names.joined(separator: ", "))")
    }
    print(listing(catalog, only: only), terminator: "")
    return ExitCode.ok
  }

  static func listing(_ catalog: StrategyCatalog, only: String? = nil) -> String {
    var out = ""
    func list(_ name: String, _ summary: String, _ parameters: [ParameterInfo]) {
      guard only == nil || only == name else { return }
      out += "\(name): \(summary)\n"
      for p in parameters {
        out += "    \(p.path)" + (p.alias.map { $0 == p.path ? "" : " (\($0))" } ?? "")
          + ": \(p.type.name)" + (p.defaultText.isEmpty ? "" : ", default \(p.defaultText)") + ", \(p.type.rangeText); \(p.doc)\n"
      }
    }
    for e in catalog.entries { list(e.name, e.summary, e.parameters) }
    // The strategies over several assets (data.assets); portfolio's weights and rebalance are read with the assets.
    for e in catalog.allocations {
      list(e.name, e.summary + " (over several assets: data.assets)", e.name == FixedWeights.name ? [] : e.parameters)
    }
    return out
  }
}
