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
package func parseDecimal(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
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
  // Every digit goes into `mantissa` (wrapping past 19 digits, which then takes the slow path).
  var mantissa: UInt64 = 0
  var digits = 0
  var exponent = 0
  while i < end, bytes[i] &- 0x30 < 10 {
    mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- 0x30)
    digits += 1
    i += 1
  }
  if i < end && bytes[i] == UInt8(ascii: ".") {
    i += 1
    while i < end, bytes[i] &- 0x30 < 10 {
      mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- 0x30)
      digits += 1
      exponent -= 1
      i += 1
    }
  }
  let sawDigit = digits > 0
  let exact = digits <= 19
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
  if exact, let value = _exactDecimal(mantissa: mantissa, exponent: exponent, negative: negative) { return value }
  return _strtodSlowPath(bytes, first, end)
}

/// `±mantissa × 10^exponent` when it is computed exactly (Clinger's fast path:
/// the mantissa within 2^53 and |exponent| ≤ 22, one correctly rounded
/// operation); `nil` otherwise. The mantissa must not have wrapped.
@usableFromInline @inline(__always)
func _exactDecimal(mantissa: UInt64, exponent: Int, negative: Bool) -> Double? {
  if mantissa == 0 { return negative ? -0.0 : 0.0 }
  guard mantissa <= (1 << 53) && exponent >= -22 && exponent <= 22 else { return nil }
  let m = Double(mantissa)
  let value = exponent >= 0 ? m * _powerOfTen(exponent) : m / _powerOfTen(-exponent)
  return negative ? -value : value
}

/// 10^e for 0 <= e <= 22, all exact in binary64 (a switch, not a global array:
/// no lazy-initialization check on the hot path).
@usableFromInline @inline(__always)
func _powerOfTen(_ e: Int) -> Double {
  switch e {
  case 0: return 1e0
  case 1: return 1e1
  case 2: return 1e2
  case 3: return 1e3
  case 4: return 1e4
  case 5: return 1e5
  case 6: return 1e6
  case 7: return 1e7
  case 8: return 1e8
  case 9: return 1e9
  case 10: return 1e10
  case 11: return 1e11
  case 12: return 1e12
  case 13: return 1e13
  case 14: return 1e14
  case 15: return 1e15
  case 16: return 1e16
  case 17: return 1e17
  case 18: return 1e18
  case 19: return 1e19
  case 20: return 1e20
  case 21: return 1e21
  default: return 1e22
  }
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
