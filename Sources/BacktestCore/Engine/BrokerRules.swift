/// The broker's fill rules (`shared/spec/bb-rsi-swing.md`), written once and
/// inlined into both the general engine and the sweep kernel.
public enum BrokerRules {
  /// The buy fill at a bar's open: `open`, or `open × (1 + slip)` capped at the bar's high.
  @inline(__always)
  public static func buyPrice(open: Double, high: Double, slip: Double) -> Double {
    slip == 0 ? open : min(high, open * (1 + slip))
  }

  /// A sell fill at `price`: the price itself, or `price × (1 - slip)` floored at the bar's low.
  @inline(__always)
  public static func sellPrice(_ price: Double, low: Double, slip: Double) -> Double {
    slip == 0 ? price : max(low, price * (1 - slip))
  }

  /// Whole shares an entry buys at `price` with `cash`.
  @inline(__always)
  public static func entryShares(cash: Double, price: Double, sizing: Sizing, commission: Commission) -> Double {
    switch sizing {
    case .allIn: return commission.affordableShares(cash: cash, price: price)
    case .fraction(let f): return commission.affordableShares(cash: cash * f, price: price)
    case .fixedShares(let k): return min(k, commission.affordableShares(cash: cash, price: price))
    }
  }

  /// The stop and target levels of an entry at `price` (`-inf` / `+inf` when off),
  /// computed in binary floating point exactly as the spec writes them.
  @inline(__always)
  public static func levels(entry price: Double, stopLoss: Double?, profitTarget: Double?) -> (stop: Double, target: Double) {
    (stopLoss.map { price * (1 - $0) } ?? -.infinity, profitTarget.map { price * (1 + $0) } ?? .infinity)
  }

  /// The intrabar exit of an open position, before slippage: a gap through a
  /// level exits at the open; else the stop (winning when both are touched,
  /// `ambiguous` then) or the target at its level; `nil` when neither is touched.
  @inline(__always)
  public static func intrabarExit(open: Double, high: Double, low: Double, stop: Double, target: Double)
    -> (price: Double, reason: ExitReason, ambiguous: Bool)?
  {
    if open <= stop { return (open, .stopLoss, false) }
    if open >= target { return (open, .profitTarget, false) }
    if low <= stop { return (stop, .stopLoss, high >= target) }
    if high >= target { return (target, .profitTarget, false) }
    return nil
  }
}
