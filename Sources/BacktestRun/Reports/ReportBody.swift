import BacktestCore
import Foundation

/// How a report file's bytes come to be: text made already, text made when
/// first asked for, rows made a range at a time as they are written (on
/// threads of their own, or by the writer), or a page made when its writer
/// asks, its long data encoded as it is written.
package enum ReportBody: Sendable {
  case text(String)
  case deferred(DeferredText)
  case rows(RowChunks)
  case page(@Sendable () -> PagedText)

  /// The whole text (made now, if it is not yet).
  package var text: String {
    switch self {
    case .text(let text): return text
    case .deferred(let deferred): return deferred.text
    case .rows(let rows): return rows.text
    case .page(let make): return make().text
    }
  }
}

/// A text with runs of bytes to be written as text for a script (an HTML
/// report's packed chart data, `ChartData.text`): written out, they are
/// encoded a piece at a time straight into the file's buffers, never held as
/// text of their own.
package struct PagedText: Sendable {
  private enum Part: Sendable {
    case text(String)
    case packed([UInt8])
  }
  private var parts: [Part] = []
  private var tail: String

  package init(_ text: String = "") { tail = text }

  package static func += (page: inout PagedText, text: String) { page.tail += text }

  /// Appends `bytes` as text for a JavaScript string (`ChartData.text`).
  package mutating func append(packed bytes: [UInt8]) {
    parts.append(.text(tail))
    parts.append(.packed(bytes))
    tail = ""
  }

  /// The length of the text in bytes.
  package var count: Int {
    parts.reduce(tail.utf8.count) { n, part in
      switch part {
      case .text(let text): n + text.utf8.count
      case .packed(let bytes): n + ChartData.textLength(bytes)
      }
    }
  }

  /// Passes the text's bytes, in order and in pieces, to `consume`.
  package func write(_ consume: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
    func text(_ text: String) throws {
      var text = text
      try text.withUTF8 { try consume($0) }
    }
    for part in parts {
      switch part {
      case .text(let t): try text(t)
      case .packed(let bytes): try ChartData.text(bytes, in: 7 << 13, consume)
      }
    }
    try text(tail)
  }

  /// The whole text.
  package var text: String {
    if parts.isEmpty { return tail }
    return String(unsafeUninitializedCapacity: count) { out in
      var n = 0
      write { piece in
        if let from = piece.baseAddress { (out.baseAddress! + n).update(from: from, count: piece.count) }
        n += piece.count
      }
      return n
    }
  }
}

/// A value made once, when first asked for, on whichever thread asks first
/// (a report writer makes each file on its own thread; files that show the
/// same figures share one).
package final class Deferred<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var make: (@Sendable () -> Value)?
  private var made: Value?

  package init(_ make: @escaping @Sendable () -> Value) { self.make = make }

  package var value: Value {
    lock.lock()
    defer { lock.unlock() }
    if let made { return made }
    let value = make!()
    made = value
    make = nil
    return value
  }
}

/// Text made once, when first asked for (see `Deferred`).
package typealias DeferredText = Deferred<String>

extension Deferred where Value == String {
  package var text: String { value }
}

/// A CSV file as its header and rows, the rows made a range at a time (in
/// chunks on `workers` threads, handed over in order, or with one worker by
/// the file's writer itself), so that a large file is written as it is made
/// and never held whole in memory.
package struct RowChunks: Sendable {
  package var header: String
  package var rowCount: Int
  /// About how many bytes a row takes.
  package var bytesPerRow: Int
  /// The threads that make the rows of a file: with one, a writer makes them
  /// itself, straight into the buffers it writes from (`StreamedFile`).
  package var workers: Int
  /// Appends the rows of a range, each ending in `\n`, to the buffer.
  package var writeRows: @Sendable (Range<Int>, inout TextBuffer) -> Void

  package init(header: String, rowCount: Int, bytesPerRow: Int, workers: Int = ProcessInfo.processInfo.activeProcessorCount,
               writeRows: @escaping @Sendable (Range<Int>, inout TextBuffer) -> Void) {
    self.header = header
    self.rowCount = rowCount
    self.bytesPerRow = max(bytesPerRow, 1)
    self.workers = max(1, workers)
    self.writeRows = writeRows
  }

  /// Rows per chunk: about 400 KB of text, so that a few chunks per core stay in cache.
  var rowsPerChunk: Int { max(64, 400_000 / bytesPerRow) }

  var chunkCount: Int { (rowCount + rowsPerChunk - 1) / rowsPerChunk }

  /// The header and every row, made on all cores.
  package var text: String {
    var all = TextBuffer(capacity: header.utf8.count + rowCount * 64)
    produce(workers: ProcessInfo.processInfo.activeProcessorCount) { all.append(bytes: $0) }
    return all.string
  }

  /// Makes the rows on `workers` threads of their own (`self.workers` when
  /// `nil`) and passes the bytes of the header, then of each chunk, in order,
  /// to `consume` on the calling thread.
  ///
  /// Each worker makes every `workers`-th chunk into one of two buffers of
  /// its own, so at most `2 × workers` chunks exist at once and their memory
  /// is reused. If `consume` throws, the remaining chunks are not made and the
  /// error is rethrown once every worker has stopped.
  package func produce(workers: Int? = nil, _ consume: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
    var header = header
    try header.withUTF8 { try consume($0) }
    let chunks = chunkCount
    guard chunks > 0 else { return }
    let workers = max(1, min(workers ?? self.workers, chunks))
    let slots = (0..<(2 * workers)).map { _ in ChunkSlot() }
    let finished = DispatchGroup()
    let cancelled = CancelFlag()
    for w in 0..<workers {
      finished.enter()
      // Threads of their own, not the shared pool: the consumer blocks until
      // they deliver, and a pool busy with blocked consumers would never run them.
      let thread = Thread { [self] in
        for k in stride(from: w, to: chunks, by: workers) {
          let slot = slots[k % slots.count]
          slot.free.wait()
          if !cancelled.isSet {
            slot.buffer.removeAll()
            writeRows(k * rowsPerChunk..<min(rowCount, (k + 1) * rowsPerChunk), &slot.buffer)
          }
          slot.ready.signal()
        }
        finished.leave()
      }
      thread.stackSize = 1 << 20
      thread.start()
    }
    defer { finished.wait() }
    for k in 0..<chunks {
      let slot = slots[k % slots.count]
      slot.ready.wait()
      defer { slot.free.signal() }
      // The bytes are lent, not the buffer: a copy held past the call would make the worker's next write copy it.
      do { try slot.withBytes(consume) } catch {
        cancelled.set()
        // Let every worker run out its remaining chunks without making them.
        for later in (k + 1)..<chunks { slots[later % slots.count].free.signal() }
        throw error
      }
    }
  }
}

/// One chunk's buffer, passed between a worker (after `free`) and the consumer (after `ready`).
private final class ChunkSlot: @unchecked Sendable {
  var buffer = TextBuffer(capacity: 512 << 10)
  let free = DispatchSemaphore(value: 1)
  let ready = DispatchSemaphore(value: 0)

  func withBytes(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows { try buffer.withBytes(body) }
}

private final class CancelFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false
  var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
  func set() { lock.lock(); value = true; lock.unlock() }
}
