import Foundation

/// Entries and exits read from a CSV file (`time,signal`), so that a decision
/// made elsewhere (pandas, a spreadsheet) runs on this broker, its stops and reports.
///
/// A signal at a bar's time is decided at that bar's close and fills at the
/// next open, like every strategy's decision. `buy` opens a long position and
/// `short` a short one when flat; `sell` closes a long and `cover` a short.
/// A signal that does not fit the position at its bar (a `buy` while a
/// position is open, a `sell` while not long) is ignored. Times are read in
/// the run's `data.timezone` unless they carry an offset; a time inside the
/// bars' span that is no bar's time is an error naming its line, and times
/// before the first bar or after the last are left out.
package struct SignalsFile: Strategy {
  /// What one line of the file asks for.
  package enum Kind: UInt8, Sendable, CaseIterable {
    case buy = 1, sell, short, cover
    var word: String {
      switch self {
      case .buy: "buy"
      case .sell: "sell"
      case .short: "short"
      case .cover: "cover"
      }
    }
  }

  /// One line of the file: the instant it names and where it is written.
  package struct TimedSignal: Sendable, Equatable {
    package var time: Int64
    package var kind: Kind
    package var location: SourceLocation
    /// The time as written, for messages.
    package var text: String
  }

  package struct Parameters: StrategyParameters {
    /// The file's path, resolved (against the run file's folder, or the current folder when given by `--set`).
    package var file = ""
    /// The file's signals, in the order of their times.
    package var signals: [TimedSignal] = []
    package var stopLoss: Double? = nil
    package var profitTarget: Double? = nil
    package init() {}

    package static let declarations: [Parameter<Parameters>] = [
      .fraction("stop_loss", \.stopLoss, .between(0, 1), doc: "stop beyond the entry fill (2% or none): below a long, above a short"),
      .fraction("profit_target", \.profitTarget, .above(0), doc: "target beyond the entry fill (3% or none): above a long, below a short"),
    ]

    package var summary: [(name: String, value: String)] {
      [("file", file)] + Self.declarations.map { ($0.path, $0.text(self)) }
    }

    package static func read(from section: ConfigTable) throws -> Parameters {
      var values = Parameters()
      guard let node = section.node("file") else {
        throw InputError("missing 'strategy.file'; expected the path of a CSV file with columns time,signal",
                         at: section.entries.first { $0.key == "file" }?.value.location ?? section.location)
      }
      guard case .scalar(let path, _) = node.kind, !path.isEmpty else {
        throw InputError("expected the path of a CSV file with columns time,signal for 'strategy.file', found \(node.typeDescription)",
                         at: node.location)
      }
      values.file = resolvePath(path, relativeTo: node.location.pathBase)
      values.signals = try SignalsFile.read(try readInputFile(values.file), file: values.file, timeZone: section.dataTimeZone)
      for d in declarations { try d.read(section, d.path, &values) }
      return values
    }

    /// Every signal inside the bars' span must be at a bar's time.
    package func check(against bars: BarSeries) throws {
      guard let first = bars.time.first, let last = bars.time.last else { return }
      for s in signals where s.time >= first && s.time <= last && SignalsFile.bar(at: s.time, in: bars.time) == nil {
        throw InputError("'\(s.text)' is not the time of a bar of \(bars.source) (the signal is decided at a bar's close); "
                         + "expected one of the bars' times between \(bars.timeLabel(0)) and \(bars.timeLabel(bars.count - 1))",
                         at: s.location)
      }
    }
  }

  package static let name = "signals"
  package static let summary = "entries and exits read from the CSV file named by file: (time,signal with buy, sell, short, cover)"

  package let parameters: Parameters
  /// The signal decided at each bar's close (`Kind.rawValue`), 0 for none.
  let kinds: ContiguousArray<UInt8>
  /// The file line of each bar's signal, for explanations.
  let lines: [Int: Int]
  package var firstDecisionBar: Int { 0 }

  package init(parameters: Parameters, bars: BarSeries) {
    self.parameters = parameters
    var kinds = ContiguousArray<UInt8>(repeating: 0, count: bars.count)
    var lines: [Int: Int] = [:]
    for s in parameters.signals {
      guard let i = Self.bar(at: s.time, in: bars.time) else { continue }
      kinds[i] = s.kind.rawValue
      lines[i] = s.location.line
    }
    self.kinds = kinds
    self.lines = lines
  }

  package mutating func decide(at i: Int, position: PositionView) -> Signal {
    switch Kind(rawValue: kinds[i]) {
    case .buy? where !position.isOpen: return .enterLong(stopLoss: parameters.stopLoss, profitTarget: parameters.profitTarget)
    case .short? where !position.isOpen: return .enterShort(stopLoss: parameters.stopLoss, profitTarget: parameters.profitTarget)
    case .sell? where position.isLong: return .exitLong(.technical)
    case .cover? where position.isShort: return .exitShort(.technical)
    default: return .hold
    }
  }

  package var indicatorColumns: [IndicatorColumn] {
    [IndicatorColumn("signal", ContiguousArray(kinds.map { $0 == 0 ? .nan : Double($0) }))]
  }

  package var overlayTitle: String { "" }

  package func explain(_ signal: Signal, at i: Int, position: PositionView) -> String {
    let file = (parameters.file as NSString).lastPathComponent
    guard let kind = Kind(rawValue: kinds[i]), let line = lines[i] else { return "no signal in \(file) at this bar" }
    let said = "\(file) line \(line) says \(kind.word)"
    return signal == .hold ? "\(said), which does not fit the position (ignored)" : said
  }

  package func details(at i: Int) -> StrategyDetails {
    StrategyDetails(labels: [("file_signal", Kind(rawValue: kinds[i])?.word)])
  }

  package func exitLevels(forEntryAt i: Int) -> (stopLoss: Double?, profitTarget: Double?) {
    (parameters.stopLoss, parameters.profitTarget)
  }

  /// The bar whose time is `time`, by binary search of the increasing `times`.
  static func bar(at time: Int64, in times: ContiguousArray<Int64>) -> Int? {
    var low = 0, high = times.count
    while low < high {
      let mid = (low + high) / 2
      if times[mid] < time { low = mid + 1 } else { high = mid }
    }
    return low < times.count && times[low] == time ? low : nil
  }

  /// Reads a signals file: a header naming `time` and `signal` (other columns
  /// are refused), then one signal per line; a time given twice is refused.
  static func read(_ data: Data, file: String, timeZone: TimeZone) throws -> [TimedSignal] {
    var out: [TimedSignal] = []
    try [UInt8](data).withUnsafeBufferPointer { b in
      var scanner = CSVScanner(bytes: b, file: file)
      var fields: [CSVField] = []
      let start = SourceLocation(file: file, line: 1, column: 1)
      guard try scanner.next(into: &fields) else { throw InputError("empty file; expected a header 'time,signal'", at: start) }
      let header = fields.map { scanner.text($0).lowercased().trimmingSpaces() }
      guard header.count == 2, let t = header.firstIndex(of: "time"), let k = header.firstIndex(of: "signal") else {
        throw InputError("expected a header 'time,signal', found '\(excerpt(header.joined(separator: ",")))'", at: start)
      }
      var resolver = TimeZoneResolver(timeZone)
      var seen: [Int64: Int] = [:]
      while try scanner.next(into: &fields) {
        guard fields.count == 2 else {
          throw InputError("expected 2 fields as in the header, found \(fields.count)", at: SourceLocation(file: file, line: scanner.line, column: 1))
        }
        let tf = fields[t], kf = fields[k]
        let word = scanner.text(kf).lowercased().trimmingSpaces()
        guard let kind = Kind.allCases.first(where: { $0.word == word }) else {
          throw InputError("expected buy, sell, short or cover, found '\(scanner.shown(kf))'", at: scanner.location(kf))
        }
        let written = parseTimestamp(b, tf.start, tf.end)
        let instant: Int64? = switch written {
        case .date(let days)?: resolver.instant(ofLocal: Int64(days) * 86_400, after: nil)
        case .local(let seconds)?: resolver.instant(ofLocal: seconds, after: nil)
        case .zoned(let t, _)?, .epoch(let t)?: t
        case nil: nil
        }
        guard let instant else {
          throw InputError(written == nil
                           ? "expected a timestamp (2024-01-02T09:30:00-05:00, 2024-01-02 09:30:00, 2024-01-02 or epoch seconds), found '\(scanner.shown(tf))'"
                           : "'\(scanner.shown(tf))' does not exist in \(timeZone.identifier); write the offset or fix data.timezone",
                           at: scanner.location(tf))
        }
        if let line = seen[instant] {
          throw InputError("a second signal at '\(scanner.shown(tf))' (line \(line) has the same time); expected one signal per bar",
                           at: scanner.location(tf))
        }
        seen[instant] = scanner.line
        out.append(TimedSignal(time: instant, kind: kind, location: scanner.location(tf), text: scanner.text(tf).trimmingSpaces()))
      }
    }
    return out.sorted { $0.time < $1.time }
  }
}
