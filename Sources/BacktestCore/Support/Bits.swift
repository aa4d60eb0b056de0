/// One bit per bar: bit `i % 64` of word `i / 64` is bar `i`'s.
package struct Bits: Sendable {
  package var words: ContiguousArray<UInt64>

  package init(words: ContiguousArray<UInt64>) { self.words = words }

  /// Whether bit `i` is set.
  @inline(__always)
  package subscript(i: Int) -> Bool { words[i >> 6] >> UInt64(i & 63) & 1 != 0 }

  /// These bits with every bit below `i` cleared.
  func clearing(below i: Int) -> Bits {
    var out = self
    for w in 0..<min(words.count, (max(0, i) + 63) / 64) {
      let end = min(64, i - w * 64)
      out.words[w] &= end >= 64 ? 0 : ~((1 << UInt64(end)) - 1)
    }
    return out
  }

  package func union(_ other: Bits) -> Bits {
    Bits(words: ContiguousArray(unsafeUninitializedCapacity: words.count) { out, count in
      for w in words.indices { out[w] = words[w] | other.words[w] }
      count = words.count
    })
  }
}
