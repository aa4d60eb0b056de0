/// How a rule's entries are placed (`strategy.entry_order`, `Docs/orders.md`):
///
///     entry_order: {type: limit, price: close * 0.99, valid_bars: 3}
///
/// `market` (the default) fills at the next open; `limit` and `stop` at the
/// price the expression gives at the decision bar's close, waiting up to
/// `valid_bars` bars (default 1). Where the price is undefined no order is
/// placed (`BacktestResult.fills.unpricedOrders`).
package struct RuleOrder: Sendable, Hashable {
  enum Kind: String, Sendable, CaseIterable { case market, limit, stop }
  var kind = Kind.market
  /// The limit or stop price, checked and with params replaced by their values; `nil` at the market.
  var price: RuleExpression?
  /// The price as written, on one line.
  var priceText = ""
  var validBars = 1

  /// The order for reports: `market`, `limit at close * 0.99 for 3 bars`.
  var text: String {
    kind == .market ? "market" : "\(kind.rawValue) at \(priceText) for \(validBars) bar\(validBars == 1 ? "" : "s")"
  }

  /// Reads `type`, `price` (required for a limit or stop, refused at the market) and `valid_bars`.
  ///
  /// - Throws: `InputError` at the offending key or token.
  static func read(_ table: ConfigTable, params: [String: Double]) throws -> RuleOrder {
    var order = RuleOrder()
    let type = try table.choice("type", Kind.allCases.map(\.rawValue), default: "market")!
    order.kind = Kind(rawValue: type)!
    let priceNode = table.node("price")
    switch (order.kind, priceNode) {
    case (.market, let node?):
      throw InputError("'strategy.entry_order.price' is for a limit or stop order; expected 'type: limit' or 'type: stop', or no price",
                       at: node.location)
    case (.limit, nil), (.stop, nil):
      throw InputError("missing 'strategy.entry_order.price'; expected the \(type) price as an expression such as 'close * 0.99'",
                       at: table.location)
    case (_, let node?):
      order.price = try RulesStrategy.Parameters.expression(node, key: "strategy.entry_order.price", expected: "a price expression") { (text: String) throws(RuleError) in
        try RuleChecker.number(text, params: params, key: "strategy.entry_order.price")
      }
      order.priceText = RulesStrategy.Parameters.tidy(node)
    case (.market, nil):
      break
    }
    order.validBars = try table.int("valid_bars", default: 1, in: 1...10_000_000)!
    if order.kind == .market, let node = table.node("valid_bars"), order.validBars != 1 {
      throw InputError("'strategy.entry_order.valid_bars' is for a limit or stop order (a market order always fills at the next open)",
                       at: node.location)
    }
    try table.finish()
    return order
  }
}
