import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One field of a CSV record: byte offsets into the scanned buffer.
///
/// For a quoted field, `start..<end` is the content between the quotes, and
/// `hasEscapedQuote` says whether it holds `""` pairs that stand for one `"`.
package struct CSVField: Sendable {
  package var start: Int
  package var end: Int
  package var quoted: Bool
  package var hasEscapedQuote: Bool
  /// 1-based column of the field's first byte on its line.
  package var column: Int
}

/// Splits CSV bytes into records and fields without building strings.
///
/// RFC 4180 with the usual leniency: `\n` or `\r\n` line ends, a UTF-8 byte-order
/// mark is skipped, blank lines are skipped, the last line may lack its newline,
/// and a quoted field may hold commas, `""` and line breaks.
package struct CSVScanner {
  package let bytes: UnsafeBufferPointer<UInt8>
  package let file: String
  private var position: Int
  /// Line number (1-based) of the record returned by the last `next` call.
  package private(set) var line: Int = 0
  private var nextLine: Int = 1

  package init(bytes: UnsafeBufferPointer<UInt8>, file: String) {
    self.bytes = bytes
    self.file = file
    let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    position = bytes.count >= 3 && bytes[0] == bom[0] && bytes[1] == bom[1] && bytes[2] == bom[2] ? 3 : 0
  }

  /// Starts at byte `start` (the beginning of a line), whose line number is `line`.
  package init(bytes: UnsafeBufferPointer<UInt8>, file: String, start: Int, line: Int) {
    self.bytes = bytes
    self.file = file
    position = start
    nextLine = line
  }

  /// The byte where the next record (or blank line) begins.
  package var offset: Int { position }

  /// The line number of the next record, if no blank line comes first.
  package var upcomingLine: Int { nextLine }

  /// Moves past one record that the caller read itself, which ends at `next`
  /// (the start of the following line): `line` becomes its line number.
  package mutating func skipRecord(to next: Int) {
    line = nextLine
    nextLine += 1
    position = next
  }

  /// Reads the next non-blank record into `fields` (cleared first).
  ///
  /// - Returns: `false` at the end of the input.
  /// - Throws: `InputError` for an unclosed quote or bytes after a closing quote.
  package mutating func next(into fields: inout [CSVField]) throws -> Bool {
    fields.removeAll(keepingCapacity: true)
    let n = bytes.count
    // Skip blank lines.
    while position < n {
      let b = bytes[position]
      if b == UInt8(ascii: "\n") {
        position += 1; nextLine += 1
      } else if b == UInt8(ascii: "\r") && position + 1 < n && bytes[position + 1] == UInt8(ascii: "\n") {
        position += 2; nextLine += 1
      } else {
        break
      }
    }
    if position >= n { return false }
    line = nextLine
    if let record = fastRecord(into: &fields) { position = record; nextLine += 1; return true }
    var lineStart = position
    var i = position
    while true {
      let fieldStart = i
      let column = fieldStart - lineStart + 1
      if i < n && bytes[i] == UInt8(ascii: "\"") {
        // Quoted field.
        var j = i + 1
        var escaped = false
        var closed = false
        while j < n {
          let b = bytes[j]
          if b == UInt8(ascii: "\"") {
            if j + 1 < n && bytes[j + 1] == UInt8(ascii: "\"") {
              escaped = true; j += 2; continue
            }
            closed = true
            break
          }
          if b == UInt8(ascii: "\n") { nextLine += 1; lineStart = j + 1 }
          j += 1
        }
        if !closed {
          throw InputError(
            "unclosed quote; expected a closing '\"' before the end of the file",
            at: SourceLocation(file: file, line: line, column: column))
        }
        fields.append(CSVField(start: i + 1, end: j, quoted: true, hasEscapedQuote: escaped, column: column))
        i = j + 1
        if i < n && bytes[i] != UInt8(ascii: ",") && bytes[i] != UInt8(ascii: "\n")
          && !(bytes[i] == UInt8(ascii: "\r") && i + 1 < n && bytes[i + 1] == UInt8(ascii: "\n")) {
          throw InputError(
            "expected ',' or the end of the line after a closing quote, found '\(Self.describe(bytes[i]))'",
            at: SourceLocation(file: file, line: nextLine, column: i - lineStart + 1))
        }
      } else {
        var j = i
        while j < n && bytes[j] != UInt8(ascii: ",") && bytes[j] != UInt8(ascii: "\n") { j += 1 }
        var end = j
        if end > i && bytes[end - 1] == UInt8(ascii: "\r") && (j == n || bytes[j] == UInt8(ascii: "\n")) { end -= 1 }
        fields.append(CSVField(start: i, end: end, quoted: false, hasEscapedQuote: false, column: column))
        i = j
      }
      if i < n && bytes[i] == UInt8(ascii: ",") {
        i += 1
        continue
      }
      // End of record.
      if i < n && bytes[i] == UInt8(ascii: "\r") { i += 1 }
      if i < n && bytes[i] == UInt8(ascii: "\n") { i += 1 }
      nextLine += 1
      position = i
      return true
    }
  }

  /// Splits a line without quotes with `memchr` (the common case); returns the
  /// position after the line, or `nil` when the line has a quote.
  @inline(__always)
  private func fastRecord(into fields: inout [CSVField]) -> Int? {
    let n = bytes.count
    let base = bytes.baseAddress!
    let lineEnd = memchr(base + position, Int32(UInt8(ascii: "\n")), n - position)
      .map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? n
    if memchr(base + position, Int32(UInt8(ascii: "\"")), lineEnd - position) != nil { return nil }
    var contentEnd = lineEnd
    if contentEnd > position && bytes[contentEnd - 1] == UInt8(ascii: "\r") { contentEnd -= 1 }
    var start = position
    while true {
      let comma = memchr(base + start, Int32(UInt8(ascii: ",")), contentEnd - start)
        .map { UnsafeRawPointer($0) - UnsafeRawPointer(base) }
      let end = comma ?? contentEnd
      fields.append(CSVField(start: start, end: end, quoted: false, hasEscapedQuote: false, column: start - position + 1))
      guard let comma else { break }
      start = comma + 1
    }
    return lineEnd < n ? lineEnd + 1 : n
  }

  /// Returns the field's text (quotes removed, `""` unescaped).
  package func text(_ field: CSVField) -> String {
    let raw = String(decoding: UnsafeBufferPointer(rebasing: bytes[field.start..<field.end]), as: UTF8.self)
    return field.hasEscapedQuote ? raw.replacingOccurrences(of: "\"\"", with: "\"") : raw
  }

  /// Returns the field's text shortened for an error message.
  package func shown(_ field: CSVField, limit: Int = 40) -> String {
    let count = field.end - field.start
    if count <= limit { return text(field) }
    let head = String(decoding: UnsafeBufferPointer(rebasing: bytes[field.start..<(field.start + limit)]), as: UTF8.self)
    return head + "…"
  }

  package func location(_ field: CSVField) -> SourceLocation {
    SourceLocation(file: file, line: line, column: field.column)
  }

  static func describe(_ byte: UInt8) -> String {
    byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
  }
}
