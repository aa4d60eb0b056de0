import BacktestCore
/// A run's charts, each made once, on whichever thread first asks: the SVG
/// files and the HTML report that embeds the same charts share them.
package final class MemoizedCharts: Sendable {
  let charts: RunCharts
  private let pricePanel, equityPanel, monthlyPanel, returnsPanel: DeferredText
  private let indicatorPanels: [(id: String, svg: DeferredText)]

  package init(_ charts: RunCharts) {
    self.charts = charts
    pricePanel = DeferredText { charts.price() }
    equityPanel = DeferredText { charts.equity() }
    monthlyPanel = DeferredText { charts.monthly() }
    returnsPanel = DeferredText { charts.tradeReturns() }
    indicatorPanels = charts.panels.map { p in (p.panel.id, DeferredText { charts.panel(p.panel, p.columns) }) }
  }

  package func price() -> String { pricePanel.text }
  package func panelCharts() -> [(id: String, svg: String)] { indicatorPanels.map { ($0.id, $0.svg.text) } }
  /// The indicator panels' ids (their file names without `.svg`), in order.
  package var panelIDs: [String] { indicatorPanels.map(\.id) }
  /// The `k`-th indicator panel's chart.
  package func panelChart(_ k: Int) -> String { indicatorPanels[k].svg.text }
  package func equity() -> String { equityPanel.text }
  package func monthly() -> String { monthlyPanel.text }
  package func tradeReturns() -> String { returnsPanel.text }
}
