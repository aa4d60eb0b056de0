import BacktestCore
import Foundation

/// The Indian mutual-fund API (mfapi.in): a scheme's NAV history at
/// `BASE/mf/CODE` and the scheme list at `BASE/mf`.
package enum MutualFundAPI {
  package static let defaultBase = "https://api.mfapi.in"

  /// A scheme's NAV history as the API serves it and `backtest funds` reads it.
  package struct Scheme: Sendable {
    /// `meta` as served (fund house, scheme type and category, code, name), in its order.
    package var meta: [(String, JSONValue)]
    /// NAVs newest first, the NAV text as served (`"43.5494"`).
    package var navs: [(day: Int, nav: String)]

    package init(meta: [(String, JSONValue)], navs: [(day: Int, nav: String)]) {
      self.meta = meta
      self.navs = navs
    }

    /// The API's JSON form: `{"meta": {…}, "data": [{"date": "DD-MM-YYYY", "nav": "…"}], "status": "SUCCESS"}`.
    package var json: String {
      JSONValue.object([
        ("meta", .object(meta)),
        ("data", .array(navs.map { .object([("date", .string(Self.apiDate($0.day))), ("nav", .string($0.nav))]) })),
        ("status", .string("SUCCESS")),
      ]).rendered() + "\n"
    }

    static func apiDate(_ day: Int) -> String {
      let c = CivilDate.components(days: day)
      return "\(CivilDate.pad(c.day, 2))-\(CivilDate.pad(c.month, 2))-\(CivilDate.pad(c.year, 4))"
    }

    /// This history with the NAVs of `fresh` on dates it does not have (its own are kept), newest first.
    package func merging(_ fresh: Scheme) -> (merged: Scheme, added: Int) {
      var byDay = Dictionary(navs.map { ($0.day, $0.nav) }, uniquingKeysWith: { a, _ in a })
      var added = 0
      for n in fresh.navs where byDay[n.day] == nil {
        byDay[n.day] = n.nav
        added += 1
      }
      let meta = fresh.meta.isEmpty ? self.meta : fresh.meta
      return (Scheme(meta: meta, navs: byDay.sorted { $0.key > $1.key }.map { (day: $0.key, nav: $0.value) }), added)
    }
  }

  /// One entry of the scheme list.
  package struct Listing: Sendable, Equatable {
    package var code: String
    package var name: String

    package init(code: String, name: String) {
      self.code = code
      self.name = name
    }
  }

  package static func schemeURL(base: String, code: String) -> String { "\(base)/mf/\(code)" }

  /// A page of the scheme list (`limit` schemes from `offset`).
  package static func listURL(base: String, limit: Int, offset: Int) -> String { "\(base)/mf?limit=\(limit)&offset=\(offset)" }

  /// Reads a scheme's response (or a file saved in its form).
  ///
  /// - Throws: `InputError` naming `file` and the place: malformed JSON (with the byte offset), no `data`
  ///   list, a date that is not DD-MM-YYYY, a NAV that is not a positive number, two NAVs on one date.
  package static func parseScheme(_ data: Data, file: String) throws -> Scheme {
    let root = try JSONReader.parse(data, file: file)
    guard root.members != nil else { throw InputError("expected an object with 'meta' and 'data' (the mutual-fund API's form), found \(root.typeDescription)", at: root.location) }
    guard let list = root["data"]?.array else {
      throw InputError("expected a 'data' list of {date, nav}", at: root["data"]?.location ?? root.location)
    }
    let meta = root["meta"]?.members?.map { ($0.key, $0.value.value) } ?? []
    var navs: [(day: Int, nav: String)] = []
    var seen = Set<Int>()
    for (k, entry) in list.enumerated() {
      guard let dateText = entry["date"]?.string, let day = NAVHistory.day(dateText) else {
        throw InputError("data[\(k)]: expected 'date' as DD-MM-YYYY, found \(entry["date"].map { $0.string.map { "'\(excerpt($0))'" } ?? $0.typeDescription } ?? "nothing")",
                         at: entry["date"]?.location ?? entry.location)
      }
      let navNode = entry["nav"]
      guard let text = navNode?.string ?? navNode.flatMap({ if case .number(let t) = $0.kind { t } else { nil } }),
        let nav = parseDecimal(text), BarCSVReader.priceRange.contains(nav)
      else {
        throw InputError("data[\(k)] (\(dateText)): expected a positive 'nav', found \(navNode.map { $0.string.map { "'\(excerpt($0))'" } ?? $0.typeDescription } ?? "nothing")",
                         at: navNode?.location ?? entry.location)
      }
      guard seen.insert(day).inserted else {
        throw InputError("data[\(k)]: a second NAV for \(dateText); expected one per date", at: entry.location)
      }
      navs.append((day, text))
    }
    return Scheme(meta: meta, navs: navs.sorted { $0.day > $1.day })
  }

  /// Reads a page of the scheme list: `[{"schemeCode": 100027, "schemeName": "…"}]`.
  package static func parseList(_ data: Data, file: String) throws -> [Listing] {
    try listings(try JSONReader.parse(data, file: file))
  }

  static func listings(_ root: JSONNode) throws -> [Listing] {
    guard let items = root.array else {
      throw InputError("expected a list of {schemeCode, schemeName}, found \(root.typeDescription)", at: root.location)
    }
    return try items.enumerated().map { k, item in
      let codeNode = item["schemeCode"]
      let code = codeNode?.string ?? codeNode.flatMap { if case .number(let t) = $0.kind { t } else { nil } }
      guard let code, !code.isEmpty, let name = item["schemeName"]?.string else {
        throw InputError("scheme \(k + 1): expected 'schemeCode' and 'schemeName'", at: item.location)
      }
      return Listing(code: code, name: name)
    }
  }

  /// The cached scheme list: `{"fetched": "YYYY-MM-DD", "base": …, "schemes": [{schemeCode, schemeName}]}`.
  package struct SchemeList: Sendable, Equatable {
    package var fetchedDay: Int
    package var base: String
    package var schemes: [Listing]

    package init(fetchedDay: Int, base: String, schemes: [Listing]) {
      self.fetchedDay = fetchedDay
      self.base = base
      self.schemes = schemes
    }

    package var json: String {
      JSONValue.object([
        ("fetched", .string(CivilDate.isoDate(days: fetchedDay))), ("base", .string(base)),
        ("schemes", .array(schemes.map { .object([("schemeCode", Int($0.code).map { .integer($0) } ?? .string($0.code)), ("schemeName", .string($0.name))]) })),
      ]).rendered() + "\n"
    }

    package static func parse(_ data: Data, file: String) throws -> SchemeList {
      let root = try JSONReader.parse(data, file: file)
      guard let fetched = root["fetched"]?.string, let day = parseDate(fetched), let base = root["base"]?.string, let list = root["schemes"] else {
        throw InputError("expected a cached scheme list with 'fetched', 'base' and 'schemes'; delete it or use --refresh", at: root.location)
      }
      return SchemeList(fetchedDay: day, base: base, schemes: try MutualFundAPI.listings(list))
    }

    /// Schemes whose code is `query`, or whose name holds every word of it (any case), in list order.
    package func search(_ query: String) -> [Listing] {
      let words = query.lowercased().split(whereSeparator: { $0 == " " || $0 == "-" }).map(String.init)
      return schemes.filter { s in
        s.code == query.trimmingSpaces() || (!words.isEmpty && words.allSatisfy { s.name.lowercased().contains($0) })
      }
    }
  }
}

/// What a scheme name says: fund house, category, plan and option, as mfapi's
/// list gives only the name (`HDFC Top 100 Fund - Direct Plan - Growth Option`).
///
/// Heuristic: the fund house is the longest known AMC name the scheme name starts
/// with (else its first word); the category the first keyword found (Liquid,
/// Large Cap, ELSS, Index, …); the plan `Direct` or `Regular`; the option
/// `Growth`, `IDCW` (also written Dividend, Payout, Reinvestment, or spelled out: Income
/// Distribution cum Capital Withdrawal) or `Bonus`.
/// Unknown parts are `nil`.
package struct SchemeNameInfo: Sendable, Equatable {
  package var fundHouse: String
  package var category: String?
  package var plan: String?
  package var option: String?

  static let houses = [
    "360 ONE", "Aditya Birla Sun Life", "Angel One", "Axis", "Bajaj Finserv", "Bandhan", "Bank of India", "Baroda BNP Paribas", "Baroda",
    "BOI AXA", "Canara Robeco", "DSP", "Edelweiss", "Franklin India", "Franklin", "Groww", "HDFC", "Helios", "HSBC", "ICICI Prudential",
    "IDBI", "IDFC", "IIFL", "Invesco India", "ITI", "JM", "Kotak", "L&T", "LIC MF", "LIC", "Mahindra Manulife", "Mirae Asset",
    "Motilal Oswal", "Navi", "Nippon India", "NJ", "Old Bridge", "Parag Parikh", "PGIM India", "PPFAS", "Principal", "quant", "Quantum",
    "Reliance", "Samco", "SBI", "Shriram", "Sundaram", "Tata", "Taurus", "Trust", "Union", "Unifi", "UTI", "WhiteOak Capital", "Zerodha",
  ]

  /// (keywords, category): the first entry with a keyword in the name wins, so specific ones come first.
  static let categories: [([String], String)] = [
    (["overnight"], "Overnight"), (["liquid"], "Liquid"), (["money market"], "Money Market"),
    (["ultra short"], "Ultra Short Duration"), (["low duration"], "Low Duration"), (["short duration", "short term"], "Short Duration"),
    (["medium to long"], "Medium to Long Duration"), (["medium duration", "medium term"], "Medium Duration"),
    (["long duration"], "Long Duration"), (["dynamic bond"], "Dynamic Bond"), (["corporate bond"], "Corporate Bond"),
    (["credit risk"], "Credit Risk"), (["banking and psu", "banking & psu", "banking & public sector"], "Banking and PSU"),
    (["gilt"], "Gilt"), (["floater", "floating rate"], "Floater"), (["arbitrage"], "Arbitrage"),
    (["balanced advantage", "dynamic asset allocation"], "Balanced Advantage"), (["equity savings"], "Equity Savings"),
    (["multi asset"], "Multi Asset Allocation"), (["aggressive hybrid", "equity hybrid", "hybrid equity"], "Aggressive Hybrid"),
    (["conservative hybrid", "hybrid debt", "regular savings", "monthly income"], "Conservative Hybrid"),
    (["elss", "tax saver", "taxsaver", "long term equity", "tax relief"], "ELSS"),
    (["index"], "Index"), (["etf"], "ETF"), (["fund of fund", "fof"], "Fund of Funds"),
    (["large & mid", "large and mid", "large & midcap"], "Large & Mid Cap"),
    (["large cap", "largecap", "bluechip", "blue chip", "top 100", "frontline"], "Large Cap"),
    (["mid cap", "midcap"], "Mid Cap"), (["small cap", "smallcap"], "Small Cap"), (["multi cap", "multicap"], "Multi Cap"),
    (["flexi cap", "flexicap"], "Flexi Cap"), (["focused", "focus"], "Focused"), (["dividend yield"], "Dividend Yield"),
    (["value"], "Value"), (["contra"], "Contra"),
    (["infrastructure", "banking", "financial services", "pharma", "healthcare", "technology", "digital", "consumption", "manufacturing",
      "psu", "thematic", "sector", "esg", "innovation"], "Sectoral/Thematic"),
    (["retirement", "pension"], "Retirement"), (["children", "child"], "Children's"),
    (["debt", "income", "bond"], "Debt (other)"), (["equity"], "Equity (other)"),
  ]

  package init(name: String) {
    let lower = " " + name.lowercased().map { $0.isLetter || $0.isNumber || $0 == "&" ? $0 : " " }.reduce(into: "") { $0.append($1) } + " "
    func has(_ word: String) -> Bool { lower.contains(" " + word + " ") }
    let house = Self.houses.filter { h in
      name.lowercased().hasPrefix(h.lowercased()) && (name.count == h.count || !name[name.index(name.startIndex, offsetBy: h.count)].isLetter)
    }.max { $0.count < $1.count }
    fundHouse = house ?? String(name.split(separator: " ").first ?? "")
    // IDCW spelled out: its "income" does not make a debt fund.
    let spelledIDCW = " income distribution cum capital withdrawal "
    let withoutIDCW = lower.replacingOccurrences(of: spelledIDCW, with: " ")
    // Without "Dividend Yield", "dividend" is an option.
    let withoutYield = lower.replacingOccurrences(of: " dividend yield ", with: " ")
    category = Self.categories.first { $0.0.contains { withoutIDCW.contains(" " + $0 + " ") } }?.1
    plan = has("direct") ? "Direct" : has("regular") ? "Regular" : nil
    if withoutIDCW != lower || ["idcw", "dividend", "payout", "reinvestment"].contains(where: { withoutYield.contains(" " + $0 + " ") }) {
      option = "IDCW"
    } else if has("growth") {
      option = "Growth"
    } else if has("bonus") {
      option = "Bonus"
    } else {
      option = nil
    }
  }
}
