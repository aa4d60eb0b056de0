import Foundation

/// A value computed on another thread, started at once; `value` waits for it.
public final class Background<T>: @unchecked Sendable {
  private var result: T?
  private let done = DispatchSemaphore(value: 0)

  public init(_ work: @escaping @Sendable () -> T) {
    DispatchQueue.global().async {
      self.result = work()
      self.done.signal()
    }
  }

  /// The result, once the work has finished (waits until then).
  public var value: T {
    done.wait()
    done.signal()
    return result!
  }
}
