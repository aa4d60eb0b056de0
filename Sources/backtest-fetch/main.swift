import CommandLineSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `backtest fetch …` runs this executable with the same arguments (see
// `runHelper` in backtest): it is the only one that links the HTTP client.
exit(exitCode(path: "fetch") { try FetchCommand(CommandLine.arguments.dropFirst()).run() })
