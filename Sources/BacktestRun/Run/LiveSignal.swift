import BacktestCore
import Foundation

/// An open position as the user holds it (from the journal or `--position`).
package struct HeldPosition: Sendable, Equatable {
  package var entryPrice: Double
  /// The entry time as the user gave it (shown as is).
  package var entryTime: String
  package var entryInstant: Int64?
  package var shares: Double

  package init(entryPrice: Double, entryTime: String, entryInstant: Int64?, shares: Double) {
    self.entryPrice = entryPrice
    self.entryTime = entryTime
    self.entryInstant = entryInstant
    self.shares = shares
  }
}

/// A price alert from the run file: `{above: 27.5}` or `{below: 25}`.
package struct PriceAlert: Sendable, Equatable {
  package enum Direction: String, Sendable { case above, below }
  package var direction: Direction
  package var level: Double

  package init(direction: Direction, level: Double) {
    self.direction = direction
    self.level = level
  }
}

/// The answer to "what is the signal now?" for the newest closed bar.
///
/// It is the engine's own decision at the newest close (for the backtest's
/// position, or the strategy's decision for the user's own), explained by the
/// strategy: the rule is never derived a second time.
package struct LiveSignal: Sendable {
  /// `SHORT` opens a short position, `COVER` buys it back (strategies that sell short only).
  package enum Action: String, Sendable { case buy = "BUY", sell = "SELL", hold = "HOLD", short = "SHORT", cover = "COVER" }

  package var action: Action
  package var reason: String
  /// Why a SELL sells: the strategy's rule (`TECHNICAL`), the cycle (`CYCLE_EXIT`), or the stop or
  /// target the newest bar traded through (`STOP_LOSS`, `PROFIT_TARGET`); `nil` for BUY and HOLD.
  package var exitReason: ExitReason?
  package var time: String
  package var close: Double
  /// Change against the last close of the previous day (nil on the first day).
  package var dayChange: Double?
  package var dayChangeFraction: Double?
  /// The strategy's own view of the newest bar (its indicators, zones, lines for people).
  package var details: StrategyDetails
  /// Every indicator column at the newest bar, `nil` where undefined.
  package var indicators: [(name: String, value: Double?)]
  package var cycle: CycleStage?
  /// What the cycle classifier used for the stage at the newest bar; `nil` without a `cycle:` section.
  package var cycleDetails: CycleDetails?
  package var position: PositionStatus?
  package var alerts: [(alert: PriceAlert, crossed: Bool)]
  /// Seconds until the bar after the newest one closes (market hours, weekends and holidays skipped).
  package var secondsToNextBarClose: Int64?
  package var nextBarClose: Int64?
  /// Seconds from the newest bar's close to now (negative while it is still open).
  package var barAgeSeconds: Int64?
  /// Whether a newer bar should have closed by now (in market hours: one bar
  /// interval plus the hours, weekends and holidays the market is closed):
  /// the data is behind and the signal is not today's.
  package var stale: Bool?

  /// The classifier's inputs behind the stage at the newest bar (point in time: only what was released by then).
  package struct CycleDetails: Sendable {
    /// The stage a decision at the newest bar uses (`unknown` when the release in force is stale).
    package var stage: CycleStage
    /// The quarter in force (released by the newest bar), with its growth, trend, gap, momentum and unemployment figures.
    package var quarter: QuarterRow?
    /// Days from the quarter's release to the newest bar (whole days, rounded down).
    package var ageDays: Int?
    /// Beyond this age the stage is `unknown` (`cycle.max_stage_age_days`).
    package var maxAgeDays: Int
    /// Quarters over which the momentum (the gap's change) is measured.
    package var momentumQuarters: Int
    /// When the stage in force began (a release, or the moment the last one went stale).
    package var stageSince: Int64?
    /// Each series' newest value released by the newest bar.
    package var series: [MacroRelease]
  }

  /// A value the strategy reports by `key` (`rsi`, `percent_b`), if defined.
  package func value(_ key: String) -> Double? { details.values.first { $0.key == key }?.value ?? nil }

  /// An open position marked to the newest close.
  package struct PositionStatus: Sendable {
    package var entryPrice: Double
    package var entryTime: String
    package var shares: Double
    package var unrealizedPnl: Double
    package var unrealizedReturn: Double
    package var stopLevel: Double?
    package var targetLevel: Double?
    package var barsHeld: Int?
    /// Why the position is sold now (the strategy's exit, the cycle, or a stop or target the newest bar traded through); `nil` while held.
    package var exitCondition: String?
    /// `backtest` when the position is the one the backtest holds, `user` otherwise.
    package var source: String
  }
}

extension LiveSignal.CycleDetails {
  /// Lines for people about the classifier's inputs at the newest bar: the quarter in force and its age,
  /// growth against trend with the gap and momentum, unemployment, inflation, the term spread, each series.
  package var lines: [String] {
    func p(_ x: Double) -> String { String(format: "%.2f", x) }
    var out: [String] = []
    guard let q = quarter else { return ["no macro release yet at the newest bar"] }
    let released = q.availableAt.map { CivilDate.isoDate(days: CivilDate.day(ofSeconds: $0)) } ?? "?"
    var head = "\(q.period) released \(released)" + (ageDays.map { ", \($0) days ago (stale after \(maxAgeDays))" } ?? "")
    if let since = stageSince { head += "; stage since \(CivilDate.isoDate(days: CivilDate.day(ofSeconds: since)))" }
    out.append(head + (q.reason.isEmpty ? "" : ": " + q.reason))
    if let g = q.gdpYoY {
      var line = "GDP growth \(p(g))%"
      if let t = q.trend, let gap = q.gap { line += " vs trend \(p(t))% (gap \(p(gap)) pp" + (q.gapChange.map { ", momentum \(p($0)) pp over \(momentumQuarters) quarters" } ?? "") + ")" }
      if let rising = q.rising { line += ", \(rising ? "rising" : "falling")" }
      out.append(line)
    }
    if let u = q.unemploymentRate {
      var line = "unemployment \(String(format: "%.1f", u))%"
      if let low = q.unemploymentMinPrior, let rise = q.unemploymentGap {
        line += " (low \(String(format: "%.1f", low))%, up \(p(rise)) pp: rule \(q.unemploymentTriggered == true ? "triggered" : "not triggered"))"
      }
      out.append(line)
    }
    var other: [String] = []
    if let i = q.inflationYoY { other.append("inflation \(p(i))%") }
    if let t = q.termSpread { other.append("term spread \(p(t)) pp") }
    if !other.isEmpty { out.append(other.joined(separator: ", ")) }
    if !series.isEmpty {
      out.append("latest: " + series.map { "\($0.series.rawValue) \(formatPlain($0.value)) (\($0.period), released \(CivilDate.isoDate(days: CivilDate.day(ofSeconds: $0.releasedAt))))" }
        .joined(separator: ", "))
    }
    return out
  }
}

/// Computes the live signal of a run.
package enum LiveSignalAnalyzer {
  /// Whose position the signal is for.
  package enum PositionSource: Sendable {
    /// The position the backtest holds after the newest bar.
    case backtest
    /// The user's open position (from the journal or `--position`).
    case user(HeldPosition)
    /// The user holds nothing (the journal has no open trade).
    case flat
  }

  /// The question to ask the strategy about the newest close for `source`.
  package static func question(for source: PositionSource, bars: BarSeries) -> FinalQuestion {
    switch source {
    case .backtest: return .backtestPosition
    case .flat: return .position(.flat)
    case .user(let held):
      let entryBar = held.entryInstant.flatMap { t in bars.time.firstIndex { $0 >= t } } ?? bars.count - 1
      return .position(PositionView(shares: held.shares, entryPrice: held.entryPrice, entryBar: entryBar))
    }
  }

  /// - Parameters:
  ///   - output: a run; when it was made with `explain:` for this source's question its final decision is used,
  ///     else the strategy runs once more to ask it.
  ///   - now: the current instant (seconds since 1970), for the time to the next bar close.
  package static func analyze(_ output: RunOutput, position source: PositionSource, alerts: [PriceAlert], holidays: Set<Int>,
                             now: Int64?) -> LiveSignal {
    let bars = output.bars
    let i = bars.count - 1
    let question = question(for: source, bars: bars)
    let final = output.run.final.flatMap { $0.question == question ? $0 : nil }
      ?? output.config.strategy.run(bars: bars, broker: output.config.broker, cycle: output.cycle?.gate,
                                    account: Backtest.accountEvents(output.config, bars: bars, dividends: output.dividends),
                                    explain: question).final!
    let close = bars.close[i]
    var signal = LiveSignal(action: .hold, reason: final.reason, time: bars.timeLabel(i), close: close, details: final.details,
                            indicators: output.run.indicators.map { ($0.name, $0.values[i].isNaN ? nil : $0.values[i]) }, alerts: [])
    // Day's change: against the previous day's last close.
    if let k = (0..<i).last(where: { bars.day[$0] != bars.day[i] }) {
      signal.dayChange = close - bars.close[k]
      signal.dayChangeFraction = close / bars.close[k] - 1
    }
    let stage = output.cycle?.gate.stages[i]
    signal.cycle = stage
    if let cycle = output.cycle, let stage {
      let t = bars.time[i]
      let row = cycle.timeline.row(at: t)
      signal.cycleDetails = LiveSignal.CycleDetails(
        stage: stage, quarter: row, ageDays: row.map { Int(Double(t - $0.availableAt!) / 86_400) },
        maxAgeDays: cycle.settings.classifier.maxStageAgeDays, momentumQuarters: cycle.settings.classifier.momentumQuarters,
        stageSince: cycle.timeline.changes.last { $0.instant <= t }?.instant,
        series: CycleClassifier.latestReleased(cycle.data, settings: cycle.settings.classifier, at: t))
    }

    // The position: the user's, or the backtest's after the newest bar.
    let result = output.run.result
    var position: LiveSignal.PositionStatus?
    switch source {
    case .user(let held):
      position = status(entryPrice: held.entryPrice, entryTime: held.entryTime, shares: held.shares, close: close, final: final,
                        barsHeld: held.entryInstant.map { t in bars.time.filter { $0 >= t }.count }, source: "user")
    case .flat:
      position = nil
    case .backtest where result.shares[i] != 0:
      guard let last = result.trades.last, last.exitReason == .endOfData else { break }
      position = status(entryPrice: last.entryPrice, entryTime: bars.timeLabel(last.entryBar), shares: last.shares, close: close,
                        final: final, barsHeld: i - last.entryBar + 1, source: "backtest")
    case .backtest:
      position = nil
    }

    // The decision at the newest close, as the engine took it and the strategy explains it.
    switch final.signal {
    case .enterLong: signal.action = .buy
    case .enterShort: signal.action = .short
    case .enter(let order) where order.kind.price?.isNaN == true:
      signal.action = .hold  // a limit or stop whose price is undefined places no order (the reason says so)
    case .enter(let order): signal.action = order.side == .long ? .buy : .short
    case .exitLong(let reason), .exitShort(let reason):
      if case .exitShort = final.signal { signal.action = .cover } else { signal.action = .sell }
      signal.exitReason = reason
      if reason == .cycleExit, case .hold = final.unfiltered, let stage {
        signal.reason = "the economic cycle stage is \(stage.rawValue), one of the exit stages"
      }
    case .hold:
      if final.unfiltered.isEntry, let stage {
        signal.reason = "entry conditions met (\(final.reason)) but the cycle stage \(stage.rawValue) is not allowed"
      }
    }
    let f = { (x: Double) in String(format: "%.2f", x) }
    if var position {
      // The newest bar traded through the user's stop or target: the broker's rule (a gap exits at the
      // open; both touched goes by `broker.intrabar_rule`) says the position is sold, whatever the close decides.
      if case .user = source,
        let exit = BrokerRules.intrabarExit(open: bars.open[i], high: bars.high[i], low: bars.low[i], stop: position.stopLevel ?? -.infinity,
                                            target: position.targetLevel ?? .infinity, rule: output.config.broker.intrabarRule) {
        signal.action = .sell
        signal.exitReason = exit.reason
        signal.reason = Self.levelExitText(exit, open: bars.open[i], stop: position.stopLevel, target: position.targetLevel, f)
      }
      // (The backtest's own position has already left at a level the bar touched.)
      position.exitCondition = signal.action == .sell ? signal.reason : nil
      signal.position = position
    } else if case .backtest = source, signal.action == .hold, let last = result.trades.last, last.exitBar == i,
      last.exitReason == .stopLoss || last.exitReason == .profitTarget {
      // The backtest's position left at its stop or target during the newest bar.
      signal.action = .sell
      signal.exitReason = last.exitReason
      signal.reason = "the backtest's position \(last.exitReason == .stopLoss ? "hit its stop" : "reached its target") at \(f(last.exitPrice)) "
        + "on the newest bar (\(last.exitReason.rawValue))"
    }

    // Alerts: the newest close crossed the level from the previous close.
    let previous = i > 0 ? bars.close[i - 1] : close
    signal.alerts = alerts.map { a in
      switch a.direction {
      case .above: return (a, previous < a.level && close >= a.level)
      case .below: return (a, previous > a.level && close <= a.level)
      }
    }
    if let now {
      let data = output.config.data
      let next = NextBarClose.after(now: now, bars: bars, session: data.session, timeZone: data.timeZone, holidays: holidays)
      signal.nextBarClose = next
      signal.secondsToNextBarClose = next.map { $0 - now }
      let newestClose = NextBarClose.close(of: i, bars: bars, session: data.session, timeZone: data.timeZone)
      signal.barAgeSeconds = now - newestClose
      let expected = NextBarClose.after(now: newestClose, bars: bars, session: data.session, timeZone: data.timeZone, holidays: holidays)
      signal.stale = expected.map { now > $0 } ?? false
    }
    return signal
  }

  /// `the bar traded down to the stop 39.20 (STOP_LOSS)`, or `the bar opened at 38.90, through the stop 39.20 (STOP_LOSS)` on a gap.
  static func levelExitText(_ exit: (price: Double, reason: ExitReason, ambiguous: Bool), open: Double, stop: Double?, target: Double?,
                            _ f: (Double) -> String) -> String {
    let level = exit.reason == .stopLoss ? "the stop \(f(stop!))" : "the target \(f(target!))"
    let what = exit.price == open && exit.price != (exit.reason == .stopLoss ? stop : target)
      ? "the bar opened at \(f(open)), through \(level)"
      : exit.reason == .stopLoss ? "the bar traded down to \(level)" : "the bar reached \(level)"
    return what + (exit.ambiguous ? " (it touched both levels; the intrabar rule takes this one)" : "") + " (\(exit.reason.rawValue))"
  }

  static func status(entryPrice: Double, entryTime: String, shares: Double, close: Double, final: FinalDecision,
                     barsHeld: Int?, source: String) -> LiveSignal.PositionStatus {
    LiveSignal.PositionStatus(
      entryPrice: entryPrice, entryTime: entryTime, shares: shares, unrealizedPnl: shares * (close - entryPrice),
      unrealizedReturn: close / entryPrice - 1, stopLevel: final.stopLoss.map { entryPrice * (1 - $0) },
      targetLevel: final.profitTarget.map { entryPrice * (1 + $0) }, barsHeld: barsHeld, exitCondition: nil, source: source)
  }
}

/// When the next bar closes, in market hours.
package enum NextBarClose {
  /// The bar length: the most common gap between consecutive bars of one day (else one day).
  package static func interval(_ bars: BarSeries) -> Int64 {
    var counts: [Int64: Int] = [:]
    for k in bars.indices.dropFirst() where bars.day[k] == bars.day[k - 1] { counts[bars.time[k] - bars.time[k - 1], default: 0] += 1 }
    return counts.max { ($0.value, -$0.key) < ($1.value, -$1.key) }?.key ?? 86_400
  }

  /// The minute of the day a session closes; daily bars with `session: all`
  /// close at 16:00 (the US exchanges' close: set `data.session` for another market).
  static func closingMinute(_ session: SessionWindow, daily: Bool) -> Int {
    switch session {
    case .all: return daily ? 960 : 1440
    case .window(_, let b): return b
    }
  }

  /// When bar `i` closes: its start plus the bar length, or for date-only
  /// bars the session's close that day (`closingMinute`).
  package static func close(of i: Int, bars: BarSeries, session: SessionWindow, timeZone: TimeZone) -> Int64 {
    guard bars.isDateOnly else { return bars.time[i] + interval(bars) }
    var resolver = TimeZoneResolver(timeZone)
    return resolver.instant(ofLocal: Int64(bars.day[i]) * 86_400 + Int64(closingMinute(session, daily: true)) * 60, after: nil)
      ?? bars.time[i] + 86_400
  }

  /// The first bar close after `now`: bars start on the session's grid (from the
  /// session's open), weekdays only, never on a holiday (days since 1970, local);
  /// date-only bars close at the session's close (`closingMinute`).
  package static func after(now: Int64, bars: BarSeries, session: SessionWindow, timeZone: TimeZone, holidays: Set<Int>) -> Int64? {
    let step = interval(bars)
    var resolver = TimeZoneResolver(timeZone)
    let open: Int
    switch session {
    case .all: open = 0
    case .window(let a, _): open = a
    }
    let close = closingMinute(session, daily: bars.isDateOnly || step >= 86_400)
    let localNow = now + Int64(resolver.offset(at: now))
    var day = CivilDate.day(ofSeconds: localNow)
    for _ in 0..<30 {
      let tradingDay = CivilDate.weekday(days: day) < 5 && !holidays.contains(day)
      if tradingDay {
        var start = Int64(open) * 60
        while start + step <= Int64(close) * 60 || (step >= 86_400 && start == Int64(open) * 60) {
          let end = min(start + step, Int64(close) * 60)
          if let instant = resolver.instant(ofLocal: Int64(day) * 86_400 + end, after: nil), instant > now { return instant }
          start += step
          if step >= 86_400 { break }
        }
      }
      day += 1
    }
    return nil
  }
}
