/// One bit per bar: bit `i % 64` of word `i / 64` is bar `i`'s.
package struct Bits: Sendable {
  package var words: ContiguousArray<UInt64>

  init(words: ContiguousArray<UInt64>) { self.words = words }

  /// Whether bit `i` is set.
  @inline(__always)
  package subscript(i: Int) -> Bool { words[i >> 6] >> UInt64(i & 63) & 1 != 0 }

  func union(_ other: Bits) -> Bits {
    Bits(words: ContiguousArray(unsafeUninitializedCapacity: words.count) { out, count in
      for w in words.indices { out[w] = words[w] | other.words[w] }
      count = words.count
    })
  }
}
