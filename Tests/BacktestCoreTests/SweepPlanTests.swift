import BacktestCore
import BacktestRun
import Testing

@Suite struct SweepPlanTests {
  static func settings(_ section: String) throws -> SweepSettings {
    let text = "name: s\ndata: {bars: x.csv}\nstrategy: {type: bollinger_rsi}\n" + section
    return try SweepRunner.parse(text, file: "s.yaml").settings
  }

  @Test("a grid varies the last parameter fastest; ranges include both ends without float residue")
  func grid() throws {
    let s = try Self.settings("sweep:\n  parameters:\n    bb_std: {from: 1.5, to: 2.0, step: 0.1}\n    rsi_period: [7, 14]\n")
    #expect(s.parameters[0].values == ["1.5", "1.6", "1.7", "1.8", "1.9", "2"])
    #expect(s.parameters[0].path == "strategy.bollinger.std_dev")
    let plan = SweepPlan.combinations(s)
    #expect(plan.count == 12)
    #expect(plan.prefix(3).map(\.values) == [["1.5", "7"], ["1.5", "14"], ["1.6", "7"]])
    #expect(plan.map(\.index) == Array(0..<12))
  }

  @Test("random mode draws a seeded sample of the grid: the same for a seed, different for another")
  func random() throws {
    let section = "sweep:\n  parameters:\n    bb_period: {from: 10, to: 40}\n    oversold: [20, 25, 30]\n  mode: random\n  samples: 15\n"
    let a = SweepPlan.combinations(try Self.settings(section + "  seed: 7\n"))
    let b = SweepPlan.combinations(try Self.settings(section + "  seed: 7\n"))
    let c = SweepPlan.combinations(try Self.settings(section + "  seed: 8\n"))
    #expect(a.count == 15 && a == b && a != c)
    #expect(Set(a.map { $0.values.joined(separator: ",") }).count == 15)
    let grid = SweepPlan.combinations(try Self.settings("sweep:\n  parameters:\n    bb_period: {from: 10, to: 40}\n    oversold: [20, 25, 30]\n"))
    #expect(grid.count == 93)
    let gridKeys = Set(grid.map { $0.values.joined(separator: ",") })
    #expect(a.allSatisfy { gridKeys.contains($0.values.joined(separator: ",")) })
  }

  @Test("constraints.where leaves out the grid points it is false for, before a random sample is drawn; percentages read as fractions")
  func constraintWhere() throws {
    let grid = "sweep:\n  parameters:\n    bb_period: [10, 20, 30]\n    rsi_period: [7, 14, 21]\n    stop_loss: [1%, 3%]\n"
    let s = try Self.settings(grid + "  constraints: {where: 'rsi_period < bb_period and stop_loss * 100 >= 2'}\n")
    let plan = SweepPlan.combinations(s)
    // rsi_period < bb_period: (10: 7), (20: 7, 14), (30: 7, 14, 21) = 6 pairs; stop_loss 3% only.
    #expect(plan.map { $0.values } == [["10", "7", "3%"], ["20", "7", "3%"], ["20", "14", "3%"], ["30", "7", "3%"], ["30", "14", "3%"], ["30", "21", "3%"]])
    #expect(plan.map(\.index) == Array(0..<6) && SweepPlan.constrainedOut(s) == 12)
    // A random sample is drawn from the points the constraint keeps.
    let r = try Self.settings(grid + "  mode: random\n  samples: 4\n  constraints: {where: rsi_period < bb_period}\n")
    let sample = SweepPlan.combinations(r)
    #expect(sample.count == 4 && sample.allSatisfy { Int($0.values[1])! < Int($0.values[0])! })
  }

  @Test("constraints.where is refused where it is wrong", arguments: [
    ("constraints: {where: rsi_period < bb_perod}", "unknown name 'bb_perod'"),
    ("constraints: {where: rsi_period < close}", "expected a condition over the swept parameters (bb_period, rsi_period) and numbers only in 'sweep.constraints.where', found one that reads the bars"),
    ("constraints: {where: rsi_period + bb_period}", "expected a condition (true or false) for 'sweep.constraints.where', found a number"),
    ("constraints: {where: [a]}", "expected a condition over the swept parameters, such as 'fast < slow', for 'sweep.constraints.where', found a list"),
  ])
  func constraintErrors(_ line: String, _ message: String) {
    do {
      _ = try Self.settings("sweep:\n  parameters:\n    bb_period: [10, 20]\n    rsi_period: [7, 14]\n  " + line + "\n")
      Issue.record("accepted: \(line)")
    } catch {
      #expect("\(error)".contains(message) && "\(error)".contains("s.yaml:"), "\(error)")
    }
  }

  @Test("shards partition the plan: every combination in exactly one", arguments: [1, 2, 3, 7, 200])
  func shards(n: Int) throws {
    let plan = SweepPlan.combinations(try Self.settings("sweep:\n  parameters:\n    bb_period: [10, 15, 20, 25, 30]\n    oversold: [20, 25, 30, 35]\n"))
    let parts = (0..<n).map { SweepPlan.shard(plan, index: $0, of: n) }
    #expect(parts.flatMap { $0 }.map(\.index).sorted() == plan.map(\.index))
  }

  @Test("shards are contiguous runs of the plan made of whole groups sharing every value but the last, about equal in size")
  func contiguousShards() throws {
    // 180 combinations in groups of 4 (oversold varies fastest): 4 shards cut at the group starts nearest 45, 90 and 135.
    let plan = SweepPlan.combinations(try Self.settings("sweep:\n  parameters:\n    bb_period: [10, 15, 20, 25, 30]\n    bb_std: [1.5, 2.0, 2.5]\n"
                                                        + "    rsi_period: [7, 14, 21]\n    oversold: [20, 25, 30, 35]\n"))
    #expect(SweepPlan.shardRanges(plan, shards: 4) == [0..<44, 44..<88, 88..<136, 136..<180])
    for n in [2, 3, 10, 45] {
      let ranges = SweepPlan.shardRanges(plan, shards: n)
      #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == 180 && zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
      #expect(ranges.allSatisfy { $0.lowerBound % 4 == 0 }, "\(n): a group cut in two")
      #expect(ranges.allSatisfy { abs($0.count - 180 / n) <= 4 }, "\(n): \(ranges.map(\.count))")
    }
    // More shards than groups: equal shares, groups cut.
    let small = SweepPlan.combinations(try Self.settings("sweep:\n  parameters:\n    bb_period: [10, 15]\n    oversold: [20, 25, 30]\n"))
    #expect(SweepPlan.shardRanges(small, shards: 3) == [0..<2, 2..<4, 4..<6])
  }

  @Test("sweep section errors", arguments: [
    ("sweep:\n  parameters:\n    bb_perod: [1]\n", "s.yaml:6:5: error: unknown sweep parameter 'bb_perod'; did you mean 'bb_period'?; expected one of bb_period, bb_std, overbought, oversold, profit_target, rsi_period, stop_loss or a key path such as strategy.rsi.period"),
    ("sweep:\n  parameters: {}\n", "s.yaml:5:15: error: expected at least one parameter under 'sweep.parameters'"),
    ("sweep:\n  parameters: {oversold: [20, 20]}\n", "s.yaml:5:26: error: a value appears twice in 'sweep.parameters.oversold'"),
    ("sweep:\n  parameters: {oversold: [20]}\n  mode: random\n", "s.yaml:5:3: error: expected 'sweep.samples' (how many random combinations) with mode: random"),
    ("sweep:\n  parameters: {oversold: [20]}\n  metric: sharp\n", "s.yaml:6:11: error: expected one of total_trades, wins, losses, win_rate, avg_win, avg_loss, best_trade, worst_trade, total_pnl, total_return, final_equity, cagr, max_drawdown, sharpe, sortino, profit_factor, exposure, fees, avg_bars_held, longest_drawdown_bars, bars, days, twr, xirr, dividend_income, expense_drag, volatility, calmar, expectancy, sqn, longest_bars_held, avg_trade_days, longest_trade_days, avg_drawdown_bars, longest_drawdown_days, avg_drawdown_days for 'sweep.metric', found 'sharp'; did you mean 'sharpe'?"),
  ])
  func errors(_ section: String, _ message: String) {
    do {
      _ = try Self.settings(section)
      Issue.record("no error")
    } catch {
      #expect("\(error)" == message)
    }
  }

  @Test("finer intrabar bars are refused by sweeps, not ignored")
  func unmodelled() throws {
    let text = "name: s\ndata: {bars: ../Data/GOOG.csv}\nstrategy: {type: bollinger_rsi}\nsweep:\n  parameters:\n    bb_period: [10, 20]\n"
    let path = Repo.path("Strategies/s.yaml")
    let (root, settings) = try SweepRunner.parse(text, file: path, overrides: ["data.intrabar=../Data/GOOG.csv"])
    #expect(throws: InputError("sweeps do not settle exits with finer intrabar bars yet; remove data.intrabar, or run single combinations with backtest run",
                               at: SourceLocation(file: path, line: 1, column: 1))) {
      try SweepRunner.jobs(root: root, file: path, settings: settings, combinations: SweepPlan.combinations(settings))
    }
  }

  @Test("sweeps with dividends and an expense ratio run through the general engine: each combination equals its own run")
  func dividendsAndExpenses() throws {
    let text = """
      name: s
      data: {bars: ../Data/etfs/INCM.csv, dividends: ../Data/etfs/INCM_dividends.csv, timezone: America/New_York}
      strategy: {type: bollinger_rsi, stop_loss: 3%}
      portfolio: {initial_cash: 10000}
      sweep:
        parameters:
          bb_period: [10, 20]
          portfolio.expense_ratio: [0, 0.35%]

      """
    let path = Repo.path("Strategies/s.yaml")
    let (root, settings) = try SweepRunner.parse(text, file: path)
    let jobs = try SweepRunner.jobs(root: root, file: path, settings: settings, combinations: SweepPlan.combinations(settings))
    let base = try RunConfig.parse(document: root, file: path)
    let (bars, _) = try Backtest.loadBars(base.data)
    let dividends = try Backtest.loadDividends(base.data)
    #expect(dividends.count > 10)
    let collected = RecordCollector()
    SweepRunner.run(jobs, bars: bars, cycle: nil, dividends: dividends, workers: 2) { c, summary in
      collected.add(c.index, SweepRanking.record(c, summary, fingerprint: "-"))
    }
    let records = collected.sorted
    #expect(records.count == 4)
    for (job, record) in zip(jobs, records) {
      let own = try Backtest.run(job.config!)
      #expect(own.run.result.carry.dividendIncome > 0)
      #expect(record.metrics == own.summary.fields.map(\.value), "\(job.combination.values)")
    }
    // The expense ratio costs money: the same period without it ends higher.
    #expect(records[0].metric("final_equity")! > records[1].metric("final_equity")!)
  }

  @Test("sizing as a sweep axis, on the kernel (risk) and the general engine (volatility target): each combination equals its own run",
        arguments: [("{risk: 1%}", "risk: [0.5%, 2%]"), ("{volatility_target: 15%}", "lookback: [10, 60]")])
  func sizingAxis(sizing: String, axis: String) throws {
    let text = """
      name: s
      data: {bars: ../Data/GOOG.csv}
      strategy: {type: bollinger_rsi, stop_loss: 2%}
      portfolio: {sizing: \(sizing)}
      sweep:
        parameters:
          portfolio.sizing.\(axis)
          oversold: [25, 30]

      """
    let path = Repo.path("Strategies/s.yaml")
    let (root, settings) = try SweepRunner.parse(text, file: path)
    let jobs = try SweepRunner.jobs(root: root, file: path, settings: settings, combinations: SweepPlan.combinations(settings))
    let (bars, _) = try Backtest.loadBars(try RunConfig.parse(document: root, file: path).data)
    let collected = RecordCollector()
    SweepRunner.run(jobs, bars: bars, cycle: nil, workers: 2) { c, summary in
      collected.add(c.index, SweepRanking.record(c, summary, fingerprint: "-"))
    }
    let records = collected.sorted
    #expect(records.count == 4)
    for (job, record) in zip(jobs, records) {
      let own = try Backtest.run(job.config!)
      #expect(own.summary.totalTrades > 0)
      #expect(record.metrics == own.summary.fields.map(\.value), "\(job.combination.values)")
    }
    // Different sizes of the same trades: the same count, different money.
    #expect(records[0].metric("total_trades") == records[2].metric("total_trades"))
    #expect(records[0].metric("final_equity") != records[2].metric("final_equity"))
  }
}

@Suite struct WalkForwardTests {
  static let text = """
    name: wf
    data: {bars: ../Data/GOOG.csv}
    strategy: {type: bollinger_rsi}
    sweep:
      parameters:
        bb_period: [10, 20]
        oversold: [30, 35]
      validation: {mode: walk_forward, train: 2y, test: 1y}
    """

  @Test("test parts tile the data; each window trades the training part's winner; the chained curve is the product of the parts")
  func windows() throws {
    let (root, settings) = try SweepRunner.parse(Self.text, file: Repo.path("Strategies/wf.yaml"))
    let wf = try #require(settings.walkForward)
    let config = try RunConfig.parse(document: root, file: Repo.path("Strategies/wf.yaml"))
    let bars = try Backtest.loadBars(config.data).bars
    let jobs = try SweepRunner.jobs(root: root, file: Repo.path("Strategies/wf.yaml"), settings: settings,
                                    combinations: SweepPlan.combinations(settings))
    let result = WalkForward.run(wf, jobs: jobs, settings: settings, bars: bars, initialCash: 100_000, workers: 2)
    #expect(result.windows.count >= 5)
    for (a, b) in zip(result.windows, result.windows.dropFirst()) { #expect(a.testEnd == b.testStart) }
    // A window's training part is the two years before its test part.
    let first = result.windows[0]
    #expect(bars.timeLabel(first.trainStart) == "2004-08-23" && bars.timeLabel(first.testStart) == "2006-08-21")
    var growth = 1.0
    for w in result.windows {
      let part = try #require(w.outOfSample)
      growth *= 1 + part.totalReturn
      // The winner is the best of a sweep over the training part alone.
      let train = bars.filtered { $0 >= w.trainStart && $0 < w.testStart }
      var best: (String, Double)?
      for job in jobs {
        let s = PerformanceSummary(result: job.config!.strategy.run(bars: train, broker: job.config!.broker).result, bars: train)
        if let sharpe = s.sharpe, best == nil || sharpe > best!.1 { best = (job.combination.values.joined(separator: ","), sharpe) }
      }
      #expect(w.best?.values.joined(separator: ",") == best?.0)
    }
    #expect(abs(result.equity.last! / 100_000 - growth) < 1e-9)
    #expect(abs(result.summary.totalReturn - (growth - 1)) < 1e-9)
  }

  @Test("walk-forward lengths: years, months, days and bar counts; bad ones are refused")
  func lengths() throws {
    let (_, s) = try SweepRunner.parse(Self.text.replacingOccurrences(of: "train: 2y, test: 1y", with: "train: 500, test: 90d, step: 30d"), file: "s.yaml")
    #expect(s.walkForward == WalkForwardSettings(train: .bars(500), test: .days(90), step: .days(30)))
    do {
      _ = try SweepRunner.parse(Self.text.replacingOccurrences(of: "train: 2y", with: "train: 2 years"), file: "s.yaml")
      Issue.record("no error")
    } catch {
      #expect("\(error)".contains("expected a length like 2y, 6m, 90d or a bar count for 'sweep.validation.train', found '2 years'"))
    }
  }
}

@Suite struct BestReturnsTests {
  @Test("the returns kept during a sweep are the ranking's best's, whatever the job count, with and without a trade minimum",
        arguments: [(false, 1), (false, 2), (true, 2)])
  func keptReturnsAreTheBest(constrained: Bool, workers: Int) throws {
    func sweep(minTrades: Int) throws -> (SweepSettings, [SweepJob], [SweepRecord], BestReturns) {
      let text = """
        name: best
        data: {bars: unused.csv}
        strategy: {type: bollinger_rsi, stop_loss: 2%}
        sweep:
          parameters:
            bb_period: [10, 20, 30]
            oversold: [25, 30, 35]
            rsi_period: [7, 14]
          constraints: {min_trades: \(minTrades)}
        """
      let (root, settings) = try SweepRunner.parse(text, file: "best.yaml")
      let jobs = try SweepRunner.jobs(root: root, file: "best.yaml", settings: settings, combinations: SweepPlan.combinations(settings))
      let best = BestReturns(settings: settings)
      let results = ConcurrentSlots<SweepRecord>(count: jobs.count)
      SweepRunner.run(jobs, bars: Self.bars, cycle: nil, workers: workers, best: best) { c, summary in
        results.set(c.index, SweepRanking.record(c, summary, fingerprint: ""))
      }
      return (settings, jobs, (0..<jobs.count).map { results.get($0) }, best)
    }
    var (settings, jobs, records, best) = try sweep(minTrades: 0)
    if constrained {
      // A minimum that rules out the unconstrained winner.
      let first = try #require(SweepRanking.ranking(records, settings: settings).first)
      let before = first.values
      (settings, jobs, records, best) = try sweep(minTrades: Int(first.metric("total_trades")!) + 1)
      #expect(SweepRanking.ranking(records, settings: settings).first?.values != before)
    }
    let ranked = SweepRanking.ranking(records, settings: settings)
    let winner = try #require(ranked.first)
    let job = try #require(jobs.first { $0.combination.values == winner.values })
    let kept = try #require(best.returns(of: winner.values))
    #expect(kept == SweepRunner.dailyReturns(of: job, bars: Self.bars, cycle: nil))
    #expect(best.returns(of: ranked[1].values) == nil)
  }

  static let bars = SyntheticBars.generate(count: 6_000, seed: 12)
}
