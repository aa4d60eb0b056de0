/// A JSON value whose objects keep their key order, so output is byte-stable.
package indirect enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case number(Double)
  case integer(Int)
  case string(String)
  case array([JSONValue])
  case object([(String, JSONValue)])

  package static func == (a: JSONValue, b: JSONValue) -> Bool { a.rendered() == b.rendered() }

  /// A number, or `null` when `nil` or not finite.
  package static func optional(_ x: Double?) -> JSONValue {
    guard let x, x.isFinite else { return .null }
    return .number(x)
  }

  /// Returns the value as JSON text, indented by two spaces, ending without a newline.
  package func rendered(indent: Int = 0) -> String {
    let pad = String(repeating: " ", count: indent)
    switch self {
    case .null: return "null"
    case .bool(let b): return b ? "true" : "false"
    case .integer(let i): return String(i)
    case .number(let x): return x.isFinite ? x.description : "null"
    case .string(let s): return Self.quoted(s)
    case .array(let items):
      if items.isEmpty { return "[]" }
      return "[\n" + items.map { pad + "  " + $0.rendered(indent: indent + 2) }.joined(separator: ",\n") + "\n" + pad + "]"
    case .object(let fields):
      if fields.isEmpty { return "{}" }
      return "{\n" + fields.map { pad + "  " + Self.quoted($0.0) + ": " + $0.1.rendered(indent: indent + 2) }
        .joined(separator: ",\n") + "\n" + pad + "}"
    }
  }

  package static func quoted(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out + "\""
  }
}
