/// FNV-1a, 64 bits: a fast fingerprint of inputs (not a cryptographic hash).
package struct Fingerprint: Sendable {
  package private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325
  package init() {}
  package mutating func add<C: Sequence>(_ bytes: C) where C.Element == UInt8 {
    for b in bytes { value = (value ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
  }

  /// Adds raw bytes eight at a time (FNV-1a over 64-bit words, then the tail): fast for whole files.
  package mutating func add(raw: UnsafeRawBufferPointer) {
    let words = raw.count / 8
    var v = value
    for k in 0..<words {
      v = (v ^ raw.loadUnaligned(fromByteOffset: k * 8, as: UInt64.self)) &* 0x0000_0100_0000_01B3
    }
    value = v
    add(UnsafeRawBufferPointer(rebasing: raw[(words * 8)...]))
  }
  package mutating func add(_ text: String) { add(text.utf8); add([0]) }
  package var hex: String {
    let s = String(value, radix: 16)
    return String(repeating: "0", count: 16 - s.count) + s
  }
}
