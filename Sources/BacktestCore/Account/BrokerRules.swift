/// Which exit OHLC bars are assumed to have taken when a bar touches both the stop and the target.
public enum IntrabarRule: String, Sendable, Equatable {
  /// The stop (the spec's rule, the default).
  case conservative
  /// The target.
  case optimistic
}

/// The broker's fill rules (`Docs/spec/bb-rsi-swing.md`), written once and
/// inlined into both the general engine and the sweep kernel.
public enum BrokerRules {
  /// The buy fill at a bar's open: `open`, or `open × (1 + slip)` capped at the bar's high.
  @inlinable @inline(__always)
  public static func buyPrice(open: Double, high: Double, slip: Double) -> Double {
    slip == 0 ? open : min(high, open * (1 + slip))
  }

  /// A sell fill at `price`: the price itself, or `price × (1 - slip)` floored at the bar's low.
  @inlinable @inline(__always)
  public static func sellPrice(_ price: Double, low: Double, slip: Double) -> Double {
    slip == 0 ? price : max(low, price * (1 - slip))
  }

  /// Whole shares an entry buys at `price` with `cash`.
  @inlinable @inline(__always)
  public static func entryShares(cash: Double, price: Double, sizing: Sizing, commission: Commission) -> Double {
    entryShares(cash: cash, price: price, sizing: sizing, commission: commission, stopLoss: nil, exposure: 1)
  }

  /// The shares an entry at `price` buys (or sells short) with `cash`, the account's equity when flat: `stopLoss` is
  /// the entry's stop distance (a fraction of the fill; `risk` sizing), `exposure` the volatility target's fraction
  /// of the equity at the decision (`volatilityFractions`).
  @inlinable
  public static func entryShares(cash: Double, price: Double, sizing: Sizing, commission: Commission, stopLoss: Double?,
                                 exposure: Double) -> Double {
    switch sizing {
    case .allIn: return commission.affordableShares(cash: cash, price: price)
    case .fraction(let f): return commission.affordableShares(cash: cash * f, price: price)
    case .fixedShares(let k): return min(k, commission.affordableShares(cash: cash, price: price))
    case .risk(let r):
      guard let stopLoss, stopLoss > 0 else { return 0 }
      return min((cash * r / (price * stopLoss)).rounded(.down), commission.affordableShares(cash: cash, price: price))
    case .volatilityTarget:
      guard exposure > 0 else { return 0 }
      return commission.affordableShares(cash: cash * exposure, price: price)
    case .fixedCash(let money): return commission.affordableShares(cash: min(money, cash), price: price)
    }
  }

  /// For `Sizing.volatilityTarget`: at each bar, the fraction of the equity an entry decided at its close may take,
  /// `min(1, target / σ)` with `σ` the sample deviation of the last `lookback` returns of the day-end closes up to
  /// and including this bar's (its day's close so far), × √252; 0 before `lookback` such returns, or when they do not
  /// vary.
  public static func volatilityFractions(_ bars: BarSeries, target: Double, lookback: Int) -> ContiguousArray<Double> {
    var out = ContiguousArray<Double>(repeating: 0, count: bars.count)
    // The closes of the days before the current one (the current one's close so far is the bar's).
    var dayCloses: [Double] = []
    var returns = [Double](repeating: 0, count: lookback)
    for i in bars.indices {
      if i > 0 && bars.day[i] != bars.day[i - 1] { dayCloses.append(bars.close[i - 1]) }
      guard dayCloses.count >= lookback else { continue }
      // The window's closes: the last `lookback` days before this one, then this bar's close.
      func close(_ k: Int) -> Double { k == lookback ? bars.close[i] : dayCloses[dayCloses.count - lookback + k] }
      var sum = 0.0
      for k in 0..<lookback { returns[k] = close(k + 1) / close(k) - 1; sum += returns[k] }
      guard lookback > 1 else { continue }
      let mean = sum / Double(lookback)
      var squares = 0.0
      for r in returns { squares += (r - mean) * (r - mean) }
      let deviation = (squares / Double(lookback - 1)).squareRoot()
      if deviation > 0 && deviation.isFinite { out[i] = min(1, target / (deviation * 252.0.squareRoot())) }
    }
    return out
  }

  /// The stop and target levels of an entry at `price` (`-inf` / `+inf` when off),
  /// computed in binary floating point exactly as the spec writes them.
  @inlinable @inline(__always)
  public static func levels(entry price: Double, stopLoss: Double?, profitTarget: Double?) -> (stop: Double, target: Double) {
    (stopLoss.map { price * (1 - $0) } ?? -.infinity, profitTarget.map { price * (1 + $0) } ?? .infinity)
  }

  /// The intrabar exit of an open position, before slippage: a gap through a
  /// level exits at the open; else the stop or the target at its level; `nil`
  /// when neither is touched.
  ///
  /// The open is the bar's first price, so a position entered at this open
  /// sees the whole bar after its fill: a level touched on the entry bar is as
  /// certain as on any later bar. Only a bar that touches both levels (without
  /// a gap) leaves the order of events unknown: that exit is `ambiguous`; the
  /// conservative rule (the spec's) takes the stop, the optimistic one the target.
  @inlinable @inline(__always)
  public static func intrabarExit(open: Double, high: Double, low: Double, stop: Double, target: Double,
                                  rule: IntrabarRule = .conservative)
    -> (price: Double, reason: ExitReason, ambiguous: Bool)?
  {
    if open <= stop { return (open, .stopLoss, false) }
    if open >= target { return (open, .profitTarget, false) }
    let stopTouched = low <= stop, targetTouched = high >= target
    if stopTouched && targetTouched {
      return rule == .conservative ? (stop, .stopLoss, true) : (target, .profitTarget, true)
    }
    if stopTouched { return (stop, .stopLoss, false) }
    if targetTouched { return (target, .profitTarget, false) }
    return nil
  }

  /// Where an entry order fills during a bar, before it is sized: a market
  /// order at the open (with slippage); a limit at the open when the open is
  /// already at or through the limit, else at the limit when the bar reaches
  /// it (never worse than the limit: no slippage); a stop at the open when
  /// the open is at or through it, else at the stop when the bar reaches it
  /// (with slippage). `inside` is true when the fill is after the open.
  /// `nil`: the bar does not reach the order's price.
  @inlinable @inline(__always)
  public static func entryFill(_ kind: EntryOrder.Kind, side: EntryOrder.Side, open: Double, high: Double, low: Double,
                               slip: Double) -> (price: Double, inside: Bool)? {
    let long = side == .long
    switch kind {
    case .market:
      return (long ? buyPrice(open: open, high: high, slip: slip) : sellPrice(open, low: low, slip: slip), false)
    case .limit(let limit):
      if long ? open <= limit : open >= limit { return (open, false) }
      if long ? low <= limit : high >= limit { return (limit, true) }
      return nil
    case .stop(let stop):
      if long ? open >= stop : open <= stop {
        return (long ? buyPrice(open: open, high: high, slip: slip) : sellPrice(open, low: low, slip: slip), false)
      }
      if long ? high >= stop : low <= stop {
        return (long ? buyPrice(open: stop, high: high, slip: slip) : sellPrice(stop, low: low, slip: slip), true)
      }
      return nil
    }
  }

  /// A short's stop (`stopLoss` above the entry) and target (`profitTarget` below), `+inf` / `-inf` when off.
  @inlinable @inline(__always)
  public static func shortLevels(entry price: Double, stopLoss: Double?, profitTarget: Double?) -> (stop: Double, target: Double) {
    (stopLoss.map { price * (1 + $0) } ?? .infinity, profitTarget.map { price * (1 - $0) } ?? -.infinity)
  }

  /// `intrabarExit` for a short: the stop above, the target below, mirrored (a
  /// gap through a level exits at the open; both touched is ambiguous, the stop winning under the conservative rule).
  @inlinable @inline(__always)
  public static func shortIntrabarExit(open: Double, high: Double, low: Double, stop: Double, target: Double,
                                       rule: IntrabarRule = .conservative) -> (price: Double, reason: ExitReason, ambiguous: Bool)? {
    if open >= stop { return (open, .stopLoss, false) }
    if open <= target { return (open, .profitTarget, false) }
    let stopTouched = high >= stop, targetTouched = low <= target
    if stopTouched && targetTouched {
      return rule == .conservative ? (stop, .stopLoss, true) : (target, .profitTarget, true)
    }
    if stopTouched { return (stop, .stopLoss, false) }
    if targetTouched { return (target, .profitTarget, false) }
    return nil
  }
}
