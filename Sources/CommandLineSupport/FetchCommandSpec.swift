import BacktestCore
import PersonalFinance

extension CommandSpec {
  /// `backtest fetch`: here rather than with the other commands because two
  /// executables read it: `backtest-fetch` parses with it, and `backtest`
  /// (which does not link the download code) shows its help and completions.
  package static let fetch = CommandSpec(
    "fetch", summary: "download bars from Polygon, a series from FRED or (fetch mf) a mutual fund's NAVs, adding only what is new",
    arguments: [ArgumentSpec("SYMBOL", "the ticker (GPIX) or, with --source fred, the series (UNRATE, GDPC1)")],
    options: [
      .option("from", "DATE", "first day, YYYY-MM-DD", required: true),
      .option("to", "DATE", "last day, YYYY-MM-DD", required: true),
      .option("out", "FILE", "the CSV to write, or to append the new bars to", required: true, completion: .file),
      .option("source", "NAME", "where from", default: .value("polygon"), completion: .choices(["polygon", "fred"])),
      .option("interval", "LENGTH", "bar length, like 1min, 30min, 1h or 1d", default: .value("30min")),
      .option("timezone", "TZ", "the IANA time zone the CSV's timestamps are written in", default: .value("America/New_York")),
      .option("rate", "N", "at most N requests a minute, from 0.01 (Polygon's free tier allows 5)", default: .value("5")),
      .option("retries", "N", "retries (up to 100) of a request answered 429 or 5xx, with exponential backoff", default: .value("5")),
      .option("backoff", "SECONDS", "the first retry's wait, doubled each time (Retry-After wins)", default: .value("2")),
      .option("base-url", "URL", "the API's address",
              default: .described("https://api.polygon.io, or https://api.stlouisfed.org with --source fred")),
      .flag("quiet", "print nothing on success"),
    ],
    subcommands: [mutualFund],
    details: "The API key comes from POLYGON_API_KEY (or FRED_API_KEY with --source fred) and is never printed or written. Pages are followed to the end (at most 1000, or 100 from FRED; a next_url seen before is refused), with progress on stderr when it takes a while; the bars are sorted, checked as every run checks them, and only those newer than the file's last one are appended. FRED series are written as the FRED CSV the cycle filter reads. \(limitsNote)",
    examples: [
      "fetch GPIX --interval 30min --from 2024-01-01 --to 2024-06-30 --out Data/gpix_30min.csv",
      "fetch UNRATE --source fred --from 1990-01-01 --to 2024-12-31 --out Data/UNRATE.csv",
      "fetch mf 122639 --out Data/funds/ppfas.json",
    ])

  /// What every fetching command's help says of the limits of one request.
  static let limitsNote = "Each request must end within 60 s (BACKTEST_FETCH_TIMEOUT=SECONDS sets another time, from 0.1 to 3600) and its answer hold at most 64 MB; neither is retried."

  /// The options of every request to mfapi.in (`fetch mf`, `funds search`).
  static let mutualFundClientOptions: [OptionSpec] = [
    .option("base-url", "URL", "the API's address", default: .value(MutualFundAPI.defaultBase)),
    .option("rate", "N", "at most N requests a minute, from 0.01", default: .value("30")),
    .option("retries", "N", "retries (up to 100) of a request answered 429 or 5xx, with exponential backoff", default: .value("5")),
    .option("backoff", "SECONDS", "the first retry's wait, doubled each time (Retry-After wins)", default: .value("2")),
  ]

  /// `backtest fetch mf SCHEME_CODE`.
  package static let mutualFund = CommandSpec(
    "mf", summary: "a mutual fund's NAV history from mfapi.in, in the JSON funds reads, merging only new NAVs",
    arguments: [ArgumentSpec("SCHEME_CODE", "the scheme's number (find it with: funds search NAME)")],
    options: [.option("out", "FILE.json", "the JSON to write, or to merge the NAVs of new dates into", required: true, completion: .file)]
      + mutualFundClientOptions + [.flag("quiet", "print nothing on success")],
    details: "No key is needed. The file is the API's own JSON (meta and data, newest first); a NAV the file already has for a date is kept. The file is written atomically. \(limitsNote)",
    examples: ["fetch mf 122639 --out Data/funds/ppfas.json", "fetch mf 119551 --out Data/funds/119551.json --base-url http://localhost:8080"])

  /// `backtest funds search TEXT`: here because `backtest-fetch` (which links the HTTP client) runs it.
  package static let fundSearch = CommandSpec(
    "search", summary: "find scheme codes by name in mfapi.in's scheme list: fund house, category, plan and option",
    arguments: [ArgumentSpec("TEXT", "words every scheme name shown holds (any case, any order)", count: .oneOrMore)],
    options: [
      .flag("refresh", "fetch the scheme list again instead of using the cached one"),
      .option("cache", "FILE", "where the scheme list is kept with its date", default: .described("~/.cache/backtest/mfapi-schemes.json, or under $XDG_CACHE_HOME"),
              completion: .file),
      .option("top", "N", "show at most N matches", default: .value("30")),
    ] + mutualFundClientOptions,
    details: "The list is fetched page by page (at most 50 of 5000 schemes) the first time (and with --refresh) and cached with its date. The fund house, category, plan (Direct or Regular) and option (Growth or IDCW) are read from each scheme's name. \(limitsNote)",
    examples: ["funds search flexi cap direct", "funds search parag parikh --refresh"])
}
