import Foundation

/// An open position as the user holds it (from the journal or `--position`).
public struct HeldPosition: Sendable, Equatable {
  public var entryPrice: Double
  /// The entry time as the user gave it (shown as is).
  public var entryTime: String
  public var entryInstant: Int64?
  public var shares: Double

  public init(entryPrice: Double, entryTime: String, entryInstant: Int64?, shares: Double) {
    self.entryPrice = entryPrice
    self.entryTime = entryTime
    self.entryInstant = entryInstant
    self.shares = shares
  }
}

/// A price alert from the run file: `{above: 27.5}` or `{below: 25}`.
public struct PriceAlert: Sendable, Equatable {
  public enum Direction: String, Sendable { case above, below }
  public var direction: Direction
  public var level: Double
}

/// The answer to "what is the signal now?" for the newest closed bar.
///
/// Computed by the same strategy code as a backtest: the engine runs over
/// every bar, and the decision at the newest bar's close is the signal.
public struct LiveSignal: Sendable {
  public enum Action: String, Sendable { case buy = "BUY", sell = "SELL", hold = "HOLD" }
  public enum Zone: String, Sendable { case oversold, neutral, overbought }

  public var action: Action
  public var reason: String
  public var time: String
  public var close: Double
  /// Change against the last close of the previous day (nil on the first day).
  public var dayChange: Double?
  public var dayChangeFraction: Double?
  public var lower: Double?, middle: Double?, upper: Double?
  /// Position of the close within the bands: 0 at the lower band, 1 at the upper.
  public var percentB: Double?
  public var rsi: Double?
  public var zone: Zone?
  /// Close relative to the middle band (0.01 = 1% above).
  public var distanceFromMean: Double?
  public var cycle: CycleStage?
  public var position: PositionStatus?
  public var alerts: [(alert: PriceAlert, crossed: Bool)]
  /// Seconds until the bar after the newest one closes (market hours, weekends and holidays skipped).
  public var secondsToNextBarClose: Int64?
  public var nextBarClose: Int64?

  /// An open position marked to the newest close.
  public struct PositionStatus: Sendable {
    public var entryPrice: Double
    public var entryTime: String
    public var shares: Double
    public var unrealizedPnl: Double
    public var unrealizedReturn: Double
    public var stopLevel: Double?
    public var targetLevel: Double?
    public var barsHeld: Int?
    /// Whether an exit condition of the strategy is met at the newest close (with its reason).
    public var exitCondition: String?
    /// `backtest` when the position is the one the backtest holds, `journal` or `file` otherwise.
    public var source: String
  }
}

/// Computes the live signal of a `bollinger_rsi` run.
public enum LiveSignalAnalyzer {
  /// Whose position the signal is for.
  public enum PositionSource: Sendable {
    /// The position the backtest holds after the newest bar.
    case backtest
    /// The user's open position (from the journal or `--position`).
    case user(HeldPosition)
    /// The user holds nothing (the journal has no open trade).
    case flat
  }

  /// - Parameters:
  ///   - now: the current instant (seconds since 1970), for the time to the next bar close.
  public static func analyze(_ output: RunOutput, position source: PositionSource, alerts: [PriceAlert], holidays: Set<Int>,
                             now: Int64?) -> LiveSignal {
    let bars = output.bars
    let i = bars.count - 1
    let p = output.config.strategy.parameters as? BollingerRSI.Parameters
    func column(_ name: String) -> Double? {
      guard let c = output.run.indicators.first(where: { $0.name == name }), !c.values[i].isNaN else { return nil }
      return c.values[i]
    }
    let close = bars.close[i]
    let lower = column("bb_lower"), middle = column("bb_mid"), upper = column("bb_upper"), rsi = column("rsi")
    var signal = LiveSignal(action: .hold, reason: "", time: bars.timeLabel(i), close: close, lower: lower, middle: middle,
                            upper: upper, rsi: rsi, alerts: [])
    // Day's change: against the previous day's last close.
    if let k = (0..<i).last(where: { bars.day[$0] != bars.day[i] }) {
      signal.dayChange = close - bars.close[k]
      signal.dayChangeFraction = close / bars.close[k] - 1
    }
    if let lower, let upper, upper > lower { signal.percentB = (close - lower) / (upper - lower) }
    if let middle { signal.distanceFromMean = close / middle - 1 }
    if let rsi, let p { signal.zone = rsi < p.oversold ? .oversold : rsi > p.overbought ? .overbought : .neutral }
    signal.cycle = output.cycle?.gate.stages[i]

    // The position: the user's, or the backtest's after the newest bar.
    let result = output.run.result
    var position: LiveSignal.PositionStatus?
    switch source {
    case .user(let held):
      position = status(entryPrice: held.entryPrice, entryTime: held.entryTime, shares: held.shares, close: close, p: p,
                        barsHeld: held.entryInstant.map { t in bars.time.filter { $0 >= t }.count }, source: "user")
    case .flat:
      position = nil
    case .backtest where result.shares[i] > 0:
      guard let last = result.trades.last, last.exitReason == .endOfData else { break }
      position = status(entryPrice: last.entryPrice, entryTime: bars.timeLabel(last.entryBar), shares: last.shares, close: close,
                        p: p, barsHeld: i - last.entryBar + 1, source: "backtest")
    case .backtest:
      position = nil
    }

    // The decision at the newest close, explained.
    if let p, let lower, let upper, let rsi {
      let f = { (x: Double) in String(format: "%.2f", x) }
      if position == nil {
        let allowed = output.cycle?.gate.allowsEntry(at: i) ?? true
        if close < lower && rsi < p.oversold {
          if allowed {
            signal.action = .buy
            signal.reason = "close \(f(close)) < lower band \(f(lower)) and RSI \(String(format: "%.1f", rsi)) < \(formatPlain(p.oversold))"
          } else {
            signal.reason = "buy conditions met (close \(f(close)) < lower band \(f(lower)), RSI \(String(format: "%.1f", rsi)) < \(formatPlain(p.oversold))) but the cycle stage \(output.cycle!.gate.stages[i].rawValue) is not allowed"
          }
        } else {
          var why: [String] = []
          if !(close < lower) { why.append("close \(f(close)) is not below the lower band \(f(lower))") }
          if !(rsi < p.oversold) { why.append("RSI \(String(format: "%.1f", rsi)) is not below \(formatPlain(p.oversold))") }
          signal.reason = "no entry: " + why.joined(separator: "; ")
        }
      } else if let exit = exitReason(close: close, upper: upper, rsi: rsi, p: p) {
        signal.action = .sell
        signal.reason = exit
      } else {
        signal.reason = "holding: close \(f(close)) is not above the upper band \(f(upper)) and RSI \(String(format: "%.1f", rsi)) is not above \(formatPlain(p.overbought))"
      }
      if var position {
        let stopHit = position.stopLevel.map { bars.low[i] <= $0 } ?? false
        let targetHit = position.targetLevel.map { bars.high[i] >= $0 } ?? false
        position.exitCondition = exitReason(close: close, upper: upper, rsi: rsi, p: p)
          ?? (stopHit ? "the bar traded down to the stop \(f(position.stopLevel!))" : targetHit ? "the bar reached the target \(f(position.targetLevel!))" : nil)
        signal.position = position
      }
    } else {
      signal.reason = "not enough bars yet for every indicator"
      signal.position = position
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
      let next = NextBarClose.after(now: now, bars: bars, session: output.config.data.session,
                                    timeZone: output.config.data.timeZone, holidays: holidays)
      signal.nextBarClose = next
      signal.secondsToNextBarClose = next.map { $0 - now }
    }
    return signal
  }

  static func exitReason(close: Double, upper: Double, rsi: Double, p: BollingerRSI.Parameters) -> String? {
    let f = { (x: Double) in String(format: "%.2f", x) }
    if close > upper { return "close \(f(close)) > upper band \(f(upper))" }
    if rsi > p.overbought { return "RSI \(String(format: "%.1f", rsi)) > \(formatPlain(p.overbought))" }
    return nil
  }

  static func status(entryPrice: Double, entryTime: String, shares: Double, close: Double, p: BollingerRSI.Parameters?,
                     barsHeld: Int?, source: String) -> LiveSignal.PositionStatus {
    LiveSignal.PositionStatus(
      entryPrice: entryPrice, entryTime: entryTime, shares: shares, unrealizedPnl: shares * (close - entryPrice),
      unrealizedReturn: close / entryPrice - 1, stopLevel: p?.stopLoss.map { entryPrice * (1 - $0) },
      targetLevel: p?.profitTarget.map { entryPrice * (1 + $0) }, barsHeld: barsHeld, exitCondition: nil, source: source)
  }
}

/// When the next bar closes, in market hours.
public enum NextBarClose {
  /// The bar length: the most common gap between consecutive bars of one day (else one day).
  public static func interval(_ bars: BarSeries) -> Int64 {
    var counts: [Int64: Int] = [:]
    for k in bars.indices.dropFirst() where bars.day[k] == bars.day[k - 1] { counts[bars.time[k] - bars.time[k - 1], default: 0] += 1 }
    return counts.max { ($0.value, -$0.key) < ($1.value, -$1.key) }?.key ?? 86_400
  }

  /// The first bar close after `now`: bars start on the session's grid (from the
  /// session's open), weekdays only, never on a holiday (days since 1970, local).
  public static func after(now: Int64, bars: BarSeries, session: SessionWindow, timeZone: TimeZone, holidays: Set<Int>) -> Int64? {
    let step = interval(bars)
    var resolver = TimeZoneResolver(timeZone)
    let (open, close): (Int, Int)
    switch session {
    case .all: (open, close) = (0, 1440)
    case .window(let a, let b): (open, close) = (a, b)
    }
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
