@testable import BacktestCore
import Foundation
import Testing

@Suite("Letting go of a value on another thread")
struct ReleaseOnOtherThreadTests {
  /// Says whether it was freed on the marked caller's thread.
  final class Tracked: @unchecked Sendable {
    let freedOnCaller: ConcurrentSlots<Bool>, done: DispatchSemaphore
    init(_ freedOnCaller: ConcurrentSlots<Bool>, _ done: DispatchSemaphore) { (self.freedOnCaller, self.done) = (freedOnCaller, done) }
    deinit {
      freedOnCaller.set(0, Thread.current.threadDictionary["ReleaseOnOtherThreadTests.caller"] != nil)
      done.signal()
    }
  }

  @Test("releaseOnOtherThread frees the value on the other thread, not the caller's")
  func releasesElsewhere() {
    let freedOnCaller = ConcurrentSlots<Bool>(count: 1), done = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    // On a thread of the test's own, marked, so that the caller is known whatever thread runs the test.
    Thread {
      Thread.current.threadDictionary["ReleaseOnOtherThreadTests.caller"] = true
      releaseOnOtherThread(Tracked(freedOnCaller, done))
      finished.signal()
    }.start()
    #expect(finished.wait(timeout: .now() + 10) == .success && done.wait(timeout: .now() + 10) == .success)
    #expect(freedOnCaller.get(0) == false)
  }
}
