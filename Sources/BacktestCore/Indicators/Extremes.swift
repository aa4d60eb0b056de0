/// The highest value of the last `period` values, the current one included
/// (TA-Lib's `MAX`); `nan` before index `period - 1`. O(n) with a monotonic
/// queue of indices.
public func highest(_ x: ContiguousArray<Double>, period: Int) -> ContiguousArray<Double> {
  rollingExtreme(x, period: period, keeps: >=)
}

/// The lowest value of the last `period` values, the current one included
/// (TA-Lib's `MIN`); `nan` before index `period - 1`.
public func lowest(_ x: ContiguousArray<Double>, period: Int) -> ContiguousArray<Double> {
  rollingExtreme(x, period: period, keeps: <=)
}

/// `keeps(a, b)`: whether a newer value `a` makes an older `b` irrelevant.
private func rollingExtreme(_ x: ContiguousArray<Double>, period: Int, keeps: (Double, Double) -> Bool) -> ContiguousArray<Double> {
  precondition(period > 0, "period must be > 0, was \(period)")
  let n = x.count
  var out = ContiguousArray(repeating: Double.nan, count: n)
  var queue = ContiguousArray<Int>(repeating: 0, count: n)
  var head = 0, tail = 0
  x.withUnsafeBufferPointer { x in
    out.withUnsafeMutableBufferPointer { out in
      for i in 0..<n {
        while tail > head && keeps(x[i], x[queue[tail - 1]]) { tail -= 1 }
        queue[tail] = i
        tail += 1
        if queue[head] <= i - period { head += 1 }
        if i >= period - 1 { out[i] = x[queue[head]] }
      }
    }
  }
  return out
}
