import Foundation

/// Joins a relative path to `directory` and removes `.` and `..` steps lexically.
package func resolvePath(_ path: String, relativeTo directory: String) -> String {
  let joined = path.hasPrefix("/") || directory.isEmpty ? path : directory + "/" + path
  var parts: [Substring] = []
  for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
    if part == "." { continue }
    if part == "..", let last = parts.last, last != ".." { parts.removeLast(); continue }
    parts.append(part)
  }
  let result = parts.joined(separator: "/")
  return joined.hasPrefix("/") ? "/" + result : (result.isEmpty ? "." : result)
}

extension SourceLocation {
  /// Whether the value was given on the command line (`--set key=value`), not written in a file.
  package var isCommandLine: Bool { file.hasPrefix("--set ") }

  /// The folder a relative path written here is relative to: the current
  /// folder for a value given on the command line, else the folder of the file
  /// it is written in (a run file's paths are the run file's).
  package var pathBase: String { isCommandLine ? "" : (file as NSString).deletingLastPathComponent }
}
