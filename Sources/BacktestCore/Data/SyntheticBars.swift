import Foundation

/// SplitMix64: a small, fast, seeded generator, identical on every platform.
package struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64
  package init(seed: UInt64) { state = seed }
  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  /// A uniform double in [0, 1).
  package mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
  /// A standard normal draw (Box–Muller).
  package mutating func normal() -> Double {
    let u = max(unit(), 0x1.0p-60), v = unit()
    return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
  }
}

/// Deterministic synthetic 30-minute bars of a US-listed stock: 13 bars per
/// weekday (09:30–15:30 New York, stamped at the bar's start, offsets
/// written), a random walk whose volatility switches between calm and
/// volatile regimes, overnight gaps, prices rounded to cents. For benchmarks
/// and property tests, never for conclusions about markets.
package enum SyntheticBars {
  /// The price model.
  package enum Model: String, Sendable, CaseIterable {
    /// Geometric Brownian motion with constant volatility.
    case gbm
    /// Volatility switching between a calm and a volatile regime (geometric run lengths).
    case regime
  }

  /// Parameters of the generated path (annualized drift and volatilities).
  package struct Settings: Sendable {
    package var model = Model.regime
    package var drift = 0.0
    package var volatility = 0.16
    package var volatileVolatility = 0.45
    package var barsPerDay = 13
    package init() {}
  }

  /// The day (since 1970-01-01) of the last of `count` bars (at least 1) that `generate` writes from `startDay`,
  /// `barsPerDay` on each weekday: known before any bar is made, so that a series that would run past the
  /// year 9999 is refused up front.
  package static func lastDay(count: Int, startDay: Int, barsPerDay: Int) -> Int {
    var first = startDay
    while CivilDate.weekday(days: first) >= 5 { first += 1 }
    // Weekdays after the first one, counted from the Monday of its week.
    let weekdays = (max(1, count) - 1) / barsPerDay + CivilDate.weekday(days: first)
    return first - CivilDate.weekday(days: first) + weekdays / 5 * 7 + weekdays % 5
  }

  package static func generate(count: Int, seed: UInt64, startDay: Int = CivilDate.days(year: 2004, month: 1, day: 2),
                              startPrice: Double = 50, settings: Settings = Settings()) -> BarSeries {
    var rng = SplitMix64(seed: seed)
    var resolver = TimeZoneResolver(TimeZone(identifier: "America/New_York")!)
    var bars = BarSeries(source: "synthetic", capacity: count)
    var day = startDay
    var price = startPrice
    var volatile = false
    var slot = 0
    let perDay = settings.barsPerDay
    let daily = perDay == 1
    while bars.count < count {
      if slot == perDay { slot = 0; day += 1 }
      while CivilDate.weekday(days: day) >= 5 { day += 1 }
      if slot == 0 && settings.model == .regime {
        if rng.unit() < (volatile ? 1.0 / 15 : 1.0 / 60) { volatile.toggle() }
        // Overnight gap, with a weak pull back toward the start price.
        price *= exp(0.004 * rng.normal() - 0.001 * log(price / startPrice))
      }
      let annual = settings.model == .regime && volatile ? settings.volatileVolatility : settings.volatility
      let sigma = annual / (252.0 * Double(perDay)).squareRoot()
      let mu = (settings.drift - annual * annual / 2) / (252.0 * Double(perDay))
      let open = (price * 100).rounded() / 100
      let close = max(0.01, (open * exp(mu + sigma * rng.normal()) * 100).rounded() / 100)
      let high = (max(open, close) * exp(abs(rng.normal()) * 0.6 * sigma) * 100).rounded(.up) / 100
      let low = max(0.01, (min(open, close) * exp(-abs(rng.normal()) * 0.6 * sigma) * 100).rounded(.down) / 100)
      let local = Int64(day) * 86_400 + Int64(daily ? 0 : 570 + 390 / perDay * slot) * 60
      let instant = resolver.instant(ofLocal: local, after: bars.time.last)!
      let label = daily ? CivilDate.isoDate(days: day) : CivilDate.isoDateTime(seconds: instant, offset: Int(local - instant))
      let volume = (200_000 * exp(0.4 * rng.normal())).rounded()
      bars.append(time: instant, day: Int32(day), open: open, high: high, low: low, close: close, volume: volume,
                  label: Array(label.utf8))
      price = close
      slot += 1
    }
    bars.isDateOnly = daily
    return bars
  }

  /// Returns the bars as a CSV file (`timestamp,open,high,low,close,volume`).
  package static func csv(_ bars: BarSeries) -> String {
    var out = "timestamp,open,high,low,close,volume\n"
    out.reserveCapacity(bars.count * 64)
    for i in bars.indices {
      out += bars.timeLabel(i) + "," + bars.open[i].description + "," + bars.high[i].description + ","
        + bars.low[i].description + "," + bars.close[i].description + "," + formatNumber(bars.volume[i]) + "\n"
    }
    return out
  }
}
