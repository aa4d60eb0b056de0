import Foundation

/// Returns the shortest text that reads back as the same double (`0.1`, `1e-05`),
/// with whole numbers written without a fraction when below 2^53 (`714`).
package func formatNumber(_ x: Double) -> String {
  if x == x.rounded(), abs(x) < 9_007_199_254_740_992 { return String(Int64(x)) }
  return x.description
}

/// Returns the shortest round-trip text, or the empty string for `nan` (an undefined cell).
package func formatCell(_ x: Double) -> String {
  x.isNaN ? "" : x.description
}

/// Returns `text` as one CSV field: quoted (with `""` for `"`) when it holds a comma, a quote or a line break.
package func csvField(_ text: String) -> String {
  guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
  return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// Returns a number for people: up to 10 significant digits, no exponent for
/// ordinary magnitudes (`2`, `1.5`, `0.02`); the text of `"%.10g"`.
///
/// A normal value (or zero) whose shortest round-trip digits (`description`'s)
/// are 10 or fewer has those as its 10 significant digits (it lies within
/// half a unit in the 17th digit of them, far inside half a unit in the
/// 10th; a subnormal may not, having fewer bits than that), so
/// they are laid out as `%g` does, without the C formatter: its first use
/// in a process sets up Foundation's formatting, about half a millisecond of
/// every run. Other values go to `String(format:)`.
package func formatPlain(_ x: Double) -> String {
  guard x.isNormal || x == 0, case let (negative, digits, exponent) = shortestDigits(x), digits.count <= 10 else {
    return String(format: "%.10g", x)
  }
  // `%g`: a plain decimal for exponents -4...9, else `d.ddde±XX`; no trailing zeros, no bare point.
  var text = negative ? "-" : ""
  if exponent < -4 || exponent >= 10 {
    text += digits.prefix(1)
    if digits.count > 1 { text += "." + digits.dropFirst() }
    let magnitude = abs(exponent)
    text += (exponent < 0 ? "e-" : "e+") + (magnitude < 10 ? "0" : "") + String(magnitude)
  } else if exponent < 0 {
    text += "0." + String(repeating: "0", count: -exponent - 1) + digits
  } else if digits.count <= exponent + 1 {
    text += digits + String(repeating: "0", count: exponent + 1 - digits.count)
  } else {
    text += digits.prefix(exponent + 1) + "." + digits.dropFirst(exponent + 1)
  }
  return text
}

/// The shortest round-trip digits of finite `x` without leading or trailing
/// zeros (`"0"` for zero), and the decimal exponent of the first:
/// `x = ±0.d₁d₂… × 10^(exponent + 1)`. Read from `description`.
private func shortestDigits(_ x: Double) -> (negative: Bool, digits: String, exponent: Int) {
  let text = x.magnitude.description  // `714.0`, `0.0001`, `1e-05`, `1.5e+20`
  let parts = text.split(separator: "e", maxSplits: 1)
  let mantissa = parts[0]
  var exponent = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
  let point = mantissa.firstIndex(of: ".") ?? mantissa.endIndex
  exponent += mantissa.distance(from: mantissa.startIndex, to: point) - 1
  var digits = Substring(mantissa.filter { $0 != "." })
  while digits.first == "0" && digits.count > 1 { digits = digits.dropFirst(); exponent -= 1 }
  while digits.last == "0" && digits.count > 1 { digits = digits.dropLast() }
  if digits == "0" { exponent = 0 }
  return (x.sign == .minus, String(digits), exponent)
}

/// Returns a fraction as a percentage for people (`0.02` → `2%`).
package func formatPercentPlain(_ x: Double) -> String {
  formatPlain(x * 100) + "%"
}

/// Formats for people in reports: `$1,234.57`, `3.79%`, `13,348,744`.
package enum HumanFormat {
  /// Inserts thousands separators into the integer part of a plain decimal text (`-1234.5` → `-1,234.5`).
  package static func grouped(_ text: String) -> String {
    var text = text
    return text.withUTF8 { t in
      let start = t.first == UInt8(ascii: "-") ? 1 : 0
      let point = t[start...].firstIndex(of: UInt8(ascii: ".")) ?? t.count
      let commas = max(0, (point - start - 1) / 3)
      guard commas > 0 else { return String(decoding: t, as: UTF8.self) }
      return String(unsafeUninitializedCapacity: t.count + commas) { out in
        var n = 0
        for k in t.indices {
          out[n] = t[k]
          n += 1
          // A comma after each digit with a multiple of three digits left before the point.
          if k >= start && k < point - 1 && (point - 1 - k) % 3 == 0 { out[n] = UInt8(ascii: ","); n += 1 }
        }
        return n
      }
    }
  }

  /// `$26.99`, `-$1,234.50`; `—` for `nil`.
  package static func money(_ x: Double?) -> String {
    guard let x, x.isFinite else { return "—" }
    let text = grouped(FixedDecimal.text(abs(x), decimals: 2))
    return (x < 0 && text != "0.00" ? "-$" : "$") + text
  }

  /// A price with as many decimals as it needs (2 to 6): `$1.07219`, `$26.99`.
  package static func price(_ x: Double) -> String {
    "$" + grouped(FixedDecimal.text(x, decimals: decimals(of: x)))
  }

  /// The decimals a price needs (2 to 6), for showing computed levels at the data's precision.
  package static func decimals(of x: Double) -> Int {
    var decimals = 2
    while decimals < 6 && abs(x * scales[decimals] - (x * scales[decimals]).rounded()) > 1e-6 { decimals += 1 }
    return decimals
  }

  /// 10^k exactly, as `pow(10, Double(k))` gives it, for `decimals(of:)`.
  private static let scales: [Double] = [1, 10, 100, 1_000, 10_000, 100_000]

  /// A price with a fixed number of decimals: `$26.60`.
  package static func price(_ x: Double, decimals: Int) -> String {
    "$" + grouped(FixedDecimal.text(x, decimals: decimals))
  }

  /// `3.79%`; `—` for `nil`.
  package static func percent(_ x: Double?, decimals: Int = 2) -> String {
    guard let x, x.isFinite else { return "—" }
    // A fraction whose percentage leaves what a number holds (1e308 is 1e310%): its mantissa and exponent.
    guard (x * 100).isFinite else {
      let exponent = Int(log10(abs(x)).rounded(.down))
      return String(format: "%.\(decimals)fe%+d%%", x / pow(10, Double(exponent)), exponent + 2)
    }
    let text = FixedDecimal.text(x * 100, decimals: decimals)
    return grouped(text == "-0.\(String(repeating: "0", count: decimals))" ? String(text.dropFirst()) : text) + "%"
  }

  /// `13,348,744`.
  package static func integer(_ x: Int) -> String { grouped(String(x)) }

  /// The whole part of `x`, grouped: `13,348,744` (any magnitude; `—` for nan).
  package static func integer(_ x: Double) -> String {
    guard x.isFinite else { return "—" }
    return abs(x) < 9e18 ? integer(Int(x)) : grouped(String(format: "%.0f", x.rounded(.towardZero)))
  }

  /// `1.23`; `—` for `nil`.
  package static func ratio(_ x: Double?) -> String {
    guard let x, x.isFinite else { return "—" }
    return FixedDecimal.text(x, decimals: 2)
  }
}
