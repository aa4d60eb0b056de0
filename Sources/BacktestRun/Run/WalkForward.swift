import BacktestCore
import Foundation

/// Walk-forward validation: windows of `train` then `test`, moved by `step`.
package struct WalkForwardSettings: Sendable, Equatable {
  /// The account each test part trades with.
  package enum Account: String, Sendable, Equatable {
    /// A new account with the initial cash per test part; the chained curve rescales each part.
    case fresh
    /// The previous test part's final equity (cash: every part ends flat): one account throughout.
    case carry
  }

  /// A length in calendar months, days or bars.
  package enum Length: Sendable, Equatable {
    case months(Int), days(Int), bars(Int)

    /// Parses `2y`, `6m`, `90d` or a bar count `5000`.
    init?(_ text: String) {
      let t = text.lowercased()
      if let n = Int(t), n > 0 { self = .bars(n); return }
      guard let n = Int(t.dropLast()), n > 0 else { return nil }
      switch t.last {
      case "y": self = .months(12 * n)
      case "m": self = .months(n)
      case "d": self = .days(n)
      default: return nil
      }
    }

    /// The first bar at or after the date of `index` minus this length (or `index - n` bars).
    /// As a run file writes it: `2y`… written as months (`24m`), `90d`, a bar count.
    var text: String {
      switch self {
      case .months(let n): n % 12 == 0 ? "\(n / 12)y" : "\(n)m"
      case .days(let n): "\(n)d"
      case .bars(let n): "\(n) bars"
      }
    }

    func start(before index: Int, in bars: BarSeries) -> Int {
      switch self {
      case .bars(let n): return max(0, index - n)
      case .days(let n):
        let target = Int(bars.day[index]) - n
        return bars.day.firstIndex { Int($0) >= target } ?? 0
      case .months(let n):
        let target = CivilDate.adding(months: -n, to: Int(bars.day[index]))
        return bars.day.firstIndex { Int($0) >= target } ?? 0
      }
    }

    /// The first bar at or after `start` plus this length.
    func end(from start: Int, in bars: BarSeries) -> Int {
      switch self {
      case .bars(let n): return min(bars.count, start + n)
      case .days(let n):
        let target = Int(bars.day[start]) + n
        return bars.day[start...].firstIndex { Int($0) >= target } ?? bars.count
      case .months(let n):
        let target = CivilDate.adding(months: n, to: Int(bars.day[start]))
        return bars.day[start...].firstIndex { Int($0) >= target } ?? bars.count
      }
    }
  }

  package var train: Length
  package var test: Length
  package var step: Length
  /// Whether every training part starts at the first bar (and grows) instead of being the `train` before its test part.
  package var anchored: Bool
  package var account: Account

  package init(train: Length, test: Length, step: Length, anchored: Bool = false, account: Account = .fresh) {
    self.train = train
    self.test = test
    self.step = step
    self.anchored = anchored
    self.account = account
  }

  static func read(_ t: ConfigTable) throws -> WalkForwardSettings {
    func length(_ key: String, _ fallback: String?) throws -> Length {
      guard let text = try t.string(key, default: fallback) else {
        throw InputError("expected '\(key)' (like 2y, 6m, 90d or a bar count) in 'sweep.validation'", at: t.location)
      }
      guard let l = Length(text) else {
        throw InputError("expected a length like 2y, 6m, 90d or a bar count for 'sweep.validation.\(key)', found '\(text)'",
                         at: t.node(key)?.location ?? t.location)
      }
      return l
    }
    let train = try length("train", nil), test = try length("test", nil)
    let step = try t.contains("step") ? length("step", nil) : test
    let anchored = try t.choice("anchored", ["true", "false"], default: "false") == "true"
    let account = Account(rawValue: try t.choice("account", ["fresh", "carry"], default: "fresh")!)!
    return WalkForwardSettings(train: train, test: test, step: step, anchored: anchored, account: account)
  }

  /// The windows as (train start, test start, test end) bar indices. The first test part starts `train`
  /// after the first bar, each next one `step` after the previous (with `step = test`, the test parts tile
  /// the data without gaps). The training part is the `train` before its test part (rolling), or, when
  /// `anchored`, everything before it.
  package func windows(_ bars: BarSeries) -> [(train: Int, test: Int, end: Int)] {
    var out: [(train: Int, test: Int, end: Int)] = []
    guard bars.count > 2 else { return out }
    var testStart = train.end(from: 0, in: bars)
    while testStart < bars.count - 1 {
      let end = test.end(from: testStart, in: bars)
      if end - testStart >= 2 {
        out.append((train: anchored ? 0 : train.start(before: testStart, in: bars), test: testStart, end: end))
      }
      let next = step.end(from: testStart, in: bars)
      if next <= testStart || end >= bars.count { break }
      testStart = next
    }
    return out
  }
}

/// One walk-forward window's choice and its results.
package struct WalkForwardWindow: Sendable {
  package var trainStart: Int, testStart: Int, testEnd: Int
  package var best: SweepRecord?
  package var outOfSample: PerformanceSummary?
  /// The test part's equity per bar (from `testStart`) and its trades (bar indices into the whole series).
  package var testEquity: ContiguousArray<Double>
  package var testTrades: [Trade] = []
  /// Walk-forward efficiency: the test part's CAGR over the winner's training CAGR (`WalkForward.efficiency`).
  package var efficiency: Double?
}

/// Runs walk-forward validation and stitches the test parts.
package enum WalkForward {
  package struct Result: Sendable {
    package var windows: [WalkForwardWindow]
    /// The test parts chained into one equity curve (with a fresh account per part, each part rescaled to start
    /// where the previous ended; with `account: carry`, the one account's equity).
    package var equity: ContiguousArray<Double>
    package var day: ContiguousArray<Int32>
    package var summary: PerformanceSummary
    /// The chained curve's CAGR over the mean of the winners' training CAGRs.
    package var efficiency: Double?
  }

  /// Ranks the grid on each window's training part and trades the winner on its test part.
  ///
  /// The test part is decided by the strategy built over every bar up to the test part's end (the bars
  /// before it warm the indicators; none after it exists) and traded from its first bar on, with a fresh
  /// account or the previous part's final equity (`settings.account`). The training part is swept on its
  /// own bars (its indicators warm up inside it). The cycle filter (`cycle`, made for `bars`), dividends and
  /// expense ratio act in both parts as in a run.
  package static func run(_ wf: WalkForwardSettings, jobs: [SweepJob], settings: SweepSettings, bars: BarSeries,
                         cycle: CycleGate? = nil, dividends: [Dividend] = [], initialCash: Double, workers: Int) -> Result {
    run(wf, jobs: jobs, settings: settings, data: .asset(bars: bars, cycle: cycle, dividends: dividends), initialCash: initialCash,
        workers: workers)
  }

  /// The walk-forward windows over `data`'s timeline (see the other `run`): each window's sweep over its training bars
  /// only, its best combination over the data up to the window's end, trading its test bars.
  package static func run(_ wf: WalkForwardSettings, jobs: [SweepJob], settings: SweepSettings, data: SweepData,
                         initialCash: Double, workers: Int) -> Result {
    var windows: [WalkForwardWindow] = []
    var equity = ContiguousArray<Double>(), day = ContiguousArray<Int32>()
    var level = initialCash
    var accumulator = SummaryAccumulator()
    for w in wf.windows(data.timeline) {
      let collected = RecordCollector()
      SweepRunner.run(jobs, data: data.slice(w.train..<w.test), workers: workers) { c, s in
        collected.add(c.index, SweepRanking.record(c, s, fingerprint: "-"))
      }
      let best = SweepRanking.ranking(collected.sorted, settings: settings).first
      var window = WalkForwardWindow(trainStart: w.train, testStart: w.test, testEnd: w.end, best: best, testEquity: [])
      if let best, let job = jobs.first(where: { $0.combination.values == best.values }) {
        let trial = data.slice(0..<w.end).trial(job, trading: w.test..<w.end, initialCash: wf.account == .carry ? level : nil)
        window.outOfSample = trial.summary
        window.testEquity = trial.equity
        window.testTrades = trial.trades
        window.efficiency = efficiency(outOfSample: trial.summary.cagr, inSample: best.metric("cagr"))
        // Trade statistics are scale-free (returns, win rate); the marks carry the chained equity.
        for trade in trial.trades {
          accumulator.add(trade, calendarDays: Int(trial.day[trade.exitBar - w.test]) - Int(trial.day[trade.entryBar - w.test]))
        }
        let scale = level / trial.initialCash  // 1 with a carried account
        for (i, e) in trial.equity.enumerated() {
          let v = e * scale
          equity.append(v); day.append(trial.day[i])
          accumulator.mark(equity: v, held: trial.invested[i], day: trial.day[i],
                           dayEnd: i == trial.day.count - 1 || trial.day[i + 1] != trial.day[i])
        }
        level = equity.last ?? level
      }
      windows.append(window)
    }
    let calendarDays = day.isEmpty ? 0 : Int(day[day.count - 1]) - Int(day[0])
    let summary = accumulator.summary(initialCash: initialCash, calendarDays: calendarDays)
    return Result(windows: windows, equity: equity, day: day, summary: summary,
                  efficiency: efficiency(outOfSample: summary.cagr, inSample: mean(windows.compactMap { $0.best?.metric("cagr") })))
  }

  package static func efficiency(outOfSample: Double?, inSample: Double?) -> Double? {
    guard let outOfSample, let inSample, outOfSample.isFinite, inSample.isFinite, inSample > 0 else { return nil }
    return outOfSample / inSample
  }
}

/// Sweep records gathered from worker threads, in plan order.
package final class RecordCollector: @unchecked Sendable {
  private let lock = NSLock()
  private var records: [(Int, SweepRecord)] = []
  package init() {}
  package func add(_ index: Int, _ record: SweepRecord) { lock.lock(); records.append((index, record)); lock.unlock() }
  package var sorted: [SweepRecord] { lock.lock(); defer { lock.unlock() }; return records.sorted { $0.0 < $1.0 }.map(\.1) }
}
