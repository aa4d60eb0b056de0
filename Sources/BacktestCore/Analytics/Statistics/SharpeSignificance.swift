import Foundation

/// The standard normal distribution function Φ(x) = ½ erfc(−x / √2).
package func normalCDF(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }

/// The inverse of Φ: Acklam's rational approximation (relative error < 1.2e-9)
/// refined by one Halley step, which brings it to near machine precision.
package func inverseNormalCDF(_ p: Double) -> Double {
  precondition(p > 0 && p < 1, "p must be in (0, 1), was \(p)")
  let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00]
  let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01]
  let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00]
  let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
  var x: Double
  if p < 0.02425 {
    let q = (-2 * log(p)).squareRoot()
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
  } else if p <= 1 - 0.02425 {
    let q = p - 0.5, r = q * q
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
      / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
  } else {
    let q = (-2 * log(1 - p)).squareRoot()
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
  }
  let e = normalCDF(x) - p
  let u = e * (2 * Double.pi).squareRoot() * exp(x * x / 2)
  x -= u / (1 + x * u / 2)
  return x
}

/// Whether a Sharpe ratio is significant, after Bailey & López de Prado.
///
/// Sharpe ratios here are per observation (not annualized): divide an
/// annualized one by √(periods per year).
package enum SharpeSignificance {
  /// The probabilistic Sharpe ratio (Bailey & López de Prado, "The Sharpe Ratio
  /// Efficient Frontier", Journal of Risk 15(2), 2012): the probability that
  /// the true Sharpe ratio exceeds `benchmark`,
  /// `PSR = Φ((SR − SR*) √(T − 1) / √(1 − γ3·SR + (γ4 − 1)/4·SR²))`,
  /// with `skewness` γ3 and (non-excess) `kurtosis` γ4 of the returns, `T` observations.
  package static func probabilistic(sharpe sr: Double, benchmark: Double, observations t: Int, skewness: Double, kurtosis: Double) -> Double {
    let denominator = (1 - skewness * sr + (kurtosis - 1) / 4 * sr * sr).squareRoot()
    return normalCDF((sr - benchmark) * Double(t - 1).squareRoot() / denominator)
  }

  /// The expected maximum Sharpe ratio of `trials` independent trials whose
  /// Sharpe ratios have variance `variance` and true value 0 (the deflated Sharpe
  /// ratio's benchmark; "The Deflated Sharpe Ratio", Journal of Portfolio
  /// Management 40(5), 2014): `√V · ((1 − γ) Φ⁻¹(1 − 1/N) + γ Φ⁻¹(1 − 1/(N e)))`, γ the Euler–Mascheroni constant.
  package static func expectedMaximum(trials n: Int, variance: Double) -> Double {
    guard n > 1 else { return 0 }
    let gamma = 0.5772156649015329
    let N = Double(n)
    return variance.squareRoot() * ((1 - gamma) * inverseNormalCDF(1 - 1 / N) + gamma * inverseNormalCDF(1 - 1 / (N * M_E)))
  }

  /// The deflated Sharpe ratio: the PSR against the expected maximum of `trials` trials.
  package static func deflated(sharpe sr: Double, trials: Int, variance: Double, observations: Int, skewness: Double, kurtosis: Double) -> Double {
    probabilistic(sharpe: sr, benchmark: expectedMaximum(trials: trials, variance: variance), observations: observations,
                  skewness: skewness, kurtosis: kurtosis)
  }

  /// Sample skewness and (non-excess) kurtosis, with population moments (as the papers' examples).
  package static func moments(_ x: [Double]) -> (skewness: Double, kurtosis: Double)? {
    guard x.count > 2, let m = mean(x) else { return nil }
    var m2 = 0.0, m3 = 0.0, m4 = 0.0
    for v in x { let d = v - m; m2 += d * d; m3 += d * d * d; m4 += d * d * d * d }
    let n = Double(x.count)
    m2 /= n; m3 /= n; m4 /= n
    guard m2 > 0 else { return nil }
    return (m3 / pow(m2, 1.5), m4 / (m2 * m2))
  }
}
