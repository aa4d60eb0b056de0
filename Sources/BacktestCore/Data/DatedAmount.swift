/// One dated amount for `xirr`: negative when the investor pays in, positive when paid out.
public struct DatedAmount: Sendable, Equatable {
  /// Days since 1970-01-01.
  public var day: Int
  /// The amount: negative when paid in, positive when paid out.
  public var amount: Double

  /// The amount `amount` on `day` (days since 1970-01-01).
  public init(day: Int, amount: Double) {
    self.day = day
    self.amount = amount
  }
}
