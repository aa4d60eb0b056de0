import Foundation

/// A value of a JSON document with the place it starts, so that a reader can
/// name line, column and byte offset in its errors ("data[3]: missing 'nav'").
package struct JSONNode: Sendable {
  package indirect enum Kind: Sendable {
    case null
    case bool(Bool)
    /// The number as written (`43.5494`, `119551`), to keep its digits.
    case number(String)
    case string(String)
    case array([JSONNode])
    /// Members in document order.
    case object([(key: String, value: JSONNode)])
  }

  package var kind: Kind
  /// Where the value's first byte is: 1-based line and column (in bytes).
  package var location: SourceLocation
  /// The 0-based byte offset of the value's first byte.
  package var offset: Int

  /// The member `key` of an object (the first, if written twice); `nil` for absent or not an object.
  package subscript(key: String) -> JSONNode? {
    guard case .object(let members) = kind else { return nil }
    return members.first { $0.key == key }?.value
  }

  package var string: String? { if case .string(let s) = kind { s } else { nil } }
  package var array: [JSONNode]? { if case .array(let a) = kind { a } else { nil } }
  package var members: [(key: String, value: JSONNode)]? { if case .object(let m) = kind { m } else { nil } }
  /// A number, or `nil` when the value is not a number or not finite as a double.
  package var number: Double? { if case .number(let t) = kind, let v = Double(t), v.isFinite { v } else { nil } }
  package var isNull: Bool { if case .null = kind { true } else { false } }

  /// `a string`, `a number`, … for messages.
  package var typeDescription: String {
    switch kind {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "a list"
    case .object: return "an object"
    }
  }

  /// The value as a `JSONValue` for writing back (numbers keep their value; whole numbers stay integers).
  package var value: JSONValue {
    switch kind {
    case .null: return .null
    case .bool(let b): return .bool(b)
    case .number(let t): return Int(t).map { .integer($0) } ?? .optional(Double(t))
    case .string(let s): return .string(s)
    case .array(let items): return .array(items.map(\.value))
    case .object(let members): return .object(members.map { ($0.key, $0.value.value) })
    }
  }
}

/// Reads JSON (RFC 8259) into `JSONNode`s with their places.
///
/// Unlike `JSONSerialization` it says where a malformed document goes wrong:
/// `file:line:column: error: malformed JSON at byte 57: expected ',' or '}' after a member, found 'x'`.
/// A leading byte order mark is skipped; nesting deeper than 512 levels is refused.
package enum JSONReader {
  package static let maximumDepth = 512

  /// Parses a whole document.
  ///
  /// - Throws: `InputError` at the first malformed byte, with its 0-based offset in the message.
  package static func parse(_ data: Data, file: String) throws -> JSONNode {
    try [UInt8](data).withUnsafeBufferPointer { bytes in
      var parser = Parser(bytes: bytes, file: file)
      if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { parser.position = 3; parser.lineStart = 3 }
      parser.skipSpace()
      let root = try parser.value(depth: 0)
      parser.skipSpace()
      if parser.position < bytes.count { throw parser.error("expected the end of the document after the top-level value") }
      return root
    }
  }

  struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let file: String
    var position = 0
    var line = 1
    var lineStart = 0

    init(bytes: UnsafeBufferPointer<UInt8>, file: String) {
      self.bytes = bytes
      self.file = file
    }

    var location: SourceLocation { SourceLocation(file: file, line: line, column: position - lineStart + 1) }

    /// What is at the current byte, for messages: `'x'`, or `the end of the data`.
    var found: String {
      guard position < bytes.count else { return "the end of the data" }
      let b = bytes[position]
      if b >= 0x20 && b < 0x7F { return "'\(Character(UnicodeScalar(b)))'" }
      if b >= 0x80 {
        // A whole UTF-8 character when it is one.
        var end = position + 1
        while end < bytes.count && end < position + 4 && bytes[end] & 0xC0 == 0x80 { end += 1 }
        if let s = String(bytes: bytes[position..<end], encoding: .utf8) { return "'\(s)'" }
      }
      return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    func error(_ message: String) -> InputError {
      InputError("malformed JSON at byte \(position): \(message), found \(found)", at: location)
    }

    mutating func skipSpace() {
      while position < bytes.count {
        switch bytes[position] {
        case 0x20, 0x09, 0x0D: position += 1
        case 0x0A:
          position += 1
          line += 1
          lineStart = position
        default: return
        }
      }
    }

    mutating func literal(_ word: String, _ kind: JSONNode.Kind, at start: SourceLocation) throws -> JSONNode {
      let offset = position
      for b in word.utf8 {
        guard position < bytes.count, bytes[position] == b else { throw error("expected '\(word)'") }
        position += 1
      }
      return JSONNode(kind: kind, location: start, offset: offset)
    }

    mutating func value(depth: Int) throws -> JSONNode {
      guard depth < JSONReader.maximumDepth else { throw error("nesting deeper than \(JSONReader.maximumDepth) levels; expected a flatter document") }
      let start = location, offset = position
      guard position < bytes.count else { throw error("expected a value") }
      switch bytes[position] {
      case UInt8(ascii: "{"):
        position += 1
        var members: [(key: String, value: JSONNode)] = []
        skipSpace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "}") {
          position += 1
          return JSONNode(kind: .object(members), location: start, offset: offset)
        }
        while true {
          skipSpace()
          guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a member name in double quotes") }
          let key = try string()
          skipSpace()
          guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':' after the member name") }
          position += 1
          skipSpace()
          members.append((key, try value(depth: depth + 1)))
          skipSpace()
          guard position < bytes.count else { throw error("expected ',' or '}' after a member") }
          if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
          if bytes[position] == UInt8(ascii: "}") { position += 1; break }
          throw error("expected ',' or '}' after a member")
        }
        return JSONNode(kind: .object(members), location: start, offset: offset)
      case UInt8(ascii: "["):
        position += 1
        var items: [JSONNode] = []
        skipSpace()
        if position < bytes.count && bytes[position] == UInt8(ascii: "]") {
          position += 1
          return JSONNode(kind: .array(items), location: start, offset: offset)
        }
        while true {
          skipSpace()
          items.append(try value(depth: depth + 1))
          skipSpace()
          guard position < bytes.count else { throw error("expected ',' or ']' after an item") }
          if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
          if bytes[position] == UInt8(ascii: "]") { position += 1; break }
          throw error("expected ',' or ']' after an item")
        }
        return JSONNode(kind: .array(items), location: start, offset: offset)
      case UInt8(ascii: "\""):
        return JSONNode(kind: .string(try string()), location: start, offset: offset)
      case UInt8(ascii: "t"): return try literal("true", .bool(true), at: start)
      case UInt8(ascii: "f"): return try literal("false", .bool(false), at: start)
      case UInt8(ascii: "n"): return try literal("null", .null, at: start)
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        return JSONNode(kind: .number(try number()), location: start, offset: offset)
      default:
        throw error("expected a value (an object, a list, a string, a number, true, false or null)")
      }
    }

    func isDigit(_ k: Int) -> Bool { k < bytes.count && bytes[k] >= UInt8(ascii: "0") && bytes[k] <= UInt8(ascii: "9") }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    mutating func number() throws -> String {
      let start = position
      if bytes[position] == UInt8(ascii: "-") { position += 1 }
      guard isDigit(position) else { throw error("expected a digit in the number") }
      if bytes[position] == UInt8(ascii: "0") {
        position += 1
      } else {
        while isDigit(position) { position += 1 }
      }
      if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
        position += 1
        guard isDigit(position) else { throw error("expected a digit after the decimal point") }
        while isDigit(position) { position += 1 }
      }
      if position < bytes.count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
        position += 1
        if position < bytes.count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")) { position += 1 }
        guard isDigit(position) else { throw error("expected a digit in the exponent") }
        while isDigit(position) { position += 1 }
      }
      return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    /// A string from its opening quote through its closing one, escapes decoded.
    mutating func string() throws -> String {
      position += 1
      var out = [UInt8]()
      while true {
        guard position < bytes.count else { throw error("expected '\"' to close the string") }
        let b = bytes[position]
        switch b {
        case UInt8(ascii: "\""):
          position += 1
          guard let s = String(bytes: out, encoding: .utf8) else {
            throw InputError("malformed JSON at byte \(position - 1): the string before here is not valid UTF-8", at: location)
          }
          return s
        case UInt8(ascii: "\\"):
          position += 1
          guard position < bytes.count else { throw error("expected an escape after '\\'") }
          let e = bytes[position]
          switch e {
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
          case UInt8(ascii: "b"): out.append(0x08)
          case UInt8(ascii: "f"): out.append(0x0C)
          case UInt8(ascii: "n"): out.append(0x0A)
          case UInt8(ascii: "r"): out.append(0x0D)
          case UInt8(ascii: "t"): out.append(0x09)
          case UInt8(ascii: "u"):
            position += 1
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
              // A high surrogate must be followed by a low one: together one character.
              guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                throw error("expected a low surrogate (\\uDC00-\\uDFFF) after a high surrogate")
              }
              position += 2
              let low = try hex4()
              guard (0xDC00..<0xE000).contains(low) else { throw error("expected a low surrogate (\\uDC00-\\uDFFF) after a high surrogate") }
              scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
            }
            guard let u = UnicodeScalar(scalar) else { throw error("expected a character, not a lone surrogate") }
            out += Array(String(Character(u)).utf8)
            continue
          default:
            throw error("expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
          }
          position += 1
        case 0..<0x20:
          throw error("expected '\"' to close the string before a control character (write \\n, \\t or \\u00XX)")
        default:
          out.append(b)
          position += 1
        }
      }
    }

    mutating func hex4() throws -> UInt32 {
      var v: UInt32 = 0
      for _ in 0..<4 {
        guard position < bytes.count, let d = hexDigit(bytes[position]) else { throw error("expected 4 hexadecimal digits after \\u") }
        v = v << 4 | d
        position += 1
      }
      return v
    }

    func hexDigit(_ b: UInt8) -> UInt32? {
      switch b {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(b - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(b - UInt8(ascii: "A") + 10)
      default: return nil
      }
    }
  }
}
