import BacktestCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) on a file or folder, held until
/// `unlock()` or the process ends (a killed process holds nothing).
///
/// The lock is on what the path names when it is taken: if the path is
/// replaced meanwhile (a journal renamed over, a report folder swapped), the
/// lock is taken again on what it names now.
package final class ExclusiveLock {
  private var fd: Int32

  /// Waits for the lock on `path`; `waiting` is called once if another process holds it.
  /// With `create`, a missing file is created empty.
  package init(_ path: String, create: Bool = false, waiting: () -> Void = {}) throws {
    var told = false
    while true {
      // Non-blocking: opening a pipe must not wait for a writer.
      let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (create ? O_CREAT : 0), 0o644)
      guard fd >= 0 else { throw OutputError(path: path, message: "cannot open to lock (\(systemReason(errno)))") }
      var result = flock(fd, LOCK_EX | LOCK_NB)
      if result != 0 && errno == EWOULDBLOCK {
        if !told { waiting(); told = true }
        repeat { result = flock(fd, LOCK_EX) } while result != 0 && errno == EINTR
      }
      if result != 0 {
        let reason = systemReason(errno)
        close(fd)
        throw OutputError(path: path, message: "cannot lock (\(reason))")
      }
      var held = stat(), named = stat()
      if fstat(fd, &held) == 0, stat(path, &named) == 0, held.st_dev == named.st_dev, held.st_ino == named.st_ino {
        self.fd = fd
        return
      }
      close(fd)
    }
  }

  package func unlock() {
    guard fd >= 0 else { return }
    close(fd)
    fd = -1
  }

  deinit { unlock() }
}
