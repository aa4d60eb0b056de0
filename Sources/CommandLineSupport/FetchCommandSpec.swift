extension CommandSpec {
  /// `backtest fetch`: here rather than with the other commands because two
  /// executables read it: `backtest-fetch` parses with it, and `backtest`
  /// (which does not link the download code) shows its help and completions.
  public static let fetch = CommandSpec(
    "fetch", summary: "download bars from Polygon or a series from FRED into the standard CSV, appending only what is new",
    arguments: [ArgumentSpec("SYMBOL", "the ticker (GPIX) or, with --source fred, the series (UNRATE, GDPC1)")],
    options: [
      .option("from", "DATE", "first day, YYYY-MM-DD", required: true),
      .option("to", "DATE", "last day, YYYY-MM-DD", required: true),
      .option("out", "FILE", "the CSV to write, or to append the new bars to", required: true, completion: .file),
      .option("source", "NAME", "where from", default: .value("polygon"), completion: .choices(["polygon", "fred"])),
      .option("interval", "LENGTH", "bar length, like 1min, 30min, 1h or 1d", default: .value("30min")),
      .option("timezone", "TZ", "the IANA time zone the CSV's timestamps are written in", default: .value("America/New_York")),
      .option("rate", "N", "at most N requests a minute (Polygon's free tier allows 5)", default: .value("5")),
      .option("retries", "N", "retries of a request answered 429 or 5xx, with exponential backoff", default: .value("5")),
      .option("backoff", "SECONDS", "the first retry's wait, doubled each time (Retry-After wins)", default: .value("2")),
      .option("base-url", "URL", "the API's address",
              default: .described("https://api.polygon.io, or https://api.stlouisfed.org with --source fred")),
      .flag("quiet", "print nothing on success"),
    ],
    details: "The API key comes from POLYGON_API_KEY (or FRED_API_KEY with --source fred) and is never printed or written. Pages are followed to the end; the bars are sorted, and only those newer than the file's last one are appended. FRED series are written as the FRED CSV the cycle filter reads.",
    examples: [
      "fetch GPIX --interval 30min --from 2024-01-01 --to 2024-06-30 --out Data/gpix_30min.csv",
      "fetch UNRATE --source fred --from 1990-01-01 --to 2024-12-31 --out Data/UNRATE.csv",
    ])
}
