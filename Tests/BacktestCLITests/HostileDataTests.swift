import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Hostile data that needs timing, a second process or a file changed under a command's feet.
@Suite struct HostileDataTests {
  /// Whether process `pid` has `path` open or mapped now.
  static func holds(_ pid: Int32, _ path: String) -> Bool {
    if let maps = try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8), maps.contains(path) { return true }
    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
    return fds.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == path }
  }

  @Test("a bar file cut short while run, signal, sweep or montecarlo reads it: a result or an error, never a crash (SIGBUS)",
        arguments: ["run", "signal", "sweep", "montecarlo"])
  func truncatedWhileRead(_ command: String) throws {
    let dir = try CLI.temporaryFolder()
    let bars = dir + "/bars.csv"
    // 300,000 bars (17 MB): long enough to read that a cut lands while the file is open or (before the fix) mapped.
    try "name: cut\ndata: {bars: bars.csv}\nstrategy: {type: bollinger_rsi}\nsweep:\n  parameters:\n    bb_period: [10, 20]\n  metric: sharpe\n"
      .write(toFile: dir + "/run.yaml", atomically: false, encoding: .utf8)
    var arguments = [command, dir + "/run.yaml"]
    switch command {
    case "run", "sweep": arguments += ["--out", dir + "/out", "--quiet"]
    case "montecarlo": arguments += ["--runs", "10"]
    default: break
    }
    for attempt in 0..<2 {
      #expect(try CLI.run(["synth", "--out", bars, "--bars", "300000", "--seed", "\(attempt + 1)", "--quiet"]).status == 0)
      var info = stat()
      #expect(stat(bars, &info) == 0)
      let process = Process()
      process.executableURL = URL(fileURLWithPath: CLI.binary)
      process.arguments = arguments
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      // A crash is reported at once, without the runtime's backtrace (which can take half a minute).
      process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
      try process.run()
      // Cut the file to half, mid-line, as soon as the command holds it (or after 10 s).
      let deadline = Date().addingTimeInterval(10)
      while process.isRunning && !Self.holds(process.processIdentifier, bars) && Date() < deadline { usleep(200) }
      #expect(truncate(bars, off_t(info.st_size / 2 + 7)) == 0)
      let end = Date().addingTimeInterval(60)
      while process.isRunning && Date() < end { usleep(10_000) }
      if process.isRunning { kill(process.processIdentifier, SIGKILL); Issue.record("\(command): still running after 60 s") }
      process.waitUntilExit()
      #expect(process.terminationReason == .exit, "\(command): killed by signal \(process.terminationStatus)")
      #expect([0, 65].contains(process.terminationStatus), "\(command): exit status \(process.terminationStatus)")
    }
  }

  @Test("100,000 spaces after a run file's value or a --set value: read in a moment (they took minutes)")
  func spacesAfterValues() throws {
    let dir = try CLI.temporaryFolder()
    let spaces = String(repeating: " ", count: 100_000)
    try "name: spaces\(spaces)\ndata: {bars: \(HostileCase.folder)/good/bars.csv\(spaces)}\nstrategy: {type: bollinger_rsi}\(spaces)\n"
      .write(toFile: dir + "/run.yaml", atomically: false, encoding: .utf8)
    let (r, timedOut) = try runBounded(["run", dir + "/run.yaml", "--out", dir + "/out", "--quiet"], seconds: 20)
    #expect(!timedOut && r.status == 0, "\(r.stderr)")
    let (s, setTimedOut) = try runBounded(["run", dir + "/run.yaml", "--out", dir + "/out2", "--set", "name=set\(spaces)"], seconds: 20)
    #expect(!setTimedOut && s.status == 0 && s.stdout.hasPrefix("set: bollinger_rsi on "), "\(s.stderr)")
  }

  @Test("journal --time 'not a time' is refused (exit 64) and nothing is written")
  func journalTimeWithSpaces() throws {
    let dir = try CLI.temporaryFolder()
    let r = try CLI.run(["journal", "enter", "--file", dir + "/j.csv", "--price", "10", "--shares", "1", "--time", "not a time"])
    #expect(r.status == 64 && r.stderr.hasPrefix("backtest: error: expected an ISO 8601 date or date-time from the year 1 to 9999, "
      + "such as 2024-11-13 or 2024-11-13T15:30:00-05:00 for '--time', found 'not a time'\n"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/j.csv"))
    let spaced = try CLI.run(["journal", "enter", "--file", dir + "/j.csv", "--price", "10", "--shares", "1", "--time", " 2024-01-02"])
    #expect(spaced.status == 64 && !FileManager.default.fileExists(atPath: dir + "/j.csv"))
  }

  @Test("make uninstall: a PREFIX holding quotes is refused and deletes nothing; a PREFIX with a space removes exactly the installed files")
  func makeUninstallQuoting() throws {
    guard let make = ["/usr/bin/make", "/usr/local/bin/make", "/bin/make"].first(where: FileManager.default.isExecutableFile) else { return }
    let dir = try CLI.temporaryFolder()
    try "keep".write(toFile: dir + "/victim", atomically: false, encoding: .utf8)
    let refused = try CLI.run(["-s", "uninstall", "PREFIX=x\" \"\(dir)/victim\" \""], executable: make)
    #expect(refused.status != 0 && refused.stderr.hasPrefix(
      "Makefile: error: expected PREFIX and DESTDIR without quotes, backslashes, dollar signs or backquotes, found 'x\" \"\(dir)/victim\" \"'\n"),
      "\(refused.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir + "/victim"))
    let broken = try CLI.run(["-s", "uninstall", "DESTDIR=\(dir)/a\nb", "PREFIX=/x"], executable: make)
    #expect(broken.status != 0 && broken.stderr.hasPrefix("Makefile: error: expected PREFIX and DESTDIR on one line, found a line break\n"))
    // An ordinary staged install, in a folder with a space in its name: the installed files go, nothing else.
    let prefix = dir + "/my prefix"
    for path in ["bin/backtest", "bin/backtest-fetch", "bin/other", "share/zsh/site-functions/_backtest"] {
      try FileManager.default.createDirectory(atPath: ((prefix + "/" + path) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try "x".write(toFile: prefix + "/" + path, atomically: false, encoding: .utf8)
    }
    let removed = try CLI.run(["-s", "uninstall", "DESTDIR=\(dir)", "PREFIX=/my prefix"], executable: make)
    #expect(removed.status == 0, "\(removed.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: prefix + "/bin") == ["other"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: prefix + "/share/zsh/site-functions").isEmpty)
    #expect(FileManager.default.fileExists(atPath: dir + "/victim"))
  }

  @Test("an error in a 100 kB --set value names the override cut to 100 characters, not whole")
  func longOverrideNamedShort() throws {
    let value = String(repeating: "a", count: 100_000)
    let r = try CLI.run(["run", HostileCase.folder + "/good/run.yaml", "--out", try CLI.temporaryFolder() + "/out", "--set", "name=[" + value])
    #expect(r.status == 65 && r.stderr.hasPrefix("--set name=[" + String(repeating: "a", count: 94) + "…:1:6: error: unclosed '['"), "\(r.stderr.prefix(300))")
    #expect(r.stderr.count < 1_000, "\(r.stderr.count) characters")
  }
}
