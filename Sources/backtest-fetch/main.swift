import CommandLineSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `backtest fetch …` and `backtest funds search …` run this executable with the
// command's arguments, started as `NAME fetch` or `NAME funds` (see `runHelper`
// in backtest): it is the only one that links the HTTP client.
let arguments = CommandLine.arguments.dropFirst()
if CommandLine.arguments.first?.hasSuffix(" funds") == true {
  exit(exitCode(path: "funds") { try FundSearchCommand(arguments).run() })
} else {
  exit(exitCode(path: "fetch") {
    let (command, _, rest) = try Arguments.subcommand(arguments, of: .fetch, path: "fetch")
    return command.name == CommandSpec.mutualFund.name ? try MutualFundFetchCommand(rest).run() : try FetchCommand(rest).run()
  })
}
