import BacktestCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An error writing output: exit 1.
package struct OutputError: Error, CustomStringConvertible {
  package var path: String
  package var message: String
  package init(path: String, message: String) { self.path = path; self.message = message }
  package var description: String { "\(path): error: \(message)" }
}

/// The system's reason for `error`, in lower case as messages write it (`permission denied`).
package func systemReason(_ error: Int32) -> String {
  switch error {
  case ELOOP: return "a loop of symbolic links"
  case ENOSPC: return "no space left on the device"
  default:
    let text = String(cString: strerror(error))
    return text.prefix(1).lowercased() + text.dropFirst()
  }
}
