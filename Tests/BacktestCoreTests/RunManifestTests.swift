import BacktestCore
import BacktestRun
import Foundation
import Testing

@Suite struct RunManifestTests {
  static let yaml = """
    name: m
    data: {bars: ../Data/GOOG.csv, timezone: America/New_York, end: 2009-12-31}
    strategy: {type: bollinger_rsi, stop_loss: 2%}
    cycle: {macro_file: ../Data/us_macro_quarterly.csv, filter: true, buy_stages: [Expansion, Recovery], exit_stages: [Contraction]}
    report: {out: /tmp/m}

    """

  @Test("hashes are FNV-1a 64 over 8-byte words then the tail (values computed independently, in Python)")
  func hashValues() {
    func hash(_ text: String) -> String { Array(text.utf8).withUnsafeBytes { RunManifest.hash($0) } }
    #expect(hash("") == "cbf29ce484222325")
    #expect(hash("abcdefgh") == "3919eeb00ee1e68c")
    #expect(hash("abcdefghij") == "b7dc09287fb59bcf")
  }

  @Test("a run read from files records the engine, the settings and each file it read, with its size and hash")
  func recordsInputs() throws {
    let output = try runBacktest(Self.yaml)
    let m = output.manifest
    #expect(m.engine == BacktestVersion.string)
    #expect(m.inputs.map(\.role) == ["bars", "macro"])
    #expect(m.inputs[0].file == Repo.path("Data/GOOG.csv") && m.inputs[1].file == Repo.path("Data/us_macro_quarterly.csv"))
    // The same hash as Python's FNV-1a over Data/GOOG.csv's 97,833 bytes.
    #expect(m.inputs[0].bytes == 97_833 && m.inputs[0].hash == "fad35ffdb4eaab11")
    let macro = try Data(contentsOf: URL(fileURLWithPath: Repo.path("Data/us_macro_quarterly.csv")))
    #expect(m.inputs[1] == RunManifest.Input(role: "macro", file: Repo.path("Data/us_macro_quarterly.csv"), contents: macro))
    let json = RunReport.summaryJSON(output).rendered()
    #expect(json.contains("\"manifest\": {\n      \"engine\": \"\(BacktestVersion.string)\""))
    #expect(json.contains("\"hash\": \"fad35ffdb4eaab11\""))
  }

  @Test("the settings hash follows the settings and --set, not layout, comments or where the reports go")
  func settingsHash() throws {
    let base = try runConfig(Self.yaml).settingsHash
    let relaid = try runConfig("# a comment\n" + Self.yaml.replacingOccurrences(of: "stop_loss: 2%", with: "stop_loss:   2%")
      .replacingOccurrences(of: "/tmp/m", with: "/tmp/elsewhere")).settingsHash
    #expect(base != nil && relaid == base)
    #expect(try runConfig(Self.yaml, overrides: ["strategy.rsi.period=9"]).settingsHash != base)
    #expect(try runConfig(Self.yaml.replacingOccurrences(of: "2%", with: "3%")).settingsHash != base)
  }

  @Test("a summary compared with its reference: a changed input is named first, another engine alone is no difference")
  func comparison() throws {
    let output = try runBacktest(Self.yaml)
    let actual = RunReport.summaryJSON(output).rendered() + "\n"
    let otherEngine = actual.replacingOccurrences(of: "\"engine\": \"\(BacktestVersion.string)\"", with: "\"engine\": \"0.0.9\"")
    #expect(otherEngine != actual)
    #expect(ReportComparison.summaryDifferences(file: "summary.json", expected: otherEngine, actual: actual).isEmpty)

    let otherBars = otherEngine.replacingOccurrences(of: "fad35ffdb4eaab11", with: "0123456789abcdef")
      .replacingOccurrences(of: "\"bytes\": 97833", with: "\"bytes\": 97834")
    let found = ReportComparison.summaryDifferences(file: "summary.json", expected: otherBars, actual: actual)
    #expect(found == [
      "summary.json: made from other inputs than the reference: bars file \(Repo.path("Data/GOOG.csv")) changed (97834 -> 97833 bytes, hash 0123456789abcdef -> fad35ffdb4eaab11)",
      "summary.json: the reference was made by engine 0.0.9, this run by \(BacktestVersion.string)",
    ])

    let old = try #require(otherEngine.range(of: ",\n    \"manifest\": {"))
    let withoutManifest = String(otherEngine[..<old.lowerBound]) + "\n  }\n}\n"
    let missing = ReportComparison.summaryDifferences(file: "summary.json", expected: withoutManifest, actual: actual)
    #expect(missing.first == "summary.json: the reference has no run manifest (it was made before manifests were written)")
  }
}
