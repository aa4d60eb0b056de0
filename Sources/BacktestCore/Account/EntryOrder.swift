/// An entry a strategy asks for at a bar's close (`Signal.enter`).
public struct EntryOrder: Sendable, Equatable {
  /// Which way a position faces; the raw value is the spelling in `trades.csv`.
  public enum Side: String, Sendable, Equatable {
    /// Bought, then sold to close.
    case long
    /// Sold short, then bought back to close.
    case short
  }
  /// When the entry fills: at the next open, or at a limit or stop price.
  public enum Kind: Sendable, Equatable {
    /// At the next open.
    case market
    /// A buy at `price` or lower (a short sale at `price` or higher): at the open when the open is
    /// already there, else at `price` when the bar reaches it.
    case limit(Double)
    /// A buy at `price` or higher (a short sale at `price` or lower), the same way.
    case stop(Double)

    /// The limit or stop price; `nil` for a market order.
    public var price: Double? {
      switch self {
      case .market: nil
      case .limit(let p), .stop(let p): p
      }
    }
  }
  /// Long or short.
  public var side: Side
  /// Market, limit or stop.
  public var kind: Kind
  /// How many bars a limit or stop order waits for its price before it expires (at least 1).
  public var validBars: Int
  /// The stop's distance as a fraction of the entry fill (`0.02` = 2%), below a long's entry, above a short's; `nil`
  /// for none.
  public var stopLoss: Double?
  /// The target's distance as a fraction of the entry fill, above a long's entry, below a short's; `nil` for none.
  public var profitTarget: Double?
  /// A stop that follows the best close since the entry at this distance (`0.03` = 3%).
  public var trailingStop: Double?
  /// Closes the position at the next open after it has been held this many bars (the entry bar counts 1).
  public var maxBarsHeld: Int?

  /// Creates an order; a `validBars` below 1 is stored as 1.
  public init(side: Side = .long, kind: Kind = .market, validBars: Int = 1, stopLoss: Double? = nil, profitTarget: Double? = nil,
              trailingStop: Double? = nil, maxBarsHeld: Int? = nil) {
    self.side = side
    self.kind = kind
    self.validBars = max(1, validBars)
    self.stopLoss = stopLoss
    self.profitTarget = profitTarget
    self.trailingStop = trailingStop
    self.maxBarsHeld = maxBarsHeld
  }
}
