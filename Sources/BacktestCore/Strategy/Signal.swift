/// What a strategy wants done after the close of a bar; orders fill at the
/// next bar's open (`Docs/orders.md`).
public enum Signal: Equatable, Sendable {
  /// Do nothing at the next open.
  case hold
  /// Close the open long position at the next open, for this reason (a
  /// strategy's own rule is `.technical`).
  case exitLong(ExitReason)
  /// Open a long position at the next open. `stopLoss` and `profitTarget` are
  /// fractions of the entry fill price (`0.02` = 2%), checked intrabar by the
  /// broker from the entry bar on; `nil` disables each.
  case enterLong(stopLoss: Double?, profitTarget: Double?)
  /// Open a short position at the next open: the stop `stopLoss` above the
  /// entry fill, the target `profitTarget` below it.
  case enterShort(stopLoss: Double?, profitTarget: Double?)
  /// Close the open short position at the next open, for this reason.
  case exitShort(ExitReason)
  /// An entry order of any kind: long or short, at the market, a limit or a
  /// stop price, with its own exits (stop, target, trailing stop, a time limit).
  /// (Boxed, so that the common signals stay small: `decide` returns one per bar.)
  indirect case enter(EntryOrder)
}

extension Signal {
  /// Whether the signal opens a position (of either side, any order).
  public var isEntry: Bool {
    switch self {
    case .enterLong, .enterShort, .enter: return true
    case .hold, .exitLong, .exitShort: return false
    }
  }

  /// Whether the signal closes a position.
  public var isExit: Bool {
    switch self {
    case .exitLong, .exitShort: return true
    case .hold, .enterLong, .enterShort, .enter: return false
    }
  }
}
