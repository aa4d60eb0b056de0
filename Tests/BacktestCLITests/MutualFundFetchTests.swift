import BacktestCore
import BacktestRun
import Foundation
import Testing

/// `backtest fetch mf` and `backtest funds search` against a local server.
@Suite(.serialized) struct MutualFundFetchTests {
  /// A scheme response with NAVs on `days` (newest first as the API sends them), NAV = 100 + k / 10 (or `nav`).
  static func scheme(_ days: [String], nav: (Int) -> String = { "\(100 + Double($0) / 10)" }) -> String {
    let data = days.enumerated().reversed().map { k, d in "{\"date\": \"\(d)\", \"nav\": \"\(nav(k))\"}" }
    return "{\"meta\": {\"fund_house\": \"Sample AMC\", \"scheme_type\": \"Open Ended Schemes\", \"scheme_category\": \"Equity Scheme - Flexi Cap Fund\", "
      + "\"scheme_code\": 119551, \"scheme_name\": \"Sample Flexi Cap Fund - Direct Plan - Growth\"}, \"data\": [\(data.joined(separator: ", "))], \"status\": \"SUCCESS\"}"
  }

  func fetch(_ server: LocalHTTPServer, out: String) throws -> CLI.Result {
    try CLI.run(["fetch", "mf", "119551", "--out", out, "--base-url", server.baseURL, "--rate", "6000", "--backoff", "0.05"])
  }

  @Test("fetch mf writes the API's JSON that funds reads; a second fetch merges only the NAVs of new dates")
  func fetchAndMerge() throws {
    let server = try LocalHTTPServer { _, index in
      index == 0 ? .init(status: 200, body: Self.scheme(["01-04-2024", "02-04-2024", "03-04-2024"]))
        // The server now also sends a revised NAV for 03-04-2024: the file keeps the one it has.
        : .init(status: 200, body: Self.scheme(["02-04-2024", "03-04-2024", "04-04-2024", "05-04-2024"], nav: { "\(200 + $0)" }))
    }
    defer { server.stop() }
    let out = try CLI.temporaryFolder() + "/funds/119551.json"
    var r = try fetch(server, out: out)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(server.requests == ["/mf/119551"])
    #expect(r.stdout == "fetched 3 NAVs of Sample Flexi Cap Fund - Direct Plan - Growth; wrote 3 new NAV(s) into \(out) (3 in all, to 2024-04-03)\n")
    r = try fetch(server, out: out)
    #expect(r.stdout.contains("; merged 2 new NAV(s) into \(out) (5 in all, to 2024-04-05)"), "\(r.stdout)")
    let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as! [String: Any]
    let data = saved["data"] as! [[String: String]]
    #expect(data.map { $0["date"]! } == ["05-04-2024", "04-04-2024", "03-04-2024", "02-04-2024", "01-04-2024"])
    #expect(data.map { $0["nav"]! } == ["203", "202", "100.2", "100.1", "100.0"])
    #expect((saved["meta"] as? [String: Any])?["scheme_code"] as? Int == 119551 && saved["status"] as? String == "SUCCESS")
    let funds = try CLI.run(["funds", out])
    #expect(funds.status == 0 && funds.stdout.contains("Sample Flexi Cap Fund - Direct Plan - Growth  203.0000"), "\(funds.stdout)")
  }

  @Test("a 500 is retried and the next answer used; a malformed body is exit 65 with its byte offset, and no file")
  func failures() throws {
    let flaky = try LocalHTTPServer { _, index in
      index == 0 ? .init(status: 500, body: "oops") : .init(status: 200, body: Self.scheme(["01-04-2024"]))
    }
    defer { flaky.stop() }
    let out = try CLI.temporaryFolder() + "/f.json"
    let r = try fetch(flaky, out: out)
    #expect(r.status == 0 && flaky.requests.count == 2, "\(r.stderr)")

    let broken = try LocalHTTPServer { _, _ in .init(status: 200, body: "{\"meta\": {}, \"data\": [{\"date\": \"01-04-2024\" \"nav\": \"1\"}]}") }
    defer { broken.stop() }
    let other = try CLI.temporaryFolder() + "/g.json"
    let b = try fetch(broken, out: other)
    #expect(b.status == 65)
    #expect(b.stderr == "\(broken.baseURL)/mf/119551:1:45: error: malformed JSON at byte 44: expected ',' or '}' after a member, found '\"'\n")
    #expect(!FileManager.default.fileExists(atPath: other))

    let unknown = try LocalHTTPServer { _, _ in .init(status: 200, body: "{\"meta\": {}, \"data\": [], \"status\": \"SUCCESS\"}") }
    defer { unknown.stop() }
    let u = try fetch(unknown, out: other)
    #expect(u.status == 65 && u.stderr.contains("error: no NAVs for scheme 119551; expected a known scheme code"))
  }

  @Test("funds search pages through the scheme list, caches it with its date, and reads plan and option from the names")
  func search() throws {
    // A first page of 5,000 (the page size) and a short second page.
    let names = (0..<5_000).map { "{\"schemeCode\": \(100_000 + $0), \"schemeName\": \"Filler Fund \($0) - Regular Plan - Growth\"}" }
    let last = ["{\"schemeCode\": 122639, \"schemeName\": \"Parag Parikh Flexi Cap Fund - Direct Plan - Growth\"}",
                "{\"schemeCode\": 122640, \"schemeName\": \"Parag Parikh Flexi Cap Fund - Regular Plan - IDCW\"}",
                "{\"schemeCode\": 118955, \"schemeName\": \"HDFC Flexi Cap Fund - Growth Option - Direct Plan\"}"]
    let server = try LocalHTTPServer { path, _ in
      path.hasSuffix("offset=0") ? .init(status: 200, body: "[" + names.joined(separator: ",") + "]") : .init(status: 200, body: "[" + last.joined(separator: ",") + "]")
    }
    defer { server.stop() }
    let cache = try CLI.temporaryFolder() + "/cache/schemes.json"
    let arguments = ["funds", "search", "flexi", "cap", "direct", "--cache", cache, "--base-url", server.baseURL, "--rate", "6000"]
    let r = try CLI.run(arguments)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(server.requests == ["/mf?limit=5000&offset=0", "/mf?limit=5000&offset=5000"])
    #expect(r.stdout.contains("122639  Parag Parikh  Flexi Cap  Direct  Growth  Parag Parikh Flexi Cap Fund - Direct Plan - Growth\n"), "\(r.stdout)")
    #expect(r.stdout.contains("118955  HDFC          Flexi Cap  Direct  Growth  HDFC Flexi Cap Fund - Growth Option - Direct Plan\n"))
    #expect(!r.stdout.contains("122640"))
    let today = CivilDate.isoDate(days: CivilDate.day(ofSeconds: Int64(Date().timeIntervalSince1970)))
    #expect(r.stdout.contains("2 of 5003 schemes match 'flexi cap direct'; scheme list of \(today), fetched now"))
    // From the cache: no request.
    let again = try CLI.run(["funds", "search", "IDCW", "--cache", cache, "--base-url", server.baseURL])
    #expect(server.requests.count == 2)
    #expect(again.stdout.contains("122640  Parag Parikh  Flexi Cap  Regular  IDCW  ") && again.stdout.contains("(cached in \(cache); --refresh to fetch it again)"))
    let refreshed = try CLI.run(arguments + ["--refresh"])
    #expect(refreshed.status == 0 && server.requests.count == 4)
  }
}
