import BacktestCore
import BacktestRun
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Report folders: what may be replaced, temporary names, the swap.
package enum ReportFolder {
  /// Files some report writes (besides charts, `*.svg`). A folder holding
  /// anything else is not replaced: it is not only a report.
  package static let reportFileNames: Set<String> = [
    "trades.csv", "equity.csv", "indicators.csv", "summary.json", "report.md", "report.html", "orders.csv", "assets.csv", "rotation.csv", "targets.csv", "universe.csv",
    "cashflow.csv", "results.csv", "sweep.json", "sweep.md", "sweep.html", "validation.csv", "walkforward.csv",
    "montecarlo.json",
  ]
  /// Files only a report writes: an existing folder holds one of them, or it is not a report folder.
  static let signatureNames: Set<String> = ["trades.csv", "summary.json", "report.md", "report.html", "results.csv", "sweep.json"]

  static func finalName(of name: String, _ mode: AtomicBatch.Mode) -> String {
    switch mode {
    case .files(let directory): return directory + "/" + name
    case .folder(let folder, _): return folder + "/" + name
    }
  }

  /// Refuses to replace `folder` unless it is absent, empty, or a report: only
  /// files (no folders) named as reports name them (or as `writing` does,
  /// or charts), hidden files, and at least one file only a report writes.
  package static func checkReplaceable(_ folder: String, writing: [String] = []) throws {
    var info = stat()
    guard lstat(folder, &info) == 0 else { return }
    guard Int(info.st_mode) & Int(S_IFMT) == Int(S_IFDIR) else {
      throw OutputError(path: folder, message: "is a file; expected a folder for the reports")
    }
    let entries = try folderEntries(folder)
    let allowed = reportFileNames.union(writing)
    var signed = false
    for name in entries where !name.hasPrefix(".") {
      var entry = stat()
      let isFile = lstat(folder + "/" + name, &entry) == 0 && Int(entry.st_mode) & Int(S_IFMT) == Int(S_IFREG)
      if !isFile, name == "symbols", Int(entry.st_mode) & Int(S_IFMT) == Int(S_IFDIR), try isSymbolsFolder(folder + "/" + name) { continue }
      guard isFile, allowed.contains(name) || name.hasSuffix(".svg") else {
        throw OutputError(path: folder, message: "holds '\(escapingControlCharacters(name))', which is not part of a report; expected a report folder to replace as a whole (choose another folder, or move that away)")
      }
      signed = signed || signatureNames.contains(name)
    }
    if !signed && entries.contains(where: { !$0.hasPrefix(".") }) {
      throw OutputError(path: folder, message: "holds no report (no trades.csv, summary.json, report.md, report.html or results.csv); expected a report folder to replace as a whole (choose another folder)")
    }
  }

  /// Whether `folder` is a universe's `symbols/`: only folders, each holding only report files (and charts).
  static func isSymbolsFolder(_ folder: String) throws -> Bool {
    for symbol in try folderEntries(folder) where !symbol.hasPrefix(".") {
      var info = stat()
      guard lstat(folder + "/" + symbol, &info) == 0, Int(info.st_mode) & Int(S_IFMT) == Int(S_IFDIR) else { return false }
      for name in try folderEntries(folder + "/" + symbol) where !name.hasPrefix(".") {
        var entry = stat()
        guard lstat(folder + "/" + symbol + "/" + name, &entry) == 0, Int(entry.st_mode) & Int(S_IFMT) == Int(S_IFREG),
          reportFileNames.contains(name) || name.hasSuffix(".svg") else { return false }
      }
    }
    return true
  }

  /// Puts `staging` where `folder` is: one rename when `folder` is absent or
  /// empty, else an atomic exchange of the two (the old folder then sits at
  /// `staging`, for the caller to remove).
  static func swap(_ staging: String, into folder: String) throws {
    if rename(staging, folder) == 0 { return }
    let error = errno
    guard error == ENOTEMPTY || error == EEXIST else {
      throw OutputError(path: folder, message: error == ENOTDIR ? "is a file; expected a folder for the reports"
                                                                : "cannot move the finished report into place (\(systemReason(error)))")
    }
    if exchange(staging, folder) { return }
    // No atomic exchange here (an old kernel or a file system without it): move the old folder aside first.
    let aside = temporaryName(for: folder)
    guard rename(folder, aside) == 0 else {
      throw OutputError(path: folder, message: "cannot move the old report aside (\(systemReason(errno)))")
    }
    if rename(staging, folder) != 0 {
      let reason = systemReason(errno)
      _ = rename(aside, folder)
      throw OutputError(path: folder, message: "cannot move the finished report into place (\(reason))")
    }
    _ = rename(aside, staging)
  }

  /// Exchanges two paths atomically (`renameat2(RENAME_EXCHANGE)` on Linux, `renamex_np(RENAME_SWAP)` on Darwin).
  static func exchange(_ a: String, _ b: String) -> Bool {
    #if os(Linux)
    typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    // glibc 2.28 and later have it; the Swift overlay does not declare it.
    guard let renameat2 = cLibraryFunction("renameat2", as: RenameAt2.self) else { return false }
    let renameExchange: UInt32 = 2
    return renameat2(AT_FDCWD, a, AT_FDCWD, b, renameExchange) == 0
    #elseif canImport(Darwin)
    return renamex_np(a, b, UInt32(RENAME_SWAP)) == 0
    #else
    return false
    #endif
  }

  /// `path` without trailing slashes (`out/` and `out` are one folder), and
  /// the folder it links to when it is a symbolic link (the link stays).
  static func resolved(_ path: String) -> String {
    var p = Substring(path)
    while p.count > 1 && p.hasSuffix("/") { p = p.dropLast() }
    var info = stat()
    if lstat(String(p), &info) == 0, Int(info.st_mode) & Int(S_IFMT) == Int(S_IFLNK), let real = realpath(String(p), nil) {
      defer { free(real) }
      return String(cString: real)
    }
    return String(p)
  }

  static func parent(of path: String) -> String {
    let p = (path as NSString).deletingLastPathComponent
    return p.isEmpty ? "." : p
  }

  static let host: String = {
    var buffer = [CChar](repeating: 0, count: 256)
    gethostname(&buffer, 255)
    let name = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self).filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }
    return name.isEmpty ? "host" : name
  }()

  /// A name beside `path` for writing into: `.NAME.tmp-HOST-PID-N`, unique in this process
  /// (`.NAME.old-HOST-PID-N` with `marker` `old`, for a replaced folder being removed).
  ///
  /// It fits in a file name (`longestName`, 255 bytes) whatever `NAME` is: when the whole would
  /// not, `NAME` is cut to what fits (whole characters) and a hash of all of it is added
  /// (`.NAME-BEGINNING~0123456789abcdef.tmp-HOST-PID-N`), so a legal 255-byte name can be written.
  static func temporaryName(for path: String, marker: String = "tmp") -> String {
    let parent = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    let suffix = ".\(marker)-\(host)-\(getpid())-\(counter.next())"
    return (parent.isEmpty ? "" : parent + "/") + "." + shortened(name, toFit: longestName - 1 - suffix.utf8.count) + suffix
  }

  /// The longest file name most file systems take, in bytes (`NAME_MAX`).
  static let longestName = 255

  /// `name` when it has at most `bytes` UTF-8 bytes; otherwise its beginning (whole characters)
  /// and `~` with 16 hexadecimal digits of a hash of the whole name, `bytes` bytes at most.
  static func shortened(_ name: String, toFit bytes: Int) -> String {
    guard name.utf8.count > bytes else { return name }
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a, 64 bits
    for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    let digits = String(hash, radix: 16)
    let tag = "~" + String(repeating: "0", count: 16 - digits.count) + digits
    var beginning = "", used = 0
    for character in name {
      let size = character.utf8.count
      if used + size > bytes - tag.utf8.count { break }
      beginning.append(character)
      used += size
    }
    return beginning + tag
  }

  /// Replaced folders holding at least this many bytes are removed in the background (see `discard`).
  static let backgroundRemovalBytes = 16 << 20

  /// How long a replaced folder whose remover did not finish waits before a later batch removes it.
  static let abandonedAfterSeconds = 60

  /// Removes `path`, the previous version of `folder` after a swap (nothing
  /// when there was none).
  ///
  /// Freeing a large file's blocks makes the file system wait on the disk:
  /// 25–30 ms per 100 MB where the disk discards freed blocks, 7 ms of it
  /// CPU (measured on the development VM), time a command would spend after
  /// its report is in place. So a folder of `backgroundFrom` bytes or more is
  /// renamed to `.NAME.old-HOST-PID-N` and removed by a detached `rm -rf`,
  /// and the command returns meanwhile. Should that remover not finish (it
  /// was killed), a later batch beside the folder removes what is left once
  /// it has lain there `abandonedAfterSeconds`. A smaller folder, or one no
  /// remover can be started for, is removed here.
  static func discard(_ path: String, replaced folder: String, backgroundFrom threshold: Int = backgroundRemovalBytes) {
    if folderBytes(path, upTo: threshold) >= threshold {
      let aside = temporaryName(for: folder, marker: "old")
      if rename(path, aside) == 0 {
        utimes(aside, nil)  // its age, for a later batch, counts from now
        if removeDetached(aside) { return }
        removeTree(aside)
        return
      }
    }
    removeTree(path)
  }

  /// The bytes of the regular files directly in `folder`, counted until they reach `limit`; 0 when it is not a folder.
  static func folderBytes(_ folder: String, upTo limit: Int) -> Int {
    guard let entries = try? folderEntries(folder) else { return 0 }
    var total = 0
    for name in entries where total < limit {
      var info = stat()
      if lstat(folder + "/" + name, &info) == 0 && Int(info.st_mode) & Int(S_IFMT) == Int(S_IFREG) { total += Int(info.st_size) }
    }
    return total
  }

  /// Starts `rm -rf -- path` without waiting for it: it goes on after this
  /// process exits. It has its own process group, so that a Ctrl-C at the
  /// terminal does not stop it, and no terminal input or output. Whether it started.
  ///
  /// Not through a shell that backgrounds it: the shell's start and the wait
  /// for it were most of what was left of a run's end (3.5 ms in one
  /// `strace -T` run). As this process does not wait, a long-running one
  /// collects the removers that have ended at its next call (`collectRemovers`).
  static func removeDetached(_ path: String) -> Bool {
    collectRemovers()
    let arguments = ["rm", "-rf", "--", path]
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    #if canImport(Glibc)
    var actions = posix_spawn_file_actions_t(), attributes = posix_spawnattr_t()
    #else
    var actions: posix_spawn_file_actions_t? = nil, attributes: posix_spawnattr_t? = nil
    #endif
    posix_spawn_file_actions_init(&actions)
    posix_spawnattr_init(&attributes)
    defer { posix_spawn_file_actions_destroy(&actions); posix_spawnattr_destroy(&attributes) }
    for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
    posix_spawnattr_setpgroup(&attributes, 0)
    var pid = pid_t()
    guard posix_spawnp(&pid, removerPath, &actions, &attributes, argv, environ) == 0 else { return false }
    removers.add(pid)
    return true
  }

  /// Where `rm` is, found once along `PATH` with `access`: spawned by its
  /// name, the child tries an `exec` in every folder of `PATH` before it while
  /// this process waits (eight folders here: the spawn took 288 µs by name,
  /// 253 µs by path, medians of 300).
  private static let removerPath: String = {
    let folders = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":") ?? []
    return folders.lazy.map { $0 + "/rm" }.first { $0.hasPrefix("/") && access($0, X_OK) == 0 } ?? "rm"
  }()

  /// The removers started and not yet collected.
  private static let removers = ProcessList()

  /// How many removers were started and not yet collected.
  static var pendingRemovers: Int { removers.count }

  /// Collects the removers that have finished, so that none is left a zombie while this process runs on.
  static func collectRemovers() {
    removers.removeAll { pid in
      var status: Int32 = 0
      return waitpid(pid, &status, WNOHANG) != 0
    }
  }

  private static let counter = Counter()

  /// Removes temporaries (`.NAME.tmp-HOST-PID-N`) that processes of this host
  /// left in `folder` when they were killed: those whose process no longer
  /// runs. With `legacy`, also files named as before hosts were named (`.NAME.tmp-PID`).
  static func removeStaleTemporaries(in folder: String, legacy: Bool) {
    guard let entries = try? folderEntries(folder) else { return }
    for name in entries where name.hasPrefix(".") {
      let path = folder + "/" + name
      if isStale(name, legacy: legacy) || isAbandoned(path, name: name) { removeTree(path) }
    }
  }

  /// Whether `name` (at `path`) is a replaced folder of this host (`.NAME.old-HOST-PID-N`)
  /// that has lain untouched for `abandonedAfterSeconds`: its remover did not finish.
  static func isAbandoned(_ path: String, name: String) -> Bool {
    guard processID(in: name, marker: ".old-") != nil else { return false }
    var info = stat()
    guard lstat(path, &info) == 0 else { return false }
    #if canImport(Darwin)
    let modified = info.st_mtimespec.tv_sec
    #else
    let modified = info.st_mtim.tv_sec
    #endif
    return time(nil) - modified >= abandonedAfterSeconds
  }

  /// Whether `name` is a temporary of a process of this host that no longer runs.
  static func isStale(_ name: String, legacy: Bool) -> Bool {
    var pid = processID(in: name, marker: ".tmp-")
    if pid == nil && legacy, let marker = name.range(of: ".tmp-", options: .backwards) { pid = Int32(name[marker.upperBound...]) }
    guard let pid, pid > 0 else { return false }
    return kill(pid, 0) != 0 && errno == ESRCH
  }

  /// The process id in `name` when it ends in `MARKER-HOST-PID-N` (`marker` `.tmp-` or `.old-`)
  /// with this host's name; `nil` otherwise.
  static func processID(in name: String, marker: String) -> Int32? {
    guard let at = name.range(of: marker, options: .backwards) else { return nil }
    let parts = name[at.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count >= 3, Int(parts[parts.count - 1]) != nil, parts.dropLast(2).joined(separator: "-") == host else { return nil }
    return Int32(parts[parts.count - 2])
  }

  /// The names in `folder`, `.` and `..` left out.
  static func folderEntries(_ folder: String) throws -> [String] {
    guard let dir = opendir(folder) else {
      throw OutputError(path: folder, message: "cannot list the folder (\(systemReason(errno)))")
    }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafePointer(to: &entry.pointee.d_name) {
        String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
  }

  static func removeTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if Int(info.st_mode) & Int(S_IFMT) == Int(S_IFDIR) {
      try? FileManager.default.removeItem(atPath: path)
    } else {
      unlink(path)
    }
  }
}

/// Creates `path` and the folders above it, as `mkdir -p`.
package func makeFolder(_ path: String) throws {
  var prefix = ""
  for (k, part) in path.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
    prefix += (k == 0 ? "" : "/") + part
    if part.isEmpty || part == "." || mkdir(prefix, 0o755) == 0 { continue }
    let error = errno
    var info = stat()
    if stat(prefix, &info) == 0 {
      if Int(info.st_mode) & Int(S_IFMT) == Int(S_IFDIR) { continue }
      throw OutputError(path: prefix, message: "is a file; expected a folder")
    }
    throw OutputError(path: path, message: "cannot create the folder (\(systemReason(error)))")
  }
}

/// Flushes a folder's entries (the names of the files renamed into it) to disk.
func syncFolder(_ path: String) {
  let fd = open(path, O_RDONLY | O_CLOEXEC)
  guard fd >= 0 else { return }
  fsync(fd)
  close(fd)
}


/// A counter shared by threads.
private final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0
  func next() -> Int {
    lock.lock()
    defer { lock.unlock() }
    value += 1
    return value - 1
  }
}

/// Process ids that threads add to and remove from.
private final class ProcessList: @unchecked Sendable {
  private let lock = NSLock()
  private var ids: [pid_t] = []
  func add(_ pid: pid_t) {
    lock.lock()
    defer { lock.unlock() }
    ids.append(pid)
  }
  var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return ids.count
  }
  func removeAll(where done: (pid_t) -> Bool) {
    lock.lock()
    defer { lock.unlock() }
    ids.removeAll(where: done)
  }
}
