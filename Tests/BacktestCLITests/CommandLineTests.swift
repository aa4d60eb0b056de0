@testable import BacktestCLI
import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation
import Testing

/// A command or subcommand of the table, with the words that name it.
struct CommandPath: CustomTestStringConvertible, Sendable {
  var words: [String]
  var spec: CommandSpec
  var path: String { words.joined(separator: " ") }
  var testDescription: String { path }

  static let all: [CommandPath] = CommandTable.commands.flatMap { c in
    [CommandPath(words: [c.spec.name], spec: c.spec)] + c.spec.subcommands.map { CommandPath(words: [c.spec.name, $0.name], spec: $0) }
  }

  /// The option names listed under "options:" in a help text.
  static func listedOptions(_ help: String) -> [String] {
    guard let section = help.components(separatedBy: "\noptions:\n").last?.components(separatedBy: "\n\n").first else { return [] }
    return section.split(separator: "\n").compactMap { line in
      guard line.hasPrefix("  --") else { return nil }
      return String(line.dropFirst(4).prefix { $0 != " " && $0 != "," })
    }
  }
}

@Suite struct HelpTests {
  @Test("--help, -h and help COMMAND print the command's usage, options and examples, and exit 0", arguments: CommandPath.all)
  func help(command: CommandPath) throws {
    let expected = HelpText.command(command.spec, path: command.path, program: "backtest")
    #expect(expected.hasPrefix("usage: backtest \(command.path)"))
    #expect(expected.contains("  -h, --help  ") || expected.contains("  -h, --help\n"))
    for arguments in [command.words + ["--help"], command.words + ["-h"], ["help"] + command.words] {
      let r = try CLI.run(arguments)
      #expect(r.status == 0, "\(arguments): \(r.stderr)")
      #expect(r.stdout == expected, "\(arguments)")
      #expect(r.stderr.isEmpty, "\(arguments)")
    }
  }

  @Test("each option a command's help lists is accepted by that command, and it lists every option it accepts", arguments: CommandPath.all)
  func optionsAccepted(command: CommandPath) throws {
    let help = try CLI.run(command.words + ["--help"]).stdout
    let listed = CommandPath.listedOptions(help)
    // The parser accepts exactly the table's options (an undeclared name is refused below), and help lists exactly those.
    #expect(listed == command.spec.options.map(\.name))
    #expect(help.contains("\n  -h, --help"))
    for option in command.spec.options {
      // Given (with a value where it takes one), the option parses, then --help answers.
      let r = try CLI.run(command.words + ["--" + option.name] + (option.isFlag ? [] : ["1"]) + ["--help"])
      #expect(r.status == 0 && r.stdout == help, "--\(option.name): \(r.stderr)")
    }
    let unknown = try CLI.run(command.words + ["--no-such-option", "--help"])
    let refusal = command.spec.isGroup ? "expected \(command.path) " : "unknown option '--no-such-option'"
    #expect(unknown.status == 64 && unknown.stderr.hasPrefix("backtest: error: " + refusal), "\(unknown.stderr)")
  }

  @Test("every example in the help parses: its options exist and it names its command", arguments: CommandPath.all)
  func examplesParse(command: CommandPath) throws {
    for example in command.spec.examples {
      let words = example.components(separatedBy: "  #")[0].split(separator: " ").map(String.init)
      #expect(Array(words.prefix(command.words.count)) == command.words, "\(example)")
      let r = try CLI.run(words + ["--help"])
      #expect(r.status == 0 && r.stdout.hasPrefix("usage: backtest \(words[0])"), "\(example): \(r.stderr)")
    }
  }

  @Test("backtest help lists every command with its summary; no command prints it on stderr with exit 64")
  func overview() throws {
    let r = try CLI.run(["help"])
    #expect(r.status == 0)
    for c in CommandTable.commands { #expect(r.stdout.contains("\n  \(c.spec.name) "), "\(c.spec.name)") }
    #expect(try CLI.run(["--help"]).stdout == r.stdout && CLI.run(["-h"]).stdout == r.stdout)
    let none = try CLI.run([])
    #expect(none.status == 64 && none.stdout.isEmpty && none.stderr == r.stdout)
  }

  @Test("README lists every command as backtest help prints them")
  func readmeListsEveryCommand() throws {
    let help = try CLI.run(["help"]).stdout.split(separator: "\n", omittingEmptySubsequences: false)
    let start = try #require(help.firstIndex(of: "commands:")) + 1
    let list = help[start...].prefix { !$0.isEmpty }.map { "  " + $0 }.joined(separator: "\n")
    #expect(list.split(separator: "\n").count >= CommandTable.commands.count)
    let readme = try String(contentsOfFile: CLI.root + "/README.md", encoding: .utf8)
    #expect(readme.contains("\n" + list + "\n"), "README.md's command list differs from backtest help's: copy it again")
  }

  @Test("unknown commands, subcommands and options suggest the closest one")
  func suggestions() throws {
    let cases: [([String], String)] = [
      (["rnu"], "unknown command 'rnu'; did you mean 'run'?"),
      (["--verison"], "unknown option '--verison'; did you mean '--version'?"),
      (["run", "gpix.yaml", "-out", "x"], "unknown option '-out'; did you mean '--out'?"),
      (["sweep", "gpix-sweep.yaml", "--fersh"], "unknown option '--fersh'; did you mean '--fresh'?"),
      (["journal", "ente"], "expected journal enter, journal exit or journal list, found 'ente'; did you mean 'enter'?"),
      (["journal", "list", "--price", "1"], "unknown option '--price'"),
      (["help", "montecralo"], "unknown command 'montecralo'; did you mean 'montecarlo'?"),
      (["screen", "dividend-etfs.yaml", "--sort", "yeild"], "expected --sort score, yield or performance, found 'yeild'; did you mean 'yield'?"),
      (["completions", "zhs"], "expected one shell: bash, zsh or fish, found 'zhs'; did you mean 'zsh'?"),
      (["help", "fetch", "GPIX"], "expected fetch mf, found 'GPIX'"),
      (["ledger", "Data/ledger.csv", "--by", "onwer"], "expected --by account or owner, found 'onwer'; did you mean 'owner'?"),
    ]
    for (arguments, message) in cases {
      let r = try CLI.run(arguments)
      #expect(r.status == 64 && r.stdout.isEmpty, "\(arguments)")
      #expect(r.stderr.hasPrefix("backtest: error: " + message + "\nrun 'backtest "), "\(arguments): \(r.stderr)")
    }
    #expect(try CLI.run(["run", "gpix.yaml", "--sed", "1"]).stderr.contains("\nrun 'backtest run --help' for usage\n"))
  }

  @Test("a command with arguments and subcommands (fetch SYMBOL, fetch mf CODE) runs as the subcommand its first argument names, else as itself")
  func argumentsBesideSubcommands() throws {
    let fetch = try CLI.run(["fetch", "--help"]).stdout
    #expect(fetch.hasPrefix("usage: backtest fetch SYMBOL --from DATE --to DATE --out FILE"), "\(fetch)")
    #expect(fetch.contains("\n       backtest fetch mf SCHEME_CODE [options]\n\n") && fetch.contains("\nsubcommands:\n  mf "), "\(fetch)")
    #expect(try CLI.run(["fetch", "mf", "-h"]).stdout.hasPrefix("usage: backtest fetch mf SCHEME_CODE --out FILE.json [--base-url URL]"))
    // Each is checked against its own options before the helper runs.
    let mf = try CLI.run(["fetch", "mf", "122639", "--from", "2024-01-01"])
    #expect(mf.status == 64 && mf.stderr.hasPrefix("backtest: error: unknown option '--from'"), "\(mf.stderr)")
    let symbol = try CLI.run(["fetch", "GPIX", "--out", "x.json"])
    #expect(symbol.status == 64 && symbol.stderr.hasPrefix("backtest: error: expected --from DATE"), "\(symbol.stderr)")
    let search = try CLI.run(["funds", "search", "--top", "0"])
    #expect(search.status == 64 && search.stderr.hasPrefix("backtest: error: expected words to look for"), "\(search.stderr)")
  }

  @Test("--version and version print the engine's version, as BacktestVersion gives it")
  func version() throws {
    #expect(BacktestVersion.string.hasPrefix(BacktestVersion.number))
    for arguments in [["--version"], ["version"]] {
      let r = try CLI.run(arguments)
      #expect(r.status == 0 && r.stdout == "backtest \(BacktestVersion.string)\n" && r.stderr.isEmpty)
    }
  }

  @Test("an executable under another name uses that name in usage, messages, completions and its fetch helper")
  func otherName() throws {
    let dir = try CLI.temporaryFolder()
    try FileManager.default.createSymbolicLink(atPath: dir + "/mytool", withDestinationPath: CLI.binary)
    let tool = dir + "/mytool"
    #expect(try CLI.run(["--help"], executable: tool).stdout.hasPrefix("usage: mytool COMMAND [options]\n"))
    #expect(try CLI.run(["run", "-h"], executable: tool).stdout.contains("\n  mytool run Strategies/gpix.yaml\n"))
    #expect(try CLI.run(["--version"], executable: tool).stdout == "mytool \(BacktestVersion.string)\n")
    #expect(try CLI.run(["rnu"], executable: tool).stderr.hasPrefix("mytool: error: unknown command 'rnu'"))
    #expect(try CLI.run(["completions", "bash"], executable: tool).stdout.hasSuffix("complete -F _mytool mytool\n"))
    let fetch = try CLI.run(["fetch", "X", "--from", "2024-01-02", "--to", "soon", "--out", dir + "/x.csv"], executable: tool)
    #expect(fetch.status == 64 && fetch.stderr == "mytool: error: expected a date YYYY-MM-DD, found 'soon'\nrun 'mytool fetch --help' for usage\n")
  }

  @Test("--quiet prints nothing on success and still writes the output")
  func quiet() throws {
    let dir = try CLI.temporaryFolder()
    let runs: [[String]] = [
      ["synth", "--out", dir + "/bars.csv", "--bars", "300", "--quiet"],
      ["run", "goog-swing.yaml", "--out", dir + "/run", "--quiet"],
      ["cycle", "goog-cycle.yaml", "--out", dir + "/cycle", "--quiet"],
      ["journal", "enter", "--file", dir + "/journal.csv", "--price", "10", "--shares", "5", "--time", "2024-01-02", "--quiet"],
      ["journal", "exit", "--file", dir + "/journal.csv", "--price", "11", "--time", "2024-01-03", "--quiet"],
    ]
    for arguments in runs {
      let r = try CLI.run(arguments)
      #expect(r.status == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(arguments): \(r.stdout)\(r.stderr)")
    }
    for file in ["bars.csv", "run/trades.csv", "cycle/cycle_stages.csv", "journal.csv"] {
      #expect(FileManager.default.fileExists(atPath: dir + "/" + file), "\(file)")
    }
    #expect(try String(contentsOfFile: dir + "/journal.csv", encoding: .utf8).contains("2024-01-03,11.0,MANUAL"))
  }
}

@Suite struct TerminalTests {
  @Test("colours only on a terminal, never with NO_COLOR; CLICOLOR_FORCE asks for them in a pipe")
  func colors() {
    #expect(Terminal.colors(isTerminal: true, environment: [:]))
    #expect(!Terminal.colors(isTerminal: false, environment: [:]))
    #expect(!Terminal.colors(isTerminal: true, environment: ["NO_COLOR": "1"]))
    #expect(Terminal.colors(isTerminal: true, environment: ["NO_COLOR": ""]))
    #expect(!Terminal.colors(isTerminal: true, environment: ["TERM": "dumb"]))
    #expect(Terminal.colors(isTerminal: false, environment: ["CLICOLOR_FORCE": "1"]))
    #expect(!Terminal.colors(isTerminal: false, environment: ["CLICOLOR_FORCE": "1", "NO_COLOR": "1"]))
  }

  @Test("a live progress bar only when stdout and stderr are both terminals")
  func progress() {
    #expect(Terminal.liveProgress(stdoutIsTerminal: true, stderrIsTerminal: true, environment: [:]))
    #expect(!Terminal.liveProgress(stdoutIsTerminal: false, stderrIsTerminal: true, environment: [:]))
    #expect(!Terminal.liveProgress(stdoutIsTerminal: true, stderrIsTerminal: false, environment: [:]))
    #expect(!Terminal.liveProgress(stdoutIsTerminal: true, stderrIsTerminal: true, environment: ["TERM": "dumb"]))
  }

  @Test("the binary colours the signal and the error only when asked, and never with NO_COLOR")
  func binaryColors() throws {
    // An empty NO_COLOR counts as unset (whatever the environment of the tests holds).
    let force = ["CLICOLOR_FORCE": "1", "NO_COLOR": ""]
    let signal = ["signal", "gpix.yaml", "--now", "2024-11-13T20:45:00Z"]
    let escape = "\u{1B}["
    #expect(!(try CLI.run(signal).stdout.contains(escape)))
    let forced = try CLI.run(signal, environment: force)
    #expect(forced.status == 0 && forced.stdout.contains(": \u{1B}[1mHOLD\u{1B}[0m at the close of"), "\(forced.stdout)")
    #expect(!(try CLI.run(signal, environment: ["CLICOLOR_FORCE": "1", "NO_COLOR": "1"]).stdout.contains(escape)))
    #expect(try CLI.run(["rnu"], environment: force).stderr.hasPrefix("backtest: \u{1B}[1;31merror:\u{1B}[0m unknown command"))
    #expect(try CLI.run(["rnu"], environment: ["CLICOLOR_FORCE": "1", "NO_COLOR": "1"]).stderr.hasPrefix("backtest: error: unknown command"))
  }
}

/// Runs a shell (if installed) on a script, in the project root.
enum Shell {
  static func path(_ name: String) -> String? {
    ["/usr/bin/", "/bin/", "/usr/local/bin/", "/opt/homebrew/bin/"].map { $0 + name }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  static func run(_ shell: String, _ arguments: [String]) throws -> CLI.Result {
    try CLI.run(arguments, executable: path(shell)!)
  }

  /// The completion script the binary prints for `shell`, saved to a file.
  static func script(_ shell: String) throws -> String {
    let file = try CLI.temporaryFolder() + "/completion." + shell
    let r = try CLI.run(["completions", shell])
    #expect(r.status == 0 && r.stderr.isEmpty)
    try r.stdout.write(toFile: file, atomically: false, encoding: .utf8)
    return file
  }
}

@Suite struct CompletionTests {
  /// Command lines (the word being completed last) and the candidates a shell should offer.
  static let cases: [(line: [String], expected: [String])] = [
    (["backtest", "r"], ["regress", "run"]),
    (["backtest", "run", "--q"], ["--quiet"]),
    (["backtest", "journal", "e"], ["enter", "exit"]),
    (["backtest", "journal", "exit", "--reason", "P"], ["PROFIT_TARGET"]),
    (["backtest", "strategies", "b"], ["bollinger_rsi", "buy_and_hold"]),
    (["backtest", "screen", "x.yaml", "--sort", "p"], ["performance"]),
    (["backtest", "help", "mo"], ["montecarlo"]),
    (["backtest", "run", "x.yaml", "--set", "strategy.type=s"], ["strategy.type=signals", "strategy.type=sma_cross"]),
    (["backtest", "fetch", "m"], ["mf"]),
    (["backtest", "fetch", "GPIX", "m"], []),
    (["backtest", "fetch", "GPIX", "--o"], ["--out"]),
    (["backtest", "fetch", "mf", "--b"], ["--backoff", "--base-url"]),
    (["backtest", "funds", "sea"], ["search"]),
    (["backtest", "funds", "search", "--r"], ["--rate", "--refresh", "--retries"]),
    (["backtest", "ledger", "x.csv", "--by", "o"], ["owner"]),
    (["backtest", "signal", "x.yaml", "--on"], ["--on-change", "--on-change-timeout"]),
  ]

  @Test("bash: the script loads, and completes commands, subcommands, options, values and strategy names")
  func bash() throws {
    let script = try Shell.script("bash")
    #expect(try Shell.run("bash", ["-n", script]).status == 0)
    for (line, expected) in Self.cases + [(["backtest", "run", "gpix"], ["gpix-rules.yaml", "gpix-sweep-holdout.yaml", "gpix-sweep.yaml", "gpix-walkforward.yaml", "gpix.yaml"])] {
      // Bash splits '=' into a word of its own and then replaces only what follows it.
      var words = line.flatMap { $0.contains("=") ? [String($0.split(separator: "=")[0]), "=", String($0.split(separator: "=")[1])] : [$0] }
      if words.last == "" { words.removeLast() }
      let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
      let r = try Shell.run("bash", ["-c", "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _backtest; printf '%s\\n' \"${COMPREPLY[@]}\""])
      let offered = r.stdout.split(separator: "\n").map(String.init).sorted()
      let replaced = expected.map { $0.contains("=") ? String($0.split(separator: "=").last!) : $0 }
      #expect(offered == replaced, "\(line): \(r.stderr)")
    }
  }

  @Test("zsh: the script loads, and completes commands, options and values", .enabled(if: Shell.path("zsh") != nil, "zsh is not installed"))
  func zsh() throws {
    let script = try Shell.script("zsh")
    #expect(try Shell.run("zsh", ["-n", script]).status == 0)
    // Stand-ins for the completion system's functions, matching what is typed ($PREFIX) as zsh does.
    let stubs = """
      _describe() { local e; for e in ${(P)${@[-1]}}; do e=${e%%:*}; [[ $e == ${PREFIX}* ]] && print -r -- $e; done }
      compadd() { while [[ $1 == -* && $1 != -- ]]; do shift; done; [[ $1 == -- ]] && shift; local w; for w; do [[ $w == ${PREFIX}* ]] && print -r -- $w; done }
      _files() { }
      """
    for (line, expected) in Self.cases {
      let words = line.map { "'" + $0 + "'" }.joined(separator: " ")
      let r = try Shell.run("zsh", ["-f", "-c", stubs + "\nsource '\(script)'; words=(\(words)); CURRENT=\(line.count); PREFIX='\(line.last!)'; _backtest"])
      #expect(r.stdout.split(separator: "\n").map(String.init).sorted() == expected, "\(line): \(r.stderr)")
    }
  }

  @Test("fish: the script loads, and completes commands, options and values", .enabled(if: Shell.path("fish") != nil, "fish is not installed"))
  func fish() throws {
    let script = try Shell.script("fish")
    #expect(try Shell.run("fish", ["--no-execute", script]).status == 0)
    for (line, expected) in Self.cases {
      let r = try Shell.run("fish", ["--no-config", "-c", "source '\(script)'; complete -C '\(line.joined(separator: " "))'"])
      let offered = r.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.sorted()
      #expect(offered == expected, "\(line): \(r.stderr)")
    }
  }
}

@Suite struct InstallTests {
  @Test("Tools/install.sh installs backtest and backtest-fetch side by side with their completions; the installed tools run")
  func install() throws {
    let prefix = try CLI.temporaryFolder() + "/prefix with space"
    let bin = (CLI.binary as NSString).deletingLastPathComponent
    let r = try CLI.run([CLI.root + "/Tools/install.sh", bin, prefix], executable: "/bin/sh")
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout == "installed backtest \(BacktestVersion.string) and backtest-fetch in \(prefix)/bin, completions in \(prefix)/share\n")
    let installed = prefix + "/bin/backtest"
    #expect(try CLI.run(["--version"], executable: installed).stdout == "backtest \(BacktestVersion.string)\n")
    // The helper is found next to the installed backtest and answers with its own check.
    let fetch = try CLI.run(["fetch", "X", "--from", "2024-01-02", "--to", "soon", "--out", prefix + "/x.csv"], executable: installed)
    #expect(fetch.status == 64 && fetch.stderr.hasPrefix("backtest: error: expected a date YYYY-MM-DD, found 'soon'"), "\(fetch.stderr)")
    for (shell, file) in [("bash", "share/bash-completion/completions/backtest"), ("zsh", "share/zsh/site-functions/_backtest"),
                          ("fish", "share/fish/vendor_completions.d/backtest.fish")] {
      #expect(FileManager.default.contents(atPath: prefix + "/" + file) == Data(try CLI.run(["completions", shell]).stdout.utf8), "\(file)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: prefix + "/bin").sorted() == ["backtest", "backtest-fetch"])
    let missing = try CLI.run([CLI.root + "/Tools/install.sh", prefix + "/nowhere", prefix], executable: "/bin/sh")
    #expect(missing.status == 66 && missing.stderr.contains("backtest is missing; build it first"))
  }
}
