import BacktestCore
import Foundation

extension RunConfig {
  /// The universe the `data:` section names: none without `data.universe`, or when bars given on the command line
  /// (`--set data.bars=...`) run that one file.
  ///
  /// - Throws: `InputError` for a run file that writes both `data.bars` and `data.universe`, or a bad universe.
  package static func universe(in data: ConfigTable) throws -> [UniverseMember] {
    guard let node = data.node("universe") else { return [] }
    if let bars = data.node("bars") {
      guard bars.location.isCommandLine else {
        throw InputError("give either data.bars (one asset) or data.universe (each of several symbols), not both", at: bars.location)
      }
      return []
    }
    return try readUniverse(node)
  }

  /// Reads `data.universe`: a bar file or a pattern (`../Data/etfs/????.csv`: `*` any run of characters, `?` one,
  /// `[A-Z]` one of a set, in the file name only), a list of them, or `{symbol, bars, dividends}` entries. A file's
  /// symbol is its name without the extension. Paths are relative to the file that writes them.
  ///
  /// - Throws: `InputError` at the entry for a pattern that matches no file, a symbol listed twice, or a malformed entry.
  static func readUniverse(_ node: YAMLNode) throws -> [UniverseMember] {
    let items: [YAMLNode]
    switch node.kind {
    case .scalar: items = [node]
    case .sequence(let list) where !list.isEmpty: items = list
    default:
      throw InputError("expected a bar file, a pattern such as '../Data/etfs/*.csv' or a list of them (or of {symbol, bars}) for 'data.universe', found \(node.typeDescription)",
                       at: node.location)
    }
    var members: [UniverseMember] = []
    func add(_ member: UniverseMember, at location: SourceLocation) throws {
      if let other = members.first(where: { $0.symbol == member.symbol }) {
        throw InputError("symbol '\(member.symbol)' is in data.universe twice (\(other.bars) and \(member.bars)); expected each symbol once",
                         at: location)
      }
      members.append(member)
    }
    for item in items {
      switch item.kind {
      case .scalar(let text, _):
        for path in try expand(resolvePath(text, relativeTo: item.location.pathBase), at: item.location) {
          try add(UniverseMember(symbol: ((path as NSString).lastPathComponent as NSString).deletingPathExtension, bars: path), at: item.location)
        }
      case .mapping:
        let t = try ConfigTable(item, path: "data.universe")
        guard let bars = try t.path("bars") else {
          throw InputError("expected 'bars' (and optionally 'symbol' and 'dividends') in each entry of 'data.universe'", at: item.location)
        }
        let symbol = try t.string("symbol") ?? ((bars as NSString).lastPathComponent as NSString).deletingPathExtension
        let dividends = try t.path("dividends")
        try t.finish()
        try add(UniverseMember(symbol: symbol, bars: bars, dividends: dividends), at: item.location)
      default:
        throw InputError("expected a bar file, a pattern or {symbol, bars} in 'data.universe', found \(item.typeDescription)", at: item.location)
      }
    }
    return members
  }

  /// The files `path` names: itself when its name has no `*`, `?` or `[`, else the files of its folder whose names
  /// match, in name order (hidden files only when the pattern starts with `.`).
  static func expand(_ path: String, at location: SourceLocation) throws -> [String] {
    let name = (path as NSString).lastPathComponent
    guard name.contains(where: { "*?[".contains($0) }) else { return [path] }
    let folder = (path as NSString).deletingLastPathComponent
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else {
      var error = InputError("no folder '\(folder)' to match '\(name)' in; expected the folder of the bar files", at: location)
      error.kind = .missingInput
      throw error
    }
    let pattern = Array(name.utf8)
    let matched = entries.filter { entry in
      (!entry.hasPrefix(".") || name.hasPrefix(".")) && globMatches(pattern[...], Array(entry.utf8)[...])
    }.sorted()
    guard !matched.isEmpty else {
      var error = InputError("'\(path)' matches no file; expected a pattern such as '../Data/etfs/*.csv'", at: location)
      error.kind = .missingInput
      throw error
    }
    return matched.map { folder.isEmpty ? $0 : folder + "/" + $0 }
  }

  /// Whether `name` matches the pattern: `*` any run of bytes, `?` one byte, `[abc]`, `[a-z]` or `[!a-z]` one byte of
  /// (or not of) a set; anything else itself.
  static func globMatches(_ pattern: ArraySlice<UInt8>, _ name: ArraySlice<UInt8>) -> Bool {
    guard let p = pattern.first else { return name.isEmpty }
    switch p {
    case UInt8(ascii: "*"):
      var rest = name
      while true {
        if globMatches(pattern.dropFirst(), rest) { return true }
        guard !rest.isEmpty else { return false }
        rest = rest.dropFirst()
      }
    case UInt8(ascii: "?"):
      return !name.isEmpty && globMatches(pattern.dropFirst(), name.dropFirst())
    case UInt8(ascii: "["):
      guard let c = name.first, let close = pattern.dropFirst(2).firstIndex(of: UInt8(ascii: "]")) else {
        return name.first == p && globMatches(pattern.dropFirst(), name.dropFirst())
      }
      var set = pattern[(pattern.startIndex + 1)..<close]
      let negated = set.first == UInt8(ascii: "!")
      if negated { set = set.dropFirst() }
      var inside = false, k = set.startIndex
      while k < set.endIndex {
        if k + 2 < set.endIndex, set[k + 1] == UInt8(ascii: "-") {
          if set[k] <= c && c <= set[k + 2] { inside = true }
          k += 3
        } else {
          if set[k] == c { inside = true }
          k += 1
        }
      }
      return inside != negated && globMatches(pattern[(close + 1)...], name.dropFirst())
    default:
      return name.first == p && globMatches(pattern.dropFirst(), name.dropFirst())
    }
  }

  /// The run of one symbol of the universe: its bars (and dividends: its own, else the run file's, picked by symbol),
  /// every other setting the run file's.
  package func member(_ k: Int) -> RunConfig {
    let m = universe[k]
    var config = self
    config.universe = []
    config.data.bars = m.bars
    if let own = m.dividends {
      config.data.dividends = own
    } else if config.data.dividends != nil {
      config.data.symbol = m.symbol
    }
    return config
  }
}

extension [UniverseMember] {
  /// Why a command that answers for one run refuses a universe, and how to run it on one symbol.
  package func oneAtATime(_ what: String) -> String {
    "\(what), and this run file runs \(count) symbols (data.universe: \(prefix(3).map(\.symbol).joined(separator: ", "))\(count > 3 ? ", …" : "")); "
      + "expected one symbol: add --set data.bars=\(first?.bars ?? "FILE")"
  }
}
