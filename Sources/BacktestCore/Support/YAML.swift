/// A node of a YAML document with the place it was written.
package struct YAMLNode: Sendable, Equatable {
  package enum Kind: Sendable, Equatable {
    /// `null`, `~` or nothing after a key.
    case null
    /// A plain or quoted scalar; `quoted` tells `"2"` from `2`.
    case scalar(String, quoted: Bool)
    case sequence([YAMLNode])
    case mapping([YAMLEntry])
  }
  package var kind: Kind
  package var location: SourceLocation
  /// Where the characters of a scalar's text were written, in order (empty
  /// for other nodes), so that a message can point inside the text (a rule
  /// expression's token).
  package var pieces: [ScalarPiece] = []

  package init(_ kind: Kind, at location: SourceLocation) {
    self.kind = kind
    self.location = location
  }

  /// The file place of the character at `offset` (counted in characters) of this scalar's text.
  package func location(ofCharacter offset: Int) -> SourceLocation {
    guard let piece = pieces.last(where: { $0.offset <= offset }) else { return location }
    var place = piece.location
    place.column += offset - piece.offset
    return place
  }

  /// The source line holding the character at `offset` of this scalar's text, with
  /// `width` carets under it (`    7 |   entry: …` then `      |          ^^^`); `nil` when unknown.
  package func markedLine(atCharacter offset: Int, width: Int) -> String? {
    guard let piece = pieces.last(where: { $0.offset <= offset }) else { return nil }
    return sourceExcerpt(line: piece.line, number: piece.location.line,
                         column: piece.location.column + offset - piece.offset, width: width)
  }

  /// A short name of the node's type for messages ("a mapping", "a list", …).
  package var typeDescription: String {
    switch kind {
    case .null: return "null"
    case .scalar(let text, let quoted): return quoted ? "the string \"\(excerpt(text))\"" : "'\(excerpt(text))'"
    case .sequence: return "a list"
    case .mapping: return "a mapping"
    }
  }
}

/// A run of a scalar's text written on one source line: the text from
/// character `offset` on starts at `location` and continues along the line.
package struct ScalarPiece: Sendable, Equatable {
  package var offset: Int
  package var location: SourceLocation
  /// The whole source line, for excerpts.
  package var line: String
}

/// The lines under an error message that show where it is: the source line
/// with its number (at most 200 characters, around the column when it is
/// far right), and `width` carets under column `column`.
package func sourceExcerpt(line: String, number: Int, column: Int, width: Int = 1) -> String {
  let gutter = String(repeating: " ", count: String(number).count)
  let skipped = max(0, column - 1 - 150)
  let shown = (skipped > 0 ? "…" : "") + line.dropFirst(skipped).prefix(200)
  return "    \(number) | \(shown)\n    \(gutter) | "
    + String(repeating: " ", count: max(0, column - 1 - skipped + (skipped > 0 ? 1 : 0))) + String(repeating: "^", count: max(1, width))
}

/// One `key: value` pair of a mapping.
package struct YAMLEntry: Sendable, Equatable {
  package var key: String
  package var keyLocation: SourceLocation
  package var value: YAMLNode

  package init(key: String, keyLocation: SourceLocation, value: YAMLNode) {
    self.key = key
    self.keyLocation = keyLocation
    self.value = value
  }
}

/// Reads the strict YAML subset used by run files.
///
/// Supported: block mappings and sequences (a sequence may sit at its parent
/// key's indentation), flow `[a, b]` and `{k: v}` on one line, plain, single-
/// and double-quoted scalars, literal (`|`) and folded (`>`) block scalars
/// with an optional chomping indicator (`-`, `+`), `#` comments. Refused with
/// a message: tabs in indentation, duplicate keys, anchors, aliases, tags,
/// block scalars inside flow collections or with an indentation indicator,
/// directives and document markers, multi-line flow collections, nesting
/// deeper than `maximumDepth`.
package struct YAMLReader {
  package static let maximumDepth = 64

  struct Line {
    var number: Int
    var indent: Int
    var text: Substring   // content after the indentation, comment removed, trimmed at the end
    var source: String  // the whole line as written, for excerpts (one copy per line, shared by its scalars)
  }

  let file: String
  var lines: [Line] = []
  /// Every line of the text as written (without a `\r`), by line number - 1: block scalars read them.
  var sourceLines: [Substring] = []
  var index = 0

  /// Parses `text`; `file` names it in errors.
  package static func parse(_ text: String, file: String) throws -> YAMLNode {
    var reader = YAMLReader(file: file)
    try reader.splitLines(text)
    guard !reader.lines.isEmpty else {
      return YAMLNode(.mapping([]), at: SourceLocation(file: file, line: 1, column: 1))
    }
    let first = reader.lines[0]
    if first.indent != 0 {
      throw InputError("unexpected indentation; expected the document to start at column 1",
                       at: SourceLocation(file: file, line: first.number, column: first.indent + 1))
    }
    let root = try reader.parseBlock(indent: 0, depth: 0)
    if reader.index < reader.lines.count {
      let line = reader.lines[reader.index]
      throw InputError("unexpected indentation; expected a key at column 1",
                       at: SourceLocation(file: file, line: line.number, column: line.indent + 1))
    }
    return root
  }

  /// Parses one inline value (as written after `key:` or in `--set k=v`) that
  /// starts at `column` of `sourceLine` (for excerpts; by default the value alone, indented).
  package static func parseInline(_ text: String, file: String, line: Int, column: Int, sourceLine: String? = nil) throws -> YAMLNode {
    let reader = YAMLReader(file: file)
    try refuseControlCharacters(Substring(text), at: SourceLocation(file: file, line: line, column: column))
    let l = Line(number: line, indent: column - 1, text: Substring(text),
                 source: sourceLine ?? String(repeating: " ", count: column - 1) + text)
    return try reader.parseInlineValue(l, from: text.startIndex, depth: 0)
  }

  private init(file: String) { self.file = file }

  // MARK: Lines

  private mutating func splitLines(_ text: String) throws {
    var number = 0
    for raw in text.textLines {
      number += 1
      var line = raw
      if number == 1 && line.hasPrefix("\u{FEFF}") { line = line.dropFirst() }
      sourceLines.append(line)
      try Self.refuseControlCharacters(line, at: SourceLocation(file: file, line: number, column: 1))
      var indent = 0
      var i = line.startIndex
      while i < line.endIndex {
        if line[i] == " " { indent += 1 } else if line[i] == "\t" {
          throw InputError("a tab in the indentation; expected spaces (YAML forbids tabs for indentation)",
                           at: SourceLocation(file: file, line: number, column: indent + 1))
        } else { break }
        i = line.index(after: i)
      }
      let content = try stripComment(line[i...], line: number, column: indent + 1)
      if content.isEmpty { continue }
      if indent == 0 && (content == "---" || content == "..." || content.hasPrefix("--- ") || content.hasPrefix("%")) {
        throw InputError("directives and document markers ('---', '...', '%') are not supported; expected one document",
                         at: SourceLocation(file: file, line: number, column: 1))
      }
      lines.append(Line(number: number, indent: indent, text: content, source: String(line)))
    }
  }

  /// Throws for the first control character (a run file's text is printed to terminals).
  static func refuseControlCharacters(_ line: Substring, at start: SourceLocation) throws {
    guard let control = line.unicodeScalars.firstIndex(where: isControlCharacter) else { return }
    var place = start
    place.column += line.unicodeScalars.distance(from: line.unicodeScalars.startIndex, to: control)
    let scalar = line.unicodeScalars[control]
    throw InputError(scalar == "\r" ? "a carriage return inside a line; expected LF or CRLF line endings"
                                    : "a control character (\(codePoint(scalar))); expected printable text", at: place)
  }

  /// Removes a `#` comment (outside quotes, at the start or after a space) and trailing spaces.
  private func stripComment(_ s: Substring, line: Int, column: Int) throws -> Substring {
    var quote: Character?
    var previous: Character = " "
    var end = s.endIndex
    var i = s.startIndex
    while i < s.endIndex {
      let c = s[i]
      if let q = quote {
        if c == q { quote = nil }
      } else if c == "\"" || c == "'" {
        if previous == " " || previous == "[" || previous == "{" || previous == "," || previous == ":" || i == s.startIndex {
          quote = c
        }
      } else if c == "#" && (previous == " " || previous == "\t") {
        end = i
        break
      } else if c == "\t" && i == s.startIndex {
        throw InputError("a tab in the indentation; expected spaces", at: SourceLocation(file: file, line: line, column: column))
      }
      previous = c
      i = s.index(after: i)
    }
    return s[s.startIndex..<end].droppingTrailingSpaces(tabs: true)
  }

  private func location(_ line: Line, _ index: Substring.Index) -> SourceLocation {
    SourceLocation(file: file, line: line.number, column: line.indent + 1 + line.text.distance(from: line.text.startIndex, to: index))
  }

  private static func isSequenceItem(_ text: Substring) -> Bool {
    text == "-" || text.hasPrefix("- ")
  }

  // MARK: Block structure

  private mutating func parseBlock(indent: Int, depth: Int) throws -> YAMLNode {
    let line = lines[index]
    if depth > Self.maximumDepth {
      throw InputError("nesting deeper than \(Self.maximumDepth) levels; expected a flatter document",
                       at: SourceLocation(file: file, line: line.number, column: line.indent + 1))
    }
    return Self.isSequenceItem(line.text)
      ? try parseSequence(indent: indent, depth: depth)
      : try parseMapping(indent: indent, depth: depth)
  }

  private mutating func parseSequence(indent: Int, depth: Int) throws -> YAMLNode {
    let start = SourceLocation(file: file, line: lines[index].number, column: indent + 1)
    var items: [YAMLNode] = []
    while index < lines.count, lines[index].indent == indent, Self.isSequenceItem(lines[index].text) {
      let line = lines[index]
      let rest = line.text.dropFirst().drop(while: { $0 == " " })
      if rest.isEmpty {
        index += 1
        if index < lines.count && lines[index].indent > indent {
          items.append(try parseBlock(indent: lines[index].indent, depth: depth + 1))
        } else {
          items.append(YAMLNode(.null, at: location(line, line.text.startIndex)))
        }
        continue
      }
      let offset = line.text.distance(from: line.text.startIndex, to: rest.startIndex)
      if Self.isSequenceItem(rest) || findMappingColon(rest) != nil {
        // A block node starting on the item's line: re-read the line as if indented.
        lines[index] = Line(number: line.number, indent: line.indent + offset, text: rest, source: line.source)
        items.append(try parseBlock(indent: line.indent + offset, depth: depth + 1))
      } else if rest.first == "|" || rest.first == ">" {
        index += 1
        items.append(try parseBlockScalar(line, header: rest, parentIndent: indent))
      } else {
        items.append(try parseInlineValue(line, from: rest.startIndex, depth: depth + 1))
        index += 1
      }
    }
    if index < lines.count && lines[index].indent > indent {
      let line = lines[index]
      throw InputError("unexpected indentation; expected '- ' at column \(indent + 1)",
                       at: SourceLocation(file: file, line: line.number, column: line.indent + 1))
    }
    return YAMLNode(.sequence(items), at: start)
  }

  private mutating func parseMapping(indent: Int, depth: Int) throws -> YAMLNode {
    let start = SourceLocation(file: file, line: lines[index].number, column: indent + 1)
    var entries: [YAMLEntry] = []
    var seen: [String: SourceLocation] = [:]
    while index < lines.count, lines[index].indent == indent {
      let line = lines[index]
      if Self.isSequenceItem(line.text) {
        throw InputError("expected a key, found a list item", at: location(line, line.text.startIndex))
      }
      guard let colon = findMappingColon(line.text) else {
        throw InputError("expected 'key: value', found '\(line.text.prefix(40))'", at: location(line, line.text.startIndex))
      }
      let keyText = line.text[line.text.startIndex..<colon]
      let keyLocation = location(line, line.text.startIndex)
      let key = try scalarKey(keyText, line: line)
      if let first = seen.updateValue(keyLocation, forKey: key) {
        throw InputError("duplicate key '\(key)' (first written on line \(first.line)); expected each key once",
                         at: keyLocation)
      }
      let rest = line.text[line.text.index(after: colon)...].drop(while: { $0 == " " })
      index += 1
      let value: YAMLNode
      if rest.isEmpty {
        if index < lines.count && lines[index].indent > indent {
          value = try parseBlock(indent: lines[index].indent, depth: depth + 1)
        } else if index < lines.count && lines[index].indent == indent && Self.isSequenceItem(lines[index].text) {
          value = try parseSequence(indent: indent, depth: depth + 1)
        } else {
          value = YAMLNode(.null, at: location(line, colon))
        }
      } else if rest.first == "|" || rest.first == ">" {
        value = try parseBlockScalar(line, header: rest, parentIndent: indent)
      } else {
        value = try parseInlineValue(line, from: rest.startIndex, depth: depth + 1)
        if index < lines.count && lines[index].indent > indent {
          let next = lines[index]
          throw InputError("unexpected indentation; '\(key)' already has a value on line \(line.number)",
                           at: SourceLocation(file: file, line: next.number, column: next.indent + 1))
        }
      }
      entries.append(YAMLEntry(key: key, keyLocation: keyLocation, value: value))
    }
    if index < lines.count && lines[index].indent > indent {
      let line = lines[index]
      throw InputError("unexpected indentation; expected a key at column \(indent + 1)",
                       at: SourceLocation(file: file, line: line.number, column: line.indent + 1))
    }
    return YAMLNode(.mapping(entries), at: start)
  }

  /// Reads a literal (`|`) or folded (`>`) block scalar whose header `header`
  /// ends `line`: the lines after it indented more than `parentIndent`, at the
  /// first one's indentation, taken as written (a `#` in them is text).
  /// Clipped by default (one final line break), `-` strips it, `+` keeps the blank lines after.
  private mutating func parseBlockScalar(_ line: Line, header: Substring, parentIndent: Int) throws -> YAMLNode {
    let here = location(line, header.startIndex)
    let style = header.first!, chomping = header.dropFirst()
    guard chomping.isEmpty || chomping == "-" || chomping == "+" else {
      throw InputError("expected '\(style)', '\(style)-' or '\(style)+' to start a block scalar (indentation indicators are not supported), found '\(header)'",
                       at: here)
    }
    guard index < lines.count, lines[index].indent > parentIndent else {
      return YAMLNode(.scalar("", quoted: true), at: here)
    }
    let indent = lines[index].indent, first = lines[index].number
    while index < lines.count && lines[index].indent > parentIndent { index += 1 }
    let last = lines[index - 1].number
    func isBlank(_ s: Substring) -> Bool { s.allSatisfy { $0 == " " } }
    var rows: [(number: Int, text: Substring)?] = []
    for number in first...last {
      let raw = sourceLines[number - 1]
      if isBlank(raw) { rows.append(nil); continue }
      let spaces = raw.prefix { $0 == " " }.count
      if spaces < indent {
        throw InputError("a line of a block scalar indented less than its first line; expected \(indent) spaces, found \(spaces)",
                         at: SourceLocation(file: file, line: number, column: spaces + 1))
      }
      rows.append((number, raw.dropFirst(indent)))
    }
    var trailing = 0
    while last + trailing < sourceLines.count && isBlank(sourceLines[last + trailing]) { trailing += 1 }
    var text = "", count = 0, pieces: [ScalarPiece] = []
    var previous: Substring?  // the last content line, once there is one
    var blanks = 0
    for row in rows {
      guard let row else { blanks += 1; continue }
      if let previous {
        let folds = style == ">" && blanks == 0 && previous.first != " " && row.text.first != " "
        let breaks = folds ? 0 : (style == ">" && previous.first != " " && row.text.first != " " ? blanks : blanks + 1)
        if folds { text += " "; count += 1 } else { text += String(repeating: "\n", count: breaks); count += breaks }
      }
      pieces.append(ScalarPiece(offset: count, location: SourceLocation(file: file, line: row.number, column: indent + 1),
                                line: String(sourceLines[row.number - 1])))
      text += row.text
      count += row.text.count
      previous = row.text
      blanks = 0
    }
    if chomping != "-" { text += "\n" }
    if chomping == "+" { text += String(repeating: "\n", count: trailing) }
    var node = YAMLNode(.scalar(text, quoted: true), at: here)
    node.pieces = pieces
    return node
  }

  /// Returns the index of the `:` that ends a block mapping key (followed by a
  /// space or the end), outside quotes and brackets.
  private func findMappingColon(_ s: Substring) -> Substring.Index? {
    var i = s.startIndex
    if let first = s.first, first == "\"" || first == "'" {
      // Quoted key: skip to its closing quote.
      var j = s.index(after: i)
      while j < s.endIndex && s[j] != first { j = s.index(after: j) }
      if j == s.endIndex { return nil }
      i = s.index(after: j)
    } else if let first = s.first, first == "[" || first == "{" {
      return nil
    }
    while i < s.endIndex {
      if s[i] == ":" {
        let next = s.index(after: i)
        if next == s.endIndex || s[next] == " " { return i }
      }
      i = s.index(after: i)
    }
    return nil
  }

  private func scalarKey(_ text: Substring, line: Line) throws -> String {
    let text = text.droppingTrailingSpaces()
    if text.isEmpty { throw InputError("expected a key before ':'", at: location(line, text.startIndex)) }
    if let q = text.first, q == "\"" || q == "'" {
      var cursor = Cursor(text: line.text, index: text.startIndex)
      var pieces: [ScalarPiece] = []
      return try readQuoted(&cursor, line: line, pieces: &pieces)
    }
    if let c = text.first, "&*!|>%@`".contains(c) {
      throw InputError("a key cannot start with '\(c)'; expected a plain name", at: location(line, text.startIndex))
    }
    return String(text)
  }

  // MARK: Inline values

  struct Cursor {
    var text: Substring
    var index: Substring.Index
    /// Characters from the start of `text` to `index`, counted as it moves (no rescan per node).
    var offset: Int
    init(text: Substring, index: Substring.Index) {
      self.text = text
      self.index = index
      offset = text.distance(from: text.startIndex, to: index)
    }
    var atEnd: Bool { index >= text.endIndex }
    var current: Character? { atEnd ? nil : text[index] }
    mutating func advance() { index = text.index(after: index); offset += 1 }
    mutating func skipSpaces() { while let c = current, c == " " { advance() } }
  }

  /// The place `back` characters before the cursor.
  private func location(_ line: Line, _ c: Cursor, back: Int = 0) -> SourceLocation {
    SourceLocation(file: file, line: line.number, column: line.indent + 1 + c.offset - back)
  }

  private func parseInlineValue(_ line: Line, from start: Substring.Index, depth: Int) throws -> YAMLNode {
    var cursor = Cursor(text: line.text, index: start)
    let node = try parseFlowNode(&cursor, line: line, depth: depth, inFlow: false)
    cursor.skipSpaces()
    if !cursor.atEnd {
      throw InputError("unexpected '\(cursor.current!)' after the value; expected the end of the line",
                       at: location(line, cursor))
    }
    return node
  }

  private func parseFlowNode(_ c: inout Cursor, line: Line, depth: Int, inFlow: Bool) throws -> YAMLNode {
    c.skipSpaces()
    let here = location(line, c)
    if depth > Self.maximumDepth {
      throw InputError("nesting deeper than \(Self.maximumDepth) levels; expected a flatter document", at: here)
    }
    guard let first = c.current else { return YAMLNode(.null, at: here) }
    switch first {
    case "[":
      c.advance()
      var items: [YAMLNode] = []
      c.skipSpaces()
      if c.current == "]" { c.advance(); return YAMLNode(.sequence(items), at: here) }
      while true {
        items.append(try parseFlowNode(&c, line: line, depth: depth + 1, inFlow: true))
        c.skipSpaces()
        guard let d = c.current else {
          throw InputError("unclosed '['; expected ']' before the end of the line (flow lists must fit on one line)", at: here)
        }
        c.advance()
        if d == "]" { return YAMLNode(.sequence(items), at: here) }
        if d != "," {
          throw InputError("expected ',' or ']' in the list, found '\(d)'", at: location(line, c, back: 1))
        }
      }
    case "{":
      c.advance()
      var entries: [YAMLEntry] = []
      var seen: Set<String> = []
      c.skipSpaces()
      if c.current == "}" { c.advance(); return YAMLNode(.mapping(entries), at: here) }
      while true {
        c.skipSpaces()
        let keyLocation = location(line, c)
        let key: String
        if c.current == "\"" || c.current == "'" {
          var pieces: [ScalarPiece] = []
          key = try readQuoted(&c, line: line, pieces: &pieces)
        } else {
          var k = ""
          while let ch = c.current, ch != ":", ch != ",", ch != "}" { k.append(ch); c.advance() }
          key = k.trimmingSpaces()
        }
        if key.isEmpty {
          if c.atEnd {
            throw InputError("unclosed '{'; expected '}' before the end of the line (flow mappings must fit on one line; use block style for long ones)", at: here)
          }
          throw InputError("expected a key in '{…}'", at: keyLocation)
        }
        c.skipSpaces()
        guard c.current == ":" else {
          if c.atEnd {
            throw InputError("unclosed '{'; expected '}' before the end of the line (flow mappings must fit on one line)", at: here)
          }
          throw InputError("expected ':' after the key '\(key)'", at: location(line, c))
        }
        c.advance()
        let value = try parseFlowNode(&c, line: line, depth: depth + 1, inFlow: true)
        if !seen.insert(key).inserted {
          throw InputError("duplicate key '\(key)'; expected each key once", at: keyLocation)
        }
        entries.append(YAMLEntry(key: key, keyLocation: keyLocation, value: value))
        c.skipSpaces()
        guard let d = c.current else {
          throw InputError("unclosed '{'; expected '}' before the end of the line (flow mappings must fit on one line)", at: here)
        }
        c.advance()
        if d == "}" { return YAMLNode(.mapping(entries), at: here) }
        if d != "," {
          throw InputError("expected ',' or '}' in the mapping, found '\(d)'", at: location(line, c, back: 1))
        }
      }
    case "\"", "'":
      var pieces: [ScalarPiece] = []
      var node = YAMLNode(.scalar(try readQuoted(&c, line: line, pieces: &pieces), quoted: true), at: here)
      node.pieces = pieces
      return node
    case "&", "*":
      throw InputError("anchors and aliases ('&', '*') are not supported; expected a plain value", at: here)
    case "!":
      throw InputError("tags ('!') are not supported; expected a plain value", at: here)
    case "|", ">":
      throw InputError("a block scalar ('|', '>') must be the whole value of a key or list item; expected a quoted string here", at: here)
    case "]", "}", ",":
      if inFlow { return YAMLNode(.null, at: here) }
      throw InputError("unexpected '\(first)'; expected a value", at: here)
    case "@", "`":
      throw InputError("a value cannot start with '\(first)'; expected a quoted string", at: here)
    default:
      var text = ""
      while let ch = c.current {
        if inFlow && (ch == "," || ch == "]" || ch == "}") { break }
        if inFlow && ch == ":" {
          let next = c.text.index(after: c.index)
          if next == c.text.endIndex || c.text[next] == " " { break }
        }
        if !inFlow && ch == ":" {
          let next = c.text.index(after: c.index)
          if next == c.text.endIndex || c.text[next] == " " {
            throw InputError("unexpected ': ' in a value; quote the value or put the mapping on its own lines",
                             at: location(line, c))
          }
        }
        text.append(ch)
        c.advance()
      }
      text = text.trimmingSpaces()
      if text == "null" || text == "~" || text == "Null" || text == "NULL" { return YAMLNode(.null, at: here) }
      var node = YAMLNode(.scalar(text, quoted: false), at: here)
      node.pieces = [ScalarPiece(offset: 0, location: here, line: line.source)]
      return node
    }
  }

  /// Reads a quoted scalar; `pieces` gets where its text was written (a new piece after each escape).
  private func readQuoted(_ c: inout Cursor, line: Line, pieces: inout [ScalarPiece]) throws -> String {
    let start = c.index
    let quote = c.current!
    c.advance()
    var out = ""
    var count = 0  // characters in `out`
    func piece() { pieces.append(ScalarPiece(offset: count, location: location(line, c), line: line.source)) }
    piece()
    while let ch = c.current {
      c.advance()
      if ch == quote {
        if quote == "'" && c.current == "'" { out.append("'"); c.advance(); count += 1; piece(); continue }
        return out
      }
      if quote == "\"" && ch == "\\" {
        guard let e = c.current else { break }
        let escape = c
        c.advance()
        let scalar: Unicode.Scalar
        switch e {
        case "\"": scalar = "\""
        case "\\": scalar = "\\"
        case "/": scalar = "/"
        case "n": scalar = "\n"
        case "t": scalar = "\t"
        case "r": scalar = "\r"
        case "0": scalar = "\0"
        case "u":
          var hex = ""
          for _ in 0..<4 { if let h = c.current { hex.append(h); c.advance() } }
          guard hex.count == 4, let v = UInt32(hex, radix: 16), let s = Unicode.Scalar(v) else {
            throw InputError("expected four hex digits after '\\u'", at: location(line, c))
          }
          scalar = s
        default:
          throw InputError("unknown escape '\\\(e)' in a double-quoted string", at: location(line, c, back: 2))
        }
        // What a run file holds is printed to terminals: no escape may make a control character.
        if isControlCharacter(scalar) {
          throw InputError("the escape makes a control character (\(codePoint(scalar))); expected printable text",
                           at: location(line, escape, back: 1))
        }
        out.unicodeScalars.append(scalar)
        count += 1
        piece()
        continue
      }
      out.append(ch)
      count += 1
    }
    throw InputError("unclosed quote; expected a closing \(quote) before the end of the line", at: location(line, start))
  }
}

extension String {
  /// The text without spaces at either end (in time linear in its length).
  package func trimmingSpaces() -> String {
    String(Substring(self).droppingLeadingSpaces().droppingTrailingSpaces())
  }
}
