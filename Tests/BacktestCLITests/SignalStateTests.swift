import CommandLineSupport
import Foundation
import Testing

/// `backtest signal --state FILE --on-change CMD` on daily GOOG: HOLD at the close of 2008-01-10, BUY at 2008-01-23.
@Suite(.serialized) struct SignalStateTests {
  static func signal(_ end: String, state: String, extra: [String] = []) throws -> (CLI.Result, [String: Any]) {
    let r = try CLI.run(["signal", "goog-swing.yaml", "--set", "data.end=\(end)", "--now", "2008-02-01", "--json", "--state", state] + extra)
    let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] ?? [:]
    return (r, json)
  }

  @Test("the state across calls: first check, no change, then a change with the previous signal")
  func acrossCalls() throws {
    let state = try CLI.temporaryFolder() + "/state/goog.json"
    var (r, json) = try Self.signal("2008-01-10", state: state)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(json["signal"] as? String == "HOLD" && json["changed"] as? Bool == true && json["previous"] is NSNull)
    let saved = try String(contentsOfFile: state, encoding: .utf8)
    #expect(saved.contains("\"schema\": \"backtest.signal-state/1\"") && saved.contains("\"signal\": \"HOLD\""))
    // A later bar with the same signal: no change.
    (r, json) = try Self.signal("2008-01-11", state: state)
    #expect(json["signal"] as? String == "HOLD" && json["changed"] as? Bool == false)
    #expect((json["previous"] as? [String: Any])?["time"] as? String == "2008-01-10")
    // BUY: a change, with what was stored.
    (r, json) = try Self.signal("2008-01-23", state: state)
    #expect(json["signal"] as? String == "BUY" && json["changed"] as? Bool == true)
    let previous = try #require(json["previous"] as? [String: Any])
    #expect(previous["signal"] as? String == "HOLD" && previous["time"] as? String == "2008-01-11")
    // In words too.
    let text = try CLI.run(["signal", "goog-swing.yaml", "--set", "data.end=2008-01-24", "--now", "2008-02-01", "--state", state])
    #expect(text.stdout.contains("  changed since the last check: yes (was BUY at 2008-01-23)"), "\(text.stdout)")
  }

  @Test("--on-change runs once with the JSON on its standard input when something changed, and not at all otherwise")
  func onChange() throws {
    let dir = try CLI.temporaryFolder()
    let command = ["--on-change", "cat >> '\(dir)/received.jsonl'; echo sent >&2"]
    var (r, _) = try Self.signal("2008-01-10", state: dir + "/s.json", extra: command)
    #expect(r.status == 0 && r.stderr == "sent\n", "\(r.stderr)")
    #expect(try String(contentsOfFile: dir + "/received.jsonl", encoding: .utf8) == r.stdout)
    (r, _) = try Self.signal("2008-01-11", state: dir + "/s.json", extra: command)
    #expect(r.status == 0 && r.stderr.isEmpty)
    #expect(try String(contentsOfFile: dir + "/received.jsonl", encoding: .utf8).split(separator: "\n").filter { $0 == "{" }.count == 1)
    (r, _) = try Self.signal("2008-01-23", state: dir + "/s.json", extra: command)
    let received = try String(contentsOfFile: dir + "/received.jsonl", encoding: .utf8)
    #expect(received.hasSuffix(r.stdout) && received.split(separator: "\n").filter { $0 == "{" }.count == 2)
  }

  @Test("a hanging --on-change command is stopped at its time limit with everything it started; the failure is reported")
  func hanging() throws {
    let dir = try CLI.temporaryFolder()
    let clock = ContinuousClock()
    let start = clock.now
    let (r, json) = try Self.signal("2008-01-10", state: dir + "/s.json",
                                    extra: ["--on-change", "sh -c \"sleep 2; touch '\(dir)/still-running'\"; echo done", "--on-change-timeout", "0.3"])
    let elapsed = clock.now - start
    #expect(r.status == 1 && json["signal"] as? String == "HOLD")
    #expect(r.stderr == "backtest: error: the --on-change command was still running after its time limit of 0.3 s and was stopped; "
      + "the next check tries again (attempt 1 of 3)\n")
    #expect(elapsed < .seconds(2), "took \(elapsed)")
    // Had only the outer shell been stopped, the inner one would go on and touch the file at 2 s.
    Thread.sleep(forTimeInterval: ProgressLine.seconds(.milliseconds(2300) - (clock.now - start)))
    #expect(!FileManager.default.fileExists(atPath: dir + "/still-running"), "the command's own child outlived the limit")
  }

  @Test("a failing --on-change command is tried on the next checks, three times in all, then given up")
  func retries() throws {
    let dir = try CLI.temporaryFolder()
    let command = ["--on-change", "echo tried >> '\(dir)/tries'; exit 3"]
    for attempt in 1...3 {
      let (r, json) = try Self.signal("2008-01-10", state: dir + "/s.json", extra: command)
      #expect(r.status == 1 && json["changed"] as? Bool == true && json["previous"] is NSNull)
      #expect(r.stderr.hasPrefix("backtest: error: the --on-change command exited with status 3; "))
      #expect(r.stderr.contains(attempt < 3 ? "the next check tries again (attempt \(attempt) of 3)"
                                            : "giving up after 3 attempts: the change is saved and will not be sent again"), "\(r.stderr)")
    }
    let (r, json) = try Self.signal("2008-01-10", state: dir + "/s.json", extra: command)
    #expect(r.status == 0 && json["changed"] as? Bool == false)
    #expect(try String(contentsOfFile: dir + "/tries", encoding: .utf8) == "tried\ntried\ntried\n")
  }

  @Test("a stop hit on the newest bar for the journal's open trade: SELL with STOP_LOSS, while the backtest holds")
  func journalStop() throws {
    let dir = try CLI.temporaryFolder()
    // Entered at 566.40 on 2008-01-25: the stop (2%) is 555.07; 2008-01-28 opens at 570.97 and trades down to 548.60.
    try "entry_time,entry_price,shares,exit_time,exit_price,exit_reason,pnl,return,note\n2008-01-25,566.40,10,,,,,,\n"
      .write(toFile: dir + "/journal.csv", atomically: false, encoding: .utf8)
    let r = try CLI.run(["signal", "goog-swing.yaml", "--set", "data.end=2008-01-28", "--json", "--journal", dir + "/journal.csv"])
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    #expect(json["signal"] as? String == "SELL" && json["exit_reason"] as? String == "STOP_LOSS")
    #expect(json["reason"] as? String == "the bar traded down to the stop 555.07 (STOP_LOSS)")
    #expect((json["position"] as? [String: Any])?["source"] as? String == "user")
    let backtest = try CLI.run(["signal", "goog-swing.yaml", "--set", "data.end=2008-01-28", "--json"])
    let b = try #require(try JSONSerialization.jsonObject(with: Data(backtest.stdout.utf8)) as? [String: Any])
    #expect(b["signal"] as? String == "HOLD" && b["exit_reason"] is NSNull)
  }

  @Test("--on-change without --state, or a state file of another kind, is refused")
  func refusals() throws {
    let r = try CLI.run(["signal", "goog-swing.yaml", "--on-change", "true"])
    #expect(r.status == 64 && r.stderr.hasPrefix("backtest: error: --on-change needs --state FILE"))
    let dir = try CLI.temporaryFolder()
    try "{\"results\": []}\n".write(toFile: dir + "/other.json", atomically: false, encoding: .utf8)
    let other = try CLI.run(["signal", "goog-swing.yaml", "--state", dir + "/other.json"])
    #expect(other.status == 65 && other.stderr.contains("other.json:1:1: error: expected a signal state file"))
    #expect(try String(contentsOfFile: dir + "/other.json", encoding: .utf8) == "{\"results\": []}\n")
  }
}
