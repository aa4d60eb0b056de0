import CommandLineSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `backtest fetch …` runs this executable with the same arguments (see
// `runHelper` in backtest): it is the only one that links the HTTP client.
// `backtest funds search …` runs it with `mf-search` first.
let arguments = CommandLine.arguments.dropFirst()
exit(exitCode {
  switch arguments.first {
  case "mf": return try MutualFundFetchCommand(arguments.dropFirst()).run()
  case "mf-search": return try FundSearchCommand(arguments.dropFirst()).run()
  default: return try FetchCommand(arguments).run()
  }
})
