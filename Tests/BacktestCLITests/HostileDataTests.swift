import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Hostile data that needs timing, a second process or a file changed under a command's feet.
@Suite struct HostileDataTests {
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
}
