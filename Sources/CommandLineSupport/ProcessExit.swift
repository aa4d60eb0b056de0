#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ends the process with `status` (as `exit` does) without its caller waiting
/// while the kernel frees the process's memory.
///
/// After a process's last thread exits, the kernel unmaps and frees all its
/// memory before the process counts as ended: 19–35 ms for a million-bar run's
/// ~230 MB (from `exit_group` to the end, `strace`), 6 ms at 100,000 bars,
/// which whoever waits for the command (a shell, a script) waits too.
///
/// On Linux the memory is handed to an heir first (the linker mold likewise
/// leaves its clean-up to a process of its own): a tiny process sharing this
/// one's memory (`clone` with `CLONE_VM`). This
/// process then ends at once, as its memory is still in use. The heir keeps
/// no file of it open (a caller reading the command's output sees its end
/// with the command's), waits until this process has ended, then exits,
/// and the memory is freed then, with nobody waiting. Elsewhere, or when no
/// heir can be started, this is `exit(status)`.
package func exitPromptly(_ status: Int32) -> Never {
  #if os(Linux)
  startHeir()
  #endif
  exit(status)
}

#if os(Linux)
/// What the heir is given: it may call nothing that allocates or takes a lock.
private struct Heir {
  /// A pipe whose write end only this process holds: it closes as the process ends.
  var readEnd: Int32
  /// The C library's `close_range`, if it has one.
  var closeRange: (@convention(c) (UInt32, UInt32, Int32) -> Int32)?
}

/// The heir: closes every file but `readEnd`, waits for the end of the pipe, exits.
private let heirMain: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { argument in
  guard let heir = argument?.assumingMemoryBound(to: Heir.self).pointee else { _exit(0) }
  if let closeRange = heir.closeRange {
    if heir.readEnd > 0 { _ = closeRange(0, UInt32(heir.readEnd - 1), 0) }
    _ = closeRange(UInt32(heir.readEnd + 1), UInt32.max, 0)
  } else {
    for fd: Int32 in 0..<1024 where fd != heir.readEnd { close(fd) }
  }
  var byte: UInt8 = 0
  _ = read(heir.readEnd, &byte, 1)
  _exit(0)
}

/// Starts the heir of this process's memory (see `exitPromptly`); nothing when it cannot.
private func startHeir() {
  typealias Clone = @convention(c) (@convention(c) (UnsafeMutableRawPointer?) -> Int32, UnsafeMutableRawPointer?, Int32,
                                    UnsafeMutableRawPointer?) -> Int32
  typealias CloseRange = @convention(c) (UInt32, UInt32, Int32) -> Int32
  // Neither is declared by the Swift Glibc module (they need _GNU_SOURCE).
  guard let clone = cLibraryFunction("clone", as: Clone.self) else { return }
  var ends: [Int32] = [-1, -1]
  guard pipe(&ends) == 0 else { return }
  let heir = UnsafeMutablePointer<Heir>.allocate(capacity: 1)
  heir.initialize(to: Heir(readEnd: ends[0], closeRange: cLibraryFunction("close_range", as: CloseRange.self)))
  // The heir's stack, and `heir`, are never freed: they go with the memory.
  let stackBytes = 64 << 10
  let stack = UnsafeMutableRawPointer.allocate(byteCount: stackBytes, alignment: 16)
  let cloneVM: Int32 = 0x100
  // With SIGCHLD, whoever adopts the heir when this process ends collects it.
  guard clone(heirMain, stack + stackBytes, cloneVM | SIGCHLD, heir) > 0 else {
    close(ends[0])
    close(ends[1])
    return
  }
  close(ends[0])
}
#endif
