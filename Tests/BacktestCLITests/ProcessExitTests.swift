import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A command ends at once (see `exitPromptly`): its memory goes to an heir
/// that keeps none of its files open, so output read through pipes ends with
/// the command, complete, and the exit status is the command's.
@Suite struct ProcessExitTests {
  /// Runs `backtest` with its output and errors through pipes, read to their ends.
  static func runThroughPipes(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLI.binary)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: CLI.root)
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Errors are short (they fit the pipe), so reading the output first cannot stall the command.
    let stdout = readToEnd(out.fileHandleForReading.fileDescriptor), stderr = readToEnd(err.fileHandleForReading.fileDescriptor)
    process.waitUntilExit()
    return (process.terminationStatus, stdout, stderr)
  }

  /// What `fd` gives until its end, read again after an interrupted read
  /// (`FileHandle` traps on `EINTR`, which another test's child ending can cause: see `CLI.run`).
  static func readToEnd(_ fd: Int32) -> String {
    var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = read(fd, &chunk, chunk.count)
      if n > 0 { bytes += chunk[..<n] } else if n == 0 || errno != EINTR { break }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  @Test("a run's output read through pipes ends, complete, with the command's exit status")
  func outputEndsWithCommand() throws {
    let out = try CLI.temporaryFolder()
    let ok = try Self.runThroughPipes(["run", "Strategies/gpix.yaml", "--out", out])
    #expect(ok.status == 0, "\(ok.stderr)")
    #expect(ok.stdout.hasPrefix("gpix"), "\(ok.stdout)")
    #expect(ok.stdout.hasSuffix("to \(out)/\n"), "\(ok.stdout)")
    let bad = try Self.runThroughPipes(["run", "Strategies/no-such-file.yaml"])
    #expect(bad.status == 66)
    #expect(bad.stdout.isEmpty)
    #expect(bad.stderr.contains("no-such-file.yaml"), "\(bad.stderr)")
    let usage = try Self.runThroughPipes(["no-such-command"])
    #expect(usage.status == 64)
  }
}
