import BacktestCore
import BacktestRun
@testable import CommandLineSupport
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

  @Test("long texts, made now or later, are written byte for byte (through the staging buffers, past their edges)")
  func longTexts() throws {
    let out = try CLI.temporaryFolder()
    // Lengths around multiples of the staging buffer (512 KiB) and of a 4 KiB page; UTF-8 of 1 to 4 bytes per character.
    let unit = "price 26.13 € → 📈 ok\n"
    func text(_ bytes: Int) -> String {
      var t = String(repeating: unit, count: bytes / unit.utf8.count)
      t += String(repeating: "x", count: bytes - t.utf8.count)
      return t
    }
    let staging = StreamedFile.stagingBytes
    let lengths = [staging - 1, staging, staging + 1, 2 * staging - 1, 4 * staging, 5_000_003]
    let texts = lengths.map(text)
    var files: [ReportFile] = []
    for (k, t) in texts.enumerated() {
      files.append(k % 2 == 0 ? ReportFile(name: "\(k).html", contents: t) : ReportFile(name: "\(k).html", body: .deferred(DeferredText { t })))
    }
    try AtomicWriter.write(files, into: out)
    for (k, t) in texts.enumerated() {
      let written = try Data(contentsOf: URL(fileURLWithPath: out + "/\(k).html"))
      #expect(written.count == lengths[k])
      #expect(written == Data(t.utf8))
    }
  }

  @Test("rows made by one worker go straight into the staging buffers, by several through chunks: the bytes of the rows' text either way")
  func rowsEitherWay() throws {
    let out = try CLI.temporaryFolder()
    // Rows of 3 to 306 bytes, about 156 on average. Estimated at 40, a step (~256 KB) runs past a staging
    // buffer's end (512 KB) by varying amounts within the room kept for that; estimated at 10, a step (~1 MB)
    // fills two buffers at times and runs past that room (the buffer grows).
    func rows(workers: Int, estimate: Int = 40) -> RowChunks {
      RowChunks(header: "k,text\n", rowCount: 40_000, bytesPerRow: estimate, workers: workers) { range, out in
        for i in range {
          out.append(integer: Int64(i))
          out.append(byte: 44)
          out.append(String(repeating: "x", count: i * 7919 % 300))
          out.append(byte: 10)
        }
      }
    }
    try AtomicWriter.write([ReportFile(name: "one.csv", body: .rows(rows(workers: 1))),
                            ReportFile(name: "long.csv", body: .rows(rows(workers: 1, estimate: 10))),
                            ReportFile(name: "two.csv", body: .rows(rows(workers: 2)))], into: out)
    let expected = Data(rows(workers: 3).text.utf8)
    #expect(expected.count > 10 * StreamedFile.stagingBytes)
    for name in ["one.csv", "long.csv", "two.csv"] {
      #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/" + name)) == expected, "\(name)")
    }
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

  @Test("a replaced folder of 16 MB or more is removed after the commit returns, by a detached remover: the new report in place, nothing left beside it, the remover collected")
  func largeFolderRemovedInBackground() throws {
    let dir = try CLI.temporaryFolder()
    let out = dir + "/out"
    let large = String(repeating: "2004-01-02T09:30:00-05:00,100000.0\n", count: ReportFolder.backgroundRemovalBytes / 35 + 1)
    try AtomicWriter.replaceFolder(out, with: [ReportFile(name: "equity.csv", contents: large), ReportFile(name: "trades.csv", contents: "a\n")])
    try AtomicWriter.replaceFolder(out, with: [ReportFile(name: "trades.csv", contents: "b\n")])
    #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["trades.csv"])
    #expect(try String(contentsOfFile: out + "/trades.csv", encoding: .utf8) == "b\n")
    // Beside it, at most the previous report being removed, and not for long.
    var beside = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0 != "out" }
    #expect(beside.allSatisfy { $0.hasPrefix(".out.old-\(ReportFolder.host)-\(getpid())-") })
    let deadline = Date().addingTimeInterval(30)
    while !beside.isEmpty && Date() < deadline {
      usleep(20_000)
      beside = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0 != "out" }
    }
    #expect(beside.isEmpty)
    // The remover has exited; the next call collects it, so that no zombie stays while this process runs on.
    #expect(ReportFolder.pendingRemovers >= 1)
    while ReportFolder.pendingRemovers > 0 && Date() < deadline {
      usleep(20_000)
      ReportFolder.collectRemovers()
    }
    #expect(ReportFolder.pendingRemovers == 0)
  }

  @Test("a replaced folder whose remover did not finish is removed by a later batch once it has lain a minute, not before")
  func abandonedFolderRemovedLater() throws {
    let dir = try CLI.temporaryFolder()
    let host = ReportFolder.host
    let old = dir + "/.out.old-\(host)-\(getpid())-7", recent = dir + "/.out.old-\(host)-\(getpid())-8"
    let otherHost = dir + "/.out.old-\(host)x-\(getpid())-9"
    for path in [old, recent, otherHost] {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
      try "half".write(toFile: path + "/equity.csv", atomically: false, encoding: .utf8)
    }
    let minuteAgo = Date().addingTimeInterval(-Double(ReportFolder.abandonedAfterSeconds) - 5)
    try FileManager.default.setAttributes([.modificationDate: minuteAgo], ofItemAtPath: old)
    try FileManager.default.setAttributes([.modificationDate: minuteAgo], ofItemAtPath: otherHost)
    try AtomicWriter.replaceFolder(dir + "/out", with: [ReportFile(name: "trades.csv", contents: "a\n")])
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == [".out.old-\(host)-\(getpid())-8", ".out.old-\(host)x-\(getpid())-9", "out"])
  }

  @Test("temporary names fit in 255 bytes whatever the name: a long one is cut at a whole character and keeps a hash of all of it")
  func temporaryNamesFit() throws {
    let long = String(repeating: "r", count: 255), accented = String(repeating: "é", count: 127)
    for name in [long, accented, String(repeating: "r", count: 200) + "x", "short"] {
      for marker in ["tmp", "old"] {
        let temporary = (ReportFolder.temporaryName(for: "/some/folder/" + name, marker: marker) as NSString).lastPathComponent
        #expect(temporary.utf8.count <= 255 && temporary.hasPrefix("."), "\(temporary)")
        #expect(ReportFolder.processID(in: temporary, marker: "." + marker + "-") == getpid())
      }
    }
    #expect((ReportFolder.temporaryName(for: "out/short") as NSString).lastPathComponent.hasPrefix(".short.tmp-"))
    let cut = ReportFolder.shortened(accented, toFit: 100)
    #expect(cut.utf8.count <= 100 && cut.hasPrefix(String(repeating: "é", count: 41) + "~") && cut.count == 41 + 17)
    // Names alike at the start differ by their hash.
    #expect(ReportFolder.shortened(long, toFit: 100) != ReportFolder.shortened(String(repeating: "r", count: 254) + "s", toFit: 100))
    // A 255-byte folder name is written, and written again over itself.
    let out = try CLI.temporaryFolder() + "/" + long
    for _ in 0..<2 {
      try AtomicWriter.replaceFolder(out, with: [ReportFile(name: "trades.csv", contents: "a\n")])
      #expect(try String(contentsOfFile: out + "/trades.csv", encoding: .utf8) == "a\n")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: (out as NSString).deletingLastPathComponent) == [long])
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
