import BacktestCore
extension RunCharts {
  /// The colours of a portfolio's assets, by their place in the portfolio: the same asset has the same colour in
  /// every chart of a portfolio or rotation report (holdings.svg, the interactive chart's allocation).
  package static let assetPalette = ["#0071E3", "#FF9500", "#34C759", "#AF52DE", "#FF3B30", "#5AC8FA", "#FFCC00", "#A2845E"]

  /// Asset `k`'s colour (`assetPalette`).
  package static func assetColor(_ k: Int) -> String { assetPalette[k % assetPalette.count] }

  /// What the account held over time: each asset's value as a share of the
  /// account's value (`equity`, not the charts' growth series) at each close,
  /// stacked in the order of `symbols`, cash the rest up to 100% (a point per
  /// pixel column: the close at its first bar; shares clamped to 0–100% in total).
  package func holdings(symbols: [String], values: [ContiguousArray<Double>], equity: ContiguousArray<Double>) -> String {
    let height = 300.0, top = 52.0, bottom = 270.0
    var svg = open(height, "Holdings: each asset's share of the account's value (cash the rest)", top: top, bottom: bottom,
                   vmin: 0, vmax: 1, id: "holdings")
    axes(&svg, top: top, bottom: bottom, vmin: 0, vmax: 1, format: Self.percentText, dates: true)
    let step = max(1, n / max(1, columns))
    var sample = Array(stride(from: 0, to: n, by: step))
    if sample.last != n - 1 { sample.append(n - 1) }
    var lower = [Double](repeating: 0, count: sample.count)
    let c = SVGBuilder.coordinate
    for (k, symbol) in symbols.enumerated() {
      let upper = sample.indices.map { j in
        let i = sample[j], e = equity[i]
        return min(1, lower[j] + (e > 0 && values[k][i].isFinite ? max(0, values[k][i] / e) : 0))
      }
      let color = Self.assetColor(k)
      var points = sample.indices.map { c(x(sample[$0])) + "," + c(y(upper[$0], top, bottom, 0, 1)) }
      points += sample.indices.reversed().map { c(x(sample[$0])) + "," + c(y(lower[$0], top, bottom, 0, 1)) }
      svg.raw("<polygon points=\"" + points.joined(separator: " ") + "\" fill=\"\(color)\" fill-opacity=\"0.55\" stroke=\"\(color)\" "
        + "stroke-width=\"0.6\" id=\"holding-\(k)\"><title>" + SVGBuilder.escape(symbol) + "</title></polygon>")
      lower = upper
      let at = x0 + Double(k) * 90
      svg.rect(x: at, y: 26, width: 10, height: 10, attributes: "fill=\"\(color)\" fill-opacity=\"0.55\"")
      svg.label(symbol, x: at + 14, y: 35)
    }
    svg.raw("</svg>")
    return svg.text
  }
}
