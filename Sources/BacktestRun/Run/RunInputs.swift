import BacktestCore
import Foundation

/// A run's input files, read: the bars and what else the run file names, and their manifest.
package struct RunInputs: Sendable {
  package var bars: BarSeries
  /// Bars in the file before the session filter and resampling.
  package var barsInFile: Int
  package var cycle: CycleContext?
  package var intrabar: IntrabarData?
  package var dividends: [Dividend]
  package var manifest: RunManifest
  /// One line each about input read in a way to know: columns not used, pay dates taken as ex-dates.
  package var notices: [String] = []

  /// Inputs already in memory: `barsInFile` defaults to the bars' count, and a manifest without settings gets the run
  /// file's settings hash when the run executes.
  package init(bars: BarSeries, barsInFile: Int? = nil, cycle: CycleContext? = nil, intrabar: IntrabarData? = nil,
               dividends: [Dividend] = [], manifest: RunManifest = RunManifest(), notices: [String] = []) {
    self.bars = bars
    self.barsInFile = barsInFile ?? bars.count
    self.cycle = cycle
    self.intrabar = intrabar
    self.dividends = dividends
    self.manifest = manifest
    self.notices = notices
  }
}
