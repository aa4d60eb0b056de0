// swift-tools-version:6.0
import PackageDescription

/// Release builds of `backtest` on Linux link the Swift runtime and Foundation
/// statically: binding the shared libraries' symbols took 6 of the 10 ms every
/// command spent starting (perf stat `backtest help`: 10-11 ms -> 4.5 ms). The
/// Foundation archives need each other, so they are grouped; lld links them
/// (gold warns about glibc's mktemp inside FoundationEssentials). The
/// executable is not position-independent, so the loader has no relocations
/// of its own to apply (74,000 with PIE: 466 -> 255 page faults, 4.5 -> 3.4 ms
/// for `backtest help`); the price is no address randomization for its image,
/// which matters little for a memory-safe tool reading local files. Debug
/// builds, which the tests link against, stay dynamic.
let staticSwiftRuntime: [LinkerSetting] = [
  .unsafeFlags(["-use-ld=lld", "-static-stdlib", "-Xclang-linker", "-no-pie", "-Xlinker", "--start-group"]
    + ["Foundation", "FoundationInternationalization", "_FoundationICU", "FoundationEssentials", "_FoundationCShims",
       "_FoundationCollections", "CoreFoundation", "swiftSynchronization", "stdc++"].flatMap { ["-Xlinker", "-l" + $0] }
    + ["-Xlinker", "--end-group"],
    .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
  name: "Backtest",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "BacktestCore", targets: ["BacktestCore"]),
    // Run files, sweeps, walk-forward, Monte Carlo, live signals and every report, over the engine.
    .library(name: "BacktestRun", targets: ["BacktestRun"]),
    // The personal-finance tools over the engine's values: ledger, funds' NAVs, holdings, dividend screener.
    .library(name: "PersonalFinance", targets: ["PersonalFinance"]),
    // The whole command-line tool for any catalog of strategies: `BacktestCLI.main(catalog:)`.
    .library(name: "BacktestCLI", targets: ["BacktestCLI"]),
    .executable(name: "backtest", targets: ["backtest"]),
  ],
  dependencies: [],
  targets: [
    .target(name: "BacktestCore"),
    .target(name: "BacktestRun", dependencies: ["BacktestCore"]),
    .target(name: "PersonalFinance", dependencies: ["BacktestCore", "BacktestRun"]),
    // What the two executables share: arguments, exit codes, atomic report files, progress.
    .target(name: "CommandLineSupport", dependencies: ["BacktestCore", "BacktestRun", "PersonalFinance"]),
    // `backtest fetch` runs `backtest-fetch`, the only binary that links the HTTP client
    // (loading it cost every other command ~8 ms of start-up).
    .target(name: "BacktestCLI", dependencies: ["BacktestCore", "BacktestRun", "PersonalFinance", "CommandLineSupport"]),
    .executableTarget(name: "backtest", dependencies: ["BacktestCore", "BacktestCLI", "backtest-fetch"],
                      linkerSettings: staticSwiftRuntime),
    .executableTarget(name: "backtest-fetch", dependencies: ["BacktestCore", "BacktestRun", "PersonalFinance", "CommandLineSupport"]),
    // Fixtures are read from the source tree by path (see Fixtures.swift).
    .testTarget(name: "BacktestCoreTests", dependencies: ["BacktestCore", "BacktestRun", "PersonalFinance"], exclude: ["Fixtures"]),
    // Depends on the executable so that `swift test` builds it; the tests run it.
    .testTarget(name: "BacktestCLITests", dependencies: ["BacktestCore", "BacktestRun", "CommandLineSupport", "BacktestCLI", "backtest"], exclude: ["Corpus", "Corpus2", "Corpus3"]),
  ]
)
