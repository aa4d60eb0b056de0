import Foundation
import Testing

/// A one-node Slurm cluster of its own for one test, started and stopped by
/// `Tools/slurm/local-cluster.sh`; jobs are submitted with the scripts beside it.
struct LocalSlurm {
  static let tools = CLI.root + "/Tools/slurm"

  /// Whether Slurm is installed, or could be installed now (the helper installs it; it exits 69 when it cannot).
  static let available: Bool = {
    guard let r = try? CLI.run(["install"], executable: tools + "/local-cluster.sh") else { return false }
    if r.status != 0 { FileHandle.standardError.write(Data(r.stderr.utf8)) }
    return r.status != 69
  }()

  struct Job {
    var id: String, state: String, reason: String, exitCode: String
    var ended: Bool { !["PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "RESIZING", "SUSPENDED"].contains(state) }
  }

  let folder: String
  var environment: [String: String] { ["SLURM_CONF": folder + "/slurm.conf"] }

  /// Starts the cluster; it is stopped by `stop()`, or when this test process exits.
  init() throws {
    folder = try CLI.temporaryFolder() + "/cluster"
    let r = try CLI.run(["start", folder, "--until-exit", "\(ProcessInfo.processInfo.processIdentifier)"],
                        executable: Self.tools + "/local-cluster.sh")
    guard r.status == 0 else { throw Failure("local-cluster.sh start exited \(r.status): \(r.stderr)") }
  }

  func stop() {
    let r = try? CLI.run(["stop", folder], executable: Self.tools + "/local-cluster.sh")
    #expect(r?.status == 0, "local-cluster.sh stop: \(r?.stderr ?? "did not run")")
  }

  /// Runs a Slurm command (or a script beside this file's tools) against this cluster.
  func run(_ command: String, _ arguments: [String]) throws -> CLI.Result {
    try CLI.run([command] + arguments, environment: environment, executable: "/usr/bin/env")
  }

  /// Every job (each array task on its own) that `scontrol show job` knows under these ids.
  func jobs(_ ids: [String]) throws -> [Job] {
    try ids.flatMap { id in
      let r = try run("scontrol", ["show", "job", "-o", id])
      guard r.status == 0 else { throw Failure("scontrol show job \(id): \(r.stderr)") }
      return r.stdout.split(separator: "\n").map { line in
        let fields = Dictionary(line.split(separator: " ").compactMap { field -> (String, String)? in
          guard let eq = field.firstIndex(of: "=") else { return nil }
          return (String(field[..<eq]), String(field[field.index(after: eq)...]))
        }, uniquingKeysWith: { first, _ in first })
        let task = fields["ArrayTaskId"].map { "\(fields["ArrayJobId"] ?? "")_\($0)" }
        return Job(id: task ?? fields["JobId"] ?? "", state: fields["JobState"] ?? "", reason: fields["Reason"] ?? "",
                   exitCode: fields["ExitCode"] ?? "")
      }
    }
  }

  /// Waits until every job under these ids has ended (in any state) and returns them.
  func waitUntilEnded(_ ids: [String], seconds: Double = 180) throws -> [Job] {
    var jobs: [Job] = []
    try waitUntil("jobs \(ids) end", seconds: seconds) {
      jobs = try self.jobs(ids)
      return jobs.allSatisfy(\.ended)
    }
    return jobs
  }

  /// Polls `condition` every 20 ms, for at most `seconds`.
  func waitUntil(_ what: String, seconds: Double, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
      guard Date() < deadline else {
        let queue = (try? run("squeue", ["-o", "%i %T %r"]))?.stdout ?? ""
        throw Failure("timed out after \(seconds) s waiting until \(what); queue:\n\(queue)")
      }
      usleep(20_000)
    }
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
}

/// Each test starts a cluster of its own (own folder, ports and munge key), so the two run side by side;
/// most of their time is spent waiting for a requeued task's 11 s delay.
@Suite(.enabled(if: LocalSlurm.available, "the Slurm packages (slurmctld slurmd slurm-client munge) are missing and cannot be installed here"))
struct SlurmTests {
  static func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

  /// The array and merge job ids that `Tools/slurm/sweep.sh` prints.
  static func submit(_ cluster: LocalSlurm, out: String, _ extra: [String] = []) throws -> (array: String, merge: String) {
    let r = try cluster.run(LocalSlurm.tools + "/sweep.sh", ["--backtest", CLI.binary, CLI.root + "/Strategies/gpix-sweep.yaml", "4", out] + extra)
    let ids = Dictionary(r.stdout.split(separator: "\n").map { line in
      let parts = line.split(separator: " ")
      return (String(parts.first ?? ""), String(parts.last ?? ""))
    }, uniquingKeysWith: { first, _ in first })
    guard r.status == 0, let array = ids["array"], let merge = ids["merge"] else {
      throw LocalSlurm.Failure("sweep.sh exited \(r.status): \(r.stdout) \(r.stderr)")
    }
    return (array, merge)
  }

  /// sweep.md without its title line (the title names the run or the merge).
  static func report(_ folder: String) -> Substring {
    contents(folder + "/sweep.md").drop { $0 != "\n" }
  }

  @Test("a 4-shard job array and its merge give the single-machine results and ranking; a shard that fails requeues itself")
  func arrayAndMerge() throws {
    let cluster = try LocalSlurm()
    defer { cluster.stop() }
    let dir = try CLI.temporaryFolder(), out = dir + "/out"
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--out", dir + "/single", "--quiet"]).status == 0)
    // Shard 2 cannot make its folder at first: it fails, requeues itself, and succeeds once the way is clear.
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    try "in the way".write(toFile: out + "/shard-2", atomically: false, encoding: .utf8)
    let (array, merge) = try Self.submit(cluster, out: out)
    try cluster.waitUntil("shard 2 requeues itself", seconds: 120) { Self.contents(out + "/logs/shard-2.log").contains("requeueing") }
    try FileManager.default.removeItem(atPath: out + "/shard-2")

    let jobs = try cluster.waitUntilEnded([array, merge])
    #expect(jobs.count == 5 && Set(jobs.map(\.id)) == Set((0..<4).map { "\(array)_\($0)" } + [merge]), "\(jobs)")
    for job in jobs { #expect(job.state == "COMPLETED" && job.exitCode == "0:0", "\(job)") }
    let log = Self.contents(out + "/logs/shard-2.log")
    #expect(log.contains("failed (exit 1); requeueing") && log.contains("shard 2/4: attempt 2 on "), "\(log)")
    // --jobs comes from --cpus-per-task (1), not from the node's CPUs.
    #expect(Self.contents(out + "/logs/shard-0.log").contains("44 combinations run on 13,104 bars with 1 jobs"))
    #expect(Self.contents(out + "/logs/merge.log").contains("merged 180 combinations from 4 shards"))
    #expect(Self.contents(out + "/merged/results.csv") == Self.contents(dir + "/single/results.csv"))
    #expect(Self.report(out + "/merged").contains("## Top 10"))
    #expect(Self.report(out + "/merged") == Self.report(dir + "/single"))
  }

  @Test("a shard cancelled mid-run (scancel) and requeued resumes from its results.csv: nothing is lost or duplicated")
  func cancelAndRequeue() throws {
    let cluster = try LocalSlurm()
    defer { cluster.stop() }
    let dir = try CLI.temporaryFolder(), out = dir + "/out"
    // Bars enough for a shard to run a few seconds, so that it can be cancelled halfway. (Only the shards run on
    // them: merging recomputes every combination's daily returns, minutes in a debug build.)
    #expect(try CLI.run(["synth", "--bars", "150000", "--out", dir + "/bars.csv"]).status == 0)
    let set = ["--set", "data.bars=" + dir + "/bars.csv"]
    let (array, merge) = try Self.submit(cluster, out: out, set)

    let results = out + "/shard-1/results.csv"
    try cluster.waitUntil("shard 1 has 3 results", seconds: 120) { Self.contents(results).split(separator: "\n").count >= 4 }
    #expect(try cluster.run("scancel", ["\(array)_1"]).status == 0)
    try cluster.waitUntil("shard 1 is cancelled", seconds: 60) { try cluster.jobs(["\(array)_1"]).first?.state == "CANCELLED" }
    // Whole lines only: a line cut by the signal is dropped on resume.
    let kept = Self.contents(results).split(separator: "\n", omittingEmptySubsequences: false).dropFirst().dropLast().count
    #expect(kept >= 3 && kept < 44, "shard 1 had \(kept) of its 44 results when cancelled")
    #expect(try cluster.run("scontrol", ["requeue", "\(array)_1"]).status == 0)
    // Meanwhile, the same shard uninterrupted, on this machine.
    #expect(try CLI.run(["sweep", "gpix-sweep.yaml", "--shard", "1/4", "--out", dir + "/single-1", "--quiet"] + set).status == 0)

    let tasks = try cluster.waitUntilEnded([array])
    #expect(tasks.count == 4, "\(tasks)")
    for task in tasks { #expect(task.state == "COMPLETED" && task.exitCode == "0:0", "\(task)") }
    let log = Self.contents(out + "/logs/shard-1.log")
    #expect(log.contains("shard 1/4: stopped by SIGTERM") && log.contains("shard 1/4: attempt 2 on "), "\(log)")
    #expect(log.contains("\(44 - kept) combinations run, \(kept) resumed on 150,000 bars"), "\(log)")
    #expect(Self.contents(results) == Self.contents(dir + "/single-1/results.csv"))
    // Slurm keeps the cancelled task's failure on the array: the merge's afterok can no longer be met,
    // and the merge is cancelled rather than left pending (it is submitted again by hand; see Docs/cluster.md).
    let first = try cluster.waitUntilEnded([merge])
    #expect(first.map(\.state) == ["CANCELLED"] && first.map(\.reason) == ["DependencyNeverSatisfied"], "\(first)")
  }
}
