import BacktestCore
import Foundation

/// An interactive chart for the HTML reports: panels on one shared time axis,
/// drawn by `ChartScript` from packed columns (`ChartData`), which zooms, pans
/// and explains each bar and trade on hover. With scripts off, and in print,
/// the static SVG charts it is built over show instead.
///
/// In the page it is a `<section class="card ichart" data-chart>` holding the
/// fallback (`div.ic-static`), what to draw as JSON (`script.ic-spec`) and the
/// columns as text (`script.ic-data`, of type text/plain, `ChartData.text`: no script parses it before the page
/// is first painted; the chart reads it then, or at once when small). The script then adds the live chart:
/// each panel (`div.ic-panel`) and the chart carry `data-x-start` and
/// `data-x-end`, the ISO times of the first and last bar in view, and the hover
/// box is the element with `role="tooltip"`, one row (`tr[data-key]`) a value.
package struct InteractiveChart {
  package var data = ChartData()
  /// The bars on the time axis.
  let count: Int
  var panels: [JSONValue] = []
  var tooltip: [JSONValue] = []
  /// Further fields of the description: trades, range buttons.
  package var extra: [(String, JSONValue)] = []
  package let title: String
  private var timeFields: [(String, JSONValue)] = []

  /// A chart over `bars`, whose times show in `timeZone` (UTC when `nil`) unless they are dates.
  init(title: String, timeline bars: BarSeries, timeZone: TimeZone?) {
    self.title = title
    count = bars.count
    if bars.isDateOnly || bars.isEmpty {
      let days = ContiguousArray(bars.day.map(Double.init))
      timeFields = [("time", .integer(data.add(days, precision: .decimals(0)))), ("dateOnly", .bool(true))]
    } else {
      let (wallClock, offsets) = Self.wallClock(bars.time, timeZone ?? TimeZone(identifier: "UTC")!)
      timeFields = [("time", .integer(data.add(wallClock, precision: .decimals(0)))),
                    ("offsets", .array(offsets.map { .array([.integer($0.bar), .integer($0.seconds)]) }))]
    }
  }

  /// A chart over calendar days (a fund's NAV dates).
  package init(title: String, days: [Int]) {
    self.title = title
    count = days.count
    timeFields = [("time", .integer(data.add(days.map(Double.init), precision: .decimals(0)))), ("dateOnly", .bool(true))]
  }

  /// Each instant as seconds of the local wall clock, and the UTC offset from each bar where it changes.
  ///
  /// - Complexity: O(n) plus one time-zone lookup per daylight-saving change.
  static func wallClock(_ time: ContiguousArray<Int64>, _ zone: TimeZone) -> (ContiguousArray<Double>, [(bar: Int, seconds: Int)]) {
    var offsets: [(bar: Int, seconds: Int)] = []
    // Each stretch ends after it starts (`end > i`), and the next starts where it ends: every bar is written once.
    let out = ContiguousArray<Double>(count: time.count) { out in
      var i = 0
      while i < time.count {
        let instant = Date(timeIntervalSince1970: Double(time[i]))
        let offset = zone.secondsFromGMT(for: instant)
        if offsets.last?.seconds != offset { offsets.append((i, offset)) }
        // The bars up to the next change of offset share this one.
        var end = time.count
        if let next = zone.nextDaylightSavingTimeTransition(after: instant) {
          let limit = Int64(next.timeIntervalSince1970.rounded(.up))
          var lo = i + 1, hi = time.count
          while lo < hi { let mid = (lo + hi) / 2; if time[mid] < limit { lo = mid + 1 } else { hi = mid } }
          end = lo
        }
        for k in i..<end { out[k] = Double(time[k] + Int64(offset)) }
        i = end
      }
    }
    return (out, offsets)
  }

  // MARK: Description

  /// A line in a panel: `column` of `data`, named `label` in the legend.
  /// With `bars`, the column is drawn as vertical bars from 0 (volume).
  package static func line(_ column: Int, _ label: String, _ color: String, width: Double = 1.2, dash: Bool = false, area: Bool = false,
                   bars: Bool = false) -> JSONValue {
    var fields: [(String, JSONValue)] = [("col", .integer(column)), ("label", .string(label)), ("color", .string(color))]
    if width != 1.2 { fields.append(("width", .number(width))) }
    if dash { fields.append(("dash", .array([.integer(5), .integer(3)]))) }
    if area { fields.append(("area", .bool(true))) }
    if bars { fields.append(("bars", .bool(true))) }
    return .object(fields)
  }

  /// How a panel's axis and its values read: `price` (the column's decimals), `money`, `percent` or `plain`.
  package enum Format: String { case price, money, percent, plain }

  /// Adds a panel of `height` points. `range` fixes its value axis; `zero` keeps 0 in it.
  package mutating func addPanel(id: String, title: String, height: Int, format: Format, lines: [JSONValue] = [], range: ClosedRange<Double>? = nil,
                         levels: [Double] = [], zero: Bool = false, more: [(String, JSONValue)] = []) {
    var fields: [(String, JSONValue)] = [("id", .string(id)), ("title", .string(title)), ("height", .integer(height)),
                                         ("format", .string(format.rawValue))]
    if !lines.isEmpty { fields.append(("lines", .array(lines))) }
    if let range { fields.append(("range", .array([.number(range.lowerBound), .number(range.upperBound)]))) }
    if !levels.isEmpty { fields.append(("levels", .array(levels.map { .number($0) }))) }
    if zero { fields.append(("zero", .bool(true))) }
    panels.append(.object(fields + more))
  }

  /// Adds a row to the hover box: `column`'s value at the bar, named `label`; `key` names the row for automation.
  /// With `change`, the row shows the change from the first bar in view instead.
  package mutating func addTooltip(key: String, label: String, column: Int, format: Format, change: Bool = false) {
    var fields: [(String, JSONValue)] = [("key", .string(key)), ("label", .string(label)), ("col", .integer(column)),
                                         ("format", .string(format.rawValue))]
    if change { fields.append(("change", .bool(true))) }
    tooltip.append(.object(fields))
  }

  /// The description the script reads.
  var spec: JSONValue {
    .object([("title", .string(title)), ("n", .integer(count))] + timeFields
      + [("columns", .array(data.descriptors)), ("panels", .array(panels)), ("tooltip", .array(tooltip))] + extra)
  }

  /// Appends the chart's section, over the static `fallback`, to `page`: the columns are packed first (on
  /// all cores, before `fallback` is made), then the page grows once, with
  /// room for what usually follows, so its megabytes of data are copied once.
  package func appendHTML<Page: ChartPage>(to page: inout Page, id: String, fallback: @autoclosure () -> String) {
    let data = data.bytes
    let fallback = fallback()
    page.reserve(ChartData.TextEncoder.capacity(data.count) + 2 * fallback.utf8.count + (1 << 21))
    Self.appendSection(to: &page, id: id, fallback: fallback, spec: spec, data: data)
  }

  /// A `data-chart` section: the fallback, the description, and the packed data if any.
  static func section(id: String, fallback: String, spec: JSONValue, data: [UInt8]?) -> String {
    var h = ""
    appendSection(to: &h, id: id, fallback: fallback, spec: spec, data: data)
    return h
  }

  /// Appends a `data-chart` section to `page`, piece by piece (no copy of the section as a whole),
  /// the packed data as text (`ChartData.text`).
  static func appendSection<Page: ChartPage>(to page: inout Page, id: String, fallback: String, spec: JSONValue, data: [UInt8]?) {
    page += "<section class=\"card ichart\" data-chart id=\"\(SVGBuilder.escape(id))\"><div class=\"ic-static\">"
    page += fallback
    page += "</div>\n<script type=\"application/json\" class=\"ic-spec\">"
    page += scriptJSON(spec)
    page += "</script>\n"
    if let data {
      page += "<script type=\"text/plain\" class=\"ic-data\">"
      page.append(packed: data)
      page += "</script>\n"
    }
    page += "</section>\n"
  }

  /// `value` as compact JSON that is safe inside a `<script>` element (`<` written `\u003c`).
  static func scriptJSON(_ value: JSONValue) -> String {
    var out = ""
    appendScriptJSON(value, to: &out)
    return out
  }

  private static func appendScriptJSON(_ value: JSONValue, to out: inout String) {
    switch value {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .integer(let i): out += String(i)
    case .number(let x): out += x.isFinite ? (x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : x.description) : "null"
    case .string(let s):
      let quoted = JSONValue.quoted(s)
      out += quoted.utf8.contains(UInt8(ascii: "<")) ? quoted.replacingOccurrences(of: "<", with: "\\u003c") : quoted
    case .array(let items):
      out += "["
      for (k, item) in items.enumerated() {
        if k > 0 { out += "," }
        appendScriptJSON(item, to: &out)
      }
      out += "]"
    case .object(let fields):
      out += "{"
      for (k, field) in fields.enumerated() {
        if k > 0 { out += "," }
        appendScriptJSON(.string(field.0), to: &out)
        out += ":"
        appendScriptJSON(field.1, to: &out)
      }
      out += "}"
    }
  }
}

/// What a chart's section is appended to: a page held as one `String`, or a
/// `PagedText` that encodes the chart's data only as it is written.
package protocol ChartPage {
  static func += (page: inout Self, text: String)
  mutating func append(packed bytes: [UInt8])
  /// Makes room for `bytes` more, where that saves copies.
  mutating func reserve(_ bytes: Int)
}

extension String: ChartPage {
  package mutating func append(packed bytes: [UInt8]) { self += ChartData.text(bytes) }
  package mutating func reserve(_ bytes: Int) { reserveCapacity(utf8.count + bytes) }
}

extension PagedText: ChartPage {
  package mutating func reserve(_ bytes: Int) {}
}
