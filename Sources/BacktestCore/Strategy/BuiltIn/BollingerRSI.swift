import Foundation

/// The GPIX swing rule (`Docs/spec/bb-rsi-swing.md`): buy when the close is
/// below the lower Bollinger Band and the RSI is oversold; sell when the close
/// is above the upper band or the RSI is overbought; stop-loss and optional
/// profit target checked intrabar by the broker.
package struct BollingerRSI: Strategy {
  package struct Parameters: StrategyParameters {
    package var bollingerPeriod = 20
    package var bollingerDeviations = 2.0
    package var rsiPeriod = 14
    package var oversold = 30.0
    package var overbought = 70.0
    /// Fraction below the entry price; `nil` disables the stop.
    package var stopLoss: Double? = 0.02
    /// Fraction above the entry price; `nil` disables the target.
    package var profitTarget: Double? = nil

    package init() {}

    package static let declarations: [Parameter<Parameters>] = [
      .integer("bollinger.period", \.bollingerPeriod, in: 2...100_000, alias: "bb_period", doc: "closes in the Bollinger window"),
      .number("bollinger.std_dev", \.bollingerDeviations, .above(0), alias: "bb_std", doc: "band width in standard deviations"),
      .integer("rsi.period", \.rsiPeriod, in: 2...100_000, alias: "rsi_period", doc: "Wilder RSI period"),
      .number("rsi.oversold", \.oversold, .from(0...100), alias: "oversold", doc: "buy only while the RSI is below this"),
      .number("rsi.overbought", \.overbought, .from(0...100), alias: "overbought", doc: "sell when the RSI is above this"),
      .fraction("stop_loss", \.stopLoss, .between(0, 1), alias: "stop_loss", doc: "stop below the entry fill (2% or none)"),
      .fraction("profit_target", \.profitTarget, .above(0), alias: "profit_target", doc: "target above the entry fill (3% or none)"),
    ]

    /// An oversold level above the overbought one has no reading (the RSI would
    /// be both at once); equal levels are allowed.
    package func validate() throws(ParameterConflict) {
      if oversold > overbought {
        throw ParameterConflict(path: "rsi.oversold", message: "expected 'strategy.rsi.oversold' <= 'strategy.rsi.overbought', found \(formatPlain(oversold)) and \(formatPlain(overbought))")
      }
    }
  }

  package static let name = "bollinger_rsi"
  package static let summary = "buy below the lower Bollinger Band with RSI oversold; sell above the upper band or RSI overbought"

  package let parameters: Parameters
  package let close: ContiguousArray<Double>
  package let bands: BollingerBands
  package let rsi: ContiguousArray<Double>
  package let firstDecisionBar: Int

  package init(parameters: Parameters, bars: BarSeries) {
    self.parameters = parameters
    close = bars.close
    bands = BollingerBands(close: bars.close, period: parameters.bollingerPeriod,
                           deviations: parameters.bollingerDeviations)
    rsi = BacktestCore.rsi(bars.close, period: parameters.rsiPeriod)
    firstDecisionBar = max(parameters.bollingerPeriod - 1, parameters.rsiPeriod)
  }

  /// Flat: buy when `close < lower` and `rsi < oversold`. Long: sell when
  /// `close > upper` or `rsi > overbought`. In a window of equal closes the
  /// bands equal the close, so neither band condition holds there.
  @inlinable
  package mutating func decide(at i: Int, position: PositionView) -> Signal {
    if !position.isOpen {
      if close[i] < bands.lower[i] && rsi[i] < parameters.oversold {
        return .enterLong(stopLoss: parameters.stopLoss, profitTarget: parameters.profitTarget)
      }
    } else if close[i] > bands.upper[i] || rsi[i] > parameters.overbought {
      return .exitLong(.technical)
    }
    return .hold
  }

  /// The colours of the bands and the RSI in every chart.
  /// Bands in colours of their own: not the green and red of trades' profit and loss, nor the candles' teal and grey.
  package static let colors = (upper: "#F59E0B", middle: "#4F46E5", lower: "#0EA5E9", rsi: "#AF52DE")

  package var indicatorColumns: [IndicatorColumn] {
    let panel = IndicatorPanel(id: "rsi", name: "RSI", title: "RSI (\(parameters.rsiPeriod))", range: 0...100,
                               levels: [parameters.oversold, parameters.overbought])
    return [IndicatorColumn("bb_lower", bands.lower, plot: .overlay(label: "lower", color: Self.colors.lower)),
            IndicatorColumn("bb_mid", bands.middle, plot: .overlay(label: "middle", color: Self.colors.middle)),
            IndicatorColumn("bb_upper", bands.upper, plot: .overlay(label: "upper", color: Self.colors.upper)),
            IndicatorColumn("rsi", rsi, plot: .panel(panel, color: Self.colors.rsi))]
  }

  package var overlayTitle: String { "Bollinger Bands" }

  package func exitLevels(forEntryAt i: Int) -> (stopLoss: Double?, profitTarget: Double?) {
    (parameters.stopLoss, parameters.profitTarget)
  }

  package func explain(_ signal: Signal, at i: Int, position: PositionView) -> String {
    let lower = bands.lower[i], upper = bands.upper[i], r = rsi[i], c = close[i]
    guard !lower.isNaN, !upper.isNaN, !r.isNaN else { return "not enough bars yet for every indicator" }
    let f = { (x: Double) in String(format: "%.2f", x) }, g = { (x: Double) in String(format: "%.1f", x) }
    switch signal {
    case .enterLong, .enterShort, .enter:
      return "close \(f(c)) < lower band \(f(lower)) and RSI \(g(r)) < \(formatPlain(parameters.oversold))"
    case .exitLong, .exitShort:
      if c > upper { return "close \(f(c)) > upper band \(f(upper))" }
      return "RSI \(g(r)) > \(formatPlain(parameters.overbought))"
    case .hold where position.isOpen:
      return "holding: close \(f(c)) is not above the upper band \(f(upper)) and RSI \(g(r)) is not above \(formatPlain(parameters.overbought))"
    case .hold:
      var why: [String] = []
      if !(c < lower) { why.append("close \(f(c)) is not below the lower band \(f(lower))") }
      if !(r < parameters.oversold) { why.append("RSI \(g(r)) is not below \(formatPlain(parameters.oversold))") }
      return "no entry: " + why.joined(separator: "; ")
    }
  }

  /// The bands, %B, the RSI and its zone, and the distance from the mean (`backtest.signal/1`'s fields).
  package func details(at i: Int) -> StrategyDetails {
    func defined(_ x: Double) -> Double? { x.isNaN ? nil : x }
    let c = close[i], lower = defined(bands.lower[i]), middle = defined(bands.middle[i]), upper = defined(bands.upper[i])
    let r = defined(rsi[i]), p = parameters
    var percentB: Double?
    if let lower, let upper, upper > lower { percentB = (c - lower) / (upper - lower) }
    let distance = middle.map { c / $0 - 1 }
    let zone = r.map { $0 < p.oversold ? "oversold" : $0 > p.overbought ? "overbought" : "neutral" }
    let decimals = HumanFormat.decimals(of: c)
    let price = { (x: Double) in HumanFormat.price(x, decimals: decimals) }
    var lines: [String] = []
    if let lower, let middle, let upper {
      lines.append("Bollinger (\(p.bollingerPeriod), \(formatPlain(p.bollingerDeviations))): upper \(price(upper)), middle \(price(middle)), lower \(price(lower))"
        + (percentB.map { String(format: ", %%B %.2f", $0) } ?? ""))
    }
    if let r { lines.append(String(format: "RSI (%d): %.1f %@", p.rsiPeriod, r, zone ?? "")) }
    if let distance { lines.append("price \(HumanFormat.percent(abs(distance))) \(distance >= 0 ? "above" : "below") the \(p.bollingerPeriod)-period mean") }
    return StrategyDetails(
      values: [("bb_lower", lower), ("bb_mid", middle), ("bb_upper", upper), ("percent_b", percentB), ("rsi", r),
               ("distance_from_mean", distance)],
      labels: [("rsi_zone", zone)], lines: lines)
  }
}
