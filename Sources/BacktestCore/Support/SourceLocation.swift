/// A place in an input file: 1-based line and column.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
  /// The file's path as the reader was given it.
  public var file: String
  /// The line, from 1.
  public var line: Int
  /// The column, from 1.
  public var column: Int

  /// Creates a location; `line` and `column` are 1-based.
  public init(file: String, line: Int, column: Int) {
    self.file = file
    self.line = line
    self.column = column
  }

  public var description: String { "\(file):\(line):\(column)" }
}

/// An error a user can cause and fix: bad data, bad config, or a missing file.
///
/// Its description reads `file:line:column: error: message`, the form compilers
/// use, so editors and terminals can jump to the place.
public struct InputError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What went wrong, which decides the process exit code (sysexits).
  public enum Kind: Sendable, Equatable {
    /// Bad data or configuration: exit 65 (`EX_DATAERR`).
    case badInput
    /// A file that does not exist or cannot be read: exit 66 (`EX_NOINPUT`).
    case missingInput
  }

  /// Bad input (exit 65) or missing input (exit 66).
  public var kind: Kind
  /// Where the problem is; `nil` when it concerns a whole file (then `file` is set).
  public var location: SourceLocation?
  /// The file the problem is in (the location's file when there is a location).
  public var file: String
  /// What was expected and what was found, in lower case without a trailing period; cut at `messageLimit`, secret-like
  /// values hidden.
  public var message: String
  /// Optional lines shown under the message (a source excerpt with a caret).
  public var excerpt: String?
  /// Whether the values are each valid but do not go together (`fast` not below `slow`, weights above 100%): a sweep
  /// skips such a combination instead of stopping.
  public var isConflict = false

  /// The longest message kept, in characters: a message quoting a whole line of a
  /// hostile file is cut there (readers quote short excerpts; this bounds the rest,
  /// leaving room for a list of the names expected, such as the sweep's 36 metrics).
  public static let messageLimit = 1_000

  /// Creates a bad-input error at `location`; `excerpt` is shown under the message, secret-like values hidden.
  public init(_ message: String, at location: SourceLocation, excerpt: String? = nil) {
    self.kind = .badInput
    self.location = location
    self.file = location.file
    self.message = Self.bounded(message)
    self.excerpt = excerpt.map(redactingSecrets)
  }

  /// Creates an error about `file` as a whole, without a line or column.
  public init(_ message: String, file: String, kind: Kind = .badInput) {
    self.kind = kind
    self.location = nil
    self.file = file
    self.message = Self.bounded(message)
  }

  /// The message cut at `messageLimit`, with the values of key-like `NAME=value` pairs it quotes hidden (`redactingSecrets`).
  static func bounded(_ message: String) -> String {
    redactingSecrets(message.utf8.count <= messageLimit ? message : BacktestCore.excerpt(message, limit: messageLimit))
  }

  public var description: String {
    let place = location.map { $0.description } ?? file
    var text = "\(place): error: \(message)"
    if let excerpt { text += "\n" + excerpt }
    return text
  }
}

/// Returns the candidate closest to `word` by edit distance, if it is close enough
/// to be a likely typo (at most a third of the word's length, and at least 1).
package func closestMatch(to word: String, in candidates: [String]) -> String? {
  // No name is this long: a suggestion would only cost time (the distance is quadratic).
  guard word.utf8.count <= 100 else { return nil }
  let limit = max(1, word.count / 3)
  var best: (String, Int)?
  for candidate in candidates where abs(candidate.count - word.count) <= limit {
    let d = editDistance(word.lowercased(), candidate.lowercased())
    if d <= limit, best == nil || d < best!.1 { best = (candidate, d) }
  }
  return best?.0
}

/// Returns the edit distance between two strings, by characters: insertions,
/// deletions, substitutions and swaps of two neighbours each count 1 (the
/// optimal string alignment distance), so `rnu` is one edit from `run`.
func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a), b = Array(b)
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
  for i in 0...a.count { d[i][0] = i }
  for j in 0...b.count { d[0][j] = j }
  for i in 1...a.count {
    for j in 1...b.count {
      let cost = a[i - 1] == b[j - 1] ? 0 : 1
      d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
        d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
      }
    }
  }
  return d[a.count][b.count]
}
