import Foundation
import Testing

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
    let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, stdout, stderr)
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
