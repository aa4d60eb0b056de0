import BacktestCore
import BacktestRun
import CommandLineSupport
import Foundation

/// The opening every command over a run file shares: the one file named on the
/// command line (found as given, else as `Strategies/NAME` or
/// `Strategies/NAME.yaml`), read as UTF-8 text, with the `--set` overrides to
/// apply when it is parsed.
struct RunFileArgument {
  /// The file as found.
  let path: String
  /// The `--set key.path=value` overrides, in the order given.
  let overrides: [String]

  /// The file at `path` (already located), with `overrides`.
  init(path: String, overrides: [String]) {
    self.path = path
    self.overrides = overrides
  }

  /// The single positional argument of `a`; `usage` (`backtest signal CONFIG`) completes the error when there is
  /// none or more than one.
  init(_ a: Arguments, usage: String) throws {
    guard a.positionals.count == 1 else {
      throw UsageError(message: a.positionals.isEmpty ? "missing the run file: \(usage)"
                                                      : "expected one run file, found \(a.positionals.count): \(usage)")
    }
    path = Self.locate(a.positionals[0])
    overrides = a.values("set")
  }

  /// `path` as given when it exists or holds a `/`, else `Strategies/path` or `Strategies/path.yaml` when one
  /// exists (so `backtest run gpix` finds `Strategies/gpix.yaml`).
  static func locate(_ path: String) -> String {
    if FileManager.default.fileExists(atPath: path) || path.contains("/") { return path }
    for candidate in ["Strategies/" + path, "Strategies/" + path + ".yaml"]
    where FileManager.default.fileExists(atPath: candidate) {
      return candidate
    }
    return path
  }

  /// The file's text; refused unless it is UTF-8.
  func text() throws -> String {
    let data = try readInputFile(path)
    guard let text = String(data: data, encoding: .utf8) else { throw InputError("expected UTF-8 text", file: path) }
    return text
  }

  /// The run file parsed with the overrides.
  func config(catalog: StrategyCatalog) throws -> AnyRunConfig {
    try AnyRunConfig.parse(try text(), file: path, overrides: overrides, catalog: catalog)
  }
}
