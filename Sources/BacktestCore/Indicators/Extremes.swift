/// The highest value of the last `period` values, the current one included
/// (TA-Lib's `MAX`); `nan` before index `period - 1`. O(n) with a monotonic
/// queue of indices.
public func highest(_ x: ContiguousArray<Double>, period: Int) -> ContiguousArray<Double> {
  rollingExtreme(x, period: period, highest: true)
}

/// The lowest value of the last `period` values, the current one included
/// (TA-Lib's `MIN`); `nan` before index `period - 1`.
public func lowest(_ x: ContiguousArray<Double>, period: Int) -> ContiguousArray<Double> {
  rollingExtreme(x, period: period, highest: false)
}

/// The queue holds the indices of the window's candidates, oldest first: a
/// newer value equal to or beyond an older one (`>=` for the highest, `<=`
/// for the lowest) makes the older irrelevant. It never holds more than
/// `period + 1` indices (before the oldest leaves), nor more than the series' count, so it is a ring of a power of two
/// above the smaller of the two.
private func rollingExtreme(_ x: ContiguousArray<Double>, period: Int, highest: Bool) -> ContiguousArray<Double> {
  precondition(period > 0, "period must be > 0, was \(period)")
  let n = x.count
  let ring = 1 << (Int.bitWidth - min(period, n).leadingZeroBitCount)
  return x.withUnsafeBufferPointer { x in
    ContiguousArray(count: n) { out in
      withUnsafeTemporaryAllocation(of: Int.self, capacity: ring) { queue in
        // A test on a constant, not a closure: the loop is made once per direction.
        @inline(__always) func keeps(_ v: Double, _ w: Double) -> Bool { highest ? v >= w : v <= w }
        let mask = ring - 1
        var head = 0, tail = 0  // counts of indices pushed and dropped at the front; the queue is head..<tail
        for i in 0..<n {
          let v = x[i]
          while tail > head && keeps(v, x[queue[(tail - 1) & mask]]) { tail -= 1 }
          queue[tail & mask] = i
          tail += 1
          if queue[head & mask] <= i - period { head += 1 }
          out[i] = i >= period - 1 ? x[queue[head & mask]] : .nan
        }
      }
    }
  }
}
