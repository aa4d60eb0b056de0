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
    do {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    } catch {
      throw OutputError(path: directory, message: "cannot create the output folder (\(error.localizedDescription))")
    }
    let paths = files.map { (temporary: directory + "/." + $0.name + ".tmp-\(getpid())", final: directory + "/" + $0.name) }
    var pending = paths
    defer { for p in pending { unlink(p.temporary) } }
    // Each file is written and flushed on its own thread: the flushes wait on the disk, not the CPU.
    let failures = ConcurrentSlots<OutputError>(count: files.count)
    DispatchQueue.concurrentPerform(iterations: files.count) { k in
      do { try writeFully(files[k].contents, to: paths[k].temporary) } catch {
        failures.set(k, error as? OutputError ?? OutputError(path: paths[k].temporary, message: "\(error)"))
      }
    }
    if let failure = (0..<files.count).lazy.compactMap({ failures.peek($0) }).first { throw failure }
    for (k, p) in pending.enumerated() where rename(p.temporary, p.final) != 0 {
      let reason = String(cString: strerror(errno))
      pending.removeFirst(k)
      throw OutputError(path: p.final, message: "cannot move the finished file into place (\(reason))")
    }
    pending.removeAll()
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

/// The C library's `write`, named apart from `AtomicWriter.write`.
private func posixWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, bytes, count)
}
