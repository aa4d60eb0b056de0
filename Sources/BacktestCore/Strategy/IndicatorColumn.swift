/// Where a report draws an indicator column.
public enum IndicatorPlot: Sendable, Equatable {
  /// Written to `indicators.csv` only.
  case hidden
  /// A line over the price chart, named `label` in its legend.
  case overlay(label: String, color: String)
  /// A line in a panel of its own under the price chart (columns naming the same panel share it).
  case panel(IndicatorPanel, color: String)
}

/// A chart panel under the price chart: its own value axis and reference levels.
public struct IndicatorPanel: Sendable, Equatable {
  /// The chart's file name without `.svg` and its element id: `rsi`.
  public var id: String
  /// The short name reports use: `RSI`.
  public var name: String
  /// The chart's title: `RSI (14)`.
  public var title: String
  /// The value axis; `nil` to fit the values.
  public var range: ClosedRange<Double>?
  /// Dashed reference lines (for example the oversold and overbought levels).
  public var levels: [Double]

  /// A panel with its id, legend name, title, value axis (`nil` fits the values) and reference levels.
  public init(id: String, name: String, title: String, range: ClosedRange<Double>? = nil, levels: [Double] = []) {
    self.id = id
    self.name = name
    self.title = title
    self.range = range
    self.levels = levels
  }
}

/// A column of per-bar values a strategy computed, written to `indicators.csv`
/// and drawn where `plot` says.
public struct IndicatorColumn: Sendable {
  /// The column's name in `indicators.csv` (`bb_lower`).
  public var name: String
  /// One value per bar; NaN where undefined (the warm-up).
  public var values: ContiguousArray<Double>
  /// Where the column is drawn.
  public var plot: IndicatorPlot

  /// A column named `name` of per-bar `values`, drawn where `plot` says (not drawn by default).
  public init(_ name: String, _ values: ContiguousArray<Double>, plot: IndicatorPlot = .hidden) {
    self.name = name
    self.values = values
    self.plot = plot
  }
}
