import Foundation

/// Polygon.io aggregate bars: `{"results": [{"t": ms, "o", "h", "l", "c", "v"}], "next_url": …}`.
package enum PolygonAggregates {
  /// One page of a response.
  package struct Page: Sendable {
    package var bars: [(time: Int64, open: Double, high: Double, low: Double, close: Double, volume: Double)]
    /// The next page's URL, without the API key (it must be added back).
    package var nextURL: String?
  }

  /// Parses one response body.
  ///
  /// - Throws: `InputError` naming `file` when it is not aggregates JSON or a bar lacks a field.
  package static func parse(_ data: Data, file: String) throws -> Page {
    guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw InputError("expected a JSON object with 'results' (Polygon aggregates)", file: file)
    }
    let results = object["results"] as? [[String: Any]] ?? []
    var bars: [(Int64, Double, Double, Double, Double, Double)] = []
    for (k, r) in results.enumerated() {
      func number(_ key: String) throws -> Double {
        guard let v = (r[key] as? NSNumber)?.doubleValue, v.isFinite else {
          throw InputError("result \(k + 1): expected a number for '\(key)'", file: file)
        }
        return v
      }
      let t = try number("t")
      // Epoch milliseconds up to the year 9999, like every other timestamp here.
      guard t >= 0, t <= 253_402_300_799_000 else {
        throw InputError("result \(k + 1): expected 't' in epoch milliseconds, found \(t)", file: file)
      }
      bars.append((Int64(t / 1000), try number("o"), try number("h"), try number("l"), try number("c"),
                   (r["v"] as? NSNumber)?.doubleValue ?? 0))
    }
    return Page(bars: bars.map { (time: $0.0, open: $0.1, high: $0.2, low: $0.3, close: $0.4, volume: $0.5) },
                nextURL: object["next_url"] as? String)
  }

  /// The first request's URL (without the key): `/v2/aggs/ticker/{symbol}/range/{n}/{unit}/{from}/{to}`.
  package static func url(base: String, symbol: String, interval: ResampleInterval, from: String, to: String) -> String {
    let (multiplier, timespan): (Int, String)
    switch interval {
    case .daily: (multiplier, timespan) = (1, "day")
    case .minutes(let m): (multiplier, timespan) = m % 60 == 0 ? (m / 60, "hour") : (m, "minute")
    }
    let symbol = symbol.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? symbol
    return "\(base)/v2/aggs/ticker/\(symbol)/range/\(multiplier)/\(timespan)/\(from)/\(to)?adjusted=true&sort=asc&limit=50000"
  }

  /// Bars as the standard CSV, stamped in `timeZone` with their offset (dates only for daily bars).
  package static func csv(_ bars: [(time: Int64, open: Double, high: Double, low: Double, close: Double, volume: Double)],
                         timeZone: TimeZone, daily: Bool, header: Bool = true) -> String {
    var resolver = TimeZoneResolver(timeZone)
    var out = header ? "timestamp,open,high,low,close,volume\n" : ""
    for b in bars {
      let offset = resolver.offset(at: b.time)
      let stamp = daily ? CivilDate.isoDate(days: CivilDate.day(ofSeconds: b.time + Int64(offset)))
                        : CivilDate.isoDateTime(seconds: b.time, offset: offset)
      out += "\(stamp),\(b.open),\(b.high),\(b.low),\(b.close),\(formatNumber(b.volume))\n"
    }
    return out
  }
}

/// FRED series observations: `{"observations": [{"date": "2024-01-01", "value": "3.7"}], "count": N, "offset": K}`.
package enum FREDObservations {
  package static func parse(_ data: Data, file: String) throws -> (rows: [(date: String, value: String)], count: Int) {
    guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let observations = object["observations"] as? [[String: Any]]
    else { throw InputError("expected a JSON object with 'observations' (FRED)", file: file) }
    let rows = try observations.enumerated().map { k, o -> (String, String) in
      guard let date = o["date"] as? String, let value = o["value"] as? String else {
        throw InputError("observation \(k + 1): expected 'date' and 'value' strings", file: file)
      }
      return (date, value)
    }
    return (rows.map { (date: $0.0, value: $0.1) }, (object["count"] as? NSNumber)?.intValue ?? rows.count)
  }

  package static func url(base: String, series: String, from: String, to: String, offset: Int) -> String {
    "\(base)/fred/series/observations?series_id=\(series)&file_type=json&observation_start=\(from)&observation_end=\(to)&offset=\(offset)&limit=100000"
  }

  /// A FRED-style CSV (`observation_date,SERIES`, `.` for missing), which the macro reader reads.
  package static func csv(series: String, rows: [(date: String, value: String)]) -> String {
    "observation_date,\(series)\n" + rows.map { "\($0.date),\($0.value.isEmpty ? "." : $0.value)" }.joined(separator: "\n") + (rows.isEmpty ? "" : "\n")
  }
}

/// Hides API keys in anything that might be shown: `apiKey=…` and `api_key=…` become `…=***`.
package func redactingKeys(_ text: String) -> String {
  var out = ""
  var rest = Substring(text)
  while let r = ["apiKey=", "api_key="].compactMap({ rest.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) {
    out += rest[..<r.upperBound] + "***"
    rest = rest[r.upperBound...]
    let end = rest.firstIndex { $0 == "&" || $0 == " " || $0 == "\"" || $0 == "\n" || $0 == ")" } ?? rest.endIndex
    rest = rest[end...]
  }
  return out + rest
}
