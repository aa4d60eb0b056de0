import BacktestCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An error writing output: exit 1.
public struct OutputError: Error, CustomStringConvertible {
  public var path: String
  public var message: String
  public init(path: String, message: String) { self.path = path; self.message = message }
  public var description: String { "\(path): error: \(message)" }
}

/// Writes report files so that a reader never sees a half-written one.
///
/// Every file is first written in full to a temporary file in the same folder
/// (so the rename cannot cross file systems) and flushed to disk; only when
/// all are written are they renamed over the old ones. If anything fails,
/// the temporary files are removed and the previous report stays as it was.
public enum AtomicWriter {
  public static func write(_ files: [ReportFile], into directory: String) throws {
    let batch = try AtomicBatch(into: directory)
    batch.add(files)
    try batch.commit()
  }

  public static func writeFully(_ text: String, to path: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else {
      throw OutputError(path: path, message: "cannot create the file (\(String(cString: strerror(errno))))")
    }
    defer { close(fd) }
    var text = text
    try text.withUTF8 { buffer in
      var offset = 0
      while offset < buffer.count {
        let n = posixWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if n < 0 {
          if errno == EINTR { continue }
          unlink(path)
          throw OutputError(path: path, message: "cannot write (\(String(cString: strerror(errno))))")
        }
        offset += n
      }
    }
    if fsync(fd) != 0 {
      throw OutputError(path: path, message: "cannot flush to disk (\(String(cString: strerror(errno))))")
    }
  }
}

/// Report files written as they become ready and moved into place together,
/// with `AtomicWriter`'s guarantees: each is written in full to a temporary
/// file in the folder and flushed to disk on its own thread as soon as it is
/// added (the flushes wait on the disk, not the CPU, so they overlap whatever
/// the caller does next); `commit` waits for them all and only then renames
/// them, in the order added. If anything fails, or nothing is committed, the
/// temporary files are removed and the previous report stays as it was.
public final class AtomicBatch: @unchecked Sendable {
  private let directory: String
  private var files: [(temporary: String, final: String, written: Background<OutputError?>)] = []
  private var committed = false

  public init(into directory: String) throws {
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw OutputError(path: directory, message: "cannot create the output folder (\(error.localizedDescription))")
    }
    self.directory = directory
  }

  /// Starts writing `files` to their temporary files.
  public func add(_ files: [ReportFile]) {
    for file in files {
      let temporary = directory + "/." + file.name + ".tmp-\(getpid())"
      self.files.append((temporary, directory + "/" + file.name, Background {
        do { try AtomicWriter.write(file, to: temporary); return nil } catch {
          return error as? OutputError ?? OutputError(path: temporary, message: "\(error)")
        }
      }))
    }
  }

  /// Waits for every file, then moves them all into place.
  public func commit() throws {
    committed = true
    var pending = files[...]
    defer { for p in pending { unlink(p.temporary) } }
    // Every write finishes (or fails) before any temporary file is removed.
    let failures = files.map { $0.written.value }
    if let failure = failures.lazy.compactMap({ $0 }).first { throw failure }
    while let p = pending.first {
      if rename(p.temporary, p.final) != 0 {
        let reason = String(cString: strerror(errno))
        pending.removeFirst()
        throw OutputError(path: p.final, message: "cannot move the finished file into place (\(reason))")
      }
      pending.removeFirst()
    }
  }

  deinit {
    guard !committed else { return }
    for p in files { _ = p.written.value; unlink(p.temporary) }
  }
}

/// The C library's `write`, named apart from `AtomicWriter.write`.
private func posixWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, bytes, count)
}
