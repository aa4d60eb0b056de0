import BacktestCore
import Foundation

/// Exit codes (sysexits): 0 ok, 64 bad command line, 65 bad data or config,
/// 66 missing input, 1 anything else.
public enum ExitCode {
  public static let ok: Int32 = 0
  public static let failure: Int32 = 1
  public static let usage: Int32 = 64
  public static let dataError: Int32 = 65
  public static let noInput: Int32 = 66
}

/// Writes one line to standard error.
public func printError(_ text: String) {
  FileHandle.standardError.write((text + "\n").data(using: .utf8)!)
}

/// Prints an input error, with the offending line of a YAML file under it.
public func report(_ error: InputError) {
  var text = error.description
  if let location = error.location, error.excerpt == nil,
    location.file.hasSuffix(".yaml") || location.file.hasSuffix(".yml"),
    let source = try? String(contentsOfFile: location.file, encoding: .utf8)
  {
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
    if location.line >= 1 && location.line <= lines.count {
      let line = lines[location.line - 1].replacingOccurrences(of: "\r", with: "")
      text += "\n" + sourceExcerpt(line: line, number: location.line, column: location.column)
    }
  }
  printError(text)
}

/// Runs a command and turns what it throws into a message and an exit code:
/// usage errors 64, bad data or config 65, missing input 66, anything else 1.
public func exitCode(of command: () throws -> Int32) -> Int32 {
  do {
    return try command()
  } catch let error as UsageError {
    printError(error.description)
    printError("run 'backtest help' for usage")
    return ExitCode.usage
  } catch let error as InputError {
    report(error)
    return error.kind == .missingInput ? ExitCode.noInput : ExitCode.dataError
  } catch {
    printError("backtest: error: \(error)")
    return ExitCode.failure
  }
}
