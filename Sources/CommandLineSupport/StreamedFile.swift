import BacktestCore
import BacktestRun
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension AtomicWriter {
  /// Writes one report file in full to `path` and flushes it to disk; a file
  /// made in chunks is written as its chunks are made.
  package static func write(_ file: ReportFile, to path: String) throws {
    switch file.body {
    case .text(let text): try write(PagedText(text), to: path)
    case .deferred(let deferred): try write(PagedText(deferred.text), to: path)
    case .rows(let rows): try StreamedFile.write(rows, to: path)
    case .page(let make): try write(make(), to: path)
    }
  }

  /// A text of a staging buffer or more (an HTML report with its interactive
  /// chart) goes the way of a file made in chunks; a short one by plain writes, piece by piece.
  private static func write(_ page: PagedText, to path: String) throws {
    guard page.count >= StreamedFile.stagingBytes else { return try writeFully(page, to: path) }
    try StreamedFile.write(to: path) { file in try page.write { try file.append($0) } }
  }
}

/// Writes a file made in chunks (or a long text): each chunk is copied into one of two
/// page-aligned staging buffers, and a thread of its own writes each full
/// buffer while the next fills. Rows made by one worker are made straight
/// into the staging buffers instead: only the rows that run past a full
/// buffer are copied, to the start of the next.
///
/// On Linux the file is opened with `O_DIRECT` where the file system allows
/// it: whole pages go from the staging buffer to the device, and the kernel
/// neither copies them nor takes fresh page-cache memory for them (on this
/// project's VM each fresh page costs ~2 µs, which held the old writes of a
/// million-bar run's 200 MB to ~400 MB/s). The last partial page is written
/// after `O_DIRECT` is turned off. Elsewhere, or where `O_DIRECT` is refused,
/// the same buffers are written the ordinary way.
final class StreamedFile: @unchecked Sendable {
  /// The size of a staging buffer. Each file's two are fresh memory, a page
  /// fault per 4 KB page: at 512 KB rather than 2 MB, a 100,000-bar run took
  /// 5,400 page faults instead of 6,700 (its CPU 121 ms instead of 128), and
  /// the four times as many writes cost a million-bar run nothing measurable.
  static let stagingBytes = 512 << 10

  /// Room past a staging buffer for the rows that fill it: a step of rows
  /// (`rowStepBytes` as estimated) may run past its end, into this; what does
  /// is moved to the start of the next buffer. (A row writer reserves room for
  /// the longest rows it could make, up to about twice the estimate; beyond
  /// this room the buffer grows.)
  static let rowSlackBytes = 256 << 10
  /// About how many bytes of rows `appendRows` makes at a time.
  static let rowStepBytes = 64 << 10

  private let fd: Int32
  private let path: String
  private var direct: Bool
  private var filling = TextBuffer(capacity: StreamedFile.stagingBytes + StreamedFile.rowSlackBytes)
  private var spare: TextBuffer? = TextBuffer(capacity: StreamedFile.stagingBytes + StreamedFile.rowSlackBytes)
  // The writer thread's side: the buffer handed to it, and the one it hands back.
  private var handedOver: TextBuffer?
  private var handedBack: TextBuffer?
  private var failure: OutputError?
  private let full = DispatchSemaphore(value: 0)
  private let written = DispatchSemaphore(value: 0)
  private var writerRunning = false

  static func write(_ rows: RowChunks, to path: String) throws {
    try write(to: path) { file in
      if rows.workers == 1 { try file.appendRows(rows) } else { try rows.produce { try file.append($0) } }
    }
  }

  static func write(to path: String, _ fill: (StreamedFile) throws -> Void) throws {
    let file = try StreamedFile(path: path)
    do {
      try fill(file)
      try file.finish()
    } catch {
      file.abandon()
      throw error
    }
  }

  private init(path: String) throws {
    self.path = path
    #if os(Linux)
    var fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_DIRECT, 0o644)
    direct = fd >= 0
    if fd < 0 && errno == EINVAL { fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
    #else
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    direct = false
    #endif
    guard fd >= 0 else {
      throw OutputError(path: path, message: "cannot create the file (\(systemReason(errno)))")
    }
    self.fd = fd
  }

  /// Copies `bytes` into the staging buffer, handing it to the writer whenever it fills.
  func append(_ bytes: UnsafeBufferPointer<UInt8>) throws {
    var rest = bytes
    while !rest.isEmpty {
      let n = min(rest.count, Self.stagingBytes - filling.count)
      filling.append(bytes: UnsafeBufferPointer(rebasing: rest.prefix(n)))
      rest = UnsafeBufferPointer(rebasing: rest.dropFirst(n))
      if filling.count == Self.stagingBytes { try handOver() }
    }
  }

  /// Makes the header and the rows of `rows` on this thread, a step at a time,
  /// straight into the staging buffer, handing it to the writer whenever it fills.
  func appendRows(_ rows: RowChunks) throws {
    var header = rows.header
    try header.withUTF8 { try append($0) }
    let step = max(1, Self.rowStepBytes / rows.bytesPerRow)
    var next = 0
    while next < rows.rowCount {
      let end = min(rows.rowCount, next + step)
      rows.writeRows(next..<end, &filling)
      next = end
      while filling.count >= Self.stagingBytes { try handOver() }
    }
  }

  /// Gives the first `stagingBytes` of the staging buffer to the writer thread
  /// and takes the other buffer, starting it with the bytes past them.
  ///
  /// Each buffer is held by one property at a time (no local copies), so the
  /// one being filled is never shared and never copied.
  private func handOver() throws {
    if spare == nil { try takeBack() }
    spare!.removeAll()
    if filling.count > Self.stagingBytes {
      filling.withBytes { spare!.append(bytes: UnsafeBufferPointer(rebasing: $0[Self.stagingBytes...])) }
      filling.removeLast(filling.count - Self.stagingBytes)
    }
    handedOver = filling
    filling = spare!
    spare = nil
    if !writerRunning {
      writerRunning = true
      let thread = Thread { [self] in
        while true {
          full.wait()
          guard handedOver != nil else { return }
          if failure == nil {
            do { try handedOver!.withBytes { try writeAll($0) } } catch { failure = error as? OutputError }
          }
          handedBack = handedOver
          handedOver = nil
          written.signal()
        }
      }
      thread.start()
    }
    full.signal()
  }

  /// Waits for the writer thread to finish the buffer it holds, and takes it back.
  private func takeBack() throws {
    written.wait()
    spare = handedBack
    handedBack = nil
    if let failure { throw failure }
  }

  /// Writes what is left, stops the writer thread and flushes the file to disk.
  private func finish() throws {
    if spare == nil { try takeBack() }
    stopWriter()
    #if os(Linux)
    if direct {
      // Whole pages directly; the last partial page through the page cache.
      let whole = filling.count / TextBuffer.alignment * TextBuffer.alignment
      try filling.withBytes { try writeAll(UnsafeBufferPointer(rebasing: $0.prefix(whole))) }
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_DIRECT)
      direct = false
      filling.removeFirst(whole)
    }
    #endif
    try filling.withBytes { try writeAll($0) }
    if fsync(fd) != 0 { throw failed("cannot flush to disk") }
    close(fd)
  }

  /// After a failure: stops the writer, closes and removes the file.
  private func abandon() {
    if spare == nil { try? takeBack() }
    stopWriter()
    close(fd)
    unlink(path)
  }

  private func stopWriter() {
    guard writerRunning else { return }
    handedOver = nil
    full.signal()
    writerRunning = false
  }

  private func writeAll(_ bytes: UnsafeBufferPointer<UInt8>) throws {
    var offset = 0
    while offset < bytes.count {
      let n = posixWrite(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        #if os(Linux)
        if errno == EINVAL && direct {
          // The file system refused this direct write: go on the ordinary way.
          _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_DIRECT)
          direct = false
          continue
        }
        #endif
        throw failed("cannot write")
      }
      offset += n
    }
  }

  private func failed(_ what: String) -> OutputError {
    OutputError(path: path, message: "\(what) (\(systemReason(errno)))")
  }
}

#if os(Linux)
/// `O_DIRECT`, which Glibc declares only under `_GNU_SOURCE` (its value differs by architecture).
#if arch(arm64)
private let O_DIRECT: Int32 = 0o200000
#else
private let O_DIRECT: Int32 = 0o40000
#endif
#endif

/// The C library's `write`, named apart from `AtomicWriter.write` (the files of this module share it).
func posixWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
  write(fd, bytes, count)
}
