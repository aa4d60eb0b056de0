import Foundation
import Testing

/// The README and the pages of `Docs/`: their links resolve, they point at
/// nothing outside the repository, and the README's code layout names the
/// folders of `Sources/` as they are.
@Suite struct DocumentationTests {
  /// README.md and every Markdown file under Docs/, relative to the root, sorted.
  static let pages: [String] = {
    let docs = FileManager.default.enumerator(atPath: CLI.root + "/Docs")?.compactMap { $0 as? String } ?? []
    return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.map { "Docs/" + $0 }.sorted()
  }()

  /// The text with fenced code blocks, indented code blocks and inline code spans blanked out.
  static func prose(_ text: String) -> String {
    var out: [Substring] = []
    var fenced = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") { fenced.toggle(); out.append(""); continue }
      if fenced || line.hasPrefix("    ") { out.append(""); continue }
      out.append(Substring(String(line).replacingOccurrences(of: "`[^`]*`", with: "``", options: .regularExpression)))
    }
    return out.joined(separator: "\n")
  }

  /// The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, `-1` for a repeat.
  static func anchors(_ text: String) -> Set<String> {
    var seen: [String: Int] = [:]
    var out: Set<String> = []
    var fenced = false
    for line in text.split(separator: "\n") {
      if line.hasPrefix("```") { fenced.toggle(); continue }
      guard !fenced, line.hasPrefix("#") else { continue }
      let title = line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces).lowercased()
      let slug = String(title.unicodeScalars.compactMap { c -> Character? in
        if c == " " { return "-" }
        if c == "-" || c == "_" || CharacterSet.alphanumerics.contains(c) { return Character(c) }
        return nil
      })
      let n = seen[slug, default: 0]
      seen[slug] = n + 1
      out.insert(n == 0 ? slug : "\(slug)-\(n)")
    }
    return out
  }

  @Test("every relative link of README.md and Docs/ names a file that exists, and a heading of it when it has an anchor")
  func links() throws {
    #expect(Self.pages.count > 10)
    let link = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
    var checked = 0
    for page in Self.pages {
      let text = try String(contentsOfFile: CLI.root + "/" + page, encoding: .utf8)
      let body = Self.prose(text)
      let folder = URL(fileURLWithPath: CLI.root + "/" + page).deletingLastPathComponent()
      for match in link.matches(in: body, range: NSRange(body.startIndex..., in: body)) {
        let target = String(body[Range(match.range(at: 1), in: body)!])
        if target.contains("://") || target.hasPrefix("mailto:") { continue }
        checked += 1
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let file = parts[0].isEmpty ? URL(fileURLWithPath: CLI.root + "/" + page) : folder.appendingPathComponent(parts[0])
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.standardized.path, isDirectory: &isFolder) else {
          Issue.record("\(page): the link '\(target)' names no file")
          continue
        }
        #expect(file.standardized.path.hasPrefix(CLI.root + "/"), "\(page): the link '\(target)' leaves the repository")
        if parts.count == 2 {
          #expect(!isFolder.boolValue && file.pathExtension == "md", "\(page): the link '\(target)' has an anchor into a non-page")
          let headings = Self.anchors(try String(contentsOf: file, encoding: .utf8))
          #expect(headings.contains(parts[1]), "\(page): the link '\(target)' names no heading of \(parts[0])")
        }
      }
    }
    #expect(checked > 50)
  }

  @Test("no file of the repository points into the shared folder beside it, which a user of the project does not have")
  func nothingShared() throws {
    let shared = "../" + "shared/"  // spelled in two parts so that this file does not match itself
    let skipped = [".build", ".git", ".swiftpm", ".venv", "Reports"]
    let kinds: Set<String> = ["swift", "md", "yaml", "yml", "py", "sh", "txt", "json", "sbatch", "tsv", "toml", "mk"]
    let root = URL(fileURLWithPath: CLI.root)
    let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.fileSizeKey, .isDirectoryKey])!
    var read = 0
    for case let url as URL in files {
      let relative = String(url.standardized.path.dropFirst(root.standardized.path.count + 1))
      let values = try url.resourceValues(forKeys: [.fileSizeKey, .isDirectoryKey])
      if values.isDirectory == true {
        if skipped.contains(where: { relative == $0 || relative.hasSuffix("/" + $0) || url.lastPathComponent.hasPrefix(".venv") }) {
          files.skipDescendants()
        }
        continue
      }
      guard kinds.contains(url.pathExtension) || url.lastPathComponent == "Makefile",
            (values.fileSize ?? 0) < 4_000_000,
            let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
      read += 1
      #expect(!text.contains(shared), "\(relative) refers to \(shared)")
    }
    #expect(read > 100)
  }

  @Test("the README's code layout names every folder of Sources/, Sources/BacktestCore/ and Sources/BacktestRun/, and only targets that exist")
  func codeLayout() throws {
    let readme = try String(contentsOfFile: CLI.root + "/README.md", encoding: .utf8)
    let start = try #require(readme.range(of: "### Code layout"))
    let layout = readme[start.upperBound...]
    func folders(_ path: String) throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: CLI.root + "/" + path).filter { name in
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: CLI.root + "/" + path + "/" + name, isDirectory: &isFolder) && isFolder.boolValue
      }.sorted()
    }
    for target in try folders("Sources") { #expect(layout.contains("`Sources/\(target)/`"), "Sources/\(target)") }
    for target in ["BacktestCore", "BacktestRun"] {
      for folder in try folders("Sources/" + target) { #expect(layout.contains("`\(folder)`"), "Sources/\(target)/\(folder)") }
    }
    let named = try NSRegularExpression(pattern: #"`Sources/([^`/]+)/"#)
    let text = String(layout)
    for match in named.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
      let target = String(text[Range(match.range(at: 1), in: text)!])
      #expect(FileManager.default.fileExists(atPath: CLI.root + "/Sources/" + target), "the README names Sources/\(target)/")
    }
  }
}
