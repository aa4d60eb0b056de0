extension ContiguousArray where Element: BitwiseCopyable {
  /// Makes an array of `count` elements that `initialize` writes in place, every one of them.
  ///
  /// Nothing is written before `initialize` runs (`init(repeating:count:)`
  /// would write each element twice, and fault its pages in doing so).
  /// Elements of `buffer` that `initialize` does not write hold garbage:
  /// callers write each one on every path, an early exit too.
  @inlinable
  package init(count: Int, writingEvery initialize: (_ buffer: UnsafeMutableBufferPointer<Element>) throws -> Void) rethrows {
    try self.init(unsafeUninitializedCapacity: count) { storage, initialized in
      try initialize(UnsafeMutableBufferPointer(rebasing: storage[..<count]))
      initialized = count
    }
  }
}
