import Foundation
import Testing

/// The folders of `Sources/` are layers (bottom up in `layers`; README, "Code layout"): each may
/// use the types of the layers before it, never those after. This reads the
/// sources as the contract check does: the type names each folder declares,
/// and the names each file mentions (comments and string literals left out);
/// a name declared in two folders is ignored.
@Suite struct LayerTests {
  /// Layers from the bottom up; a target other than `BacktestCore` and `BacktestRun` is one layer.
  static let layers = [
    "BacktestCore/Support", "BacktestCore/Data", "BacktestCore/Indicators", "BacktestCore/Account", "BacktestCore/Strategy",
    "BacktestCore/Engine", "BacktestCore/Analytics", "BacktestRun/Run", "BacktestRun/Reports", "BacktestRun/Config",
    "PersonalFinance", "CommandLineSupport", "BacktestCLI", "backtest-fetch", "backtest",
  ]

  /// The layer of a file under `Sources/`.
  static func layer(of relative: String) -> String {
    let parts = relative.split(separator: "/").map(String.init)
    return ["BacktestCore", "BacktestRun"].contains(parts[0]) && parts.count > 2 ? parts[0] + "/" + parts[1] : parts[0]
  }

  /// The source with comments and string literals blanked out.
  static func code(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      var kept = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
      if kept.contains("\"") { kept = Substring(kept.replacingOccurrences(of: #""(?:[^"\\]|\\.)*""#, with: "\"\"", options: .regularExpression)) }
      out += kept + "\n"
    }
    return out
  }

  static func sources() throws -> [(relative: String, text: String)] {
    let root = Repo.path("Sources")
    guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
    var files: [(String, String)] = []
    while let path = walker.nextObject() as? String {
      guard path.hasSuffix(".swift") else { continue }
      files.append((path, try String(contentsOfFile: root + "/" + path, encoding: .utf8)))
    }
    return files
  }

  /// `(from layer, to layer, name, file)` for every reference to a type declared in a later layer.
  static func upwardReferences(_ files: [(relative: String, text: String)]) throws -> [(String, String, String, String)] {
    let declaration = try NSRegularExpression(
      pattern: #"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|fileprivate|private|package)\s+)?(?:(?:final|indirect)\s+)?(?:struct|enum|class|protocol|typealias|actor)\s+([A-Za-z_]\w*)"#,
      options: [.anchorsMatchLines])
    var declared: [String: Set<String>] = [:]
    for f in files {
      let range = NSRange(f.text.startIndex..., in: f.text)
      for m in declaration.matches(in: f.text, range: range) {
        declared[String(f.text[Range(m.range(at: 1), in: f.text)!]), default: []].insert(layer(of: f.relative))
      }
    }
    let rank = Dictionary(uniqueKeysWithValues: layers.enumerated().map { ($1, $0) })
    let identifier = try NSRegularExpression(pattern: #"\b[A-Za-z_]\w*\b"#)
    var found: [(String, String, String, String)] = []
    for f in files {
      let from = layer(of: f.relative), text = code(f.text)
      var names: Set<String> = []
      for m in identifier.matches(in: text, range: NSRange(text.startIndex..., in: text)) { names.insert(String(text[Range(m.range, in: text)!])) }
      for name in names.sorted() {
        guard let owners = declared[name], owners.count == 1, let to = owners.first, to != from else { continue }
        if let a = rank[from], let b = rank[to], b > a { found.append((from, to, name, f.relative)) }
      }
    }
    return found
  }

  @Test("no folder or target reaches up the layers")
  func noUpwardReferences() throws {
    let files = try Self.sources()
    #expect(files.count > 50)
    for f in files { #expect(Self.layers.contains(Self.layer(of: f.relative)), "\(f.relative) is in no layer") }
    let up = try Self.upwardReferences(files)
    #expect(up.isEmpty, "\(up.map { "\($0.3): \($0.0) uses \($0.2) of \($0.1)" }.joined(separator: "\n"))")
  }

  /// `Docs/architecture.md`'s text.
  static func architecture() throws -> String { try String(contentsOfFile: Repo.path("Docs/architecture.md"), encoding: .utf8) }

  /// The targets of `Docs/architecture.md`'s table, each with the targets it depends on.
  static func documentedTargets(_ doc: String) -> [String: Set<String>] {
    var targets: [String: Set<String>] = [:]
    for line in doc.split(separator: "\n") where line.hasPrefix("| `") {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
      let names = { (cell: String) in Set(cell.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }.filter { !$0.isEmpty }) }
      targets[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = names(cells[3])
    }
    return targets
  }

  /// The targets `Package.swift` declares (tests left out), each with the targets it depends on.
  static func declaredTargets() throws -> [String: Set<String>] {
    let manifest = try String(contentsOfFile: Repo.path("Package.swift"), encoding: .utf8)
    let target = try NSRegularExpression(pattern: #"\.(?:target|executableTarget)\(name: "([^"]+)"(?:, dependencies: \[([^\]]*)\])?"#)
    var targets: [String: Set<String>] = [:]
    for m in target.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) {
      let name = String(manifest[Range(m.range(at: 1), in: manifest)!])
      let dependencies = Range(m.range(at: 2), in: manifest).map { manifest[$0] } ?? ""
      targets[name] = Set(dependencies.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"")) }.filter { !$0.isEmpty })
    }
    return targets
  }

  @Test("Docs/architecture.md's targets are Package.swift's, with the same dependencies, and each target imports only those and the system's modules")
  func targetsAsDocumented() throws {
    let documented = Self.documentedTargets(try Self.architecture()), declared = try Self.declaredTargets()
    #expect(declared.count == 7 && declared["BacktestCLI"] == ["BacktestCore", "BacktestRun", "PersonalFinance", "CommandLineSupport"],
            "\(declared)")
    #expect(documented == declared, "documented \(documented), Package.swift \(declared)")
    let system: Set<String> = ["Foundation", "Glibc", "Darwin"]
    var undeclared: [String] = []
    for f in try Self.sources() {
      let target = String(f.relative.prefix { $0 != "/" })
      let allowed = (declared[target] ?? []).union(system).union(target == "backtest-fetch" ? ["FoundationNetworking"] : [])
      for line in f.text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("@testable import ") {
        let module = String(line.split(separator: " ").last!)
        if !allowed.contains(module) { undeclared.append("\(f.relative) imports \(module)") }
      }
    }
    #expect(undeclared.isEmpty, "\(undeclared)")
  }

  @Test("Docs/architecture.md lists the layers of BacktestCore and BacktestRun in the order the check holds them to")
  func layersAsDocumented() throws {
    let doc = try Self.architecture()
    let section = try #require(doc.range(of: "## Layers inside BacktestCore and BacktestRun").map { doc[$0.upperBound...] })
    let block = section.components(separatedBy: "```")[1]
    let documented = block.split(separator: "\n").map { String($0.prefix { $0 != " " }) }
    #expect(documented == Self.layers.filter { $0.contains("/") }.map { String($0.split(separator: "/")[1]) })
  }

  @Test("the check finds a reference that reaches up (a strategy naming a report type)")
  func detects() throws {
    var files = try Self.sources()
    files.append(("BacktestCore/Strategy/Bad.swift", "struct Bad { let r: RunReport? = nil }"))
    let up = try Self.upwardReferences(files)
    #expect(up.contains { $0.0 == "BacktestCore/Strategy" && $0.1 == "BacktestRun/Reports" && $0.2 == "RunReport" })
  }
}
