import Foundation

/// The probability of backtest overfitting by combinatorially symmetric
/// cross-validation (Bailey, Borwein, López de Prado & Zhu, "The Probability
/// of Backtest Overfitting", Journal of Computational Finance 20(4), 2017).
///
/// The T × N matrix of per-period returns (N strategies) is cut into `blocks`
/// (S, even) equal row blocks. For every choice of S/2 blocks as the training
/// set (the rest testing): the strategy with the best training Sharpe ratio
/// (mean / sample deviation) is located among the testing Sharpe ratios by its
/// relative rank ω = rank / (N + 1) (ties counted half), and λ = ln(ω / (1 − ω)).
/// PBO is the share of choices with λ ≤ 0: how often the in-sample winner is
/// at or below the median out of sample.
package enum BacktestOverfitting {
  package struct Result: Sendable {
    package var probability: Double
    package var logits: [Double]
    package var blocks: Int
  }

  /// What the test needs of one strategy's returns: the sum and the sum of
  /// squares of each of its S blocks (rows past S × size are left out).
  package struct BlockSums: Sendable, Equatable {
    /// How many returns there were (T).
    package var periods: Int
    package var sum: [Double]
    package var squares: [Double]

    /// The block sums of `returns`, cut into `blocks` (made even, at most T / 2).
    package init(returns r: UnsafeBufferPointer<Double>, blocks requested: Int = 10) {
      let t = r.count
      periods = t
      var s = min(requested, t / 2)
      if s % 2 == 1 { s -= 1 }
      sum = []
      squares = []
      guard s >= 2 else { return }
      let size = t / s
      sum.reserveCapacity(s)
      squares.reserveCapacity(s)
      for b in 0..<s {
        var total = 0.0, totalSquares = 0.0
        for i in (b * size)..<((b + 1) * size) {
          let x = r[i]
          total += x
          totalSquares += x * x
        }
        sum.append(total)
        squares.append(totalSquares)
      }
    }

    package init(returns: [Double], blocks requested: Int = 10) {
      self = returns.withUnsafeBufferPointer { BlockSums(returns: $0, blocks: requested) }
    }
  }

  /// - Parameter returns: one array of per-period returns per strategy, all of the same length.
  package static func pbo(returns: [[Double]], blocks requested: Int = 10) -> Result? {
    pbo(returns.map { BlockSums(returns: $0, blocks: requested) })
  }

  /// The test from each strategy's block sums (all of the same length and blocks).
  package static func pbo(_ strategies: [BlockSums]) -> Result? {
    let n = strategies.count
    guard n > 1, let t = strategies.first?.periods, let s = strategies.first?.sum.count, s >= 2,
      strategies.allSatisfy({ $0.periods == t && $0.sum.count == s }) else { return nil }
    let size = t / s
    // Flat: [j * s + b].
    let sum = strategies.flatMap(\.sum), squares = strategies.flatMap(\.squares)
    let count = Double(size * s / 2)
    func sharpe(_ j: Int, _ blocks: [Int]) -> Double {
      var total = 0.0, totalSquares = 0.0
      for b in blocks { total += sum[j * s + b]; totalSquares += squares[j * s + b] }
      let m = total / count
      let variance = (totalSquares - count * m * m) / (count - 1)
      return variance > 0 ? m / variance.squareRoot() : (m > 0 ? .infinity : m < 0 ? -.infinity : 0)
    }
    var logits: [Double] = []
    var test = [Double](repeating: 0, count: n)
    for mask in 0..<(1 << s) where mask.nonzeroBitCount == s / 2 {
      let inside = (0..<s).filter { (mask >> $0) & 1 == 1 }, outside = (0..<s).filter { (mask >> $0) & 1 == 0 }
      var best = 0, bestSharpe = -Double.infinity
      for j in 0..<n {
        let v = sharpe(j, inside)
        if v > bestSharpe { bestSharpe = v; best = j }
      }
      for j in 0..<n { test[j] = sharpe(j, outside) }
      var rank = 1.0
      for j in 0..<n where j != best {
        if test[j] < test[best] { rank += 1 } else if test[j] == test[best] { rank += 0.5 }
      }
      let omega = rank / Double(n + 1)
      logits.append(log(omega / (1 - omega)))
    }
    return Result(probability: Double(logits.filter { $0 <= 0 }.count) / Double(logits.count), logits: logits, blocks: s)
  }
}
