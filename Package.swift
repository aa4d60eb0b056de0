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
    .executableTarget(name: "backtest", dependencies: ["BacktestCore"]),
    .testTarget(
      name: "BacktestCoreTests", dependencies: ["BacktestCore"],
      resources: [.copy("Fixtures")]),
    .testTarget(name: "BacktestCLITests", dependencies: ["BacktestCore"]),
  ]
)
