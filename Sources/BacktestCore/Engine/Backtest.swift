/// Everything one `backtest run` produced, ready for the report writers.
public struct RunOutput: Sendable {
  public var config: RunConfig
  public var bars: BarSeries
  public var run: StrategyRun
  public var summary: PerformanceSummary
  /// Buy and hold over the same bars with the same broker.
  public var benchmark: BacktestResult
  public var benchmarkSummary: PerformanceSummary
  /// Bars in the file before the session filter and resampling.
  public var barsInFile: Int
}

/// The run pipeline: load bars, run the strategy and the benchmark, summarize.
public enum Backtest {
  /// Reads the bar file and applies the session filter and resampling.
  ///
  /// - Throws: `InputError` for a missing or bad file, or when no bar is left.
  public static func loadBars(_ data: DataSettings) throws -> (bars: BarSeries, barsInFile: Int) {
    let raw = try BarCSVReader(timeZone: data.timeZone).read(file: data.bars)
    var bars = raw.filtered(session: data.session, timeZone: data.timeZone)
    if bars.isEmpty {
      throw InputError("no bar lies inside the session \(data.session) in \(data.timeZone.identifier); check data.session and data.timezone",
                       file: data.bars)
    }
    if let interval = data.resample {
      bars = bars.resampled(to: interval, session: data.session, timeZone: data.timeZone)
    }
    return (bars, raw.count)
  }

  /// Runs the configured strategy and the buy-and-hold benchmark over `bars`.
  public static func execute(_ config: RunConfig, bars: BarSeries, barsInFile: Int) -> RunOutput {
    let run = config.strategy.run(bars: bars, broker: config.broker)
    var benchmarkStrategy = BuyAndHold(parameters: .init(), bars: bars)
    let benchmark = Engine.run(&benchmarkStrategy, bars: bars, broker: config.broker)
    return RunOutput(config: config, bars: bars, run: run, summary: PerformanceSummary(result: run.result, bars: bars),
                     benchmark: benchmark, benchmarkSummary: PerformanceSummary(result: benchmark, bars: bars),
                     barsInFile: barsInFile)
  }
}
