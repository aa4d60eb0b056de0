@testable import BacktestCore
import Foundation
import Testing

@Suite("Threads of their own, kept for later work")
struct ThreadCacheTests {
  /// Waits up to ten seconds; false when `semaphore` was not signalled by then.
  static func waited(_ semaphore: DispatchSemaphore) -> Bool { semaphore.wait(timeout: .now() + 10) == .success }

  @Test("work after work runs on the thread kept from it")
  func reusesIdleThreads() {
    let cache = ThreadCache(), marker = "ThreadCacheTests.marker"
    let done = DispatchSemaphore(value: 0)
    cache.start {
      Thread.current.threadDictionary[marker] = true
      done.signal()
    }
    #expect(Self.waited(done))
    // The thread is kept just after its work ends.
    var tries = 0
    while cache.idleCount == 0 && tries < 10_000 { usleep(100); tries += 1 }
    #expect(cache.idleCount == 1)
    let seen = ConcurrentSlots<Bool>(count: 1)
    cache.start {
      seen.set(0, Thread.current.threadDictionary[marker] != nil)
      done.signal()
    }
    #expect(Self.waited(done))
    #expect(seen.get(0))
  }

  @Test("work that waits for other work gets threads of its own, more than are kept idle")
  func noWorkWaitsBehindOther() {
    let count = 40
    let arrived = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
    let cache = ThreadCache()
    for _ in 0..<count {
      cache.start {
        arrived.signal()
        go.wait()
        finished.signal()
      }
    }
    // Every piece runs before any may finish: queued work would never arrive.
    #expect((0..<count).allSatisfy { _ in Self.waited(arrived) })
    for _ in 0..<count { go.signal() }
    #expect((0..<count).allSatisfy { _ in Self.waited(finished) })
    var tries = 0
    while cache.idleCount < ThreadCache.keptIdle && tries < 10_000 { usleep(100); tries += 1 }
    #expect(cache.idleCount == ThreadCache.keptIdle, "the rest end")
  }

  /// Says on which thread it was freed.
  final class Tracked: @unchecked Sendable {
    let freed: ConcurrentSlots<Bool>, done: DispatchSemaphore
    init(_ freed: ConcurrentSlots<Bool>, _ done: DispatchSemaphore) { (self.freed, self.done) = (freed, done) }
    deinit {
      freed.set(0, Thread.current.threadDictionary["ThreadCacheTests.caller"] != nil)
      done.signal()
    }
  }

  @Test("releaseOnOtherThread frees the value on the other thread")
  func releasesElsewhere() {
    let freedOnCaller = ConcurrentSlots<Bool>(count: 1), done = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    // On a thread of the test's own, marked, so that the caller is known whatever thread runs the test.
    Thread {
      Thread.current.threadDictionary["ThreadCacheTests.caller"] = true
      releaseOnOtherThread(Tracked(freedOnCaller, done))
      finished.signal()
    }.start()
    #expect(Self.waited(finished) && Self.waited(done))
    #expect(freedOnCaller.get(0) == false)
  }
}
