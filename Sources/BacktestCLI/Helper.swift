import CommandLineSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a helper executable that is built next to `backtest`, in place of
/// this process (same arguments, output and exit code). The helper is started
/// as `PROGRAM COMMAND` (its `argv[0]`), so that its messages name the
/// program the user typed.
///
/// `backtest fetch` lives in `backtest-fetch` so that this binary does not
/// link the HTTP and TLS libraries: loading them took ~8 ms of every start.
func runHelper(_ name: String, command: String, arguments: ArraySlice<String>) throws -> Int32 {
  guard let directory = executableDirectory() else {
    throw HelperError(message: "cannot find the folder of the running backtest executable to start \(name)")
  }
  let path = directory + "/" + name
  guard access(path, X_OK) == 0 else {
    throw HelperError(message: "\(name) is missing from \(directory); it is built with backtest (swift build) and must be installed next to it")
  }
  let argv = ([Program.name + " " + command] + arguments).map { strdup($0) } + [nil]
  execv(path, argv)
  throw HelperError(message: "cannot start \(path) (\(String(cString: strerror(errno))))")
}

struct HelperError: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

/// The folder holding the running executable.
private func executableDirectory() -> String? {
  var buffer = [CChar](repeating: 0, count: 4097)
  #if os(Linux)
  let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
  guard n > 0 else { return nil }
  buffer[n] = 0
  #elseif canImport(Darwin)
  var size = UInt32(buffer.count)
  guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
  #endif
  let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
  let path = String(decoding: bytes, as: UTF8.self)
  guard let slash = path.lastIndex(of: "/") else { return nil }
  return slash == path.startIndex ? "/" : String(path[..<slash])
}
