import Foundation

/// Joins a relative path to `directory` and removes `.` and `..` steps lexically.
public func resolvePath(_ path: String, relativeTo directory: String) -> String {
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
