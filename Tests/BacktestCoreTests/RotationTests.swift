@testable import BacktestCore
@testable import BacktestRun
import Foundation
import Testing

/// `strategy.type: rotation` (`Docs/portfolio.md`, "Rotation"): against the
/// plain-Python reference on the sample ETFs, and its rules on hand-made bars.
@Suite struct RotationTests {
  static func shipped(_ overrides: [String] = []) throws -> PortfolioOutput {
    let path = Repo.path("Strategies/etf-rotation.yaml")
    guard case .portfolio(let config) = try AnyRunConfig.parse(try String(contentsOfFile: path, encoding: .utf8), file: path,
                                                               overrides: overrides) else {
      throw InputError("not a portfolio run file", file: path)
    }
    let (assets, ledger, _) = try PortfolioBacktest.loadInputs(config)
    return PortfolioBacktest.execute(config, assets: assets, ledger: ledger)
  }

  static func rows(_ file: String) throws -> [[Substring]] {
    let text = try String(contentsOfFile: Repo.path("Tests/BacktestCoreTests/Fixtures/rotation/" + file), encoding: .utf8)
    return text.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
  }

  @Test("every order and every close's equity and cash equal the plain-Python reference's (1e-9 relative)", arguments: [
    ("monthly-top2", [String]()),
    ("weekly-top1", ["lookback=20", "top=1", "rebalance=weekly"]),  // short names, as --set takes them
    ("quarterly-top3", ["strategy.params.lookback=126", "strategy.top=3", "strategy.rebalance=quarterly"]),
  ])
  func reference(folder: String, overrides: [String]) throws {
    let output = try Self.shipped(overrides)
    let r = output.result, symbols = output.assets.map(\.symbol)
    let orders = try Self.rows(folder + "/orders.csv"), equity = try Self.rows(folder + "/equity.csv")
    #expect(orders.count > 30 && r.fills.count == orders.count)
    for (f, row) in zip(r.fills, orders) {
      #expect(r.timeline.timeLabel(f.bar) == String(row[0]) && symbols[f.asset] == String(row[1]))
      #expect((f.shares > 0 ? "BUY" : "SELL") == String(row[2]) && abs(f.shares) == Double(row[3])!)
      #expect(f.price == Double(row[4])! && f.fee == Double(row[5])!)
    }
    #expect(r.equity.count == equity.count)
    for (t, row) in equity.enumerated() {
      #expect(r.timeline.timeLabel(t) == String(row[0]))
      #expect(close(r.equity[t], Double(row[1])!, relative: 1e-9) && abs(r.cash[t] - Double(row[2])!) <= 1e-9 * Double(row[1])!,
              "\(row[0])")
    }
    #expect(output.summary.dividendIncome > 0 && r.fills.allSatisfy { $0.reason == .rebalance })
  }

  /// Three assets over the same ten days (2024-01-01 is a Monday), each with its score given per bar.
  static func run(_ scores: [[Double]], top: Int, period: RebalanceRule = .weekly, weighting: RotationRule.Weighting = .equal,
                  bars: [[(Double, Double, Double, Double)]]? = nil) -> PortfolioResult {
    var assets: [PortfolioAsset] = []
    for (k, symbol) in ["AAA", "BBB", "CCC"].enumerated() where k < scores.count {
      let rows = bars?[k] ?? Array(repeating: (100.0, 101.0, 99.0, 100.0), count: scores[k].count)
      assets.append(PortfolioAsset(symbol: symbol, bars: handBars(rows), weight: 0))
    }
    return rotate(assets, scores: scores.map { ContiguousArray($0) }, RotationRule(top: top, period: period, weighting: weighting))
  }

  /// `assets` rotated by `rule` over the scores given per asset, from 10,000 of cash.
  static func rotate(_ assets: [PortfolioAsset], scores: [ContiguousArray<Double>], _ rule: RotationRule) -> PortfolioResult {
    var settings = PortfolioSettings()
    settings.initialCash = 10_000
    var rotation = Rotation(rule: rule, scores: scores, symbols: assets.map(\.symbol))
    return PortfolioEngine.run(assets, settings: settings, strategy: &rotation)
  }

  @Test("ranked at the close of each week's first bar, traded at the next open: sales first, ties by symbol, undefined scores not ranked")
  func rules() {
    let nan = Double.nan
    // Monday 1 Jan: AAA and BBB tie, CCC has no score: AAA (by symbol) is chosen and bought at Tuesday's open,
    // 10,000 / 100 = 100 shares. Monday 8 Jan: CCC scores best: AAA sold, then CCC bought, at Tuesday's open.
    let r = Self.run([[1, 0, 0, 0, 0, 0, 0, 0.5, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0.1, 0, 0], [nan, 0, 0, 0, 0, 0, 0, 2, 0, 0]], top: 1)
    #expect(r.decisions.map(\.bar) == [0, 7])
    #expect(r.decisions[0].ranks == [0, 1, -1] && r.decisions[0].weights == [1, 0, 0])
    #expect(r.fills.map { [$0.bar, $0.asset, Int($0.shares)] } == [[1, 0, 100], [8, 0, -100], [8, 2, 100]])
    #expect(r.decisions[1].ranks == [1, 2, 0])
  }

  @Test("top 2 at equal weights, or in proportion to positive scores; no score anywhere sells everything")
  func weighting() {
    let nan = Double.nan
    var r = Self.run([[3, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0, 0]], top: 2)
    #expect(r.decisions[0].weights == [0.5, 0, 0.5] && r.fills.map { Int($0.shares) } == [50, 50])
    r = Self.run([[3, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0]], top: 2, weighting: .score)
    // AAA 3 / (3 + 1) = 75%, BBB (before CCC by symbol) 25%.
    #expect(r.decisions[0].weights == [0.75, 0.25, 0] && r.fills.map { Int($0.shares) } == [75, 25])
    r = Self.run([[1, 0, 0, 0, 0, 0, 0, nan, 0], [nan, 0, 0, 0, 0, 0, 0, nan, 0]], top: 1)
    #expect(r.fills.map { [$0.bar, Int($0.shares)] } == [[1, 100], [8, -100]] && r.equity.last == 10_000)
  }

  @Test("scores near the largest number: weighted by score without overflowing their sum, and written as numbers, not inf")
  func hugeScores() throws {
    let r = Self.run([[1.5e308, 0, 0, 0, 0, 0, 0], [0.5e308, 0, 0, 0, 0, 0, 0]], top: 2, weighting: .score)
    // 1.5e308 + 0.5e308 overflows; weighed by their share of the largest: 1 and 1/3, so 75% and 25%.
    #expect(r.decisions[0].weights == [0.75, 0.25] && r.fills.map { Int($0.shares) } == [75, 25])
    let output = try Self.shipped(["score=close * 1e306", "weighting=score", "top=2"])
    #expect(output.result.decisions.last.map { $0.weights.filter { $0 > 0 }.count } == 2)
    let rows = PortfolioReport.rotationRows(output)
    #expect(!rows.contains { $0.chosen.contains("inf") } && rows.last?.chosen.contains("e+30") == true, "\(rows.last!)")
  }

  @Test("an asset without a bar at the decision has no score there; the order waits for a bar where every chosen asset trades")
  func missingBars() {
    // BBB has no bars on its 2nd and 3rd days: CCC drops them. Give BBB only 1 bar in week 2 by short rows.
    let a = PortfolioAsset(symbol: "AAA", bars: handBars(Array(repeating: (100, 101, 99, 100), count: 10)), weight: 0)
    // BBB's bars skip 1-2 January (days 0 and 1 of the timeline): at the first decision (bar 0) it has none.
    var bb = BarSeries(source: "hand")
    for day in 2..<10 {
      let d = CivilDate.days(year: 2024, month: 1, day: 1) + day
      bb.append(time: Int64(d) * 86_400, day: Int32(d), open: 50, high: 51, low: 49, close: 50, volume: 0,
                label: Array(CivilDate.isoDate(days: d).utf8))
    }
    let b = PortfolioAsset(symbol: "BBB", bars: bb, weight: 0)
    let r = Self.rotate([a, b], scores: [ContiguousArray(repeating: 1, count: 10), ContiguousArray(repeating: 5, count: 8)],
                        RotationRule(top: 1, period: .weekly))
    // Bar 0: only AAA has a bar and a score, so AAA; bar 7 (Monday 8 Jan): BBB's 5 beats AAA's 1.
    #expect(r.decisions.map(\.ranks) == [[0, -1], [1, 0]])
    #expect(r.fills.map { [$0.bar, $0.asset, Int($0.shares)] } == [[1, 0, 100], [8, 0, -100], [8, 1, 200]])
  }

  @Test("a dropped holding without a bar where the ranking trades (its bars ended) is sold at its last close, reading no later bar")
  func endedAsset() {
    // AAA trades all 10 days; BBB only the first 5 (1-5 January), closing at 60 on its last.
    let a = PortfolioAsset(symbol: "AAA", bars: handBars(Array(repeating: (100, 101, 99, 100), count: 10)), weight: 0)
    let b = PortfolioAsset(symbol: "BBB", bars: handBars([(50, 51, 49, 50), (50, 51, 49, 50), (50, 51, 49, 50), (50, 51, 49, 50), (55, 61, 54, 60)]),
                           weight: 0)
    let r = Self.rotate([a, b], scores: [ContiguousArray(repeating: 1, count: 10), ContiguousArray(repeating: 2, count: 5)],
                        RotationRule(top: 1, period: .weekly))
    // Bar 0: BBB (2 > 1), 200 shares at 50. Bar 7 (Monday 8 Jan): BBB has no bar, so no score: AAA; at bar 8's open
    // BBB (no bar there either) is sold at its last close 60 (+2,000), then AAA bought: 12,000 / 100 = 120 shares.
    // Meanwhile BBB is marked at 60.
    #expect(r.fills.map { [$0.bar, $0.asset, Int($0.shares)] } == [[1, 1, 200], [8, 1, -200], [8, 0, 120]])
    #expect(r.fills[1].reason == .lastClose && r.fills[1].price == 60 && r.fills[2].reason == .rebalance)
    #expect(r.equity[6] == 12_000 && r.equity[9] == 12_000)
  }

  @Test("weeks start on Monday, also before 1970")
  func weeks() {
    let monday = CivilDate.days(year: 2024, month: 1, day: 8)
    #expect(RebalanceRule.weekly.startsNewPeriod(from: monday - 1, to: monday))
    #expect(!RebalanceRule.weekly.startsNewPeriod(from: monday, to: monday + 6))
    let old = CivilDate.days(year: 1969, month: 12, day: 29)  // a Monday
    #expect(RebalanceRule.weekly.startsNewPeriod(from: old - 1, to: old) && !RebalanceRule.weekly.startsNewPeriod(from: old, to: old + 3))
  }

  @Test("the shipped run's reports: rotation.csv, the rotation in summary.json, the comparison with the universe held at equal weights")
  func reports() throws {
    let output = try Self.shipped()
    let csv = PortfolioReport.rotationCSV(output)
    #expect(csv.hasPrefix("time,symbol,score,rank,target_weight\n2022-01-03,INCM,,,0.0\n"))
    #expect(csv.split(separator: "\n").count == 1 + 4 * output.result.decisions.count)
    let json = PortfolioReport.summaryJSON(output).rendered()
    #expect(json.contains("\"strategy\": \"rotation\"") && json.contains("\"equal_weight_held\"") && json.contains("\"turnover\"")
            && json.contains("\"last_targets\""))
    // holdings.svg: one band per asset, stacked; the top of the last band at the last close is 1 − cash / equity,
    // also when deposits make the account's value differ from the growth of the initial cash.
    for run in [output, try Self.shipped(["portfolio.contributions={monthly: 5000, day: 1}"])] {
      let svg = PortfolioReport.holdingsChart(run, PortfolioReport.charts(run))
      #expect(run.assets.map(\.symbol).allSatisfy { svg.contains("<title>\($0)</title></polygon>") })
      let band = svg.components(separatedBy: "id=\"holding-3\"")[0].components(separatedBy: "points=\"").last!
      let last = band.prefix { $0 != "\"" }.split(separator: " ")  // the upper edge, then the lower edge backwards
      let n = run.result.cash.count
      let invested = 1 - run.result.cash[n - 1] / run.result.equity[n - 1]
      let topOfLast = Double(last[last.count / 2 - 1].split(separator: ",")[1])!
      #expect(abs(topOfLast - (270 - invested * 218)) <= 0.1, "\(topOfLast) vs \(invested)")
    }
    // The comparison holds each of the four from the first bar: 25% each.
    let b = try #require(output.withoutRebalancing)
    #expect(b.assets.allSatisfy { $0.targetWeight == 0.25 } && b.fills == 4)
    // Turnover: the lesser of the rebalance purchases and sales over the mean equity, a year.
    let r = output.result
    let bought = r.fills.filter { $0.shares > 0 }.reduce(0) { $0 + $1.shares * $1.price }
    let sold = r.fills.filter { $0.shares < 0 }.reduce(0) { $0 - $1.shares * $1.price }
    let years = Double(r.timeline.day.last! - r.timeline.day[0]) / 365.25
    #expect(close(output.summary.turnover!, min(bought, sold) / (r.equity.reduce(0, +) / Double(r.equity.count)) / years, relative: 1e-12))
  }

  @Test("one colour per asset in the whole rotation report: holdings.svg's bands and the interactive chart's allocation agree, asset by asset")
  func oneColourPerAsset() throws {
    let output = try Self.shipped()
    let svg = PortfolioReport.holdingsChart(output, PortfolioReport.charts(output))
    let html = PortfolioReport.html(output)
    let spec = try #require(html.components(separatedBy: "<script type=\"application/json\" class=\"ic-spec\">").dropFirst().first?
      .components(separatedBy: "</script>").first)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(spec.utf8)) as? [String: Any])
    let panels = try #require(json["panels"] as? [[String: Any]])
    let stack = try #require(panels.first { $0["id"] as? String == "allocation" }?["stack"] as? [[String: Any]])
    var colours: [String: String] = [:]
    for layer in stack { colours[layer["label"] as! String] = layer["color"] as? String }
    #expect(output.assets.count == 4)
    for (k, asset) in output.assets.enumerated() {
      let band = try #require(svg.components(separatedBy: "id=\"holding-\(k)\"").first?.components(separatedBy: "<polygon").last)
      let fill = try #require(band.components(separatedBy: "fill=\"").dropFirst().first?.prefix { $0 != "\"" })
      #expect(colours[asset.symbol] == String(fill), "\(asset.symbol): holdings.svg \(fill), chart \(colours[asset.symbol] ?? "none")")
    }
    // No two assets share a colour.
    #expect(Set(output.assets.indices.map { colours[output.assets[$0].symbol]! }).count == 4)
  }

  @Test("--set names a rotation's keys and params by their short names, and suggests one for a typo")
  func shortNames() throws {
    #expect(throws: InputError.self) { try Self.shipped(["tpo=1"]) }
    do { _ = try Self.shipped(["lookbak=5"]) } catch {
      #expect("\(error)".contains("unknown key 'lookbak'; did you mean 'lookback'?") && "\(error)".contains("top, rebalance, weighting, score, lookback"))
    }
    let a = try Self.shipped(["weighting=score", "top=3"]), b = try Self.shipped(["strategy.weighting=score", "strategy.top=3"])
    #expect(a.result.equity == b.result.equity && a.result.decisions.last!.weights.filter { $0 > 0 }.count == 3)
  }

  @Test("rotation run files are refused with a message where they are wrong", arguments: [
    ("top: 5", "'strategy.top' is 5 but the universe has 4 assets; expected 1 to 4"),
    ("top: 0", "expected an integer from 1 to 1000000 for 'strategy.top'"),
    ("rebalance: daily", "expected one of weekly, monthly, quarterly, annually for 'strategy.rebalance'"),
    ("weighting: inverse", "expected one of equal, score for 'strategy.weighting'"),
    ("score: close > 1", "expected a number (a score such as 'roc(close, 63)') for 'strategy.score', found a condition"),
    ("score: roc(close, nn)", "unknown name 'nn'"),
    ("weights: {INCM: 50%}", "'strategy.weights' is not a key of a rotation"),
    ("tpo: 2", "unknown key 'tpo' in 'strategy'"),
  ])
  func refused(line: String, message: String) throws {
    let path = Repo.path("Strategies/etf-rotation.yaml")
    var text = try String(contentsOfFile: path, encoding: .utf8)
    let key = String(line.prefix { $0 != ":" })
    if let range = text.range(of: "\n  \(key): [^\n]*", options: .regularExpression) {
      text.replaceSubrange(range, with: "\n  " + line)
    } else {
      text = text.replacingOccurrences(of: "  type: rotation\n", with: "  type: rotation\n  \(line)\n")
    }
    do {
      _ = try AnyRunConfig.parse(text, file: path)
      Issue.record("accepted: \(line)")
    } catch {
      #expect("\(error)".contains(message) && "\(error)".contains("etf-rotation.yaml:"), "\(error)")
    }
  }
}
