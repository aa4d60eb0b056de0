/// The shortest decimal text that reads back as the same double, written as
/// bytes: the same text as Swift's `Double.description`, without a `String`.
///
/// The digits come from the Schubfach algorithm (Raffaello Giulietti, "The
/// Schubfach way to render doubles", 2020): of the decimals that round to the
/// double, those with the fewest digits, and of those the closest (a tie goes
/// to the even last digit). The layout is `description`'s: a plain decimal
/// for magnitudes from 1e-4 up to 2^53 (`0.0001`, `714.0`,
/// `9007199254740992.0`), otherwise `d.ddde±XX` with at least two exponent
/// digits (`1e-05`, `1e+16`, `5e-324`); `-0.0`, `nan` (any NaN), `inf`, `-inf`.
/// Most digits come from one product (`nearest`, after Victor Zverovich's
/// Żmij, 2025), the few that one cannot settle from Schubfach's three.
/// A property test holds it equal to `description` over millions of values.
package enum ShortestDecimal {
  /// The most bytes `write` produces (`-2.2250738585072014e-308`).
  package static let maximumLength = 24

  /// The bytes from `p` on that `write` may overwrite.
  package static let writableLength = 48

  /// Writes the text of `x` at `p` and returns how many bytes it wrote.
  ///
  /// `p` must have room for `writableLength` bytes: the text is at most
  /// `maximumLength` long, but digits are copied eight bytes at a time.
  package static func write(_ x: Double, to p: UnsafeMutablePointer<UInt8>) -> Int {
    let bits = x.bitPattern
    let fraction = bits & (1 << 52 - 1)
    let c = 1 << 52 | fraction
    let shift = 1075 &- Int(truncatingIfNeeded: bits &>> 52 & 0x7FF)  // the value is c × 2^-shift
    // Most numbers lie from 2^-11 (0.00049) up to 2^52: shift 1...63, so the mask below does not wrap.
    if UInt(bitPattern: shift &- 1) < 63 {
      let n = Int(truncatingIfNeeded: bits &>> 63)
      if c & (1 &<< shift &- 1) == 0 {
        // A whole number (shift <= 52 then) is its own shortest decimal.
        p[0] = UInt8(ascii: "-")  // the digits overwrite it when the number is positive
        return n &+ layoutWholeApart(c &>> shift, to: p + n)
      }
      if fraction != 0 {
        // Not a power of two, so its interval is as wide on both sides (`nearest`). Its exponent
        // (floor(-shift log10 2)) is negative and the number is above 1e-4: a plain decimal.
        p[0] = UInt8(ascii: "-")
        let (high, low, k) = nearest(q: 0 &- shift, c: c)
        return n &+ plainDigits(high: high, low: low, k, to: p + n)
      }
    }
    return writeGeneral(bits, to: p)
  }

  /// A number's digits as `write` makes them in its common way, apart from
  /// their layout (`write(_:_:to:)`): several numbers' digits made before any
  /// is written overlap in the processor (four of indicators.csv's numbers
  /// at a time took 13% less time than one after another).
  package struct Digits {
    let high: UInt64, low: UInt64, exponent: Int
    /// Whether `write` takes its common way for the number: from 2^-11 up to
    /// 2^52, with digits after the point, not a power of two. Otherwise the
    /// digits mean nothing.
    let common: Bool
  }

  /// The digits of `x` by `nearest` (which stays within its table for any double).
  @inline(__always)
  package static func digits(_ x: Double) -> Digits {
    let bits = x.bitPattern
    let fraction = bits & (1 << 52 - 1)
    let c = 1 << 52 | fraction
    let shift = 1075 &- Int(truncatingIfNeeded: bits &>> 52 & 0x7FF)
    let (high, low, k) = nearest(q: 0 &- shift, c: c)
    return Digits(high: high, low: low, exponent: k,
                  common: UInt(bitPattern: shift &- 1) < 63 && c & (1 &<< shift &- 1) != 0 && fraction != 0)
  }

  /// Writes the text of `x` from its digits (`digits(x)`), as `write(x, to: p)` does.
  @inline(__always)
  package static func write(_ x: Double, _ digits: Digits, to p: UnsafeMutablePointer<UInt8>) -> Int {
    guard digits.common else { return write(x, to: p) }
    let n = Int(truncatingIfNeeded: x.bitPattern &>> 63)
    p[0] = UInt8(ascii: "-")  // the digits overwrite it when the number is positive
    return n &+ plainDigits(high: digits.high, low: digits.low, digits.exponent, to: p + n)
  }

  /// `write` by its general way, for every number (`write` takes it for those its common cases leave).
  @inline(never)
  package static func writeGeneral(_ bits: UInt64, to p: UnsafeMutablePointer<UInt8>) -> Int {
    let biased = Int(truncatingIfNeeded: bits >> 52) & 0x7FF
    let fraction = bits & (1 << 52 - 1)
    if biased == 0x7FF {
      if fraction != 0 { return copy("nan", to: p) }
      return copy(bits >> 63 == 0 ? "inf" : "-inf", to: p)
    }
    var n = 0
    if bits >> 63 != 0 { p[0] = UInt8(ascii: "-"); n = 1 }
    if biased == 0 && fraction == 0 { return n + copy("0.0", to: p + n) }
    if biased == 0 {
      // Subnormal. The two smallest need one more digit of headroom (Schubfach's C_TINY).
      let (digits, exponent) = fraction < 3 ? schubfach(q: -1074, c: 10 * fraction, dk: -1) : schubfach(q: -1074, c: fraction, dk: 0)
      return n + layout(digits, exponent, exponential: false, to: p + n)
    }
    let c = 1 << 52 | fraction
    let shift = 1075 - biased  // the value is c × 2^-shift
    if shift > 0 && shift < 53 {
      // A whole number below 2^53 is its own shortest decimal.
      let whole = c >> UInt64(shift)
      if whole << UInt64(shift) == c { return n + layoutWhole(whole, to: p + n) }
    }
    let digits: UInt64, exponent: Int
    if fraction != 0 {
      let (high, low, k) = nearest(q: -shift, c: c)
      if let written = layoutPlain(high: high, low: low, k, to: p + n) { return n + written }
      (digits, exponent) = (high &* 100_000_000 &+ low, k)
    } else {
      (digits, exponent) = schubfach(q: -shift, c: c, dk: 0)
      if let written = layoutPlain(digits, exponent, to: p + n) { return n + written }
    }
    // `description` switches to exponents above 2^53 (biased exponent 1075 with a fraction, or more).
    let large = biased > 1076 || (biased == 1076 && fraction != 0)
    return n + layout(digits, exponent, exponential: large, to: p + n)
  }

  /// Writes the text of `x` as `write` does, faster when `x` is a price in
  /// whole cents (`26.13`): then `x × 100` rounds to a whole number `m` of at
  /// most 15 digits with `m / 100 == x`, so the decimal `m / 100` reads back as
  /// `x`, and as no two decimals of 15 digits or fewer read back as the same
  /// double, it is the shortest.
  @inline(__always)
  package static func writePrice(_ x: Double, to p: UnsafeMutablePointer<UInt8>) -> Int {
    // `x × 100` to a whole number by adding and taking off 2^52 (exact below 2^52; a tie
    // goes to the even number, not away from zero as `rounded()`, a call into the C library
    // on baseline x86-64: no tie passes the checks below, whichever way it goes).
    let shifted = x * 100 + 0x1p52
    let m = shifted - 0x1p52
    if m >= 100 && m < 1e8 && m / 100 == x {
      // From 1.00 to 999999.99: the digits, then the last two again one byte further, after the point.
      // `m` is whole and below 2^52, so it is the significand of `shifted` (without a conversion's range checks).
      let v = UInt32(truncatingIfNeeded: shifted.bitPattern)
      let count = digitCount(v)  // 3...8, so the shifts below are by 0...40 and 8...48 bits
      let digits = eightDigits(v) &>> (8 &* (8 &- count))
      store(digits, at: p)
      store(digits &>> (8 &* (count &- 2)), at: p + (count &- 1))
      p[count &- 2] = UInt8(ascii: ".")
      return count &+ (v % 10 == 0 ? 0 : 1)  // `26.1` for 2610 cents, `26.0` for 2600
    }
    if m >= 1 && m < 1e15 && m / 100 == x { return layout(UInt64(m), -2, exponential: false, to: p) }
    return write(x, to: p)
  }

  /// The Schubfach step for `c × 2^q`: the decimal's digits and exponent, the
  /// exponent shifted by `dk`.
  @inline(__always)
  static func schubfach(q: Int, c: UInt64, dk: Int) -> (digits: UInt64, exponent: Int) {
    // Wrapping arithmetic throughout: every value stays far inside its range
    // (|q| <= 1074, c < 2^55, h in 1...4), and the checks cost a fifth of the time.
    let out: UInt64 = c & 1  // an even significand's interval includes its ends
    let cb = c &<< 2
    let cbr = cb &+ 2
    let cbl: UInt64
    let k: Int
    if c != 1 << 52 || q == -1074 {
      cbl = cb &- 2
      k = (q &* 661_971_961_083) &>> 41                     // floor(q log10 2)
    } else {
      // At a power of two the interval below is half as wide.
      cbl = cb &- 1
      k = (q &* 661_971_961_083 &- 274_743_187_321) &>> 41  // floor(log10(3/4 × 2^q))
    }
    let h = UInt64(truncatingIfNeeded: q &+ ((0 &- k) &* 913_124_641_741) &>> 38 &+ 2)  // + floor(-k log2 10)
    let index = 2 &* (0 &- k &- powersOfTenMinimumExponent)
    let (g1, g0) = powersOfTen.withUnsafeBufferPointer { ($0[index], $0[index &+ 1]) }
    let vb = roundToOdd(g1, g0, cb &<< h)
    let vbl = roundToOdd(g1, g0, cbl &<< h)
    let vbr = roundToOdd(g1, g0, cbr &<< h)

    let s = vb &>> 2
    // The candidates are chosen without branches: which one wins is as good as random.
    // One digit fewer, when exactly one of the two neighbouring multiples of ten fits.
    // (Giulietti's version, written for Java's at-least-two-digits rule, skips this
    // below 100; without the skip, 5e-324 is `5e-324` as in `description`, not `4.9e-324`.)
    let sp10 = 10 &* (s / 10)
    let upin = vbl &+ out <= sp10 &<< 2
    let wpin = ((sp10 &+ 10) &<< 2) &+ out <= vbr
    let short = sp10 &+ (upin ? 0 : 10)
    // Otherwise s or s + 1, whichever fits; when both do, the closer one, a tie to the even one.
    let uin = vbl &+ out <= s &<< 2
    let win = ((s &+ 1) &<< 2) &+ out <= vbr
    // s + 1 is the closer when vb (4 × the value in units of s, rounded to odd) lies
    // above 4s + 2, or on it (a tie) with s odd.
    let closerUp: UInt64 = ((vb & 3) &+ (s & 1) &+ 1) &>> 2
    let u: UInt64 = uin ? 1 : 0, w: UInt64 = win ? 1 : 0
    let up = w ^ ((1 ^ u ^ w) & (closerUp ^ w))  // uin == win ? closerUp : w
    let full = s &+ up
    let pickShort = 0 &- UInt64(upin != wpin ? 1 : 0)
    return (full ^ ((short ^ full) & pickShort), k &+ dk)
  }

  /// `schubfach(q: q, c: c, dk: 0)` for a normal double whose significand
  /// `c` is not a power of two, from one product instead of three, split as
  /// `digits / 10^8` and `digits % 10^8` for `layoutPlain`.
  ///
  /// The scaled value `x = c × 2^q / 10^k` (16 or 17 digits before its point)
  /// is made once, to 64 bits after the point. The decimals that read back as
  /// the double are those within `d` of `x`, `d` half of `2^q / 10^k`: the
  /// table's power itself, shifted, as the interval is as wide on both sides
  /// when `c` is not a power of two. It is at least 1 wide and narrower than 10,
  /// so the shortest decimal is the multiple of ten within `d` of `x` if there
  /// is one, and otherwise `x` rounded to the nearest whole. The product is
  /// within 2^-64 of `x` and `d` within 2^-59 of its value, so the comparisons
  /// are exact unless `x` lies that close to an end of the interval or half way
  /// between two wholes: a few doubles in 2^60 at random (none in millions of
  /// indicator values), but more among those whose ends or halves are exact
  /// (above 2^54, or with an 18-digit expansion), which `schubfach` settles.
  @inline(__always)
  static func nearest(q: Int, c: UInt64) -> (high: UInt64, low: UInt64, exponent: Int) {
    // The same k, h and power of ten as `schubfach`'s for a significand not a power of two.
    let k = (q &* 661_971_961_083) &>> 41
    let h = UInt64(truncatingIfNeeded: q &+ ((0 &- k) &* 913_124_641_741) &>> 38 &+ 2)
    let index = 2 &* (0 &- k &- powersOfTenMinimumExponent)
    let (g1, g0) = powersOfTen.withUnsafeBufferPointer { ($0[index], $0[index &+ 1]) }
    // x × 2^64 = g × (c << h) / 2^63, to below: g1 × m plus the top of g0 × m.
    let m = c &<< h
    let upper = g1.multipliedFullWidth(by: m)
    let lower = g0.multipliedFullWidth(by: m)
    let carried = lower.high &<< 1 | lower.low &>> 63
    let fraction = upper.low &+ carried
    let whole = upper.high &+ (fraction < carried ? 1 : 0)  // below 2^57
    // From here on in units of 2^-60, measured from the multiple of ten below x (4 bits whole, 60 after the point).
    let digit = whole % 10
    let offset = digit &<< 60 | fraction &>> 4          // x
    let half = (g1 &<< 1 | g0 &>> 62) &>> (6 &- h)      // d
    let end = offset &+ half                            // x + d, below 15 × 2^60
    let ten: UInt64 = 10 &<< 60
    // Too close to call within the errors (x: up to 2^-9 above or 1 below, d: up to 2 below): Schubfach's own products.
    if offset &- half &+ 3 <= 6 || end &- ten &+ 4 <= 8 || fraction == 1 &<< 63 {
      return nearestBySchubfach(q: q, c: c)
    }
    // Chosen without branches, as in `schubfach`. The interval is narrower than 10, so
    // at most one of the two multiples of ten is in it; otherwise x rounded (not a tie here).
    // As a step from `whole` (-9...10), so that its division by 10^8 is made meanwhile.
    let belowIn: UInt64 = offset < half ? 1 : 0
    let aboveIn: UInt64 = end > ten ? 1 : 0
    let toShort = 10 &* aboveIn &- digit
    let toRounded = fraction &>> 63
    let pickShort = 0 &- (belowIn | aboveIn)
    let step = toRounded ^ ((toShort ^ toRounded) & pickShort)
    let high = whole / 100_000_000
    let low = whole &- high &* 100_000_000 &+ step  // wraps above 10^8 when below 0
    if low >= 100_000_000 {
      // The step crosses a multiple of 10^8 (about two in 10^7).
      let digits = whole &+ step
      return (digits / 100_000_000, digits % 100_000_000, k)
    }
    return (high, low, k)
  }

  /// `nearest`'s answer from `schubfach`, for the few it cannot settle.
  @inline(never)
  static func nearestBySchubfach(q: Int, c: UInt64) -> (high: UInt64, low: UInt64, exponent: Int) {
    let (digits, exponent) = schubfach(q: q, c: c, dk: 0)
    return (digits / 100_000_000, digits % 100_000_000, exponent)
  }

  /// `g × cp / 2^127` rounded to odd, for the 126-bit `g = g1 × 2^63 + g0`.
  @inline(__always)
  static func roundToOdd(_ g1: UInt64, _ g0: UInt64, _ cp: UInt64) -> UInt64 {
    let x1 = g0.multipliedFullWidth(by: cp).high
    let y = g1.multipliedFullWidth(by: cp)
    let z = (y.low >> 1) &+ x1
    let vbp = y.high &+ (z >> 63)
    let mask63: UInt64 = 1 << 63 - 1
    return vbp | (((z & mask63) &+ mask63) >> 63)
  }

  /// Writes `digits × 10^exponent` as `description` lays it out.
  ///
  /// The digits are built as ASCII in registers (8 per word) and stored whole;
  /// the decimal point is made by storing the digits after it again, one
  /// byte further on, shifted in registers (reading back bytes just stored
  /// would stall the store buffer).
  static func layout(_ digits: UInt64, _ exponent: Int, exponential: Bool, to p: UnsafeMutablePointer<UInt8>) -> Int {
    var d = digits, e = exponent
    if d % 10 == 0 {
      // Trailing zeros off, eight, four, two and one at a time (a short decimal has up to 16).
      d /= 10
      e += 1
      while d % 100_000_000 == 0 { d /= 100_000_000; e += 8 }
      if d % 10_000 == 0 { d /= 10_000; e += 4 }
      if d % 100 == 0 { d /= 100; e += 2 }
      if d % 10 == 0 { d /= 10; e += 1 }
    }
    let (a, b, c, count) = digitWords(d)
    let point = e + count  // digits before the decimal point (may be <= 0 or > count)
    let scientific = point - 1
    if exponential || scientific < -4 {
      p[0] = UInt8(truncatingIfNeeded: a)
      var n = 1
      if count > 1 {
        p[1] = UInt8(ascii: ".")
        store(a >> 8 | b << 56, at: p + 2)
        store(b >> 8 | c << 56, at: p + 10)
        n = count + 1
      }
      p[n] = UInt8(ascii: "e")
      p[n + 1] = scientific < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
      var magnitude = abs(scientific)
      n += 2
      if magnitude >= 100 {
        p[n] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude / 100)
        magnitude %= 100
        n += 1
      }
      p[n] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude / 10)
      p[n + 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
      return n + 2
    }
    if point <= 0 {
      // 0.000ddd (at most three zeros after the point)
      store(asciiZeros, at: p)
      p[1] = UInt8(ascii: ".")
      let q = p + 2 - point
      store(a, at: q); store(b, at: q + 8); store(c, at: q + 16)
      return 2 - point + count
    }
    store(a, at: p); store(b, at: p + 8); store(c, at: p + 16)
    if point >= count {
      // ddd000.0 (at most 16 digits before the point)
      store(asciiZeros, at: p + count); store(asciiZeros, at: p + count + 8)
      p[point] = UInt8(ascii: ".")
      p[point + 1] = UInt8(ascii: "0")
      return point + 2
    }
    // ddd.ddd
    insertPoint(a, b, c, after: point, at: p)
    return count + 1
  }

  /// `layoutWhole` as a call, which keeps `write`'s common case from saving registers.
  @inline(never)
  static func layoutWholeApart(_ whole: UInt64, to p: UnsafeMutablePointer<UInt8>) -> Int { layoutWhole(whole, to: p) }

  /// Writes `whole` (below 2^53) as `description` does, `ddd.0`: all its
  /// digits, so without first taking off its trailing zeros as `layout` would.
  @inline(__always)
  static func layoutWhole(_ whole: UInt64, to p: UnsafeMutablePointer<UInt8>) -> Int {
    let a: UInt64, b: UInt64, count: Int
    if whole < 100_000_000 {
      count = digitCount(UInt32(truncatingIfNeeded: whole))
      a = eightDigits(UInt32(truncatingIfNeeded: whole)) >> UInt64(8 * (8 - count))
      b = 0
    } else {
      (a, b, _, count) = digitWords(whole)
    }
    store(a, at: p); store(b, at: p + 8)
    store(0x302E, at: p + count)  // ".0"
    return count + 2
  }

  /// Writes `digits × 10^exponent`, Schubfach's decimal for a normal double
  /// (`digits` in [10^15, 10^17), trailing zeros included), when it is a plain
  /// decimal from 1e-4 up to 2^53 with digits after the point; `nil` otherwise.
  ///
  /// Without branches on the number of digits or of trailing zeros: the digits
  /// are laid out whole and the length counts only up to the last nonzero one.
  @inline(__always)
  static func layoutPlain(_ digits: UInt64, _ exponent: Int, to p: UnsafeMutablePointer<UInt8>) -> Int? {
    layoutPlain(high: digits / 100_000_000, low: digits % 100_000_000, exponent, to: p)
  }

  /// `layoutPlain` for the digits `high × 10^8 + low`, `low` below 10^8.
  @inline(__always)
  static func layoutPlain(high: UInt64, low: UInt64, _ exponent: Int, to p: UnsafeMutablePointer<UInt8>) -> Int? {
    let point = exponent &+ (high < 100_000_000 ? 16 : 17)  // digits before the point
    // A normal double's exponent is negative exactly when it is below 2^53.
    if exponent >= 0 || point < -3 { return nil }
    return plainDigits(high: high, low: low, exponent, to: p)
  }

  /// Writes the digits `high × 10^8 + low` (16 or 17 of them, `low` below 10^8)
  /// times `10^exponent` as a plain decimal, which it must be: from 1e-4 up to
  /// 2^53, with digits after the point.
  @inline(__always)
  static func plainDigits(high: UInt64, low lo: UInt64, _ exponent: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
    // 16 or 17 digits: the 17-digit form is made, and moved one byte down when it starts with a 0.
    let narrow = (high &- 100_000_000) &>> 63  // 1 below 10^16
    let count = 17 &- Int(truncatingIfNeeded: narrow)
    let point = exponent &+ count  // digits before the point
    let hi = UInt32(truncatingIfNeeded: high)  // below 10^9
    let first = UInt64(hi / 100_000_000)
    let mid = UInt64(hi % 100_000_000)
    let rl = digitValues(UInt32(truncatingIfNeeded: lo))
    let rm = digitValues(UInt32(truncatingIfNeeded: mid))
    let a17 = (first | rm << 8) | asciiZeros
    let b17 = (rm >> 56 | rl << 8) | asciiZeros
    let c17 = (rl >> 56) | 0x30
    let shift = narrow &<< 3, moved = 0 &- narrow  // moved: all ones when narrow
    let a = a17 &>> shift | (b17 &<< 56 & moved)
    let b = b17 &>> shift | (c17 &<< 56 & moved)
    let c = c17 & ~moved
    // The trailing zeros: the digit values that are 0, from the last one back (`rm` is not 0).
    let zeros = rl != 0 ? rl.leadingZeroBitCount &>> 3 : 8 &+ rm.leadingZeroBitCount &>> 3
    let last = count &- zeros  // digits up to the last nonzero one
    if point <= 0 {
      store(asciiZeros, at: p)
      p[1] = UInt8(ascii: ".")
      let q = p + 2 - point
      store(a, at: q); store(b, at: q + 8); store(c, at: q + 16)
      return 2 &- point &+ last
    }
    store(a, at: p); store(b, at: p + 8); store(c, at: p + 16)
    insertPoint(a, b, c, after: point, at: p)
    return max(last, point &+ 1) &+ 1  // `ddd.0` when no nonzero digit follows the point
  }

  /// Puts a decimal point after the first `point` (1...16) of the digits
  /// `a`, `b`, `c` already stored at `p`: the digits from `point` on are
  /// stored again, one byte further, shifted in registers (reading back bytes
  /// just stored would stall the store buffer).
  @inline(__always)
  static func insertPoint(_ a: UInt64, _ b: UInt64, _ c: UInt64, after point: Int, at p: UnsafeMutablePointer<UInt8>) {
    let t0: UInt64, t1: UInt64
    if point < 8 {
      let s = UInt64(8 * point)
      t0 = a >> s | b << (64 - s)
      t1 = b >> s | c << (64 - s)
    } else {
      let s = UInt64(8 * (point - 8))
      t0 = b >> s | c << (64 - s)  // `<<` by 64 gives 0
      t1 = c >> s
    }
    store(t0, at: p + point + 1)
    store(t1, at: p + point + 9)
    p[point] = UInt8(ascii: ".")
  }

  /// The ASCII digits of `d` (below 10^17) in memory order: bytes 0..<8 in
  /// `a`, 8..<16 in `b`, the 17th in `c`; bytes past the last digit are 0.
  @inline(__always)
  static func digitWords(_ d: UInt64) -> (a: UInt64, b: UInt64, c: UInt64, count: Int) {
    if d < 100_000_000 {
      let n = digitCount(UInt32(truncatingIfNeeded: d))
      return (eightDigits(UInt32(truncatingIfNeeded: d)) >> UInt64(8 * (8 - n)), 0, 0, n)
    }
    let high = UInt32(truncatingIfNeeded: d / 100_000_000)
    let low = eightDigits(UInt32(truncatingIfNeeded: d % 100_000_000))
    if high < 100_000_000 {
      let n = high >= 10_000_000 ? 8 : digitCount(high)
      let h = eightDigits(high) >> UInt64(8 * (8 - n))
      return (h | low << UInt64(8 * n), low >> UInt64(8 * (8 - n)), 0, n + 8)
    }
    let middle = eightDigits(high % 100_000_000)
    let first = UInt64(UInt8(ascii: "0")) + UInt64(high / 100_000_000)
    return (first | middle << 8, middle >> 56 | low << 8, low >> 56, 17)
  }

  /// The number of decimal digits of `v`, which is below 10^8.
  @inline(__always)
  static func digitCount(_ v: UInt32) -> Int {
    // Comparisons, not a loop or a bit scan: lengths vary from number to number, and
    // `bsr` (the baseline x86-64 `leadingZeroBitCount`) is slow on some processors.
    var count = 1
    count &+= v >= 10 ? 1 : 0
    count &+= v >= 100 ? 1 : 0
    count &+= v >= 1_000 ? 1 : 0
    count &+= v >= 10_000 ? 1 : 0
    count &+= v >= 100_000 ? 1 : 0
    count &+= v >= 1_000_000 ? 1 : 0
    count &+= v >= 10_000_000 ? 1 : 0
    return count
  }

  /// `v` (below 10^8) as exactly eight ASCII digits in memory order (the
  /// first digit in the lowest byte), leading zeros included.
  ///
  /// Divides in SIMD-within-a-register lanes: by 10,000 into two 32-bit lanes,
  /// by 100 into four 16-bit lanes, by 10 into eight bytes, each division a
  /// multiply and shift exact for the lane's range.
  @inline(__always)
  static func eightDigits(_ v: UInt32) -> UInt64 { digitValues(v) | asciiZeros }

  /// The eight decimal digits of `v` (below 10^8) as byte values 0...9, as `eightDigits` orders them.
  @inline(__always)
  static func digitValues(_ v: UInt32) -> UInt64 {
    // Each step puts the quotient q of a lane's value n below and the remainder above,
    // `q | (n - q × b) << w`, as `n << w - q × (b << w - 1)`: one multiplication and a
    // subtraction after q (no lane borrows, as n - q × b >= 0), a shorter chain than
    // the remainder's own multiplication, shift and or.
    let n = UInt64(v)
    let q = UInt64(v / 10_000)
    let x = n << 32 &- q &* (10_000 << 32 - 1)
    let hundreds = (x &* 10_486) >> 20 & 0x0000_007F_0000_007F  // lane / 100 for lanes below 10,000
    let y = x << 16 &- hundreds &* (100 << 16 - 1)
    let tens = (y &* 103) >> 10 & 0x000F_000F_000F_000F         // lane / 10 for lanes below 100
    return y << 8 &- tens &* (10 << 8 - 1)
  }

  static let asciiZeros: UInt64 = 0x3030_3030_3030_3030

  @inline(__always)
  static func store(_ word: UInt64, at p: UnsafeMutablePointer<UInt8>) {
    UnsafeMutableRawPointer(p).storeBytes(of: word.littleEndian, as: UInt64.self)
  }

  @inline(__always)
  static func copy(_ text: StaticString, to p: UnsafeMutablePointer<UInt8>) -> Int {
    p.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
    return text.utf8CodeUnitCount
  }
}
