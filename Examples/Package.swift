// swift-tools-version:6.0
import Foundation
import PackageDescription

// Strategies written only against the engine's public API, as an outsider
// would, and the whole command-line tool for them with one call.
//   swift run -c release backtest-examples run ../Strategies/donchian.yaml   (from Examples/)

// A path dependency is known by its folder's name, which depends on where the engine was cloned.
let engine = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
  name: "BacktestExamples",
  platforms: [.macOS(.v13)],
  dependencies: [.package(path: "..")],
  targets: [
    .target(name: "ExampleStrategies", dependencies: [.product(name: "BacktestCore", package: engine)]),
    .executableTarget(name: "backtest-examples", dependencies: [
      "ExampleStrategies", .product(name: "BacktestCLI", package: engine), .product(name: "BacktestCore", package: engine),
    ]),
    .testTarget(name: "ExampleStrategiesTests", dependencies: [
      "ExampleStrategies", .product(name: "BacktestCore", package: engine), .product(name: "BacktestRun", package: engine),
      .product(name: "PersonalFinance", package: engine),
    ], exclude: ["Fixtures"]),
  ]
)
