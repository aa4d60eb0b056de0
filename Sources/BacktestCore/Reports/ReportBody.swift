import Foundation

/// How a report file's bytes come to be: text made already, text made when
/// first asked for, or rows made in chunks on several cores as they are written.
package enum ReportBody: Sendable {
  case text(String)
  case deferred(DeferredText)
  case rows(RowChunks)

  /// The whole text (made now, if it is not yet).
  package var text: String {
    switch self {
    case .text(let text): return text
    case .deferred(let deferred): return deferred.text
    case .rows(let rows): return rows.text
    }
  }
}

/// Text made once, when first asked for, on whichever thread asks first
/// (a report writer makes each file on its own thread).
package final class DeferredText: @unchecked Sendable {
  private let lock = NSLock()
  private var make: (@Sendable () -> String)?
  private var made: String?

  package init(_ make: @escaping @Sendable () -> String) { self.make = make }

  package var text: String {
    lock.lock()
    defer { lock.unlock() }
    if let made { return made }
    let text = make!()
    made = text
    make = nil
    return text
  }
}

/// A CSV file as its header and rows, the rows made in chunks on several
/// cores and handed over in order, so that a large file is written as it is
/// made and never held whole in memory.
package struct RowChunks: Sendable {
  package var header: String
  package var rowCount: Int
  /// Rows per chunk: about 400 KB of text, so that a few chunks per core stay in cache.
  package var rowsPerChunk: Int
  /// Appends the rows of a range, each ending in `\n`, to the buffer.
  package var writeRows: @Sendable (Range<Int>, inout TextBuffer) -> Void

  package init(header: String, rowCount: Int, bytesPerRow: Int, writeRows: @escaping @Sendable (Range<Int>, inout TextBuffer) -> Void) {
    self.header = header
    self.rowCount = rowCount
    rowsPerChunk = max(64, 400_000 / max(bytesPerRow, 1))
    self.writeRows = writeRows
  }

  var chunkCount: Int { (rowCount + rowsPerChunk - 1) / rowsPerChunk }

  /// The header and every row, made on all cores.
  package var text: String {
    var all = TextBuffer(capacity: header.utf8.count + rowCount * 64)
    produce { all.append(bytes: $0) }
    return all.string
  }

  /// Makes the rows on `workers` threads of their own and passes the bytes of
  /// the header, then of each chunk, in order, to `consume` on the calling thread.
  ///
  /// Each worker makes every `workers`-th chunk into one of two buffers of
  /// its own, so at most `2 × workers` chunks exist at once and their memory
  /// is reused. If `consume` throws, the remaining chunks are not made and the
  /// error is rethrown once every worker has stopped.
  package func produce(workers: Int = ProcessInfo.processInfo.activeProcessorCount,
                       _ consume: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
    var header = header
    try header.withUTF8 { try consume($0) }
    let chunks = chunkCount
    guard chunks > 0 else { return }
    let workers = max(1, min(workers, chunks))
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
