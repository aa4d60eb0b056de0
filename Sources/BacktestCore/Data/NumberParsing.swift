#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Parses a decimal number (`-12.5`, `3`, `1.2e-3`) from bytes.
///
/// Accepts an optional sign, digits with an optional fraction, and an optional
/// exponent; surrounding spaces are ignored. Rejects everything else (`nan`,
/// `inf`, hex, thousands separators). The result is correctly rounded: short
/// inputs take Clinger's exact fast path, longer ones go through the C
/// library's `strtod` (which rounds correctly and, as Swift never calls
/// `setlocale`, reads `.` as the decimal point).
///
/// - Returns: `nil` when the text is not a number; an infinite value when it
///   overflows (`1e400`), which callers reject as not finite.
@inlinable
public func parseDecimal(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
  var i = start
  var end = end
  while i < end && bytes[i] == 0x20 { i += 1 }
  while end > i && bytes[end - 1] == 0x20 { end -= 1 }
  if i >= end { return nil }
  let first = i
  var negative = false
  if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
    negative = bytes[i] == UInt8(ascii: "-")
    i += 1
  }
  var mantissa: UInt64 = 0
  var digits = 0          // significant digits accumulated into `mantissa`
  var sawDigit = false
  var exponent = 0
  var exact = true        // false once a nonzero digit could not be accumulated
  while i < end, bytes[i] &- 0x30 < 10 {
    sawDigit = true
    let d = UInt64(bytes[i] &- 0x30)
    if digits < 19 {
      if mantissa != 0 || d != 0 { mantissa = mantissa &* 10 &+ d; if mantissa != 0 { digits += 1 } }
    } else {
      exponent += 1
      if d != 0 { exact = false }
    }
    i += 1
  }
  if i < end && bytes[i] == UInt8(ascii: ".") {
    i += 1
    while i < end, bytes[i] &- 0x30 < 10 {
      sawDigit = true
      let d = UInt64(bytes[i] &- 0x30)
      if digits < 19 {
        if mantissa != 0 || d != 0 { mantissa = mantissa &* 10 &+ d; if mantissa != 0 { digits += 1 } }
        exponent -= 1
      } else if d != 0 {
        exact = false
      }
      i += 1
    }
  }
  if !sawDigit { return nil }
  if i < end && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
    i += 1
    var expNegative = false
    if i < end && (bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+")) {
      expNegative = bytes[i] == UInt8(ascii: "-")
      i += 1
    }
    var e = 0
    var sawExpDigit = false
    while i < end, bytes[i] &- 0x30 < 10 {
      sawExpDigit = true
      if e < 100_000 { e = e * 10 + Int(bytes[i] &- 0x30) }
      i += 1
    }
    if !sawExpDigit { return nil }
    exponent += expNegative ? -e : e
  }
  if i != end { return nil }
  if mantissa == 0 { return negative ? -0.0 : 0.0 }
  if exact && mantissa <= (1 << 53) && exponent >= -22 && exponent <= 22 {
    let m = Double(mantissa)
    let value = exponent >= 0 ? m * _powersOfTen[exponent] : m / _powersOfTen[-exponent]
    return negative ? -value : value
  }
  return _strtodSlowPath(bytes, first, end)
}

@usableFromInline
let _powersOfTen: [Double] = (0...22).map { e in
  var p = 1.0
  for _ in 0..<e { p *= 10 }
  return p
}

@usableFromInline
func _strtodSlowPath(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double {
  let count = end - start
  return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer in
    for k in 0..<count { buffer[k] = CChar(bitPattern: bytes[start + k]) }
    buffer[count] = 0
    return strtod(buffer.baseAddress!, nil)
  }
}

/// Parses an unsigned decimal integer from bytes; `nil` if any byte is not a digit
/// or it has more than 18 digits.
@inlinable
func parseUnsigned(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
  if start >= end || end - start > 18 { return nil }
  var value = 0
  for i in start..<end {
    let d = bytes[i] &- 0x30
    if d >= 10 { return nil }
    value = value * 10 + Int(d)
  }
  return value
}
