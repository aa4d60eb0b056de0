import BacktestCore
import CommandLineSupport
import Foundation

/// Progress of a pagination on standard error, for fetches long enough to wonder about:
/// `fetching GPIX: page 12, 600 bars so far`, at most every 2 seconds (so a quick
/// fetch prints nothing), and never with `--quiet`.
final class PageProgress {
  private let label: String
  private let noun: String
  private let enabled: Bool
  private let clock = ContinuousClock()
  private var last: ContinuousClock.Instant

  init(label: String, noun: String, enabled: Bool) {
    self.label = escapingControlCharacters(excerpt(label))
    self.noun = noun
    self.enabled = enabled
    last = clock.now
  }

  /// Called after each page with the pages and items read so far.
  func update(page: Int, items: Int) {
    guard enabled else { return }
    let now = clock.now
    guard ProgressLine.seconds(now - last) >= 2 else { return }
    last = now
    printError("\(label): page \(page), \(items) \(noun) so far")
  }
}
