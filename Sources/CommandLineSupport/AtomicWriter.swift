import BacktestCore
import BacktestRun
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes report files so that a reader never sees a half-written one.
///
/// Every file is first written in full to a temporary file in the same folder
/// (so the rename cannot cross file systems) and flushed to disk; only when
/// all are written are they renamed over the old ones. If anything fails,
/// the temporary files are removed and the previous report stays as it was.
package enum AtomicWriter {
  package static func write(_ files: [ReportFile], into directory: String) throws {
    let batch = try AtomicBatch(into: directory)
    batch.add(files)
    try batch.commit()
  }

  /// Replaces the folder `folder` as a whole by one holding exactly `files`
  /// (see `AtomicBatch.init(replacing:)`).
  package static func replaceFolder(_ folder: String, with files: [ReportFile]) throws {
    let batch = try AtomicBatch(replacing: folder)
    batch.add(files)
    try batch.commit()
  }

  /// Writes `text` to a new file at `path` and flushes it to disk; on failure the file is removed.
  package static func writeFully(_ text: String, to path: String) throws {
    var text = text
    try writeFully(to: path) { fd in text.withUTF8 { writeAll(fd, $0) } }
  }

  /// Writes `page` as `writeFully(_: String, to:)` does, piece by piece,
  /// without joining it into one text first.
  package static func writeFully(_ page: PagedText, to path: String) throws {
    try writeFully(to: path) { fd in
      var failure: Int32?
      page.write { piece in if failure == nil { failure = writeAll(fd, piece) } }
      return failure
    }
  }

  /// Creates `path`, writes it by `write` (which returns the `errno` of a failed write, or `nil`) and flushes it.
  private static func writeFully(to path: String, _ write: (Int32) -> Int32?) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw OutputError(path: path, message: "cannot create the file (\(systemReason(errno)))")
    }
    defer { close(fd) }
    if let failure = write(fd) {
      unlink(path)
      throw OutputError(path: path, message: "cannot write (\(systemReason(failure)))")
    }
    if fsync(fd) != 0 {
      let failure = errno
      unlink(path)
      throw OutputError(path: path, message: "cannot flush to disk (\(systemReason(failure)))")
    }
  }
}

/// Writes all of `bytes` to `fd`, again after a short write; the `errno` of a
/// failed write, or `nil`. (A short write is not a failure by itself: the
/// `errno` it leaves is stale.)
package func writeAll(_ fd: Int32, _ bytes: UnsafeBufferPointer<UInt8>) -> Int32? {
  var offset = 0
  while offset < bytes.count {
    let n = posixWrite(fd, bytes.baseAddress! + offset, bytes.count - offset)
    if n < 0 {
      if errno == EINTR { continue }
      return errno
    }
    if n == 0 { return ENOSPC }
    offset += n
  }
  return nil
}

/// Report files written as they become ready and moved into place together.
///
/// Each file is written in full and flushed to disk on its own thread as soon
/// as it is added (the flushes wait on the disk, not the CPU, so they overlap
/// whatever the caller does next); `commit` waits for them all and only then
/// moves them into place. If anything fails, or nothing is committed, what
/// was written is removed and the previous report stays as it was.
///
/// Temporary files and folders carry the host and process id in their names
/// (`.trades.csv.tmp-HOST-PID`); those of processes on this host that are no
/// longer running (killed mid-write) are removed by the next batch in the folder.
package final class AtomicBatch: @unchecked Sendable {
  enum Mode {
    /// Files renamed one by one over those of `directory`; others there stay.
    case files(directory: String)
    /// Files written into `staging`, a sibling of `folder`, swapped in as a whole.
    case folder(folder: String, staging: String)
  }
  private let mode: Mode
  private var files: [(temporary: String, final: String, written: OnOtherThread<OutputError?>)] = []
  private var committed = false

  /// Files written next to their final names in `directory` (created if needed),
  /// each renamed over the old one at commit; other files in `directory` stay.
  package init(into directory: String) throws {
    try makeFolder(directory)
    ReportFolder.removeStaleTemporaries(in: directory, legacy: true)
    mode = .files(directory: directory)
  }

  /// A new version of the whole folder `folder`: written into a temporary
  /// sibling folder, then swapped in with one rename, so a reader sees the
  /// previous run or this one, never a mix, and a file of the previous run
  /// that this one does not write (a format dropped) is gone. Of concurrent
  /// batches into one folder, the last to commit wins, complete.
  ///
  /// An existing folder is replaced only if it looks like a report (see
  /// `ReportFolder.checkReplaceable`): pointing `--out` at a folder of other
  /// files is refused rather than emptied.
  package init(replacing folder: String) throws {
    let folder = ReportFolder.resolved(folder)
    let parent = ReportFolder.parent(of: folder)
    try makeFolder(parent)
    ReportFolder.removeStaleTemporaries(in: parent, legacy: false)
    try ReportFolder.checkReplaceable(folder)
    let staging = ReportFolder.temporaryName(for: folder)
    guard mkdir(staging, 0o755) == 0 else {
      throw OutputError(path: folder, message: "cannot create a folder beside it to write into (\(systemReason(errno)))")
    }
    mode = .folder(folder: folder, staging: staging)
  }

  /// Starts writing `files` to their temporary files.
  package func add(_ files: [ReportFile]) {
    for file in files {
      let temporary: String, final: String
      switch mode {
      case .files(let directory):
        temporary = ReportFolder.temporaryName(for: directory + "/" + file.name)
        final = directory + "/" + file.name
      case .folder(_, let staging):
        temporary = staging + "/" + file.name
        final = temporary
        // A name with a folder in it (a universe's symbols/SYMBOL/trades.csv): the folder is made inside the new
        // version first (a failure shows as the file's).
        if file.name.contains("/") { try? makeFolder((final as NSString).deletingLastPathComponent) }
      }
      let shown = ReportFolder.finalName(of: file.name, mode)
      self.files.append((temporary, final, OnOtherThread {
        do { try AtomicWriter.write(file, to: temporary); return nil } catch {
          // Named as the file it was to become, not as its temporary.
          return OutputError(path: shown, message: (error as? OutputError)?.message ?? "\(error)")
        }
      }))
    }
  }

  /// Waits for every file, then moves them all into place.
  package func commit() throws {
    committed = true
    // Every write finishes (or fails) before anything is removed.
    let failures = files.map { $0.written.value }
    switch mode {
    case .files:
      var pending = files[...]
      defer { for p in pending { unlink(p.temporary) } }
      if let failure = failures.lazy.compactMap({ $0 }).first { throw failure }
      // A rename would put a file in place of a device, a pipe or a folder.
      for p in files {
        var info = stat()
        if lstat(p.final, &info) == 0, ![S_IFREG, S_IFLNK].contains(info.st_mode & S_IFMT) {
          throw OutputError(path: p.final, message: "is not a regular file (a folder, a device or a pipe); expected a file to replace")
        }
      }
      while let p = pending.first {
        if rename(p.temporary, p.final) != 0 {
          let reason = systemReason(errno)
          pending.removeFirst()
          throw OutputError(path: p.final, message: "cannot move the finished file into place (\(reason))")
        }
        pending.removeFirst()
      }
    case .folder(let folder, let staging):
      defer { ReportFolder.removeTree(staging) }
      if let failure = failures.lazy.compactMap({ $0 }).first { throw failure }
      try ReportFolder.checkReplaceable(folder, writing: files.map { ($0.final as NSString).lastPathComponent })
      syncFolder(staging)
      try ReportFolder.swap(staging, into: folder)
      syncFolder(ReportFolder.parent(of: folder))
      // The previous report, if there was one, is now at `staging`.
      ReportFolder.discard(staging, replaced: folder)
    }
  }

  deinit {
    guard !committed else { return }
    for p in files { _ = p.written.value; unlink(p.temporary) }
    if case .folder(_, let staging) = mode { ReportFolder.removeTree(staging) }
  }
}
