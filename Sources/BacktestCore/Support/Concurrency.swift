import Foundation

/// Write-once slots filled from concurrent tasks, each slot by one task.
package final class ConcurrentSlots<T>: @unchecked Sendable {
  private var slots: [T?]
  private let lock = NSLock()
  package init(count: Int) { slots = Array(repeating: nil, count: count) }
  package func set(_ k: Int, _ value: T) { lock.lock(); slots[k] = value; lock.unlock() }
  /// The value of slot `k`, which must have been set.
  package func get(_ k: Int) -> T { lock.lock(); defer { lock.unlock() }; return slots[k]! }
  /// The value of slot `k`, or `nil` when it is outside the slots or not set.
  package func peek(_ k: Int) -> T? { lock.lock(); defer { lock.unlock() }; return k < slots.count ? slots[k] : nil }
  /// Removes and returns the value of slot `k` (so that the caller holds the only reference), or `nil`.
  package func take(_ k: Int) -> T? {
    lock.lock(); defer { lock.unlock() }
    guard k < slots.count else { return nil }
    defer { slots[k] = nil }
    return slots[k]
  }
}

/// Hands out job indices to worker threads.
package final class JobCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var next = 0
  package init() {}
  package func next(below limit: Int) -> Int? {
    lock.lock()
    defer { lock.unlock() }
    guard next < limit else { return nil }
    next += 1
    return next - 1
  }
}

/// Runs `body(k)` for each `k` in `0..<count` on `workers` threads (the calling
/// thread and threads of their own, each taking the next `k`), and returns when all have run.
///
/// Threads of their own, not the shared pool, as for `OnOtherThread`; with one
/// worker (or one job) everything runs on the calling thread.
package func runJobs(_ count: Int, workers: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let counter = JobCounter()
  let finished = DispatchGroup()
  for _ in 0..<max(0, min(workers, count) - 1) {
    finished.enter()
    let thread = Thread {
      while let k = counter.next(below: count) { body(k) }
      finished.leave()
    }
    thread.stackSize = 1 << 22
    thread.start()
  }
  while let k = counter.next(below: count) { body(k) }
  finished.wait()
}

/// Lets go of `value` on a thread of its own, so that freeing what it holds
/// last (a mapped file's pages) does not hold up the caller.
package func releaseOnOtherThread<T: Sendable>(_ value: consuming T) {
  let held = Held(consume value)
  let thread = Thread { held.value = nil }
  thread.start()
}

/// What `releaseOnOtherThread` lets go of, set to `nil` on the other thread:
/// the value is freed there, whichever thread lets go of the box last.
private final class Held<T>: @unchecked Sendable {
  var value: T?
  init(_ value: consuming T) { self.value = value }
}

/// A value computed on a thread of its own, started at once; `value` waits for it.
///
/// A thread of its own, not the shared pool: what waits for it may itself
/// hold pool threads (a parallel read, a report writer).
package final class OnOtherThread<T>: @unchecked Sendable {
  private var result: T?
  private let done = DispatchSemaphore(value: 0)

  package init(_ work: @escaping @Sendable () -> T) {
    let thread = Thread { [self] in
      result = work()
      done.signal()
    }
    thread.stackSize = 1 << 22
    thread.start()
  }

  /// The result, once the work has finished.
  package var value: T {
    done.wait()
    done.signal()
    return result!
  }
}
