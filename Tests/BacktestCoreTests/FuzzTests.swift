import BacktestCore
import Foundation
import Testing

/// Feeds every parser random and mutated bytes for a bounded number of rounds
/// (deterministic seeds). A crash or a trap fails the whole test run; a hang
/// hits the time limit. Errors are fine: they must be `InputError`s.
@Suite(.timeLimit(.minutes(2))) struct FuzzTests {
  static let seeds: [UInt64] = [1, 2, 3, 4]

  /// Valid inputs that mutations start from.
  static let barSeeds: [String] = [
    "timestamp,open,high,low,close,volume\n2024-01-02T09:30:00-05:00,1,2,0.5,1.5,10\n2024-01-02T10:00:00-05:00,1.5,2,1,1.8,11\n",
    ",Open,High,Low,Close,Volume\r\n2017-04-19 09:00:00,1.0716,1.0722,1.07083,1.07219,1413\r\n",
    "\u{FEFF}date,open,high,low,close\n\"2024-01-02\",1,1,1,1\n1704206100000,1,1,1,1",
  ]
  static let yamlSeeds: [String] = [
    try! String(contentsOfFile: Repo.path("Strategies/gpix.yaml"), encoding: .utf8),
    "a: [1, {b: 'c', d: \"e\\u0041\"}]\nlist:\n- x: 1\n  y: [2]\n- - 3\n",
  ]
  static let alphabet = Array(",\n\r\"':-+.eE0123456789TZ {}[]#&*!|>\t ".utf8) + [0xFF, 0x00, 0xC3]

  static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
    var bytes = input
    let edits = 1 + Int(rng.next() % 8)
    for _ in 0..<edits {
      let choice = rng.next() % 4
      let position = bytes.isEmpty ? 0 : Int(rng.next() % UInt64(bytes.count))
      let byte = rng.next() % 3 == 0 ? UInt8(truncatingIfNeeded: rng.next()) : alphabet[Int(rng.next() % UInt64(alphabet.count))]
      switch choice {
      case 0 where !bytes.isEmpty: bytes[position] = byte
      case 1: bytes.insert(byte, at: position)
      case 2 where !bytes.isEmpty: bytes.remove(at: position)
      default:
        let n = min(bytes.count - position, Int(rng.next() % 20))
        if n > 0 { bytes.insert(contentsOf: bytes[position..<(position + n)], at: position) }
      }
    }
    return bytes
  }

  static func randomBytes(_ rng: inout SplitMix64) -> [UInt8] {
    (0..<Int(rng.next() % 200)).map { _ in
      rng.next() % 2 == 0 ? UInt8(truncatingIfNeeded: rng.next()) : alphabet[Int(rng.next() % UInt64(alphabet.count))]
    }
  }

  @Test("the bar reader survives random and mutated bytes", arguments: seeds)
  func bars(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    let zone = TimeZone(identifier: "America/New_York")!
    for round in 0..<4000 {
      let input = round % 4 == 0 ? Self.randomBytes(&rng)
        : Self.mutate(Array(Self.barSeeds[round % Self.barSeeds.count].utf8), &rng)
      input.withUnsafeBufferPointer { b in
        do {
          let bars = try BarCSVReader(timeZone: zone).read(b, file: "fuzz.csv")
          _ = bars.filtered(session: .regular, timeZone: zone).resampled(to: .minutes(60), session: .regular, timeZone: zone)
        } catch is InputError {
        } catch {
          Issue.record("seed \(seed) round \(round): unexpected \(error)")
        }
      }
    }
  }

  @Test("the YAML reader and run-file reader survive random and mutated text", arguments: seeds)
  func yaml(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    for round in 0..<4000 {
      let input = round % 4 == 0 ? Self.randomBytes(&rng)
        : Self.mutate(Array(Self.yamlSeeds[round % Self.yamlSeeds.count].utf8), &rng)
      let text = String(decoding: input, as: UTF8.self)
      do {
        _ = try RunConfig.parse(text, file: "fuzz.yaml", overrides: round % 3 == 0 ? ["strategy.stop_loss=" + text.prefix(8)] : [])
      } catch is InputError {
      } catch {
        Issue.record("seed \(seed) round \(round): unexpected \(error)")
      }
    }
  }

  @Test("numbers and timestamps: random bytes never trap", arguments: seeds)
  func scalars(seed: UInt64) {
    var rng = SplitMix64(seed: seed)
    let digits = Array("0123456789".utf8)
    for round in 0..<50_000 {
      var input = Self.randomBytes(&rng)
      if round % 2 == 0 { input = (0..<Int(rng.next() % 24)).map { _ in digits[Int(rng.next() % 10)] } }
      input.withUnsafeBufferPointer { b in
        _ = parseDecimal(b, 0, b.count)
        _ = parseTimestamp(b, 0, b.count)
      }
    }
  }

  @Test("extreme but well-formed timestamps are errors or instants, never a trap")
  func extremeTimestamps() throws {
    for stamp in ["999999999999999999", "100000000000", "9999-12-31T23:59:59+18:00", "0000-01-01", "0001-01-01T00:00:00Z"] {
      let text = "timestamp,open,high,low,close\n\(stamp),1,1,1,1\n"
      do { _ = try readBars(text) } catch is InputError {}
    }
  }
}
