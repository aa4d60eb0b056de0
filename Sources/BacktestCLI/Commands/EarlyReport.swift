import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

/// A run's report folder, begun before its bars trade.
///
/// indicators.csv needs only the bars and the strategy's indicators, so it is
/// made and written while the bar loop runs on one core and leaves the other
/// idle (~75 ms of a million-bar run). The rest of the report follows when
/// the run is done, into the same batch, swapped in as a whole as before.
final class EarlyReport {
  private let folder: String
  private let bars: BarSeries
  private let stages: ContiguousArray<CycleStage>?
  private var batch: AtomicBatch?
  private var failure: Error?
  private var indicators: (columns: [IndicatorColumn], file: ReportFile)?
  /// Whether `finish` kept the indicators.csv begun while the bars traded (else it made the report anew).
  private(set) var indicatorsBegunEarly = false

  init(folder: String, bars: BarSeries, stages: ContiguousArray<CycleStage>?) {
    self.folder = folder
    self.bars = bars
    self.stages = stages
  }

  /// Opens the batch and starts writing indicators.csv (`ConfiguredStrategy.IndicatorsReady`).
  /// A folder that may not be replaced is reported by `finish`, after the run's own errors.
  func start(_ columns: [IndicatorColumn]) {
    do { batch = try AtomicBatch(replacing: folder) } catch { failure = error; return }
    let file = RunReport.indicatorsFile(bars: bars, indicators: columns, stages: stages)
    batch!.add([file])
    indicators = (columns, file)
  }

  /// Writes the rest of `output`'s report and moves the folder into place; returns every file of it.
  func finish(_ output: RunOutput) throws -> [ReportFile] {
    if let failure { throw failure }
    guard let batch, let indicators, Self.sameText(indicators.columns, output.run.indicators) else {
      // Nothing begun, or a strategy whose columns changed as it traded: the whole report anew.
      self.batch = nil
      let files = RunReport.files(output)
      try AtomicWriter.replaceFolder(folder, with: files)
      return files
    }
    let files = RunReport.files(output, indicators: indicators.file)
    batch.add(files.filter { $0.name != indicators.file.name })
    try batch.commit()
    indicatorsBegunEarly = true
    return files
  }

  /// Whether two sets of columns give the same indicators.csv: the same names
  /// and the same bits in every value (usually the very same buffers).
  static func sameText(_ a: [IndicatorColumn], _ b: [IndicatorColumn]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { x, y in
      x.name == y.name && x.values.withUnsafeBytes { p in
        y.values.withUnsafeBytes { q in p.count == q.count && (p.baseAddress == q.baseAddress || p.isEmpty || memcmp(p.baseAddress!, q.baseAddress!, p.count) == 0) }
      }
    }
  }
}
