import Foundation

/// Computes rule expressions over a whole bar series, each distinct
/// expression (same function, same input, same period) once: a rule that
/// writes `rsi(close, 14)` twice, and every sweep combination sharing one
/// evaluator, compute it once.
///
/// Number series hold `nan` where undefined; conditions are bits (an
/// undefined comparison is a clear bit). The value at bar `i` depends on bars
/// `0...i` only: lags reach back, functions run forward.
///
/// A function of a series with undefined values (a warm-up, a division by
/// zero) starts afresh after each: it is undefined where its window holds an
/// undefined value, and a recursive one (`ema`, `rsi`) warms up again, as
/// TA-Lib does after its input's leading undefined values.
package final class RuleEvaluator {
  let bars: BarSeries
  let count: Int

  /// What an evaluator has computed, by expression.
  package struct Cache: Sendable {
    var numbers: [RuleExpression: ContiguousArray<Double>] = [:]
    var conditions: [RuleExpression: Bits] = [:]
    var windows: [Window: WindowValues] = [:]

    /// Adds what `other` holds and this does not.
    mutating func merge(_ other: Cache) {
      numbers.merge(other.numbers) { mine, _ in mine }
      conditions.merge(other.conditions) { mine, _ in mine }
      windows.merge(other.windows) { mine, _ in mine }
    }
  }
  /// A rolling window of an input: what `std`, `bb_mid`, `bb_upper` and `bb_lower` share.
  package struct Window: Hashable, Sendable {
    package var input: RuleExpression, period: Int
    package init(input: RuleExpression, period: Int) {
      self.input = input
      self.period = period
    }
  }
  struct WindowValues: Sendable {
    var mean: ContiguousArray<Double>
    var deviation: ContiguousArray<Double>
    /// Where every value of the window is equal (the bands are undefined there: the flat-window rule).
    var flat: Bits
  }
  private(set) var cache: Cache

  package init(bars: BarSeries, cache: Cache = Cache()) {
    self.bars = bars
    count = bars.count
    self.cache = cache
  }

  /// Computes each group of expressions on its own core (a group in order,
  /// sharing what this evaluator holds already), and keeps the results.
  package func computeConcurrently(_ groups: [[RuleExpression]]) {
    guard !groups.isEmpty else { return }
    let snapshot = cache, bars = self.bars
    let results = ConcurrentSlots<Cache>(count: groups.count)
    DispatchQueue.concurrentPerform(iterations: groups.count) { g in
      let local = RuleEvaluator(bars: bars, cache: snapshot)
      for e in groups[g] {
        if e.isCondition { _ = local.condition(e) } else { _ = local.number(e) }
      }
      results.set(g, local.cache)
    }
    for g in groups.indices { cache.merge(results.get(g)) }
  }

  // MARK: Numbers

  /// The values of number expression `e` at every bar.
  func number(_ e: RuleExpression) -> ContiguousArray<Double> {
    precondition(!e.isCondition && !e.readsPosition, "\(e.text) is not a number series")
    if case .bar(let field) = e { return column(field) }
    if let found = cache.numbers[e] { return found }
    let values = compute(e)
    cache.numbers[e] = values
    return values
  }

  private func column(_ field: BarField) -> ContiguousArray<Double> {
    switch field {
    case .open: return bars.open
    case .high: return bars.high
    case .low: return bars.low
    case .close: return bars.close
    case .volume: return bars.volume
    }
  }

  /// A number operand: a constant stays a constant (no column made for it).
  private enum Operand {
    case constant(Double)
    case series(ContiguousArray<Double>)
  }

  private func operand(_ e: RuleExpression) -> Operand {
    if case .constant(let v) = e { return .constant(v) }
    return .series(number(e))
  }

  /// Runs `body` with the operand's values readable by bar.
  @inline(__always)
  private func withValues<R>(_ o: Operand, _ body: (Values) -> R) -> R {
    switch o {
    case .constant(let v): return withUnsafePointer(to: v) { body(Values(base: $0, step: 0)) }
    case .series(let s): return s.withUnsafeBufferPointer { body(Values(base: $0.baseAddress!, step: 1)) }
    }
  }

  /// A series or a constant read alike, without a branch: a constant is one value read at every bar.
  private struct Values {
    let base: UnsafePointer<Double>
    let step: Int
    @inline(__always) subscript(i: Int) -> Double { base[i &* step] }
  }

  /// `count` values made by `f(i)`.
  @inline(__always)
  private func make(_ f: (Int) -> Double) -> ContiguousArray<Double> {
    let n = count
    return ContiguousArray(unsafeUninitializedCapacity: n) { out, made in
      for i in 0..<n { out[i] = f(i) }
      made = n
    }
  }

  private func compute(_ e: RuleExpression) -> ContiguousArray<Double> {
    switch e {
    case .constant(let v):
      return ContiguousArray(repeating: v, count: count)
    case .negate(let x):
      return withValues(operand(x)) { x in make { -x[$0] } }
    case .arithmetic(let op, let a, let b):
      return withValues(operand(a)) { a in withValues(operand(b)) { b in make { RuleArithmetic.apply(op, a[$0], b[$0]) } } }
    case .lag(let x, let k):
      return withValues(operand(x)) { x in make { $0 >= k ? x[$0 - k] : .nan } }
    case .function(let f, let xs, let periods):
      return function(f, xs, periods)
    default:
      preconditionFailure("\(e.text) is not a number series")
    }
  }

  private func function(_ f: RuleFunction, _ xs: [RuleExpression], _ periods: [Int]) -> ContiguousArray<Double> {
    let n = periods.first ?? 0
    switch f {
    case .sma: return Self.segmentwise(number(xs[0]), minimum: n) { [sma($0, period: n)] }[0]
    case .ema: return Self.segmentwise(number(xs[0]), minimum: n) { [ema($0, period: n)] }[0]
    case .wma: return Self.segmentwise(number(xs[0]), minimum: n) { [wma($0, period: n)] }[0]
    case .rsi: return Self.segmentwise(number(xs[0]), minimum: n + 1) { [rsi($0, period: n)] }[0]
    case .highest: return Self.segmentwise(number(xs[0]), minimum: n) { [BacktestCore.highest($0, period: n)] }[0]
    case .lowest: return Self.segmentwise(number(xs[0]), minimum: n) { [BacktestCore.lowest($0, period: n)] }[0]
    case .atr:
      guard count > n else { return ContiguousArray(repeating: .nan, count: count) }
      return atr(high: bars.high, low: bars.low, close: bars.close, period: n)
    case .adx, .plusDI, .minusDI:
      return directionalMovement(f, period: n)
    case .stochK:
      return stochK(high: bars.high, low: bars.low, close: bars.close, period: periods[0], smoothing: periods[1])
    case .stochD:
      // %D is the mean of %K, shared with a `stoch_k` of the same periods.
      let k = number(.function(.stochK, [], periods: [periods[0], periods[1]]))
      return Self.segmentwise(k, minimum: periods[2]) { [sma($0, period: periods[2])] }[0]
    case .macd:
      return Self.segmentwise(number(xs[0]), minimum: Swift.max(periods[0], periods[1])) {
        [BacktestCore.macd($0, fast: periods[0], slow: periods[1])]
      }[0]
    case .macdSignal:
      // The signal is an average of the line, shared with a `macd` of the same input and periods.
      let line = number(.function(.macd, xs, periods: [periods[0], periods[1]]))
      return Self.segmentwise(line, minimum: periods[2]) { [MACD.signalLine($0, from: 0, period: periods[2])] }[0]
    case .macdHistogram:
      let line = number(.function(.macd, xs, periods: [periods[0], periods[1]]))
      return MACD.histogram(line, number(.function(.macdSignal, xs, periods: periods)))
    case .willr: return BacktestCore.willr(high: bars.high, low: bars.low, close: bars.close, period: n)
    case .cci: return BacktestCore.cci(high: bars.high, low: bars.low, close: bars.close, period: n)
    case .obv: return BacktestCore.obv(close: bars.close, volume: bars.volume)
    case .std: return window(xs[0], n).deviation
    case .bollingerMiddle: return window(xs[0], n).mean
    case .bollingerUpper, .bollingerLower:
      let upper = f == .bollingerUpper
      return withValues(operand(xs[1])) { k in withBand(window(xs[0], n)) { band in make { band(upper, k[$0], $0) } } }
    case .roc:
      return withValues(operand(xs[0])) { x in
        make { i in i >= n ? RuleArithmetic.apply(.subtract, RuleArithmetic.apply(.divide, x[i], x[i - n]), 1) : .nan }
      }
    case .abs, .min, .max:
      return withValues(operand(xs[0])) { a in
        withValues(operand(xs.count > 1 ? xs[1] : xs[0])) { b in make { RuleArithmetic.pointwise(f, a[$0], b[$0]) } }
      }
    }
  }

  /// `adx`, `plus_di` or `minus_di` of `period`: the three are computed in one
  /// pass, and the two not asked for are kept for a rule that reads them too.
  private func directionalMovement(_ f: RuleFunction, period: Int) -> ContiguousArray<Double> {
    let all = DirectionalMovement(high: bars.high, low: bars.low, close: bars.close, period: period)
    for (g, values) in [(RuleFunction.adx, all.adx), (.plusDI, all.plusDI), (.minusDI, all.minusDI)] where g != f {
      let key = RuleExpression.function(g, [], periods: [period])
      if cache.numbers[key] == nil { cache.numbers[key] = values }
    }
    return f == .adx ? all.adx : f == .plusDI ? all.plusDI : all.minusDI
  }

  /// Runs `body` with a reader of the window's bands: `band(upper, k, i)` is
  /// `mean ± k × deviation` at bar `i` as `BollingerBands` computes it,
  /// undefined where the window is flat or the band is not finite.
  @inline(__always)
  private func withBand<R>(_ w: WindowValues, _ body: ((Bool, Double, Int) -> Double) -> R) -> R {
    w.mean.withUnsafeBufferPointer { mean in
      w.deviation.withUnsafeBufferPointer { deviation in
        w.flat.words.withUnsafeBufferPointer { flat in
          body { upper, k, i in
            let band = upper ? mean[i] + k * deviation[i] : mean[i] - k * deviation[i]
            return flat[i &>> 6] &>> UInt64(i & 63) & 1 != 0 || !band.isFinite ? .nan : band
          }
        }
      }
    }
  }

  /// The rolling mean and population deviation of `x` over `n` values, shared by `std` and the bands.
  private func window(_ x: RuleExpression, _ n: Int) -> WindowValues {
    let key = Window(input: x, period: n)
    if let found = cache.windows[key] { return found }
    let input = number(x)
    let columns = Self.segmentwise(input, minimum: n, columns: 2) {
      let (mean, deviation) = rollingMeanDeviation($0, period: n)
      return [mean, deviation]
    }
    // Flat where the last `n` values are equal (undefined values are never equal).
    var equalRun = 0, previous = Double.nan
    let flat = input.withUnsafeBufferPointer { x in
      makeBits { i in
        equalRun = x[i] == previous ? equalRun + 1 : 1
        previous = x[i]
        return equalRun >= n
      }
    }
    let values = WindowValues(mean: columns[0], deviation: columns[1], flat: flat)
    cache.windows[key] = values
    return values
  }

  /// Applies `f` to each run of defined values of `x` at least `minimum`
  /// long, on its own (as a series of its own: warm-up included); `nan`
  /// elsewhere. `f` returns `columns` columns as long as its input. A period
  /// longer than every run never reaches `f` (nothing is allocated for it).
  static func segmentwise(_ x: ContiguousArray<Double>, minimum: Int, columns: Int = 1,
                          _ f: (ContiguousArray<Double>) -> [ContiguousArray<Double>]) -> [ContiguousArray<Double>] {
    let n = x.count
    let undefined = x.withUnsafeBufferPointer { $0.contains { $0.isNaN } }
    if !undefined && n >= minimum { return f(x) }
    var out = (0..<columns).map { _ in ContiguousArray<Double>(repeating: .nan, count: n) }
    var start = 0
    while start < n {
      guard !x[start].isNaN else { start += 1; continue }
      var end = start
      while end < n && !x[end].isNaN { end += 1 }
      if end - start >= minimum {
        for (k, c) in f(ContiguousArray(x[start..<end])).enumerated() {
          out[k].withUnsafeMutableBufferPointer { o in c.withUnsafeBufferPointer { c in
            for j in 0..<c.count { o[start + j] = c[j] }
          } }
        }
      }
      start = end
    }
    return out
  }

  // MARK: Conditions

  /// Where condition `e` holds, bar by bar.
  func condition(_ e: RuleExpression) -> Bits {
    precondition(e.isCondition && !e.readsPosition, "\(e.text) is not a condition series")
    if let found = cache.conditions[e] { return found }
    let bits: Bits
    switch e {
    case .compare(let op, let a, let b):
      bits = comparedWithBand(op, a, b)
        ?? withValues(operand(a)) { a in withValues(operand(b)) { b in compareBits(op) { (a[$0], b[$0]) } } }
    case .crosses(let above, let a, let b):
      bits = withValues(operand(a)) { a in
        withValues(operand(b)) { b in
          makeBits { i in i >= 1 && RuleArithmetic.crosses(above: above, previous: a[i - 1], b[i - 1], now: a[i], b[i]) }
        }
      }
    case .and(let a, let b):
      bits = combine(condition(a), condition(b), &)
    case .or(let a, let b):
      bits = combine(condition(a), condition(b), |)
    case .not(let x):
      let inner = condition(x)
      bits = combine(inner, inner) { a, _ in ~a }
    case .lag(let x, let k):
      let inner = condition(x)
      bits = makeBits { $0 >= k && inner[$0 - k] }
    default:
      preconditionFailure("\(e.text) is not a condition")
    }
    cache.conditions[e] = bits
    return bits
  }

  /// `a op b` bit by bit for the operands `operands(i)`, one loop per
  /// operator so that the test inside the loop is a single instruction.
  @inline(__always)
  private func compareBits(_ op: BinaryOperator, _ operands: (Int) -> (Double, Double)) -> Bits {
    switch op {
    case .less: return makeBits { let (a, b) = operands($0); return RuleArithmetic.holds(.less, a, b) }
    case .lessOrEqual: return makeBits { let (a, b) = operands($0); return RuleArithmetic.holds(.lessOrEqual, a, b) }
    case .greater: return makeBits { let (a, b) = operands($0); return RuleArithmetic.holds(.greater, a, b) }
    case .greaterOrEqual: return makeBits { let (a, b) = operands($0); return RuleArithmetic.holds(.greaterOrEqual, a, b) }
    case .equal: return makeBits { let (a, b) = operands($0); return RuleArithmetic.holds(.equal, a, b) }
    default: return makeBits { let (a, b) = operands($0); return RuleArithmetic.holds(op, a, b) }
    }
  }

  /// `x op band` or `band op x` read from the band's window, when the band's
  /// column is not made yet: a sweep compares many bands, each once, and
  /// never needs their columns.
  private func comparedWithBand(_ op: BinaryOperator, _ a: RuleExpression, _ b: RuleExpression) -> Bits? {
    func band(_ e: RuleExpression) -> (upper: Bool, x: RuleExpression, n: Int, k: RuleExpression)? {
      guard case .function(let f, let xs, let periods) = e, f == .bollingerUpper || f == .bollingerLower, cache.numbers[e] == nil else { return nil }
      return (f == .bollingerUpper, xs[0], periods[0], xs[1])
    }
    let bandOnRight = band(b) != nil
    guard let found = band(b) ?? band(a) else { return nil }
    let upper = found.upper
    return withValues(operand(bandOnRight ? a : b)) { x in
      withValues(operand(found.k)) { k in
        withBand(window(found.x, found.n)) { band in
          bandOnRight ? compareBits(op) { (x[$0], band(upper, k[$0], $0)) } : compareBits(op) { (band(upper, k[$0], $0), x[$0]) }
        }
      }
    }
  }

  /// One bit per bar, set where `test(i)`.
  @inline(__always)
  private func makeBits(_ test: (Int) -> Bool) -> Bits {
    let n = count, words = (n + 63) / 64
    return Bits(words: ContiguousArray(unsafeUninitializedCapacity: words) { out, made in
      for w in 0..<words {
        var word: UInt64 = 0
        let base = w << 6
        // Branch-free: a condition's bits follow the data, which no predictor guesses.
        for j in 0..<Swift.min(64, n - base) { word |= (test(base &+ j) ? 1 : 0) &<< UInt64(j) }
        out[w] = word
      }
      made = words
    })
  }

  /// `op` of two bit arrays word by word; bits past the last bar stay clear.
  private func combine(_ a: Bits, _ b: Bits, _ op: (UInt64, UInt64) -> UInt64) -> Bits {
    let words = a.words.count, n = count
    return Bits(words: ContiguousArray(unsafeUninitializedCapacity: words) { out, made in
      a.words.withUnsafeBufferPointer { a in
        b.words.withUnsafeBufferPointer { b in
          for w in 0..<words { out[w] = op(a[w], b[w]) }
        }
      }
      if n % 64 != 0 && words > 0 { out[words - 1] &= (1 << UInt64(n % 64)) - 1 }
      made = words
    })
  }

  // MARK: One bar

  /// The value of number expression `e` at bar `i` for `position` (which
  /// `entry_price` and `bars_held` read), as the per-bar program computes it.
  func value(_ e: RuleExpression, at i: Int, position: PositionView) -> Double {
    guard e.readsPosition else { return number(e)[i] }
    switch e {
    case .entryPrice: return position.isOpen ? position.entryPrice : .nan
    case .barsHeld: return position.isOpen ? Double(position.barsHeld(at: i)) : .nan
    case .negate(let x): return -value(x, at: i, position: position)
    case .arithmetic(let op, let a, let b):
      return RuleArithmetic.apply(op, value(a, at: i, position: position), value(b, at: i, position: position))
    case .function(let f, let xs, _):
      let a = value(xs[0], at: i, position: position)
      return RuleArithmetic.pointwise(f, a, xs.count > 1 ? value(xs[1], at: i, position: position) : a)
    default: preconditionFailure("\(e.text) cannot read the position")
    }
  }

  /// Whether condition `e` holds at bar `i` for `position`.
  func holds(_ e: RuleExpression, at i: Int, position: PositionView) -> Bool {
    guard e.readsPosition else { return condition(e)[i] }
    switch e {
    case .compare(let op, let a, let b):
      return RuleArithmetic.holds(op, value(a, at: i, position: position), value(b, at: i, position: position))
    case .and(let a, let b): return holds(a, at: i, position: position) && holds(b, at: i, position: position)
    case .or(let a, let b): return holds(a, at: i, position: position) || holds(b, at: i, position: position)
    case .not(let x): return !holds(x, at: i, position: position)
    default: preconditionFailure("\(e.text) cannot read the position")
    }
  }
}

/// A condition that reads the open position (`entry_price`, `bars_held`),
/// compiled for the bar loop: its parts that do not read the position are
/// whole columns computed once, the rest a short list of steps run at each
/// close with no allocation and no dynamic dispatch.
struct RuleProgram: Sendable {
  enum Step: Sendable {
    /// A number column's value (the column starts at this offset).
    case series(Int)
    /// A condition column's bit (the column starts at this word).
    case bit(Int)
    case constant(Double)
    case entryPrice, barsHeld
    case negate(Int)
    case arithmetic(BinaryOperator, Int, Int)
    case pointwise(RuleFunction, Int, Int)
    case compare(BinaryOperator, Int, Int)
    case and(Int, Int), or(Int, Int), not(Int)
  }
  /// Each step reads the results of earlier steps (by index); the last one is the answer.
  private(set) var steps: ContiguousArray<Step> = []
  private var values: ContiguousArray<Double> = []
  private var words: ContiguousArray<UInt64> = []

  /// A program that never holds.
  init() { steps = [.constant(0)] }

  init(_ condition: RuleExpression, evaluator: RuleEvaluator) {
    var done: [RuleExpression: Int] = [:]
    func emit(_ e: RuleExpression) -> Int {
      if let k = done[e] { return k }
      let step: Step
      if case .constant(let v) = e {
        step = .constant(v)
      } else if !e.readsPosition {
        if e.isCondition {
          step = .bit(words.count)
          words.append(contentsOf: evaluator.condition(e).words)
        } else {
          step = .series(values.count)
          values.append(contentsOf: evaluator.number(e))
        }
      } else {
        switch e {
        case .entryPrice: step = .entryPrice
        case .barsHeld: step = .barsHeld
        case .negate(let x): step = .negate(emit(x))
        case .arithmetic(let op, let a, let b): step = .arithmetic(op, emit(a), emit(b))
        case .function(let f, let xs, _): step = .pointwise(f, emit(xs[0]), emit(xs.count > 1 ? xs[1] : xs[0]))
        case .compare(let op, let a, let b): step = .compare(op, emit(a), emit(b))
        case .and(let a, let b): step = .and(emit(a), emit(b))
        case .or(let a, let b): step = .or(emit(a), emit(b))
        case .not(let x): step = .not(emit(x))
        default: preconditionFailure("\(e.text) cannot read the position")
        }
      }
      steps.append(step)
      done[e] = steps.count - 1
      return steps.count - 1
    }
    _ = emit(condition)
  }

  /// Whether the condition holds at the close of bar `i` for a position
  /// entered at `entryPrice` on bar `entryBar`.
  @inline(__always)
  func holds(at i: Int, entryPrice: Double, entryBar: Int) -> Bool {
    steps.withUnsafeBufferPointer { steps in
      values.withUnsafeBufferPointer { values in
        words.withUnsafeBufferPointer { words in
          withUnsafeTemporaryAllocation(of: Double.self, capacity: steps.count) { r in
            for k in 0..<steps.count {
              switch steps[k] {
              case .series(let start): r[k] = values[start + i]
              case .bit(let start): r[k] = words[start + i >> 6] >> UInt64(i & 63) & 1 != 0 ? 1 : 0
              case .constant(let v): r[k] = v
              case .entryPrice: r[k] = entryPrice
              case .barsHeld: r[k] = Double(i - entryBar)
              case .negate(let a): r[k] = -r[a]
              case .arithmetic(let op, let a, let b): r[k] = RuleArithmetic.apply(op, r[a], r[b])
              case .pointwise(let f, let a, let b): r[k] = RuleArithmetic.pointwise(f, r[a], r[b])
              case .compare(let op, let a, let b): r[k] = RuleArithmetic.holds(op, r[a], r[b]) ? 1 : 0
              case .and(let a, let b): r[k] = r[a] != 0 && r[b] != 0 ? 1 : 0
              case .or(let a, let b): r[k] = r[a] != 0 || r[b] != 0 ? 1 : 0
              case .not(let a): r[k] = r[a] != 0 ? 0 : 1
              }
            }
            return r[steps.count - 1] != 0
          }
        }
      }
    }
  }
}
