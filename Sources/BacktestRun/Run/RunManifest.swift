import BacktestCore
import Foundation

/// What made a report: the engine's version, a hash of the run's settings,
/// and a hash of every input file's bytes (`run.manifest` in summary.json).
///
/// Hashes are `Fingerprint`s (FNV-1a, 64 bits, over the bytes as 8-byte
/// little-endian words, then the last bytes one by one), written as 16 hex
/// digits: taken on another core while the files parse (~5 GB/s), they show
/// that a file changed; they are not meant to resist a forged file.
package struct RunManifest: Sendable, Equatable {
  /// One file the run read.
  package struct Input: Sendable, Equatable {
    /// What the file is to the run: `bars`, `intrabar`, `macro`, `dividends` or `ledger`.
    package var role: String
    /// The path the run read it from.
    package var file: String
    package var bytes: Int
    package var hash: String

    /// The record of `file`'s bytes (hashed here).
    package init(role: String, file: String, contents: Data) {
      self.role = role
      self.file = file
      bytes = contents.count
      hash = contents.withUnsafeBytes { RunManifest.hash($0) }
    }

    package init(role: String, file: String, bytes: Int, hash: String) {
      self.role = role
      self.file = file
      self.bytes = bytes
      self.hash = hash
    }
  }

  /// `BacktestVersion.string` of the engine that ran.
  package var engine: String
  /// The hash of the run's settings as the run file and its `--set` overrides
  /// gave them (see `RunManifest.settingsHash`); `nil` for settings made as a value.
  package var settings: String?
  /// The files read, in the order the run uses them.
  package var inputs: [Input]

  package init(engine: String = BacktestVersion.string, settings: String? = nil, inputs: [Input] = []) {
    self.engine = engine
    self.settings = settings
    self.inputs = inputs
  }

  /// The hash of some bytes, as 16 hex digits.
  package static func hash(_ bytes: UnsafeRawBufferPointer) -> String {
    var f = Fingerprint()
    f.add(raw: bytes)
    return f.hex
  }

  /// The manifest as summary.json writes it.
  package var json: JSONValue {
    .object([
      ("engine", .string(engine)),
      ("hash", .string("fnv1a-64 over 8-byte words")),
      ("settings", settings.map { .string($0) } ?? .null),
      ("inputs", .array(inputs.map {
        .object([("role", .string($0.role)), ("file", .string($0.file)), ("bytes", .integer($0.bytes)), ("hash", .string($0.hash))])
      })),
    ])
  }

  /// Reads the manifest back from summary.json's value, `nil` when it has none.
  package init?(json: Any) {
    guard let object = json as? [String: Any], let engine = object["engine"] as? String,
          let inputs = object["inputs"] as? [[String: Any]] else { return nil }
    self.engine = engine
    settings = object["settings"] as? String
    self.inputs = inputs.compactMap { i in
      guard let role = i["role"] as? String, let file = i["file"] as? String, let bytes = i["bytes"] as? Int,
            let hash = i["hash"] as? String else { return nil }
      return Input(role: role, file: file, bytes: bytes, hash: hash)
    }
  }

  /// How `other` (what made a reference) differs from this manifest in what
  /// the run read: each changed, added or dropped input file, and changed
  /// settings. The engine's version is left out: a new engine is expected to
  /// give the same reports.
  package func inputChanges(since other: RunManifest) -> [String] {
    var out: [String] = []
    if settings != other.settings {
      out.append("the run's settings changed (hash \(other.settings ?? "none") -> \(settings ?? "none"))")
    }
    func key(_ i: Input) -> String { i.role + " " + i.file }
    let before = Dictionary(other.inputs.map { (key($0), $0) }, uniquingKeysWith: { a, _ in a })
    let now = Set(inputs.map(key))
    for i in inputs {
      guard let old = before[key(i)] else { out.append("\(i.role) file \(i.file) is new"); continue }
      if old.hash != i.hash || old.bytes != i.bytes {
        out.append("\(i.role) file \(i.file) changed (\(old.bytes) -> \(i.bytes) bytes, hash \(old.hash) -> \(i.hash))")
      }
    }
    for i in other.inputs where !now.contains(key(i)) { out.append("\(i.role) file \(i.file) is no longer read") }
    return out
  }
}
