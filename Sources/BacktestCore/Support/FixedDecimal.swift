import Foundation

/// A double with a fixed number of decimals, the same text as C's `"%.Nf"`
/// (`String(format:)`), without going through the C library's formatter.
///
/// `"%.Nf"` rounds the double's exact binary value to N decimals, a tie to the
/// even last digit (`0.125` → `0.12`, `2.5` → `2`), and keeps the sign of a
/// negative value that rounds to zero (`-0.001` → `-0.00`). Here the value
/// `m × 2^e` is scaled by 10^N in exact integer arithmetic (128 bits) and
/// rounded the same way. Values whose scaled magnitude reaches 2^62 (money up
/// to 4.6e16 with 2 decimals), non-finite values and more than 9 decimals go
/// to `String(format:)`. A test holds the two
/// equal over ties, edge values and a million random ones.
package enum FixedDecimal {
  /// `x` with `decimals` decimals, as `String(format: "%.{decimals}f", x)`.
  package static func text(_ x: Double, decimals: Int) -> String {
    guard (0...9).contains(decimals), x.isFinite, x.magnitude < 0x1p62 / Double(powersOfTen[decimals]) else {
      return String(format: "%.\(decimals)f", x)
    }
    let scaled = rounded(x.magnitude, decimals: decimals)
    // The digits of `scaled` (below 2^62: at most 19), at least `decimals + 1` of them, the last `decimals` after a point.
    var digits = 1
    while digits < 19 && scaled >= powersOfTen[digits] { digits += 1 }
    digits = max(digits, decimals + 1)
    let sign = x.sign == .minus ? 1 : 0
    let length = sign + digits + (decimals > 0 ? 1 : 0)
    return String(unsafeUninitializedCapacity: length) { out in
      if sign == 1 { out[0] = UInt8(ascii: "-") }
      var v = scaled, at = length
      for k in 0..<digits {
        if k == decimals && k > 0 { at -= 1; out[at] = UInt8(ascii: ".") }
        at -= 1
        out[at] = UInt8(ascii: "0") + UInt8(v % 10)
        v /= 10
      }
      return length
    }
  }

  /// `x × 10^decimals` rounded to the nearest whole number, a tie to the even
  /// one, for `0 <= x` with `x × 10^decimals < 2^62`.
  static func rounded(_ x: Double, decimals: Int) -> UInt64 {
    if x == 0 { return 0 }
    let biased = Int((x.bitPattern >> 52) & 0x7FF)
    let fraction = x.bitPattern & (1 << 52 - 1)
    // x = m × 2^e exactly.
    let m = biased == 0 ? fraction : fraction | 1 << 52
    let e = (biased == 0 ? 1 : biased) - 1075
    let scale = powersOfTen[decimals]
    if e >= 0 { return (m << UInt64(e)) * scale }  // whole, below 2^62
    // m × 10^decimals (below 2^83) as high × 2^64 + low, divided by 2^shift.
    let (high, low) = m.multipliedFullWidth(by: scale)
    let shift = -e
    if shift >= 128 { return 0 }  // below 2^83 / 2^128: less than a half
    let quotient: UInt64, remainderHigh: UInt64, remainderLow: UInt64, halfHigh: UInt64, halfLow: UInt64
    if shift >= 64 {
      quotient = shift == 64 ? high : high >> UInt64(shift - 64)
      remainderHigh = shift == 64 ? 0 : high & (1 << UInt64(shift - 64) - 1)
      remainderLow = low
      (halfHigh, halfLow) = shift == 64 ? (0, 1 << 63) : (1 << UInt64(shift - 65), 0)
    } else {
      quotient = high << UInt64(64 - shift) | low >> UInt64(shift)
      remainderHigh = 0
      remainderLow = low & (1 << UInt64(shift) - 1)
      (halfHigh, halfLow) = (0, 1 << UInt64(shift - 1))
    }
    if remainderHigh > halfHigh || (remainderHigh == halfHigh && remainderLow > halfLow) { return quotient + 1 }
    if remainderHigh == halfHigh && remainderLow == halfLow && quotient & 1 == 1 { return quotient + 1 }
    return quotient
  }

  /// 10^0 ... 10^18.
  static let powersOfTen: [UInt64] = (0...18).map { (0..<$0).reduce(1) { p, _ in p * 10 } }
}
