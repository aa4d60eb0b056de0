/// Why a position was closed. The raw value is the spelling in `trades.csv`.
public enum ExitReason: String, Sendable, CaseIterable, Comparable {
  /// The stop-loss level was reached (filled at the level, or at the open when the bar gaps past it).
  case stopLoss = "STOP_LOSS"
  /// The profit-target level was reached (filled at the level, or at the open when the bar gaps past it).
  case profitTarget = "PROFIT_TARGET"
  /// The strategy's own exit rule fired at a close; filled at the next open.
  case technical = "TECHNICAL"
  /// The economic-cycle stage turned to one of `cycle.exit_stages`.
  case cycleExit = "CYCLE_EXIT"
  /// The trailing stop (`EntryOrder.trailingStop`) was reached.
  case trailingStop = "TRAILING_STOP"
  /// The position was held `EntryOrder.maxBarsHeld` bars.
  case time = "TIME"
  /// The position was still open after the last bar; closed at that bar's close.
  case endOfData = "END_OF_DATA"

  public static func < (a: ExitReason, b: ExitReason) -> Bool {
    allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
  }
}

/// A closed round trip from the entry fill to the exit fill, long or short.
public struct Trade: Sendable, Equatable {
  /// Long (bought, then sold) or short (sold, then bought back).
  public var side = EntryOrder.Side.long
  /// Bar of the entry fill (at its open).
  public var entryBar: Int
  /// Entry fill price per share, slippage included.
  public var entryPrice: Double
  /// Bar of the exit fill (its open, an intrabar level, or its close at the end).
  public var exitBar: Int
  /// Exit fill price per share, slippage included.
  public var exitPrice: Double
  /// Shares traded (positive for either side).
  public var shares: Double
  /// Commission paid on the entry fill, in money.
  public var entryFee: Double
  /// Commission paid on the exit fill, in money.
  public var exitFee: Double
  /// Why the position was closed.
  public var exitReason: ExitReason
  /// Whether the exit bar touched both levels (or a level on a bar whose
  /// entry filled inside it): the fill order is unknowable from OHLC.
  public var ambiguous = false
  /// Dividends earned while the position was open (its shares held at the
  /// close before an ex-date), whether paid before or after the exit; a
  /// short pays them (negative).
  public var dividends = 0.0

  /// Total commission, `entryFee + exitFee`.
  public var fees: Double { entryFee + exitFee }
  /// Profit in money: `shares * (exit - entry) - fees + dividends` for a long,
  /// `shares * (entry - exit) - fees + dividends` for a short.
  public var pnl: Double {
    side == .long ? shares * (exitPrice - entryPrice) - fees + dividends : shares * (entryPrice - exitPrice) - fees + dividends
  }
  /// Return on the position: `exit / entry - 1` (the spec's formula) when no
  /// commission was paid and no dividend earned; otherwise the money that came
  /// back over the money that went in,
  /// `(shares * exit - exitFee + dividends) / (shares * entry + entryFee) - 1`.
  /// For a short: `1 - exit / entry`, or `pnl / (shares * entry + entryFee)` with fees or dividends.
  public var returnFraction: Double {
    if side == .short {
      if entryFee == 0 && exitFee == 0 && dividends == 0 { return 1 - exitPrice / entryPrice }
      return pnl / (shares * entryPrice + entryFee)
    }
    if entryFee == 0 && exitFee == 0 && dividends == 0 { return exitPrice / entryPrice - 1 }
    return (shares * exitPrice - exitFee + dividends) / (shares * entryPrice + entryFee) - 1
  }
  /// Bars from the entry fill through the exit, both counted.
  public var barsHeld: Int { exitBar - entryBar + 1 }

  /// Creates a long trade with no dividends, not ambiguous; set `side`, `ambiguous` and `dividends` afterwards.
  public init(entryBar: Int, entryPrice: Double, exitBar: Int, exitPrice: Double, shares: Double, entryFee: Double = 0,
              exitFee: Double = 0, exitReason: ExitReason) {
    self.entryBar = entryBar
    self.entryPrice = entryPrice
    self.exitBar = exitBar
    self.exitPrice = exitPrice
    self.shares = shares
    self.entryFee = entryFee
    self.exitFee = exitFee
    self.exitReason = exitReason
  }
}
