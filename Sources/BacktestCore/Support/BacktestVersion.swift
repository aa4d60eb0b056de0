/// The engine's version: what `backtest --version` prints and what a run
/// manifest records.
///
/// `number` is the release. A binary built with `make` (see the `Makefile`)
/// also carries the commit it was built from: `0.1.0+1a2b3c4d5e6f`, with
/// `.dirty` appended when the checkout had uncommitted changes. Other builds
/// (`swift build`, an app using the library, a clone without git) give the
/// number alone.
package enum BacktestVersion {
  /// The release number, `MAJOR.MINOR.PATCH`.
  package static let number = "0.1.0"

  /// The commit the running binary was built from, when its build recorded one.
  package static let commit: String? = (BacktestVersion.self as Any.Type as? _BuildCommit.Type)?.buildCommit

  /// The number, then `+` and the commit when known.
  package static let string: String = commit.map { number + "+" + $0 } ?? number
}

/// Not API. `make` generates a file in the executable that declares
/// `BacktestVersion`'s conformance with the commit, so that a plain
/// `swift build` needs no generated file at all.
package protocol _BuildCommit {
  static var buildCommit: String { get }
}
