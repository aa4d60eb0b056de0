import BacktestCore

/// Short-term mean reversion in an uptrend (after Connors): flat, buy when
/// RSI(2) is below `entry_level` and the close is above its `trend_period`
/// average; long, sell when the close rises above its `exit_period` average.
public struct RSI2MeanReversion: Strategy {
  public struct Parameters: StrategyParameters {
    public var rsiPeriod = 2
    public var entryLevel = 10.0
    public var trendPeriod = 200
    public var exitPeriod = 5
    public var stopLoss: Double? = nil
    public init() {}

    public static let declarations: [Parameter<Parameters>] = [
      .integer("rsi_period", \.rsiPeriod, in: 2...1000, doc: "Wilder RSI period"),
      .number("entry_level", \.entryLevel, .from(0...100), doc: "buy while the RSI is below this"),
      .integer("trend_period", \.trendPeriod, in: 2...100_000, doc: "closes in the trend average the close must be above"),
      .integer("exit_period", \.exitPeriod, in: 1...100_000, doc: "sell when the close is above its average of this many closes"),
      .fraction("stop_loss", \.stopLoss, .between(0, 1), doc: "stop below the entry fill (5% or none)"),
    ]
  }

  public static let name = "rsi2"
  public static let summary = "buy RSI(2) dips below 10 above the 200-bar average; sell when the close rises above its 5-bar average"

  public let parameters: Parameters
  public let close: ContiguousArray<Double>
  public let rsi: ContiguousArray<Double>
  public let trend: ContiguousArray<Double>
  public let exitAverage: ContiguousArray<Double>

  public init(parameters: Parameters, bars: BarSeries) {
    self.parameters = parameters
    close = bars.close
    rsi = BacktestCore.rsi(bars.close, period: parameters.rsiPeriod)
    trend = sma(bars.close, period: parameters.trendPeriod)
    exitAverage = sma(bars.close, period: parameters.exitPeriod)
  }

  public var firstDecisionBar: Int { max(parameters.rsiPeriod, parameters.trendPeriod - 1, parameters.exitPeriod - 1) }

  public mutating func decide(at i: Int, position: PositionView) -> Signal {
    if !position.isOpen {
      if rsi[i] < parameters.entryLevel && close[i] > trend[i] { return .enterLong(stopLoss: parameters.stopLoss, profitTarget: nil) }
    } else if close[i] > exitAverage[i] {
      return .exitLong(.technical)
    }
    return .hold
  }

  public var indicatorColumns: [IndicatorColumn] {
    let panel = IndicatorPanel(id: "rsi", name: "RSI", title: "RSI (\(parameters.rsiPeriod))", range: 0...100, levels: [parameters.entryLevel])
    return [IndicatorColumn("sma_trend", trend, plot: .overlay(label: "SMA \(parameters.trendPeriod)", color: "#0071E3")),
            IndicatorColumn("sma_exit", exitAverage, plot: .overlay(label: "SMA \(parameters.exitPeriod)", color: "#FF9500")),
            IndicatorColumn("rsi", rsi, plot: .panel(panel, color: "#AF52DE"))]
  }

  public func exitLevels(forEntryAt i: Int) -> (stopLoss: Double?, profitTarget: Double?) { (parameters.stopLoss, nil) }

  public func explain(_ signal: Signal, at i: Int, position: PositionView) -> String {
    guard !rsi[i].isNaN, !trend[i].isNaN, !exitAverage[i].isNaN else { return "not enough bars yet for every indicator" }
    let f = { (x: Double) in String(format: "%.2f", x) }, p = parameters
    if signal.isEntry {
      return "RSI(\(p.rsiPeriod)) \(String(format: "%.1f", rsi[i])) < \(f(p.entryLevel)) and close \(f(close[i])) > SMA \(p.trendPeriod) \(f(trend[i]))"
    }
    if signal.isExit { return "close \(f(close[i])) > SMA \(p.exitPeriod) \(f(exitAverage[i]))" }
    if position.isOpen { return "holding: close \(f(close[i])) is not above SMA \(p.exitPeriod) \(f(exitAverage[i]))" }
    return "no entry: RSI(\(p.rsiPeriod)) \(String(format: "%.1f", rsi[i])), close \(f(close[i])) against SMA \(p.trendPeriod) \(f(trend[i]))"
  }
}
