import Foundation
import Testing

@Suite(.serialized) struct LedgerCLITests {
  @Test("ledger reads the tracker's export with budgets and a split by owner, prints the months and writes every file")
  func export() throws {
    let out = try CLI.temporaryFolder()
    let r = try CLI.run(["ledger", "Data/tracker_export.json", "--budgets", "Data/tracker_budgets.yaml", "--by", "owner", "--out", out])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("2024-03   $6,710.18   $2,689.52   $4,020.66        59.92%"), "\(r.stdout)")
    #expect(r.stdout.contains("subscriptions     -$39.00   10  2024-03  2024-12 (active)      10"))
    #expect(r.stdout.contains("owner sam: income "))
    let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
    #expect(files == ["ledger.html", "ledger_budgets.csv", "ledger_categories.csv", "ledger_categories_by_owner.csv", "ledger_monthly.csv",
                      "ledger_monthly_by_owner.csv", "ledger_recurring.csv"])
    let monthly = try String(contentsOfFile: out + "/ledger_monthly.csv", encoding: .utf8)
    #expect(monthly.hasPrefix("month,income,expenses,net,savings_rate\n2024-01,"))
    let expected = try String(contentsOfFile: CLI.root + "/Tests/BacktestCoreTests/Fixtures/ledger/export_monthly.csv", encoding: .utf8)
    #expect(monthly.split(separator: "\n").count == expected.split(separator: "\n").count)
    let html = try String(contentsOfFile: out + "/ledger.html", encoding: .utf8)
    #expect(html.contains("id=\"income-expenses\"") && html.contains("id=\"categories\"") && html.contains("<h2>Owner: sam</h2>"))
    // One definition of a recurring item and of income against expenses, in the terminal, the page, the help and Docs/research.md.
    let recurring = "the same category and amount (to the cent) in 3 or more consecutive calendar months (a month without it ends the run; "
      + "more than one in a month counts once)"
    let signs = "income is the positive amounts, expenses the negative ones (as a positive number), whatever their category: "
      + "a refund entered as income is income, not less spending in its category"
    #expect(r.stdout.contains("recurring items (\(recurring)):\n"))
    #expect(html.contains("Recurring: \(recurring).") && html.contains(signs))
    let help = try CLI.run(["help", "ledger"]).stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
    #expect(help.contains(recurring) && help.contains(signs), "\(help)")
    let manual = try String(contentsOfFile: CLI.root + "/Docs/research.md", encoding: .utf8)
      .split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    #expect(manual.contains(recurring) && manual.contains(signs), "Docs/research.md states the ledger's rules in other words")
  }

  @Test("ledger refuses a split the file cannot give and a bad --by")
  func refusals() throws {
    let out = try CLI.temporaryFolder() + "/out"
    let r = try CLI.run(["ledger", "Data/ledger.csv", "--by", "account", "--out", out])
    #expect(r.status == 65 && r.stderr == "Data/ledger.csv: error: no transaction names an account; expected 'account' in the JSON export or an 'account' column\n")
    #expect(!FileManager.default.fileExists(atPath: out))
    let u = try CLI.run(["ledger", "Data/ledger.csv", "--by", "person"])
    #expect(u.status == 64 && u.stderr.hasPrefix("backtest: error: expected --by account or owner, found 'person'"))
  }
}
