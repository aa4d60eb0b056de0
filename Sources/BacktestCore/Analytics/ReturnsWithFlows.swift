/// Returns when money moves in and out of the account. A plain total return
/// (`final / initial - 1`) counts deposits as gains; these do not.

/// The time-weighted return of each bar.
///
/// A flow (the initial cash at the first bar, then every deposit and
/// withdrawal) is invested at its bar's open, so it splits that bar there:
/// `base[t]`, the account's value at the open before the flow (its holdings at
/// the prices the flow's orders fill at), ends the sub-period that started at
/// the previous close, and `base[t] + flow[t]` starts the one that ends at the
/// close: the bar's return is `base[t] / equity[t - 1] × equity[t] / (base[t] + flow[t]) - 1`,
/// so a deposit bought at the open earns that bar's move as new money. A bar
/// without a flow returns `equity[t] / equity[t - 1] - 1`. A sub-period that
/// starts with nothing invested, or after a withdrawal that empties the
/// account (its sale fees are the withdrawal's cost), counts as 0.
public func timeWeightedReturns(equity: ContiguousArray<Double>, flow: ContiguousArray<Double>, base: ContiguousArray<Double>)
  -> ContiguousArray<Double>
{
  var out = ContiguousArray<Double>(repeating: 0, count: equity.count)
  for t in equity.indices {
    let previous = t > 0 ? equity[t - 1] : 0
    var growth = 1.0
    if flow[t] != 0 {
      if previous > 0 { growth *= base[t] / previous }
      let invested = base[t] + flow[t]
      if invested > 0 && equity[t] > 0 { growth *= equity[t] / invested }
    } else if previous > 0 {
      growth = equity[t] / previous
    }
    out[t] = growth - 1
  }
  return out
}

/// The growth of one unit invested at the start, chained bar by bar from
/// `timeWeightedReturns`: the value the account would have had without flows.
public func timeWeightedIndex(equity: ContiguousArray<Double>, flow: ContiguousArray<Double>, base: ContiguousArray<Double>)
  -> ContiguousArray<Double>
{
  var index = timeWeightedReturns(equity: equity, flow: flow, base: base)
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
