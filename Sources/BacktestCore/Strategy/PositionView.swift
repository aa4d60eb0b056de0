/// What a strategy may know of the position at a bar's close: `decide(at:position:)` receives it after the bar's
/// fills and intrabar exits (a position stopped out during bar `i` is already flat at `i`'s close).
public struct PositionView: Sendable, Equatable {
  /// Shares held: positive long, negative short, 0 flat.
  public var shares: Double
  /// The entry's fill price, slippage included (stop and target levels are measured from it); 0 when flat.
  public var entryPrice: Double
  /// The bar of the entry fill (the bar after the decision for a market order); `-1` when flat.
  public var entryBar: Int
  /// Whether a position is open.
  public var isOpen: Bool { shares != 0 }
  /// Whether the position is long.
  public var isLong: Bool { shares > 0 }
  /// Whether the position is short.
  public var isShort: Bool { shares < 0 }

  /// Bars since the entry fill at bar `i`'s close: 0 on the entry bar, 1 on the next; 0 when flat. The rules'
  /// `bars_held`; a trade that exits at bar `x` shows `x - entryBar + 1` in trades.csv (`Docs/orders.md`).
  @inlinable
  public func barsHeld(at i: Int) -> Int { isOpen ? i - entryBar : 0 }

  /// A position of `shares` entered at `entryPrice` on bar `entryBar`.
  public init(shares: Double, entryPrice: Double, entryBar: Int) {
    self.shares = shares
    self.entryPrice = entryPrice
    self.entryBar = entryBar
  }

  /// No position.
  public static let flat = PositionView(shares: 0, entryPrice: 0, entryBar: -1)
}
