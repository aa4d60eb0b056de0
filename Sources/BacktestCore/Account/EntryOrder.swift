/// An entry a strategy asks for at a bar's close (`Signal.enter`).
public struct EntryOrder: Sendable, Equatable {
  public enum Side: String, Sendable, Equatable { case long, short }
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
  public var side: Side
  public var kind: Kind
  /// How many bars a limit or stop order waits for its price before it expires (at least 1).
  public var validBars: Int
  /// Fractions of the entry fill (`0.02` = 2%): the stop below a long's entry (above a short's), the target above (below).
  public var stopLoss: Double?
  public var profitTarget: Double?
  /// A stop that follows the best close since the entry at this distance (`0.03` = 3%).
  public var trailingStop: Double?
  /// Closes the position at the next open after it has been held this many bars (the entry bar counts 1).
  public var maxBarsHeld: Int?

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
