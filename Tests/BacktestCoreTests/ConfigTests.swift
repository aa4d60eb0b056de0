import BacktestCore
import BacktestRun
import Foundation
import Testing

func yamlError(_ text: String) -> String? {
  do { _ = try YAMLReader.parse(text, file: "c.yaml"); return nil } catch { return "\(error)" }
}

func configError(_ text: String, overrides: [String] = []) -> String? {
  do { _ = try RunConfig.parse(text, file: "Strategies/c.yaml", overrides: overrides); return nil } catch { return "\(error)" }
}

@Suite struct YAMLTests {
  @Test("block and flow mappings, sequences at the parent's indentation, quotes and comments")
  func structures() throws {
    let doc = try YAMLReader.parse("""
      # a comment
      name: "gpix # not a comment"
      data: {bars: x.csv, session: "09:30-16:00"}
      list:
      - 1
      - [a, 'b c']
      nested:
        deeper:
          key: value   # trailing comment
        items:
          - {k: v}
          - name: x
            size: 2
      empty:
      """, file: "c.yaml")
    let t = try ConfigTable(doc, path: "")
    #expect(try t.string("name") == "gpix # not a comment")
    #expect(try t.table("data").string("session") == "09:30-16:00")
    guard case .sequence(let list) = t.node("list")!.kind else { Issue.record("list"); return }
    #expect(list.count == 2)
    guard case .sequence(let inner) = list[1].kind else { Issue.record("inner list"); return }
    #expect(inner.map(\.kind) == [.scalar("a", quoted: false), .scalar("b c", quoted: true)])
    #expect(list[0].kind == .scalar("1", quoted: false) && list[0].location.line == 5)
    let nested = try t.table("nested")
    #expect(try nested.table("deeper").string("key") == "value")
    guard case .sequence(let items) = nested.node("items")!.kind, case .mapping(let second) = items[1].kind else {
      Issue.record("items"); return
    }
    #expect(second.map(\.key) == ["name", "size"])
    #expect(t.node("empty") == nil && t.contains("empty"))
  }

  @Test("refused constructs name their line and column", arguments: [
    ("a:\n\tb: 1\n", "c.yaml:2:1: error: a tab in the indentation; expected spaces (YAML forbids tabs for indentation)"),
    ("a: 1\na: 2\n", "c.yaml:2:1: error: duplicate key 'a' (first written on line 1); expected each key once"),
    ("a: &x 1\n", "c.yaml:1:4: error: anchors and aliases ('&', '*') are not supported; expected a plain value"),
    ("a: !!int 1\n", "c.yaml:1:4: error: tags ('!') are not supported; expected a plain value"),
    ("a: [|]\n", "c.yaml:1:5: error: a block scalar ('|', '>') must be the whole value of a key or list item; expected a quoted string here"),
    ("a: |2\n  text\n", "c.yaml:1:4: error: expected '|', '|-' or '|+' to start a block scalar (indentation indicators are not supported), found '|2'"),
    ("a: >\n    x\n  y\n", "c.yaml:3:3: error: a line of a block scalar indented less than its first line; expected 4 spaces, found 2"),
    ("---\na: 1\n", "c.yaml:1:1: error: directives and document markers ('---', '...', '%') are not supported; expected one document"),
    ("a: \"open\n", "c.yaml:1:4: error: unclosed quote; expected a closing \" before the end of the line"),
    ("a: [1, 2\n", "c.yaml:1:4: error: unclosed '['; expected ']' before the end of the line (flow lists must fit on one line)"),
    ("a: {b: 1\n", "c.yaml:1:4: error: unclosed '{'; expected '}' before the end of the line (flow mappings must fit on one line)"),
    ("a: 1\n  b: 2\n", "c.yaml:2:3: error: unexpected indentation; 'a' already has a value on line 1"),
    ("just text\n", "c.yaml:1:1: error: expected 'key: value', found 'just text'"),
    ("a: b: c\n", "c.yaml:1:5: error: unexpected ': ' in a value; quote the value or put the mapping on its own lines"),
  ])
  func refused(_ text: String, _ message: String) {
    #expect(yamlError(text) == message)
  }

  @Test("block scalars: literal keeps line breaks, folded joins lines, chomping, '#' is text")
  func blockScalars() throws {
    let doc = try YAMLReader.parse("""
      lit: |
        a # b

          c
      fold: >-
        one
        two

        three
          four
        five
      keep: |+
        x

      list:
        - >
          item
      end: 1
      """ + "\n", file: "c.yaml")
    let t = try ConfigTable(doc, path: "")
    #expect(try t.string("lit") == "a # b\n\n  c\n")
    #expect(try t.string("fold") == "one two\nthree\n  four\nfive")
    #expect(try t.string("keep") == "x\n\n")
    #expect(try t.stringList("list", default: []) == ["item\n"])
    #expect(try t.int("end", in: 0...9) == 1)
  }

  @Test("a scalar knows where each of its characters was written: plain, quoted with escapes, block")
  func scalarPlaces() throws {
    let doc = try YAMLReader.parse("a:   x + y\nb: \"p\\/q r\"\nc: >\n    one\n\n    two\n", file: "c.yaml")
    let t = try ConfigTable(doc, path: "")
    func place(_ key: String, _ offset: Int) -> String {
      let l = t.node(key)!.location(ofCharacter: offset)
      return "\(l.line):\(l.column)"
    }
    #expect(place("a", 0) == "1:6" && place("a", 4) == "1:10")
    // "p/q r": the escape takes two columns for one character.
    #expect(place("b", 0) == "2:5" && place("b", 2) == "2:8" && place("b", 4) == "2:10")
    // "one\ntwo\n"
    #expect(place("c", 1) == "4:6" && place("c", 4) == "6:5")
    #expect(t.node("a")!.markedLine(atCharacter: 4, width: 1) == "    1 | a:   x + y\n      |          ^")
    #expect(t.node("c")!.markedLine(atCharacter: 4, width: 3) == "    6 |     two\n      |     ^^^")
    // An override's value points into the whole --set text.
    let set = try ConfigOverride("strategy.entry=close > 2").apply(to: doc)
    let value = try ConfigTable(set, path: "").table("strategy").node("entry")!
    #expect(value.location(ofCharacter: 8) == SourceLocation(file: "--set strategy.entry=close > 2", line: 1, column: 24))
    #expect(value.markedLine(atCharacter: 8, width: 1) == "    1 | strategy.entry=close > 2\n      |                        ^")
  }

  @Test("nesting deeper than the limit is refused, not a stack overflow")
  func deepNesting() {
    let flow = "a: " + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "\n"
    #expect(yamlError(flow)?.contains("nesting deeper than 64 levels") == true)
    var block = ""
    for depth in 0..<200 { block += String(repeating: " ", count: depth * 2) + "k\(depth):\n" }
    #expect(yamlError(block)?.contains("nesting deeper than 64 levels") == true)
  }
}

@Suite struct RunConfigTests {
  static let base = """
    name: t
    data: {bars: ../Data/GOOG.csv}
    strategy:
      type: bollinger_rsi
      bollinger: {period: 20, std_dev: 2.0}
      stop_loss: 2%
    """

  @Test("defaults, percentages and relative paths")
  func reads() throws {
    let c = try RunConfig.parse(Self.base, file: "Strategies/c.yaml")
    #expect(c.data.bars == "Data/GOOG.csv")
    #expect(c.report.out == "Reports/t")
    #expect(c.broker == BrokerSettings())
    #expect(c.strategy.parameterSummary.first { $0.name == "stop_loss" }?.value == "2%")
    #expect(c.report.formats == [.csv, .json, .markdown, .html])
  }

  @Test("unknown keys are errors with a suggestion", arguments: [
    ("name: t\ndata: {bars: x.csv}\nstrategy:\n  type: bollinger_rsi\n  stop_los: 2%\n",
     "Strategies/c.yaml:5:3: error: unknown key 'stop_los' in 'strategy'; did you mean 'stop_loss'?"),
    ("name: t\ndata: {bars: x.csv, timezon: UTC}\nstrategy: {type: bollinger_rsi}\n",
     "Strategies/c.yaml:2:21: error: unknown key 'timezon' in 'data'; did you mean 'timezone'?"),
    ("name: t\ndata: {bars: x.csv}\nstrategy: {type: bollinger_rsi, bollinger: {perod: 3}}\n",
     "Strategies/c.yaml:3:45: error: unknown key 'perod' in 'strategy.bollinger'; did you mean 'period'?"),
    ("name: t\ndata: {bars: x.csv}\nstrategy: {type: bolinger_rsi}\n",
     "Strategies/c.yaml:3:18: error: unknown strategy 'bolinger_rsi'; did you mean 'bollinger_rsi'?; expected one of bollinger_rsi, sma_cross, buy_and_hold, rules, signals"),
    ("nme: t\ndata: {bars: x.csv}\nstrategy: {type: bollinger_rsi}\n",
     "Strategies/c.yaml:1:1: error: unknown key 'nme'; did you mean 'name'?"),
  ])
  func unknownKeys(_ text: String, _ message: String) {
    #expect(configError(text) == message)
  }

  @Test("wrong types and ranges name the key and what was expected", arguments: [
    ("strategy.stop_loss=2", "--set strategy.stop_loss=2:1:20: error: expected a fraction between 0 and 1 like 0.02 or 2% for 'strategy.stop_loss', found 2; did you mean 2%?"),
    ("strategy.rsi.period=abc", "--set strategy.rsi.period=abc:1:21: error: expected an integer from 2 to 100000 for 'strategy.rsi.period', found 'abc'"),
    ("strategy.rsi.oversold=120", "--set strategy.rsi.oversold=120:1:23: error: expected a number from 0 to 100 for 'strategy.rsi.oversold', found 120"),
    ("portfolio.initial_cash=[1]", "--set portfolio.initial_cash=[1]:1:24: error: expected an amount > 0 for 'portfolio.initial_cash', found a list"),
    ("data.timezone=Mars/Base", "--set data.timezone=Mars/Base:1:15: error: expected an IANA time zone such as America/New_York or UTC for 'data.timezone', found 'Mars/Base'"),
    ("data.session=9-5", "--set data.session=9-5:1:14: error: expected regular, all or a window like \"09:30-16:00\" for 'data.session', found '9-5'"),
    ("portfolio.commission=2", "--set portfolio.commission=2:1:22: error: expected 0, {per_trade: 1.0}, {per_share: 0.005} or {percent: 0.1%} for 'portfolio.commission', found '2'"),
    ("report.formats=[csv, pdf]", "--set report.formats=[csv, pdf]:1:16: error: unknown report format 'pdf'; expected some of csv, json, markdown, html"),
    ("strategy.stop_los=2%", "--set strategy.stop_los=2%:1:1: error: unknown key 'stop_los' in 'strategy'; did you mean 'stop_loss'?"),
    ("stop_loss", "--set stop_loss:1:1: error: expected --set key.path=value, found 'stop_loss'"),
    // A bare expense ratio above 0.2 is as likely 0.35% as 35% (the ETF trackers store 0.35): refused, both readings shown.
    ("portfolio.expense_ratio=0.35", "--set portfolio.expense_ratio=0.35:1:25: error: expected an annual fraction from 0 up to but not including 1 (0.35% or 0.0035) for 'portfolio.expense_ratio', found 0.35, which reads as 35% as a fraction or as 0.35% (= 0.0035) as a percentage; a bare number above 0.2 is ambiguous here: write 0.35% or 35%"),
  ])
  func badValues(_ override: String, _ message: String) {
    #expect(configError(Self.base, overrides: [override]) == message)
  }

  @Test("--set short names: a parameter's short name or its path inside strategy, as sweep files name it; a misspelt one is refused with the names")
  func setShortNames() throws {
    func parameters(_ overrides: [String]) throws -> BollingerRSI.Parameters {
      try RunConfig.parse(Self.base, file: "Strategies/c.yaml", overrides: overrides).strategy.parameters as! BollingerRSI.Parameters
    }
    #expect(try parameters(["oversold=25"]).oversold == 25)
    #expect(try parameters(["bb_period=10"]).bollingerPeriod == 10)
    #expect(try parameters(["rsi.period=7"]).rsiPeriod == 7)
    #expect(try parameters(["oversold=25"]) == parameters(["strategy.rsi.oversold=25"]))
    #expect(configError(Self.base, overrides: ["oversld=25"]) == "--set oversld=25:1:1: error: unknown key 'oversld'; did you mean 'oversold'?; expected a key path such as strategy.stop_loss or a parameter of the strategy: bb_period, bb_std, rsi_period, oversold, overbought, stop_loss, profit_target")
    // A rule's params by their bare names.
    let rule = "name: t\ndata: {bars: ../Data/GOOG.csv}\nstrategy:\n  type: rules\n  params: {n: 20}\n  entry: close > sma(close, n)\n"
    let config = try RunConfig.parse(rule, file: "Strategies/c.yaml", overrides: ["n=50"])
    #expect(config.strategy.parameterSummary.contains { $0.name == "params.n" && $0.value == "50" })
    // A portfolio run file has no short names: a stray key is refused as unknown, not as a strategy this command cannot run.
    let portfolio = try String(contentsOfFile: Repo.path("Strategies/three-fund.yaml"), encoding: .utf8)
    #expect(throws: InputError("unknown key 'rebalnce'; expected a key path such as strategy.stop_loss",
                               at: SourceLocation(file: "--set rebalnce=monthly", line: 1, column: 1))) {
      try AnyRunConfig.parse(portfolio, file: "Strategies/three-fund.yaml", overrides: ["rebalnce=monthly"])
    }
  }

  @Test("paths: a run file's are its folder's, the command line's the current folder's; bars from the command line drop the run file's description")
  func pathsFromTheCommandLine() throws {
    let text = "name: t\ndata: {bars: ../Data/GOOG.csv, description: SYNTHETIC bars, dividends: d.csv}\nstrategy: {type: bollinger_rsi}\njournal: j.csv\n"
    let file = try RunConfig.parse(text, file: "Strategies/c.yaml")
    #expect(file.data.bars == "Data/GOOG.csv" && file.data.dividends == "Strategies/d.csv" && file.journal == "Strategies/j.csv")
    #expect(file.data.description == "SYNTHETIC bars" && file.report.out == "Reports/t")
    let set = try RunConfig.parse(text, file: "Strategies/c.yaml",
                                  overrides: ["data.bars=mydata/ACME.csv", "data.dividends=mydata/div.csv", "report.out=out/acme"])
    #expect(set.data.bars == "mydata/ACME.csv" && set.data.dividends == "mydata/div.csv" && set.report.out == "out/acme")
    #expect(set.data.description == nil, "the run file's description is of its own bars")
    let described = try RunConfig.parse(text, file: "Strategies/c.yaml", overrides: ["data.bars=mydata/ACME.csv", "data.description=ACME daily"])
    #expect(described.data.description == "ACME daily")
    // Other overrides keep the description.
    #expect(try RunConfig.parse(text, file: "Strategies/c.yaml", overrides: ["oversold=25"]).data.description == "SYNTHETIC bars")
  }

  @Test("--set overrides any value, including nested and new keys")
  func overrides() throws {
    let c = try RunConfig.parse(Self.base, file: "Strategies/c.yaml", overrides: [
      "strategy.stop_loss=1.5%", "data.bars=other.csv", "strategy.rsi.period=7", "strategy.profit_target=0.03",
      "portfolio={initial_cash: 5000, sizing: {fraction: 50%}, commission: {per_share: 0.01}}",
    ])
    #expect(c.data.bars == "other.csv", "a path given on the command line is the current folder's")
    let p = Dictionary(uniqueKeysWithValues: c.strategy.parameterSummary.map { ($0.name, $0.value) })
    #expect(p["stop_loss"] == "1.5%" && p["rsi.period"] == "7" && p["profit_target"] == "3%")
    #expect(c.broker.initialCash == 5000 && c.broker.sizing == .fraction(0.5) && c.broker.commission == .perShare(0.01))
  }

  @Test("sizing by risk, volatility target and fixed cash; their mistakes named")
  func sizings() throws {
    func sizing(_ value: String, _ more: [String] = []) throws -> Sizing {
      try RunConfig.parse(Self.base, file: "Strategies/c.yaml", overrides: ["portfolio.sizing=" + value] + more).broker.sizing
    }
    #expect(try sizing("{risk: 1%}") == .risk(0.01))
    #expect(try sizing("{volatility_target: 15%}") == .volatilityTarget(0.15, lookback: 20))
    #expect(try sizing("{volatility_target: 0.2, lookback: 60}") == .volatilityTarget(0.2, lookback: 60))
    #expect(try sizing("{fixed_cash: 2500}") == .fixedCash(2500))
    func message(_ value: String, _ more: [String] = []) -> String? {
      do { _ = try sizing(value, more); return nil } catch { return (error as? InputError)?.message }
    }
    #expect(message("{risk: 1%}", ["strategy.stop_loss=none"])?.contains("stop_loss is none") == true)
    #expect(message("{risk: 1%, fixed_cash: 10}")?.hasPrefix("expected exactly one of fixed_shares, fraction, risk") == true)
    #expect(message("{fraction: 50%, lookback: 5}")?.contains("'portfolio.sizing.lookback' goes with volatility_target") == true)
    #expect(message("{volatility_target: 15%, lookback: 1}") != nil)
    #expect(message("{fixed_cash: -5}")?.contains("an amount > 0") == true)
    #expect(message("{risk: 150%}")?.contains("expected a fraction of the equity in (0, 1] for 'portfolio.sizing.risk', found 150%") == true)
  }

  @Test("stop_loss: none disables the stop")
  func noStop() throws {
    let c = try RunConfig.parse(Self.base, file: "Strategies/c.yaml", overrides: ["strategy.stop_loss=none"])
    #expect(c.strategy.parameterSummary.first { $0.name == "stop_loss" }?.value == "none")
  }

  @Test("paths resolve against the run file's folder, lexically")
  func paths() {
    #expect(resolvePath("../Data/x.csv", relativeTo: "Strategies") == "Data/x.csv")
    #expect(resolvePath("/abs/x.csv", relativeTo: "Strategies") == "/abs/x.csv")
    #expect(resolvePath("x.csv", relativeTo: "") == "x.csv")
    #expect(resolvePath("../../x.csv", relativeTo: "a") == "../x.csv")
  }

  @Test("every shipped run file parses and names existing input files")
  func shipped() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Repo.path("Strategies")).filter { $0.hasSuffix(".yaml") }
    #expect(files.contains("gpix.yaml"))
    for f in files {
      let path = Repo.path("Strategies/" + f)
      let text = try String(contentsOfFile: path, encoding: .utf8)
      if text.contains("\nholdings:") || text.contains("\nuniverse:") { continue }  // research files, tested in ResearchTests
      let barFiles: [String]
      if text.contains("\nsweep:") {
        let (root, settings) = try SweepRunner.parse(text, file: path)
        #expect(!SweepPlan.combinations(settings).isEmpty)
        barFiles = try AnyRunConfig.parse(document: root, file: path).inputFiles
      } else {
        barFiles = try AnyRunConfig.parse(text, file: path).inputFiles
      }
      for file in barFiles { #expect(FileManager.default.fileExists(atPath: file), "\(f): \(file)") }
    }
  }
}

@Suite struct YAMLMessageTests {
  @Test("a flow mapping continued on the next line says it is unclosed (it used to say 'expected a key')")
  func multiLineFlow() {
    #expect(yamlError("a: {b: 1,\n   c: 2}\n") == "c.yaml:1:4: error: unclosed '{'; expected '}' before the end of the line (flow mappings must fit on one line; use block style for long ones)")
  }
}
