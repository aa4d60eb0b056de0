/// Performance split by economic-cycle stage.
package struct CycleBreakdown: Sendable, Equatable {
  package struct Row: Sendable, Equatable {
    package var stage: CycleStage
    /// Bars whose stage this is.
    package var bars: Int
    /// Trades entered in this stage (the stage at the entry fill's bar).
    package var trades: Int
    package var winRate: Double?
    package var averageReturn: Double?
    /// The equity's compounded bar-to-bar return over the bars in this stage
    /// (the first bar measured against the initial cash).
    package var totalReturn: Double
  }

  package var rows: [Row]

  /// How each figure of a row is grouped, by its `by_cycle` key in `summary.json`.
  package static let grouping: [(key: String, meaning: String)] = [
    ("bars", "bars whose stage (stage_at the bar's timestamp) is this one"),
    ("trades", "trades whose entry fill bar is in this stage; win_rate and avg_return are over these trades"),
    ("total_return", "the equity's bar-to-bar returns over this stage's bars, compounded (the first bar against the initial cash)"),
  ]

  package init(result: BacktestResult, stages: ContiguousArray<CycleStage>) {
    rows = CycleStage.allCases.map { stage in
      var bars = 0
      var growth = 1.0
      for t in stages.indices where stages[t] == stage {
        bars += 1
        growth *= result.equity[t] / (t == 0 ? result.initialCash : result.equity[t - 1])
      }
      let trades = result.trades.filter { stages[$0.entryBar] == stage }
      let wins = trades.filter { $0.pnl > 0 }.count
      return Row(stage: stage, bars: bars, trades: trades.count,
                 winRate: trades.isEmpty ? nil : Double(wins) / Double(trades.count),
                 averageReturn: mean(trades.map(\.returnFraction)), totalReturn: growth - 1)
    }
  }
}
