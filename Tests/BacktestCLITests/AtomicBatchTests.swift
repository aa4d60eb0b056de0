import BacktestCore
import CommandLineSupport
import Foundation
import Testing

@Suite struct AtomicBatchTests {
  @Test("files added early and late are all moved into place by commit, in full")
  func commitsAll() throws {
    let out = try CLI.temporaryFolder()
    let batch = try AtomicBatch(into: out)
    batch.add([ReportFile(name: "a.csv", contents: "a\n"), ReportFile(name: "b.json", contents: String(repeating: "b", count: 100_000))])
    // Not in place before the commit.
    #expect(!FileManager.default.fileExists(atPath: out + "/a.csv"))
    batch.add([ReportFile(name: "c.md", contents: "c\n")])
    try batch.commit()
    #expect(try String(contentsOfFile: out + "/a.csv", encoding: .utf8) == "a\n")
    #expect(try String(contentsOfFile: out + "/b.json", encoding: .utf8).count == 100_000)
    #expect(try String(contentsOfFile: out + "/c.md", encoding: .utf8) == "c\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["a.csv", "b.json", "c.md"])
  }

  @Test("one file that cannot be written: an error naming it, the old files untouched, no temporary file left")
  func failureKeepsOldFiles() throws {
    let out = try CLI.temporaryFolder()
    try AtomicWriter.write([ReportFile(name: "a.csv", contents: "old\n")], into: out)
    let batch = try AtomicBatch(into: out)
    batch.add([ReportFile(name: "a.csv", contents: "new\n")])
    batch.add([ReportFile(name: "missing-folder/b.csv", contents: "b\n")])
    #expect {
      try batch.commit()
    } throws: { error in
      "\(error)".contains("missing-folder/b.csv") && "\(error)".contains("cannot create the file")
    }
    #expect(try String(contentsOfFile: out + "/a.csv", encoding: .utf8) == "old\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["a.csv"])
  }

  @Test("a batch dropped without a commit leaves nothing behind")
  func droppedBatch() throws {
    let out = try CLI.temporaryFolder()
    do {
      let batch = try AtomicBatch(into: out)
      batch.add([ReportFile(name: "a.csv", contents: "a\n")])
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
  }
}
