/// The help text of a command, rendered from its `CommandSpec`, 80 columns wide.
package enum HelpText {
  static let width = 80

  /// Usage line, summary, details, subcommands, arguments, options with their
  /// defaults, and examples; `path` is the command's words after `program`.
  package static func command(_ spec: CommandSpec, path: String, program: String) -> String {
    var out: String
    if spec.isGroup {
      out = "usage: \(program) \(path) \(spec.subcommands.map(\.name).joined(separator: "|")) [options]\n"
    } else {
      out = wrap(words: spec.arguments.map(\.synopsis) + spec.options.map(\.synopsis), after: "usage: \(program) \(path)")
      // A command that also has subcommands (`fetch mf`): each on a line of its own.
      for sub in spec.subcommands {
        out += "       \(program) \(path) " + ([sub.name] + sub.arguments.map(\.synopsis) + ["[options]"]).joined(separator: " ") + "\n"
      }
    }
    out += "\n" + paragraphs(spec.summary)
    if !spec.details.isEmpty { out += "\n" + paragraphs(spec.details) }
    if !spec.subcommands.isEmpty {
      out += "\nsubcommands:\n" + table(spec.subcommands.map { ($0.name, $0.summary) })
      out += "\n" + paragraphs("Run '\(program) \(path) SUBCOMMAND --help' for its options and examples.")
    }
    if !spec.arguments.isEmpty {
      out += "\narguments:\n" + table(spec.arguments.map { ($0.name, $0.doc) })
    }
    out += "\noptions:\n" + table(spec.options.map { ("--" + $0.name + ($0.value.map { " " + $0 } ?? ""), describe($0)) }
                                  + [("-h, --help", "show this help")])
    if !spec.examples.isEmpty {
      out += "\nexamples:\n" + spec.examples.map { "  \(program) \($0)\n" }.joined()
    }
    return out
  }

  /// An option's doc with its choices, default, and whether it is required or repeatable.
  static func describe(_ option: OptionSpec) -> String {
    var text = option.doc
    if case .choices(let choices) = option.completion { text += ": " + listed(choices) }
    var notes: [String] = []
    switch option.defaultValue {
    case .none: break
    case .value(let v), .described(let v): notes.append("default: " + v)
    }
    if option.required { notes.append("required") }
    if option.repeatable { notes.append("repeatable") }
    return text + (notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")")
  }

  /// Rows of a two-column list: the left column padded, the right one wrapped.
  package static func table(_ rows: [(String, String)]) -> String {
    let column = min(rows.map(\.0.count).max() ?? 0, 22) + 4
    var out = ""
    for (left, right) in rows {
      let head = "  " + left
      let lines = wrapText(right, width: width - column)
      if head.count + 2 <= column {
        out += head + String(repeating: " ", count: column - head.count) + (lines.first ?? "") + "\n"
      } else {
        out += head + "\n" + String(repeating: " ", count: column) + (lines.first ?? "") + "\n"
      }
      for line in lines.dropFirst() { out += String(repeating: " ", count: column) + line + "\n" }
    }
    return out
  }

  /// Paragraphs (separated by blank lines in `text`) wrapped to the width.
  package static func paragraphs(_ text: String) -> String {
    text.components(separatedBy: "\n\n").map { wrapText($0, width: width).joined(separator: "\n") + "\n" }
      .joined(separator: "\n")
  }

  /// `lead` followed by `words`, wrapped with the continuation lines indented under the first word.
  static func wrap(words: [String], after lead: String) -> String {
    var out = lead
    var line = lead.count
    let indent = lead.count + 1
    for word in words {
      if line + 1 + word.count > width && line > indent {
        out += "\n" + String(repeating: " ", count: indent - 1)
        line = indent - 1
      }
      out += " " + word
      line += 1 + word.count
    }
    return out + "\n"
  }

  /// Greedy word wrap; a word longer than the width gets a line of its own.
  static func wrapText(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
      if !line.isEmpty && line.count + 1 + word.count > width {
        lines.append(line)
        line = ""
      }
      line += (line.isEmpty ? "" : " ") + word
    }
    if !line.isEmpty || lines.isEmpty { lines.append(line) }
    return lines
  }
}
