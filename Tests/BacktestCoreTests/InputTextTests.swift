import Foundation
import Testing

@testable import BacktestCore
@testable import BacktestRun

/// What every text reader shares: CRLF lines, strict numbers, bounded messages and time.
@Suite struct InputTextTests {
  @Test("lines end at LF or CRLF alike; a lone CR stays in its line; a final break starts no line")
  func lines() {
    #expect("a\r\nb\nc\r\n".textLines == ["a", "b", "c"])
    #expect("a\rb\n\r\n\nd".textLines == ["a\rb", "", "", "d"])
    #expect("".textLines.isEmpty && "x\r".textLines == ["x"])
  }

  @Test("a YAML file with CRLF line ends reads as its LF twin")
  func crlfYAML() throws {
    let lf = "name: x\ndata:\n  bars: b.csv   # comment\nlist: [1, 2]\n"
    #expect(try YAMLReader.parse(lf.replacingOccurrences(of: "\n", with: "\r\n"), file: "f") == YAMLReader.parse(lf, file: "f"))
  }

  @Test("numbers are decimal only: hex, inf, nan, underscores are not numbers", arguments: ["0x10", "inf", "nan", "1_000", "", "1e", "--1"])
  func strictDecimal(_ text: String) {
    #expect(parseDecimal(text) == nil)
  }

  @Test("a config number above 1e15 in magnitude is refused with its place; a fraction's suggestion is itself valid")
  func configBounds() throws {
    let t = try ConfigTable(YAMLReader.parse("cash: 1.7e308\nstop: 2\nhuge: 1e300\n", file: "f"), path: "")
    #expect(throws: InputError("expected an amount (at most 1e15 in magnitude) for 'cash', found 1.7e308", at: SourceLocation(file: "f", line: 1, column: 7))) {
      try t.double("cash", expected: "an amount")
    }
    #expect(throws: InputError("expected a fraction like 0.02 or 2% for 'stop', found 2; did you mean 2%?", at: SourceLocation(file: "f", line: 2, column: 7))) {
      try t.fraction("stop", default: nil)
    }
    #expect(throws: InputError("expected a fraction like 0.02 or 2% for 'huge', found '1e300'", at: SourceLocation(file: "f", line: 3, column: 7))) {
      try t.fraction("huge", default: nil)
    }
  }

  /// Seconds to parse `text` as YAML and look a key up in the mapping at `key` (the root when `nil`).
  static func parseSeconds(_ text: String, in key: String? = nil) throws -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    let root = try ConfigTable(YAMLReader.parse(text, file: "f"), path: "")
    let table = try key.map { try root.table($0) } ?? root
    _ = table.node("k49999")
    #expect(table.entries.count == 50_000)
    let d = clock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
  }

  @Test("parsing is linear in the number of keys: 50,000 keys, in block or flow style, in well under 5 s (it was quadratic)")
  func linearParsing() throws {
    let keys = (0..<50_000).map { "k\($0)" }
    let block = try Self.parseSeconds(keys.map { $0 + ": 1\n" }.joined())
    let flow = try Self.parseSeconds("m: {" + keys.map { $0 + ": 1" }.joined(separator: ", ") + "}\n", in: "m")
    #expect(block < 5 && flow < 5, "block \(block) s, flow \(flow) s")
  }

  @Test("100,000 spaces after a value, a key, a flow value or a --set value are trimmed in linear time (they took minutes)")
  func linearTrimming() throws {
    let spaces = String(repeating: " ", count: 100_000)
    let clock = ContinuousClock()
    let start = clock.now
    let root = try ConfigTable(YAMLReader.parse("name: x\(spaces)\nk\(spaces): 1\nm: {a: b\(spaces), c\(spaces): d}\n# \(spaces)\n", file: "f"), path: "")
    #expect(try root.string("name") == "x")
    #expect(try root.string("k") == "1")
    let m = try root.table("m")
    #expect(try m.string("a") == "b" && m.string("c") == "d")
    let set = try ConfigOverride("name=x\(spaces)").apply(to: YAMLNode(.null, at: SourceLocation(file: "f", line: 1, column: 1)))
    #expect(try ConfigTable(set, path: "").string("name") == "x")
    #expect(clock.now - start < .seconds(5), "\(clock.now - start)")
    #expect(Substring("a b \t  ").droppingTrailingSpaces() == "a b \t" && Substring("a b \t  ").droppingTrailingSpaces(tabs: true) == "a b")
    #expect(Substring("  é ").droppingLeadingSpaces() == "é " && Substring("   ").droppingTrailingSpaces().isEmpty)
  }

  @Test("key-like NAME=value pairs in what a message quotes are hidden, in any case and whatever separates them",
        arguments: [
          ("API_KEY=abc123\u{0}SHELL=/bin/bash\u{0}GH_TOKEN=ghp_x", "API_KEY=***\u{0}SHELL=/bin/bash\u{0}GH_TOKEN=***"),
          ("found 'db_password=hunter2,user=me'", "found 'db_password=***,user=me'"),
          ("u?apiKey=AAA&x=1 v?Client_Secret=B%2FC\"", "u?apiKey=***&x=1 v?Client_Secret=***\""),
          ("secret.token=x… name=key", "secret.token=***… name=key"),
          ("KEY= x, TOKEN=, a=b, key", "KEY= x, TOKEN=, a=b, key"),
          ("=abc ==", "=abc =="),
          ("expected --set key.path=value, [--set KEY=VALUE]", "expected --set key.path=value, [--set KEY=VALUE]"),
        ])
  func redactedSecrets(_ text: String, _ expected: String) {
    #expect(redactingSecrets(text) == expected)
    #expect(InputError("found '\(text)'", file: "f").message == "found '\(expected)'")
  }

  @Test("a message quoting a huge text is cut, and no suggestion is sought for a huge word")
  func boundedMessages() {
    let huge = String(repeating: "x", count: 2_000_000)
    #expect(InputError("found '\(huge)'", file: "f").message.count == InputError.messageLimit + 1)
    let clock = ContinuousClock()
    let start = clock.now
    #expect(closestMatch(to: huge, in: ["name", "data", "strategy"]) == nil)
    #expect(clock.now - start < .seconds(1))
    #expect(closestMatch(to: "strateg", in: ["name", "data", "strategy"]) == "strategy")
  }

  @Test("files the system keeps (under /proc, /sys, /dev, or reached through a link) are refused unread; /dev/shm is not")
  func systemFiles() throws {
    for (path, area) in [("/proc/self/environ", "/proc"), ("/proc/self/status", "/proc"), ("/sys/kernel/mm/transparent_hugepage/enabled", "/sys")]
    where FileManager.default.fileExists(atPath: path) {
      #expect(throws: InputError("is a system file (under \(area)); expected a data file", file: path, kind: .missingInput)) {
        try readInputFile(path)
      }
    }
    let folder = NSTemporaryDirectory() + "system-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try FileManager.default.createSymbolicLink(atPath: folder + "/bars.csv", withDestinationPath: "/proc/self/environ")
    #expect(throws: InputError("is a system file (under /proc); expected a data file", file: folder + "/bars.csv", kind: .missingInput)) {
      try readInputFile(folder + "/bars.csv")
    }
    if FileManager.default.fileExists(atPath: "/dev/shm") {
      let shared = "/dev/shm/backtest-\(UUID().uuidString).csv"
      try "date,amount\n".write(toFile: shared, atomically: false, encoding: .utf8)
      defer { try? FileManager.default.removeItem(atPath: shared) }
      #expect(try readInputFile(shared) == Data("date,amount\n".utf8))
    }
  }

  @Test("readers refuse devices and files over their limit with a message")
  func boundedReads() throws {
    #expect(throws: InputError("is a device; expected a regular file", file: "/dev/zero", kind: .missingInput)) {
      try readInputFile("/dev/zero")
    }
    let path = NSTemporaryDirectory() + "bounded-\(UUID().uuidString).csv"
    try String(repeating: "x", count: 3 << 20).write(toFile: path, atomically: false, encoding: .utf8)
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(throws: InputError("is larger than 2 MiB (3 MiB or more); expected a smaller file", file: path, kind: .missingInput)) {
      try readInputFile(path, limit: 2 << 20)
    }
    #expect(try readInputFile(path).count == 3 << 20)
  }
}
