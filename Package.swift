// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Backtest",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "BacktestCore", targets: ["BacktestCore"]),
    .executable(name: "backtest", targets: ["backtest"]),
  ],
  dependencies: [],
  targets: [
    .target(name: "BacktestCore"),
    // What the two executables share: arguments, exit codes, atomic report files, progress.
    .target(name: "CommandLineSupport", dependencies: ["BacktestCore"]),
    // `backtest fetch` runs `backtest-fetch`, the only binary that links the HTTP client
    // (loading it cost every other command ~8 ms of start-up).
    .executableTarget(name: "backtest", dependencies: ["BacktestCore", "CommandLineSupport", "backtest-fetch"]),
    .executableTarget(name: "backtest-fetch", dependencies: ["BacktestCore", "CommandLineSupport"]),
    // Fixtures are read from the source tree by path (see Fixtures.swift).
    .testTarget(name: "BacktestCoreTests", dependencies: ["BacktestCore"], exclude: ["Fixtures"]),
    // Depends on the executable so that `swift test` builds it; the tests run it.
    .testTarget(name: "BacktestCLITests", dependencies: ["BacktestCore", "backtest"], exclude: ["Corpus"]),
  ]
)
