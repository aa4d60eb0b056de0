/// The GPIX swing rule (`shared/spec/bb-rsi-swing.md`): buy when the close is
/// below the lower Bollinger Band and the RSI is oversold; sell when the close
/// is above the upper band or the RSI is overbought; stop-loss and optional
/// profit target checked intrabar by the broker.
public struct BollingerRSI: Strategy {
  public struct Parameters: StrategyParameters {
    public var bollingerPeriod = 20
    public var bollingerDeviations = 2.0
    public var rsiPeriod = 14
    public var oversold = 30.0
    public var overbought = 70.0
    /// Fraction below the entry price; `nil` disables the stop.
    public var stopLoss: Double? = 0.02
    /// Fraction above the entry price; `nil` disables the target.
    public var profitTarget: Double? = nil

    public init() {}

    public var summary: [(name: String, value: String)] {
      [("bollinger.period", String(bollingerPeriod)), ("bollinger.std_dev", formatPlain(bollingerDeviations)),
       ("rsi.period", String(rsiPeriod)), ("rsi.oversold", formatPlain(oversold)),
       ("rsi.overbought", formatPlain(overbought)),
       ("stop_loss", stopLoss.map(formatPercentPlain) ?? "none"),
       ("profit_target", profitTarget.map(formatPercentPlain) ?? "none")]
    }
  }

  public static let name = "bollinger_rsi"
  public static let summary = "buy below the lower Bollinger Band with RSI oversold; sell above the upper band or RSI overbought"

  public static func parameters(from table: ConfigTable) throws -> Parameters {
    var p = Parameters()
    let bollinger = try table.table("bollinger")
    p.bollingerPeriod = try bollinger.int("period", default: p.bollingerPeriod, in: 2...100_000)!
    p.bollingerDeviations = try bollinger.double("std_dev", default: p.bollingerDeviations, where: { $0 > 0 },
                                                 expected: "a number > 0")!
    try bollinger.finish()
    let rsi = try table.table("rsi")
    p.rsiPeriod = try rsi.int("period", default: p.rsiPeriod, in: 2...100_000)!
    p.oversold = try rsi.double("oversold", default: p.oversold, where: { (0...100).contains($0) },
                                expected: "a number from 0 to 100")!
    p.overbought = try rsi.double("overbought", default: p.overbought, where: { (0...100).contains($0) },
                                  expected: "a number from 0 to 100")!
    try rsi.finish()
    p.stopLoss = try table.fraction("stop_loss", default: p.stopLoss, expected: "a fraction between 0 and 1",
                                    where: { $0 > 0 && $0 < 1 })
    p.profitTarget = try table.fraction("profit_target", default: p.profitTarget, expected: "a fraction > 0",
                                        where: { $0 > 0 })
    return p
  }

  public let parameters: Parameters
  public let close: ContiguousArray<Double>
  public let bands: BollingerBands
  public let rsi: ContiguousArray<Double>
  public let firstDecisionBar: Int

  public init(parameters: Parameters, bars: BarSeries) {
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
  public mutating func decide(at i: Int, position: PositionView) -> Signal {
    if !position.isOpen {
      if close[i] < bands.lower[i] && rsi[i] < parameters.oversold {
        return .enterLong(stopLoss: parameters.stopLoss, profitTarget: parameters.profitTarget)
      }
    } else if close[i] > bands.upper[i] || rsi[i] > parameters.overbought {
      return .exitLong(.technical)
    }
    return .hold
  }

  public var indicatorColumns: [IndicatorColumn] {
    [IndicatorColumn("bb_lower", bands.lower), IndicatorColumn("bb_mid", bands.middle),
     IndicatorColumn("bb_upper", bands.upper), IndicatorColumn("rsi", rsi)]
  }
}
