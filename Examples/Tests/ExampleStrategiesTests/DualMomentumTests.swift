import BacktestCore
import BacktestRun
import ExampleStrategies
import Foundation
import Testing

@Suite struct DualMomentumTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let catalog = BuiltInStrategies.catalog.adding(DualMomentum.self)

  static func run(_ overrides: [String] = []) throws -> PortfolioOutput {
    let path = root.appendingPathComponent("Strategies/dual-momentum.yaml").path
    guard case .portfolio(let config) = try AnyRunConfig.parse(try String(contentsOfFile: path, encoding: .utf8), file: path,
                                                               overrides: overrides, catalog: catalog) else {
      throw InputError("not a run over several assets", file: path)
    }
    return try PortfolioBacktest.run(config)
  }

  @Test("targets.csv on the sample ETFs equals the definition computed in plain Python (Fixtures/dual_momentum.py)")
  func targets() throws {
    let output = try Self.run()
    let made = PortfolioReport.targetsCSV(output.result, symbols: output.assets.map(\.symbol)).split(separator: "\n")
    let expected = try String(contentsOf: Self.root.appendingPathComponent("Tests/ExampleStrategiesTests/Fixtures/dual_momentum_targets.csv"),
                              encoding: .utf8).split(separator: "\n")
    #expect(made.count == expected.count && made.count == 1 + 4 * 35)
    for (a, b) in zip(made, expected).dropFirst() {
      let x = a.split(separator: ","), y = b.split(separator: ",")
      #expect(x[0] == y[0] && x[1] == y[1] && Double(x[2]) == Double(y[2]), "\(a) vs \(b)")
    }
    // The trades follow the targets: after each decision that changes the asset held, a sale then a purchase at the next open.
    let r = output.result
    let changes = zip(r.decisions, r.decisions.dropFirst()).filter { $0.weights != $1.weights }.count
    #expect(r.fills.filter { $0.reason == .rebalance && $0.shares < 0 }.count == changes)
  }

  @Test("the decision at a hand-made close: the best positive return, else the safe asset; no bar or too few bars, no score")
  func decide() {
    var p = DualMomentum.Parameters()
    p.lookback = 2
    p.safe = "SAFE"
    func bars(_ closes: [Double]) -> BarSeries {
      var b = BarSeries(source: "hand")
      for (k, c) in closes.enumerated() {
        let day = Int32(19_723 + k)
        b.append(time: Int64(day) * 86_400, day: day, open: c, high: c, low: c, close: c, volume: 0, label: Array("d\(k)".utf8))
      }
      return b
    }
    var s = DualMomentum(parameters: p, assets: [AllocationAsset(symbol: "SAFE", bars: bars([10, 10, 10])),
                                                 AllocationAsset(symbol: "AAA", bars: bars([10, 11, 12])),
                                                 AllocationAsset(symbol: "BBB", bars: bars([10, 9, 13]))])
    let context = { (bars: [Int]) in
      AllocationContext(symbols: ["SAFE", "AAA", "BBB"], bar: 2, day: 19_725, previousDay: nil, weights: [0, 0, 0], barIndices: bars)
    }
    // AAA 12 / 10 - 1 = 20%, BBB 13 / 10 - 1 = 30%: BBB.
    #expect(s.allocate(context([2, 2, 2]))?.weights == [0, 0, 1])
    // BBB without a bar here: AAA.
    #expect(s.allocate(context([2, 2, -1]))?.weights == [0, 1, 0])
    // One bar of history: no score, the safe asset.
    let none = s.allocate(context([1, 1, 1]))
    #expect(none?.weights == [1, 0, 0] && none?.scores.allSatisfy(\.isNaN) == true)
    // Not the first close of a month: no decision.
    #expect(s.allocate(AllocationContext(symbols: ["SAFE", "AAA", "BBB"], bar: 2, day: 19_725, previousDay: 19_724, weights: [1, 0, 0],
                                         barIndices: [2, 2, 2])) == nil)
  }

  @Test("a safe asset that is not among the assets is refused where it is written")
  func refused() throws {
    #expect(throws: InputError.self) { try Self.run(["strategy.safe=CASH"]) }
    do { _ = try Self.run(["strategy.safe=CASH"]) } catch {
      #expect("\(error)".contains("'strategy.safe' is 'CASH', not one of the assets; expected the symbol to hold when no return is above 0: one of INCM, DIVQ, HIYD, VALU"),
              "\(error)")
    }
  }
}
