/// A commission charged on each fill.
public enum Commission: Sendable, Equatable {
  /// No commission.
  case none
  /// A fixed amount per fill (entry and exit each pay it).
  case perTrade(Double)
  /// An amount per share filled.
  case perShare(Double)
  /// A fraction of the notional (`0.001` = 0.1%).
  case percent(Double)

  /// Returns the commission for filling `shares` at `price`.
  @inlinable
  public func fee(shares: Double, price: Double) -> Double {
    switch self {
    case .none: return 0
    case .perTrade(let amount): return amount
    case .perShare(let amount): return amount * shares
    case .percent(let rate): return rate * shares * price
    }
  }

  /// Returns the shares, fractions included, that `cash` buys at `price` with this commission (may be negative).
  @inlinable
  public func affordableQuantity(cash: Double, price: Double) -> Double {
    switch self {
    case .none: return cash / price
    case .perTrade(let amount): return (cash - amount) / price
    case .perShare(let amount): return cash / (price + amount)
    case .percent(let rate): return cash / (price * (1 + rate))
    }
  }

  /// Returns the most whole shares that `cash` buys at `price` with this commission.
  @inlinable
  public func affordableShares(cash: Double, price: Double) -> Double {
    max(0, affordableQuantity(cash: cash, price: price).rounded(.down))
  }

}

/// How many shares an entry buys.
public enum Sizing: Sendable, Equatable {
  /// As many whole shares as the cash buys (the default).
  case allIn
  /// A fixed number of shares (fewer if the cash does not reach).
  case fixedShares(Double)
  /// Whole shares for this fraction of the cash (`0.5` = half).
  case fraction(Double)
  /// Risk this fraction of the equity at the stop: `floor(equity × risk / (fill price × stop distance))` shares, the stop
  /// distance being the entry's stop-loss fraction; within the cash. An entry without a stop buys nothing.
  case risk(Double)
  /// Aim at this annualized volatility: the fraction `min(1, target / σ)` of the equity, `σ` the sample deviation of
  /// the last `lookback` daily returns (day-end closes) known at the decision, × √252; within the cash. Nothing before
  /// `lookback` returns are known.
  case volatilityTarget(Double, lookback: Int)
  /// Whole shares for this much money (the commission included), within the cash.
  case fixedCash(Double)
}

/// How the simulated broker fills orders.
public struct BrokerSettings: Sendable, Equatable {
  /// The cash the account starts with, in money (default 100,000).
  public var initialCash: Double = 100_000
  /// How many shares each entry buys (default `.allIn`).
  public var sizing: Sizing = .allIn
  /// The commission charged on each fill (default `.none`).
  public var commission: Commission = .none
  /// Slippage in basis points: buys fill this much above the price, sells below,
  /// never outside the bar's low–high range.
  public var slippageBasisPoints: Double = 0
  /// How bars whose order of events OHLC cannot tell are filled.
  public var intrabarRule: IntrabarRule = .conservative
  /// The yearly rate a short position pays on its value (`0.03` = 3%), accrued per calendar day.
  public var borrowRate: Double = 0

  /// Creates the defaults: 100,000 cash, all in, no commission, no slippage, the conservative intrabar rule, no
  /// borrow cost.
  public init() {}
}
