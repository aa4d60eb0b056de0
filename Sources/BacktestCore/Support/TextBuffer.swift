/// A growing UTF-8 byte buffer for writing large CSV files quickly: numbers
/// and text are appended as bytes, without building intermediate strings.
package struct TextBuffer {
  package private(set) var bytes: [UInt8] = []

  package init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

  package mutating func append(_ text: String) {
    var text = text
    text.withUTF8 { append(bytes: $0) }
  }

  package mutating func append(bytes other: UnsafeBufferPointer<UInt8>) {
    bytes.append(contentsOf: other)
  }

  package mutating func append(byte: UInt8) { append(bytes: CollectionOfOne(byte)) }

  mutating func append<C: Collection>(bytes other: C) where C.Element == UInt8 {
    bytes.append(contentsOf: other)
  }

  /// Appends the shortest round-trip text of `x` (Swift's `description`), or
  /// nothing for `nan` (an empty CSV cell).
  package mutating func append(_ x: Double) {
    if x.isNaN { return }
    // Whole numbers that fit are written as integers plus ".0", like `description`, but faster.
    if x == x.rounded(), abs(x) < 1e9, !(x == 0 && x.sign == .minus) {
      append(integer: Int64(x))
      append(bytes: [UInt8(ascii: "."), UInt8(ascii: "0")])
      return
    }
    var text = x.description
    text.withUTF8 { append(bytes: $0) }
  }

  /// Appends a number as `formatNumber` writes it (`714` for whole numbers).
  package mutating func append(count x: Double) {
    if x == x.rounded(), abs(x) < 9_007_199_254_740_992 { append(integer: Int64(x)) } else { append(x) }
  }

  package mutating func append(integer value: Int64) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var v = value.magnitude
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                 UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
      (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var n = 0
    withUnsafeMutableBytes(of: &digits) { d in
      repeat {
        d[n] = UInt8(ascii: "0") + UInt8(v % 10)
        v /= 10
        n += 1
      } while v > 0
      for k in stride(from: n - 1, through: 0, by: -1) { bytes.append(d[k]) }
    }
  }

  package var string: String { String(decoding: bytes, as: UTF8.self) }
}
