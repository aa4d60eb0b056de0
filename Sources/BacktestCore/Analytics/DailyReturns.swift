/// Returns the simple returns between the equity at the last bar of each
/// calendar day (`day` as written in the data), in day order.
///
/// The first day has no return: it is not measured against the initial cash.
public func dailyReturns(equity: ContiguousArray<Double>, day: ContiguousArray<Int32>) -> [Double] {
  var closes: [Double] = []
  for i in equity.indices where i == equity.count - 1 || day[i + 1] != day[i] {
    closes.append(equity[i])
  }
  return simpleReturns(closes)
}

/// Returns `values[k] / values[k - 1] - 1` for each `k` after the first.
public func simpleReturns(_ values: [Double]) -> [Double] {
  guard values.count > 1 else { return [] }
  return (1..<values.count).map { (k: Int) -> Double in values[k] / values[k - 1] - 1 }
}

/// Returns the arithmetic mean; `nil` for no values.
public func mean(_ x: [Double]) -> Double? {
  guard !x.isEmpty else { return nil }
  var sum = 0.0
  for v in x { sum += v }
  return sum / Double(x.count)
}

/// Returns the sample standard deviation (n - 1); `nil` for fewer than two values.
public func sampleDeviation(_ x: [Double]) -> Double? {
  guard x.count > 1, let m = mean(x) else { return nil }
  var sum = 0.0
  for v in x { sum += (v - m) * (v - m) }
  return (sum / Double(x.count - 1)).squareRoot()
}

/// Returns the annualized Sharpe ratio of daily simple returns as quantstats
/// computes it: `mean(r) / stdev(r) * sqrt(252)`, risk-free 0, sample
/// deviation (n - 1); `nil` for fewer than two days or zero deviation.
public func sharpeRatio(dailyReturns r: [Double]) -> Double? {
  guard r.count > 1, let m = mean(r), let sd = sampleDeviation(r), sd > 0 else { return nil }
  return m / sd * (252.0).squareRoot()
}

/// Returns the annualized Sortino ratio as quantstats computes it:
/// `mean(r) / sqrt(mean(min(r, 0)^2)) * sqrt(252)`, the downside deviation
/// taken over all days; `nil` for fewer than two days or no losing day.
public func sortinoRatio(dailyReturns r: [Double]) -> Double? {
  guard r.count > 1, let m = mean(r) else { return nil }
  var sum = 0.0
  for v in r where v < 0 { sum += v * v }
  let downside = (sum / Double(r.count)).squareRoot()
  return downside > 0 ? m / downside * (252.0).squareRoot() : nil
}

/// Returns `equity / running maximum - 1` at each bar (0 at a new high, negative below).
public func drawdowns(_ equity: ContiguousArray<Double>) -> ContiguousArray<Double> {
  equity.withUnsafeBufferPointer { equity in
    ContiguousArray(count: equity.count) { out in
      var peak = -Double.infinity
      for i in equity.indices {
        peak = max(peak, equity[i])
        out[i] = equity[i] / peak - 1
      }
    }
  }
}
