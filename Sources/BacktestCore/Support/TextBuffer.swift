/// A growing UTF-8 byte buffer for writing large CSV files quickly: numbers
/// and text are appended as bytes, without building intermediate strings.
public struct TextBuffer {
  public private(set) var bytes: [UInt8] = []

  public init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

  public mutating func append(_ text: String) {
    var text = text
    text.withUTF8 { append(bytes: $0) }
  }

  public mutating func append(bytes other: UnsafeBufferPointer<UInt8>) {
    bytes.append(contentsOf: other)
  }

  public mutating func append(byte: UInt8) { append(bytes: CollectionOfOne(byte)) }

  mutating func append<C: Collection>(bytes other: C) where C.Element == UInt8 {
    bytes.append(contentsOf: other)
  }

  /// Appends the shortest round-trip text of `x` (Swift's `description`), or
  /// nothing for `nan` (an empty CSV cell).
  public mutating func append(_ x: Double) {
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
  public mutating func append(count x: Double) {
    if x == x.rounded(), abs(x) < 9_007_199_254_740_992 { append(integer: Int64(x)) } else { append(x) }
  }

  public mutating func append(integer value: Int64) {
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

  public var string: String { String(decoding: bytes, as: UTF8.self) }
}
