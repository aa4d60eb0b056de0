import Foundation

/// Progress on stderr: a live bar when stdout and stderr are both terminals
/// (`Terminal.liveProgress`), a plain line every few seconds otherwise (logs
/// of batch jobs stay readable, and a pipe gets no bar).
package final class ProgressLine: @unchecked Sendable {
  private let total: Int
  private let label: String
  private let terminal = Terminal.liveProgress
  private let clock = ContinuousClock()
  private let start: ContinuousClock.Instant
  private var last: ContinuousClock.Instant
  private let enabled: Bool

  package init(total: Int, label: String, enabled: Bool) {
    self.total = total
    self.label = label
    self.enabled = enabled
    start = clock.now
    last = start
  }

  package static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

  package var elapsed: Double { Self.seconds(clock.now - start) }

  /// Called with the number done so far (under the caller's lock).
  package func update(done: Int) {
    guard enabled else { return }
    let now = clock.now
    let interval = terminal ? 0.1 : 5.0
    guard Self.seconds(now - last) >= interval || done == total else { return }
    last = now
    let t = Self.seconds(now - start)
    let rate = t > 0 ? Double(done) / t : 0
    let eta = rate > 0 ? Double(total - done) / rate : 0
    let text = String(format: "%@ %d/%d  %.0f combinations/s  ETA %.1fs", label, done, total, rate, eta)
    if terminal {
      let width = 30, filled = total > 0 ? width * done / total : width
      let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
      FileHandle.standardError.write(("\r[\(bar)] " + text + (done == total ? "\n" : "")).data(using: .utf8)!)
    } else {
      FileHandle.standardError.write((text + "\n").data(using: .utf8)!)
    }
  }
}
