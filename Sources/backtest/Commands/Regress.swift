import BacktestCore
import Foundation

/// `backtest regress [DIR]`: runs every run file in DIR and compares its
/// reports with `Reports/reference/<name>/`; `--update` rewrites them.
struct RegressCommand {
  var directory: String
  var reference: String
  var update: Bool
  var tolerance: Double

  init(_ args: ArraySlice<String>) throws {
    let a = try Arguments(args, flags: ["update"], options: ["reference", "tolerance"])
    guard a.positionals.count <= 1 else { throw UsageError(message: "expected at most one folder of run files") }
    directory = a.positionals.first ?? "Strategies"
    reference = a.option("reference") ?? "Reports/reference"
    update = a.flags.contains("update")
    if let t = a.option("tolerance") {
      guard let v = Double(t), v >= 0 else { throw UsageError(message: "expected a number >= 0 for '--tolerance', found '\(t)'") }
      tolerance = v
    } else {
      tolerance = ReportComparison.defaultTolerance
    }
  }

  func run() throws -> Int32 {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw InputError("no such folder of run files", file: directory, kind: .missingInput)
    }
    let runFiles = try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
    var failed = 0
    for name in runFiles {
      let path = directory + "/" + name
      let text = String(decoding: try readInputFile(path), as: UTF8.self)
      let config = try RunConfig.parse(text, file: path)
      let files = RunReport.files(try Backtest.run(config))
      let folder = reference + "/" + config.name
      if update {
        try AtomicWriter.write(files, into: folder)
        print("updated \(folder)/ (\(files.count) files)")
        continue
      }
      var differences: [String] = []
      for file in files {
        guard let data = FileManager.default.contents(atPath: folder + "/" + file.name) else {
          differences.append("\(file.name): no reference file \(folder)/\(file.name)")
          continue
        }
        differences += ReportComparison.differences(file: file.name, expected: String(decoding: data, as: UTF8.self),
                                                    actual: file.contents, tolerance: tolerance)
      }
      let produced = Set(files.map(\.name))
      let referenced = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
      for extra in referenced.sorted() where !produced.contains(extra) && !extra.hasPrefix(".") {
        differences.append("\(extra): in the reference but no longer produced")
      }
      if differences.isEmpty {
        print("ok    \(config.name) (\(path), \(files.count) files)")
      } else {
        failed += 1
        print("FAIL  \(config.name) (\(path))")
        for d in differences { print("  " + d.replacingOccurrences(of: "\n", with: "\n  ")) }
      }
    }
    if update { return ExitCode.ok }
    print(failed == 0 ? "\(runFiles.count) run files match their references (numbers within \(tolerance) relative)"
                      : "\(failed) of \(runFiles.count) run files differ from their references; after a deliberate change run: backtest regress --update")
    return failed == 0 ? ExitCode.ok : ExitCode.failure
  }
}
