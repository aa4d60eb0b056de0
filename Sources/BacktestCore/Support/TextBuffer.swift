/// A growing UTF-8 byte buffer for writing large CSV files quickly: numbers
/// and text are appended as bytes, without building intermediate strings.
///
/// The bytes live in page-aligned memory, so a writer can hand whole pages
/// of them to the file system without copying (`O_DIRECT`).
package struct TextBuffer {
  /// Page-aligned memory owned by one buffer (copied before a shared one is changed).
  final class Storage {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    init(capacity: Int) {
      self.capacity = capacity
      base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: TextBuffer.alignment)
        .bindMemory(to: UInt8.self, capacity: capacity)
    }
    deinit { base.deallocate() }
  }

  /// The alignment of `baseAddress`: a page.
  package static let alignment = 4096

  private var storage: Storage
  /// The number of bytes written.
  package private(set) var count = 0

  package init(capacity: Int = 0) { storage = Storage(capacity: max(capacity, 64)) }

  /// The start of the bytes, page-aligned; valid until the buffer next changes.
  package var baseAddress: UnsafePointer<UInt8> { UnsafePointer(storage.base) }

  /// The bytes written, as a copy.
  package var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage.base, count: count)) }

  /// The bytes written, as a string.
  package var string: String { String(decoding: UnsafeBufferPointer(start: storage.base, count: count), as: UTF8.self) }

  /// Calls `body` with the bytes written.
  package func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    try body(UnsafeBufferPointer(start: storage.base, count: count))
  }

  /// Forgets the bytes, keeping the memory for the next ones.
  package mutating func removeAll() { count = 0 }

  /// Forgets the last `n` bytes.
  package mutating func removeLast(_ n: Int) {
    precondition(n >= 0 && n <= count)
    count -= n
  }

  /// Keeps only the bytes from `start` on, moved to the front.
  package mutating func removeFirst(_ start: Int) {
    precondition(start >= 0 && start <= count)
    makeUnique()
    storage.base.update(from: storage.base + start, count: count - start)
    count -= start
  }

  /// Makes room for `n` more bytes past the end, and returns where they start.
  @inline(__always)
  mutating func space(_ n: Int) -> UnsafeMutablePointer<UInt8> {
    if count + n > storage.capacity || !isKnownUniquelyReferenced(&storage) { grow(count + n) }
    return storage.base + count
  }

  private mutating func makeUnique() {
    if !isKnownUniquelyReferenced(&storage) { grow(count) }
  }

  private mutating func grow(_ needed: Int) {
    // Doubles when full; a copy made only because the memory is shared keeps its size.
    let new = Storage(capacity: needed > storage.capacity ? max(needed, storage.capacity * 2) : storage.capacity)
    new.base.update(from: storage.base, count: count)
    storage = new
  }

  package mutating func append(_ text: String) {
    var text = text
    text.withUTF8 { append(bytes: $0) }
  }

  package mutating func append(bytes other: UnsafeBufferPointer<UInt8>) {
    guard let source = other.baseAddress, !other.isEmpty else { return }
    space(other.count).update(from: source, count: other.count)
    count += other.count
  }

  package mutating func append(byte: UInt8) {
    space(1).pointee = byte
    count += 1
  }

  /// Lets `write` put up to `maximum` bytes at the end; it returns how many it wrote.
  @inline(__always)
  package mutating func append(upTo maximum: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
    let written = write(space(maximum))
    precondition(written <= maximum, "wrote \(written) bytes into room for \(maximum)")
    count += written
  }

  mutating func append<C: Collection>(bytes other: C) where C.Element == UInt8 {
    var p = space(other.count)
    for b in other { p.pointee = b; p += 1 }
    count += other.count
  }

  /// Appends the shortest round-trip text of `x` (Swift's `description`), or
  /// nothing for `nan` (an empty CSV cell).
  @inline(__always)
  package mutating func append(_ x: Double) {
    if x.isNaN { return }
    let p = space(ShortestDecimal.writableLength)
    count += ShortestDecimal.write(x, to: p)
  }

  /// Appends a number as `formatNumber` writes it (`714` for whole numbers).
  package mutating func append(count x: Double) {
    if x == x.rounded(), abs(x) < 9_007_199_254_740_992 { append(integer: Int64(x)) } else { append(x) }
  }

  package mutating func append(integer value: Int64) {
    let p = space(20)
    var n = 0
    if value < 0 { p[0] = UInt8(ascii: "-"); n = 1 }
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    n += withUnsafeMutableBytes(of: &digits) { raw in
      let end = raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + 20
      var v = value.magnitude, q = end
      repeat {
        q -= 1
        q.pointee = UInt8(ascii: "0") + UInt8(v % 10)
        v /= 10
      } while v > 0
      (p + n).update(from: q, count: end - q)
      return end - q
    }
    count += n
  }
}

/// The text of the last number a CSV column wrote, to copy when the next is
/// the same (cash and equity stay put for long stretches).
package struct RepeatedNumber {
  var bits: UInt64 = Double.nan.bitPattern
  var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
  var length = 0
  package init() {}
}

extension TextBuffer {
  /// Appends `x` as `append(_:)` does, copying the text from `last` when `x` is the same number again.
  @inline(__always)
  package mutating func append(_ x: Double, repeating last: inout RepeatedNumber) {
    if x.bitPattern == last.bits {
      let p = space(24)
      withUnsafeBytes(of: last.text) { UnsafeMutableRawPointer(p).copyMemory(from: $0.baseAddress!, byteCount: 24) }
      count += last.length
      return
    }
    if x.isNaN { return }
    let p = space(ShortestDecimal.writableLength)
    let n = ShortestDecimal.write(x, to: p)
    count += n
    if n <= 24 {
      last.bits = x.bitPattern
      last.length = n
      withUnsafeMutableBytes(of: &last.text) { $0.baseAddress!.copyMemory(from: p, byteCount: 24) }
    }
  }
}

/// Writes bytes through a raw pointer into room reserved beforehand
/// (`TextBuffer.write(upTo:_:)`): one capacity check per row instead of one per field.
package struct ByteCursor {
  package private(set) var position: UnsafeMutablePointer<UInt8>

  @inline(__always)
  package mutating func byte(_ b: UInt8) {
    position.pointee = b
    position += 1
  }

  /// The shortest round-trip text of `x`; nothing for `nan`.
  @inline(__always)
  package mutating func number(_ x: Double) {
    if !x.isNaN { position += ShortestDecimal.write(x, to: position) }
  }

  /// `byte(44); number(x)` for each of four numbers, the digits of all four
  /// made before any is written (`ShortestDecimal.Digits`).
  @inline(__always)
  package mutating func commaNumbers(_ a: Double, _ b: Double, _ c: Double, _ d: Double) {
    let digits = (ShortestDecimal.digits(a), ShortestDecimal.digits(b), ShortestDecimal.digits(c), ShortestDecimal.digits(d))
    byte(44); number(a, digits.0)
    byte(44); number(b, digits.1)
    byte(44); number(c, digits.2)
    byte(44); number(d, digits.3)
  }

  @inline(__always)
  private mutating func number(_ x: Double, _ digits: ShortestDecimal.Digits) {
    if !x.isNaN { position += ShortestDecimal.write(x, digits, to: position) }
  }

  /// As `number(_:)`, faster for prices in whole cents (`ShortestDecimal.writePrice`).
  @inline(__always)
  package mutating func price(_ x: Double) {
    if !x.isNaN { position += ShortestDecimal.writePrice(x, to: position) }
  }

  /// As `number(_:)`, copying the text from `last` when `x` is the same number again.
  @inline(__always)
  package mutating func number(_ x: Double, repeating last: inout RepeatedNumber) {
    if x.bitPattern == last.bits {
      withUnsafeBytes(of: last.text) { UnsafeMutableRawPointer(position).copyMemory(from: $0.baseAddress!, byteCount: 24) }
      position += last.length
      return
    }
    if x.isNaN { return }
    let n = ShortestDecimal.write(x, to: position)
    last.bits = x.bitPattern
    last.length = n
    withUnsafeMutableBytes(of: &last.text) { $0.baseAddress!.copyMemory(from: position, byteCount: 24) }
    position += n
  }

  /// A number as `formatNumber` writes it (`714` for whole numbers).
  @inline(__always)
  package mutating func count(_ x: Double) {
    if x == x.rounded(), abs(x) < 9_007_199_254_740_992 {
      var v = Int64(x)
      if v < 0 { byte(UInt8(ascii: "-")); v = -v }
      var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
      let n = withUnsafeMutableBytes(of: &digits) { raw in
        let end = raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + 20
        var q = end, m = UInt64(v)
        repeat { q -= 1; q.pointee = UInt8(ascii: "0") + UInt8(m % 10); m /= 10 } while m > 0
        position.update(from: q, count: end - q)
        return end - q
      }
      position += n
    } else {
      number(x)
    }
  }

  /// `count` bytes from `source`, eight at a time.
  @inline(__always)
  package mutating func bytes(_ source: UnsafePointer<UInt8>, count: Int) {
    func word(_ k: Int) {
      UnsafeMutableRawPointer(position + k).storeBytes(of: UnsafeRawPointer(source + k).loadUnaligned(as: UInt64.self), as: UInt64.self)
    }
    if count >= 8 {
      // The last eight may overlap the ones before: no byte loop for the rest (a label's 25 bytes are four words).
      var k = 0
      while k &+ 8 < count { word(k); k &+= 8 }
      word(count &- 8)
    } else {
      for k in 0..<count { position[k] = source[k] }
    }
    position += count
  }

  /// The UTF-8 bytes of `text`.
  @inline(__always)
  package mutating func text(_ text: String) {
    for b in text.utf8 { byte(b) }
  }
}

extension TextBuffer {
  /// Lets `body` write up to `maximum` bytes through a cursor (a row, or a
  /// chunk of rows); `maximum` must count `ShortestDecimal.maximumLength` for
  /// each number and `ShortestDecimal.writableLength` for the last (a
  /// number's text is at most 24 bytes long, but up to 48 past its start may
  /// be overwritten).
  @inline(__always)
  package mutating func write(upTo maximum: Int, _ body: (inout ByteCursor) -> Void) {
    let start = space(maximum)
    var cursor = ByteCursor(position: start)
    body(&cursor)
    let written = cursor.position - start
    precondition(written <= maximum, "wrote \(written) bytes into room for \(maximum)")
    count += written
  }
}
