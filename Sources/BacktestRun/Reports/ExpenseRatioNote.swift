import BacktestCore
/// What `expense_ratio` models, said the same way in the reports and on the command line.
///
/// The drag is charged on top of the prices. A fund pays its expenses out of
/// its assets, so its market prices (and a data vendor's closes) already have
/// them taken out: charging the fund's expense ratio on its own prices counts
/// the expenses twice. The drag is right for prices that do not carry the fee:
/// an index series, synthetic data such as the shipped samples, or a fee paid
/// on top (an advisory fee).
package enum ExpenseRatioNote {
  /// One line for the terminal when a run charges the drag; `charged` names the rates (`0.35%`, `INCM 0.35%, DIVQ 0.06%`).
  package static func notice(charged: String) -> String {
    "note: expense_ratio \(charged) is charged on top of the prices: right for an index, synthetic data or an advisory fee; "
      + "a fund's market prices already have its expenses taken out, so on real fund prices it counts them twice"
  }

  /// A paragraph for `report.md`.
  package static let explanation = "The expense-ratio drag is charged on top of the prices (value at the previous close × rate × "
    + "days / 365, taken from cash). It models a fee the prices do not already carry: an index series, synthetic data such as the "
    + "shipped samples, or an advisory fee. A fund's market prices already have its expenses taken out: on real fund prices, "
    + "charging its expense ratio counts the expenses twice (set `expense_ratio: 0` there)."
}
