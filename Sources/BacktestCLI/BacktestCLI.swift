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
    exit(run(Array(CommandLine.arguments.dropFirst()), catalog: catalog))
  }

  /// Runs one command (the arguments after the executable's name) and returns its exit status.
  public static func run(_ arguments: [String], catalog: StrategyCatalog) -> Int32 {
    let args = arguments[...]
    guard let command = args.first else {
      printError(usage)
      return ExitCode.usage
    }
    let rest = args.dropFirst()
    return exitCode {
      switch command {
      case "run": return try RunCommand(rest, catalog: catalog).run()
      case "bench": return try BenchCommand(rest).run()
      case "regress": return try RegressCommand(rest, catalog: catalog).run()
      case "cycle": return try CycleCommand(rest, catalog: catalog).run()
      case "sweep": return try SweepCommand(rest, catalog: catalog).run()
      case "merge": return try MergeCommand(rest, catalog: catalog).run()
      case "signal": return try SignalCommand(rest, catalog: catalog).run()
      case "journal": return try JournalCommand(rest, catalog: catalog).run()
      case "fetch": return try runHelper("backtest-fetch", arguments: rest)
      case "convert": return try ConvertCommand(rest).run()
      case "analyze": return try AnalyzeCommand(rest).run()
      case "screen": return try ScreenCommand(rest).run()
      case "funds" where rest.first == "search": return try runHelper("backtest-fetch", arguments: ["mf-search"] + rest.dropFirst())
      case "funds": return try FundsCommand(rest).run()
      case "ledger": return try LedgerCommand(rest).run()
      case "montecarlo": return try MonteCarloCommand(rest, catalog: catalog).run()
      case "synth": return try SynthCommand(rest).run()
      case "strategies":
        print(StrategiesCommand.listing(catalog), terminator: "")
        return ExitCode.ok
      case "help", "--help", "-h":
        print(usage)
        return ExitCode.ok
      default:
        let hint = closestMatch(to: command, in: ["run", "signal", "journal", "fetch", "convert", "analyze", "screen", "funds", "ledger", "montecarlo", "synth", "sweep", "merge", "cycle", "regress", "bench", "strategies", "help"]).map { "; did you mean '\($0)'?" } ?? ""
        throw UsageError(message: "unknown command '\(command)'\(hint)")
      }
    }
  }

  static let usage = """
    usage: backtest <command> [options]

    commands:
      run CONFIG [--out DIR] [--set key.path=value]... [--quiet] [--timing]
          run a strategy file (Strategies/gpix.yaml; a bare name is also looked up in Strategies/);
          strategy type portfolio: target weights, rebalancing, dividends (DRIP), deposits and withdrawals
      signal CONFIG [--position FILE] [--journal FILE] [--json] [--now TIME] [--state FILE [--on-change CMD] [--on-change-timeout 30]]
          the BUY / SELL / HOLD signal for the newest closed bar, with its reason; --state remembers the last
          result (JSON 'changed', 'previous'), --on-change runs CMD with the JSON on stdin when something changed
      journal enter|exit|list [--file F] [--config C] [--price P] [--shares N] [--time T] [--reason R]
          the history of trades actually taken, with the same analytics as a backtest
      fetch SYMBOL --from DATE --to DATE --out FILE [--interval 30min] [--source polygon|fred] [--rate N] [--timezone TZ] [--base-url URL]
          download bars from Polygon (POLYGON_API_KEY) or a series from FRED (FRED_API_KEY); appends only new data
      fetch mf SCHEME_CODE --out FILE.json [--base-url URL]
          a mutual fund's NAV history from mfapi.in (the JSON funds reads); merges only new NAVs
      convert polygon FILE.json --out FILE.csv [--timezone TZ] [--daily]
          turn saved Polygon aggregates JSON into the standard bar CSV
      analyze HOLDINGS.yaml [--out DIR]
          what did my ETFs return: appreciation, yield income, expenses, annualized return, allocation
      screen FILE [--sort score|yield|performance] [--shares N] [--top N] [--out DIR]
          rank dividend ETFs by trailing yield, payments, 1-month performance and expense ratio
      funds FILE... [--sort 1Y] [--out DIR]
          mutual-fund NAV performance over 1W, 1M, 6M, 1Y, 3Y, 5Y (mfapi JSON or date,nav CSV); --out adds funds.html
      funds search TEXT [--refresh] [--top 30] [--base-url URL]
          find scheme codes by name in mfapi.in's scheme list (cached with its date): fund house, category, plan, option
      ledger FILE [--out DIR] [--budgets FILE] [--by account|owner]
          income, expenses, net and savings rate per month, category shares, budgets and recurring items
          (date,amount,category,note CSV or the income tracker's JSON export)
      montecarlo CONFIG [--runs 10000] [--seed 7] [--block N] [--drawdown 20%] [--jobs N] [--out DIR]
          resample the daily returns (stationary block bootstrap) and the trade order; percentiles
      synth --out FILE [--bars N] [--seed S] [--model gbm|regime] [--interval 30min|1h|1d] [--drift 6%] [--vol 16%]
          seeded synthetic bars (standard CSV) to test a strategy on prices it has never seen
      sweep FILE [--out DIR] [--jobs N] [--shard i/n] [--set key.path=value]... [--fresh] [--quiet]
          run a parameter sweep (a run file plus a sweep: section) on all cores; resumes
          from DIR/results.csv; --shard runs every n-th combination from i (0-based)
      merge DIR... --out DIR
          combine sweep shards (checks none is missing or duplicated) and rank
      cycle CONFIG [--out DIR] [--set key.path=value]...
          print the economic-cycle stage timeline and write DIR/cycle_stages.csv
      regress [DIR] [--update] [--reference DIR] [--tolerance X]
          run every run file in DIR (default Strategies) and compare its reports with
          Reports/reference/<name>/: numbers within X relative (default 1e-9), text exactly
      bench [--bars N] [--seed S]
          time CSV loading and the engine on generated 30-minute bars (release build)
      strategies
          list the strategies with their parameters (type, default, range)
      help
          show this text

    exit codes: 0 ok, 64 bad command line, 65 bad data or config, 66 missing input, 1 anything else
    """

  /// Keeps freed memory for reuse instead of returning it to the kernel: fresh
  /// pages cost ~0.5 ms per MB here (page faults and zeroing), and a sweep frees
  /// and allocates tens of megabytes (parse halves, indicator columns, reports).
  /// One arena for all threads, so that memory one thread frees (the second half
  /// of a parsed file) is what another allocates next (indicator columns): -1,100
  /// faults a sweep. glibc's mallopt (not in the Swift Glibc module); -3 is
  /// M_MMAP_THRESHOLD, -1 M_TRIM_THRESHOLD, -8 M_ARENA_MAX.
  static func tuneAllocator() {
    #if canImport(Glibc)
    if let symbol = dlsym(nil, "mallopt") {
      let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
      _ = mallopt(-3, 1 << 30)
      _ = mallopt(-1, 1 << 30)
      _ = mallopt(-8, 1)
    }
    #endif
  }
}

/// `backtest strategies`: every strategy of the catalog with its parameters.
enum StrategiesCommand {
  static func listing(_ catalog: StrategyCatalog) -> String {
    var out = ""
    for e in catalog.entries {
      out += "\(e.name): \(e.summary)\n"
      for p in e.parameters {
        out += "    \(p.path)" + (p.alias.map { $0 == p.path ? "" : " (\($0))" } ?? "")
          + ": \(p.type.name), default \(p.defaultText), \(p.type.rangeText); \(p.doc)\n"
      }
    }
    out += "portfolio: target weights over several assets, rebalanced monthly, quarterly, annually, on drift or never; dividends (DRIP), expense drag, deposits and withdrawals (backtest run only)\n"
    return out
  }
}
