/// Returns when money moves in and out of the account. A plain total return
/// (`final / initial - 1`) counts deposits as gains; these do not.

/// The time-weighted return of each bar: `(equity[t] - flow[t]) / equity[t - 1] - 1`.
///
/// Flows arrive before the bar trades; the initial cash is the first bar's
/// flow, and the first bar's return is `equity[0] / flow[0] - 1`. A bar that
/// starts with nothing invested (previous equity 0) has return 0.
public func timeWeightedReturns(equity: ContiguousArray<Double>, flow: ContiguousArray<Double>) -> ContiguousArray<Double> {
  var out = ContiguousArray<Double>(repeating: 0, count: equity.count)
  for t in equity.indices {
    let before = t == 0 ? flow[0] : equity[t - 1]
    let gain = t == 0 ? equity[0] : equity[t] - flow[t]
    out[t] = before > 0 ? gain / before - 1 : 0
  }
  return out
}

/// The growth of one unit invested at the start, chained bar by bar from
/// `timeWeightedReturns`: the value the account would have had without flows.
public func timeWeightedIndex(equity: ContiguousArray<Double>, flow: ContiguousArray<Double>) -> ContiguousArray<Double> {
  var index = timeWeightedReturns(equity: equity, flow: flow)
  var value = 1.0
  for t in index.indices {
    value *= 1 + index[t]
    index[t] = value
  }
  return index
}

/// The money-weighted return (a spreadsheet's XIRR): the annual rate `r` with
/// `sum(amount_i / (1 + r)^((day_i - day_0) / 365)) = 0`, `day_0` the earliest date.
///
/// Newton's method from 10%, falling back to bisection on (-99.9999%, 10^6)
/// when Newton leaves the domain or stalls. `nil` when the amounts do not
/// change sign (no rate zeroes them) or all fall on one day.
public func xirr(_ flows: [DatedAmount]) -> Double? {
  guard let first = flows.map(\.day).min(), flows.contains(where: { $0.amount > 0 }),
        flows.contains(where: { $0.amount < 0 }), flows.contains(where: { $0.day != first }) else { return nil }
  let years = flows.map { Double($0.day - first) / 365 }
  func value(_ r: Double) -> Double {
    var sum = 0.0
    for (k, f) in flows.enumerated() { sum += f.amount * pow(1 + r, -years[k]) }
    return sum
  }
  func slope(_ r: Double) -> Double {
    var sum = 0.0
    for (k, f) in flows.enumerated() where years[k] > 0 { sum -= years[k] * f.amount * pow(1 + r, -years[k] - 1) }
    return sum
  }
  let scale = flows.reduce(0) { $0 + abs($1.amount) }
  var r = 0.1
  for _ in 0..<50 {
    let v = value(r), d = slope(r)
    if abs(v) <= 1e-12 * scale { return r }
    guard d != 0, d.isFinite else { break }
    let next = r - v / d
    guard next > -1, next.isFinite else { break }
    if abs(next - r) <= 1e-15 * max(1, abs(r)) { return next }
    r = next
  }
  // Bisection: the value is continuous on (-1, inf); look for a sign change.
  var low = -0.999999, high = 1e6
  var vLow = value(low)
  let vHigh = value(high)
  guard vLow.sign != vHigh.sign else { return nil }
  for _ in 0..<300 {
    let mid = (low + high) / 2
    let v = value(mid)
    if v == 0 || (high - low) <= 1e-15 * max(1, abs(mid)) { return mid }
    if v.sign == vLow.sign { low = mid; vLow = v } else { high = mid }
  }
  return (low + high) / 2
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
