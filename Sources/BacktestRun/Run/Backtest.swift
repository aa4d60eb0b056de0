import BacktestCore
import Foundation

/// Everything one `backtest run` produced, ready for the report writers.
package struct RunOutput: Sendable {
  package var config: RunConfig
  package var bars: BarSeries
  package var run: StrategyRun
  package var summary: PerformanceSummary
  /// Buy and hold over the same bars with the same broker.
  package var benchmark: BacktestResult
  package var benchmarkSummary: PerformanceSummary
  /// Bars in the file before the session filter and resampling.
  package var barsInFile: Int
  /// The economic-cycle context, when the run file has a `cycle:` section.
  package var cycle: CycleContext?
  /// The same run under the other intrabar rule, when some exit stays ambiguous (after the finer bars, with `data.intrabar`).
  package var otherRule: PerformanceSummary?
  /// The asset's dividends (`data.dividends`), empty without.
  package var dividends: [Dividend] = []
  /// What made the run: the engine, the settings, the input files.
  package var manifest = RunManifest()
}

/// The classified quarters and the stage of every bar.
package struct CycleContext: Sendable {
  package var settings: CycleRunSettings
  /// The macro series as read (for the latest released values).
  package var data: MacroData
  package var rows: [QuarterRow]
  package var timeline: StageTimeline
  package var gate: CycleGate
  /// With the filter on: the same run file without its `cycle:` section, for comparison.
  package var unfiltered: PerformanceSummary?
  /// With the filter on: trades of the unfiltered run whose buy the filter does not
  /// allow (the stage at the close the buy was decided at, the bar before the entry fill).
  package var skippedTrades: Int?
}

/// The run pipeline: load bars, run the strategy and the benchmark, summarize.
package enum Backtest {
  /// The bars of `raw` inside the session and the dates of `data`, resampled when it says so.
  ///
  /// - Throws: `InputError` when no bar is left.
  package static func prepare(_ raw: BarSeries, data: DataSettings) throws -> BarSeries {
    var bars = raw.filtered(session: data.session, timeZone: data.timeZone)
    if data.startDay != nil || data.endDay != nil {
      let first = data.startDay ?? .min, last = data.endDay ?? .max
      let all = bars
      bars = all.filtered { Int(all.day[$0]) >= first && Int(all.day[$0]) <= last }
    }
    if bars.isEmpty {
      throw InputError("no bar lies inside the session \(data.session) in \(data.timeZone.identifier) and the dates from data.start to data.end; check data.session, data.timezone, data.start and data.end",
                       file: data.bars)
    }
    if let interval = data.resample {
      bars = bars.resampled(to: interval, session: data.session, timeZone: data.timeZone)
    }
    return bars
  }

  /// The economic-cycle stage of every bar from the macro series as read and their classified quarters
  /// (`CycleClassifier.classify` of `data`).
  package static func cycle(_ settings: CycleRunSettings, data: MacroData, rows: [QuarterRow], bars: BarSeries) -> CycleContext {
    let timeline = StageTimeline(rows: rows, settings: settings.classifier)
    let gate = CycleGate(stages: timeline.stages(at: bars.time), filter: settings.filter,
                         buyStages: settings.buyStages, exitStages: settings.exitStages)
    return CycleContext(settings: settings, data: data, rows: rows, timeline: timeline, gate: gate)
  }

  /// The dividends and expense drag of a run's single asset, `nil` when it has neither.
  package static func accountEvents(_ config: RunConfig, bars: BarSeries, dividends: [Dividend]) -> AccountEvents? {
    dividends.isEmpty && config.expenseRatio == 0
      ? nil : AccountEvents(dividends: DividendSchedule(dividends, days: bars.day), expenseRatio: config.expenseRatio)
  }

  /// Runs the configured strategy and the buy-and-hold benchmark over `bars`;
  /// with `explain`, the run also says what it decides at the last close and why.
  ///
  /// The benchmark and its statistics are made on another thread while the
  /// strategy runs; `indicatorsReady` is as in `ConfiguredStrategy.run`.
  package static func execute(_ config: RunConfig, _ inputs: RunInputs, explain: FinalQuestion? = nil,
                             indicatorsReady: ConfiguredStrategy.IndicatorsReady? = nil) -> RunOutput {
    let (bars, intrabar, dividends) = (inputs.bars, inputs.intrabar, inputs.dividends)
    var manifest = inputs.manifest
    if manifest.settings == nil { manifest.settings = config.settingsHash }
    let account = accountEvents(config, bars: bars, dividends: dividends)
    let buyAndHold = OnOtherThread { () -> (BacktestResult, PerformanceSummary) in
      var benchmarkStrategy = BuyAndHold(parameters: .init(), bars: bars)
      let benchmark = Engine.run(&benchmarkStrategy, bars: bars, broker: config.broker, account: account)
      return (benchmark, PerformanceSummary(result: benchmark, bars: bars))
    }
    let run = config.strategy.run(bars: bars, broker: config.broker, cycle: inputs.cycle?.gate, intrabar: intrabar, account: account,
                                  explain: explain, indicatorsReady: indicatorsReady)
    let summary = PerformanceSummary(result: run.result, bars: bars)
    var cycle = inputs.cycle
    if let gate = cycle?.gate, gate.filter {
      let unfiltered = config.strategy.run(bars: bars, broker: config.broker, intrabar: intrabar, account: account).result
      cycle?.unfiltered = PerformanceSummary(result: unfiltered, bars: bars)
      cycle?.skippedTrades = unfiltered.trades.filter { !gate.allowsEntry(at: $0.entryBar - 1) }.count
    }
    var otherRule: PerformanceSummary?
    // The rules differ only at a bar that touches both levels and that the finer bars do not settle.
    if run.result.trades.contains(where: \.ambiguous) {
      var broker = config.broker
      broker.intrabarRule = broker.intrabarRule == .conservative ? .optimistic : .conservative
      otherRule = PerformanceSummary(result: config.strategy.run(bars: bars, broker: broker, cycle: cycle?.gate, intrabar: intrabar,
                                                                 account: account).result, bars: bars)
    }
    let (benchmark, benchmarkSummary) = buyAndHold.value
    return RunOutput(config: config, bars: bars, run: run, summary: summary, benchmark: benchmark, benchmarkSummary: benchmarkSummary,
                     barsInFile: inputs.barsInFile, cycle: cycle, otherRule: otherRule, dividends: dividends,
                     manifest: manifest)
  }

}
