#!/usr/bin/env python3
"""Reference implementation of the economic-cycle classifier.

Contract: Docs/spec/economic-cycle.md. This file follows it step by step;
the section numbers in the comments are the spec's. If the two ever disagree,
fix both together.

Pure Python on purpose (no numpy/pandas in the computation): every sum is a
left-to-right loop over IEEE-754 doubles in the order the spec gives, so an
implementation in another language that follows the spec reproduces the
intermediate values bit for bit and the stages exactly.

Usage (from the repository root)
  # one row per quarter: period, available_at, stage and the intermediates
  python Tools/reference/cycle_ref.py classify Data/us_macro_quarterly.csv -o stages.csv

  # the stage a bar at each timestamp may use (point-in-time lookup)
  python Tools/reference/cycle_ref.py lookup Data/us_macro_quarterly.csv \
      2008-08-03T23:59:59Z 2008-08-04 "2009-03-02 15:30:00"

  # configuration (defaults shown; names match the spec's config keys)
  #   --trend trailing --trend-window-quarters 40 --trend-min-quarters 8
  #   --fixed-trend-pct 3.0 --momentum-quarters 2
  #   --unemployment-rule require --unemployment-threshold-pp 0.5
  #   --unemployment-lookback-quarters 4
  #   --release-lag real_gdp=35 --release-lag unemployment_rate=12 ...
  #   --max-stage-age-days 190
  # options beyond the spec (for experiments):
  #   --unemployment-rule override|when_falling, --confirm-readings N

As a library
  rows = classify(load_observations(path), Config())
  StageLookup(rows, Config()).stage_at(datetime(2009, 3, 1, tzinfo=timezone.utc))
"""
from __future__ import annotations

import argparse
import bisect
import calendar
import csv
import datetime as dt
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

SPEC_VERSION = "1.0"

EXPANSION, PEAK, CONTRACTION, RECOVERY, UNKNOWN = (
    "Expansion", "Peak", "Contraction", "Recovery", "unknown")
STAGES = (EXPANSION, PEAK, CONTRACTION, RECOVERY, UNKNOWN)
STAGE_COLORS = {EXPANSION: "#34C759", PEAK: "#FF9500",
                CONTRACTION: "#FF3B30", RECOVERY: "#0071E3"}

EPS = 1e-9  # tolerance of every sign / threshold comparison (spec 4)

# canonical series names (spec 2) and accepted aliases (case-insensitive)
ALIASES = {
    "real_gdp": "real_gdp", "realgdp": "real_gdp", "gdpc1": "real_gdp",
    "unemployment_rate": "unemployment_rate", "unemp": "unemployment_rate",
    "unrate": "unemployment_rate",
    "cpi": "cpi", "cpiaucsl": "cpi",
    "inflation": "inflation", "infl": "inflation",
    "short_rate": "short_rate", "tbilrate": "short_rate", "tb3ms": "short_rate",
    "long_rate": "long_rate", "gs10": "long_rate",
}
# release lag in calendar days after the last day of the period (spec 3);
# a value counts as released at 00:00 UTC on period_end + lag
DEFAULT_LAGS = {"real_gdp": 35, "unemployment_rate": 12, "cpi": 25,
                "inflation": 25, "short_rate": 1, "long_rate": 1}


@dataclass(frozen=True)
class Config:
    trend: str = "trailing"              # "trailing" | "fixed"
    trend_window_quarters: int = 40
    trend_min_quarters: int = 8
    fixed_trend_pct: float = 3.0
    momentum_quarters: int = 2
    unemployment_rule: str = "require"   # spec: "require" | "off"
    #   beyond the spec, for experiments: "override", "when_falling"
    unemployment_threshold_pp: float = 0.5
    unemployment_lookback_quarters: int = 4
    confirm_readings: int = 1            # beyond the spec, for experiments
    release_lag_days: Dict[str, int] = field(
        default_factory=lambda: dict(DEFAULT_LAGS))
    max_stage_age_days: int = 190


# ------------------------------------------------------------------ periods
Quarter = Tuple[int, int]                # (year, 1..4)


def q_index(q: Quarter) -> int:
    return q[0] * 4 + (q[1] - 1)


def q_of(i: int) -> Quarter:
    return (i // 4, i % 4 + 1)


def q_label(q: Quarter) -> str:
    return f"{q[0]}Q{q[1]}"


def q_start(q: Quarter) -> dt.date:
    return dt.date(q[0], 3 * q[1] - 2, 1)


def q_end(q: Quarter) -> dt.date:
    return month_end(q[0], 3 * q[1])


def month_end(y: int, m: int) -> dt.date:
    return dt.date(y, m, calendar.monthrange(y, m)[1])


def at_midnight_utc(d: dt.date) -> dt.datetime:
    return dt.datetime(d.year, d.month, d.day, tzinfo=dt.timezone.utc)


def parse_time(s: str) -> dt.datetime:
    """ISO date or date-time; no offset means UTC; 'Z' accepted."""
    s = s.strip()
    if s.endswith("Z"):
        s = s[:-1] + "+00:00"
    if len(s) == 10:
        t = dt.datetime.strptime(s, "%Y-%m-%d")
    else:
        t = dt.datetime.fromisoformat(s.replace(" ", "T", 1))
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    return t.astimezone(dt.timezone.utc)


def fmt_time(t: dt.datetime) -> str:
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# ------------------------------------------------------------------ input (spec 2)
@dataclass
class Obs:
    date: dt.date                        # a day inside the observation period
    value: float
    available_at: Optional[dt.datetime]  # explicit release time, if given
    where: str                           # file:line, for error messages


class InputError(ValueError):
    pass


def _num(s: str, where: str) -> Optional[float]:
    s = s.strip().strip('"')
    if s == "" or s.upper() in ("NA", "NAN", "."):
        return None                      # missing value
    try:
        v = float(s)
    except ValueError:
        raise InputError(f"{where}: expected a number, got {s!r}")
    if v != v or v in (float("inf"), float("-inf")):
        raise InputError(f"{where}: expected a finite number, got {s!r}")
    return v


def _date(s: str, where: str) -> dt.date:
    s = s.strip().strip('"')
    try:
        return dt.date.fromisoformat(s[:10])
    except ValueError:
        raise InputError(f"{where}: expected a date YYYY-MM-DD, got {s!r}")


def load_observations(path: str) -> Dict[str, List[Obs]]:
    """Tidy CSV (date,series,value[,available_at]) or wide CSV (a `date`
    column, or `year` and `quarter` columns, then one column per series)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise InputError(f"{path}: empty file")
    header = [h.strip().strip('"').lower() for h in rows[0]]
    col = {h: i for i, h in enumerate(header)}
    out: Dict[str, List[Obs]] = {}

    def cell(r, i, where):
        if i >= len(r):
            raise InputError(f"{where}: row has {len(r)} columns, "
                             f"header has {len(header)}")
        return r[i]

    if {"date", "series", "value"} <= set(col):              # tidy
        for n, r in enumerate(rows[1:], start=2):
            if not any(c.strip() for c in r):
                continue
            w = f"{path}:{n}"
            name = ALIASES.get(cell(r, col["series"], w).strip().lower())
            if name is None:
                continue                                      # other series
            v = _num(cell(r, col["value"], w), w + " column value")
            if v is None:
                continue
            d = _date(cell(r, col["date"], w), w + " column date")
            av = None
            if "available_at" in col and cell(r, col["available_at"], w).strip():
                try:
                    av = parse_time(cell(r, col["available_at"], w))
                except ValueError:
                    raise InputError(f"{w} column available_at: expected an "
                                     "ISO-8601 date or date-time")
            out.setdefault(name, []).append(Obs(d, v, av, w))
        return out

    if "date" in col:                                         # wide
        def get_date(r, w):
            return _date(cell(r, col["date"], w), w + " column date")
    elif {"year", "quarter"} <= set(col):
        def get_date(r, w):
            ys, qs = cell(r, col["year"], w), cell(r, col["quarter"], w)
            try:
                y, q = int(ys.strip().strip('"')), int(qs.strip().strip('"'))
            except ValueError:
                raise InputError(f"{w}: expected integer year and quarter, "
                                 f"got {ys!r}, {qs!r}")
            if not 1 <= q <= 4:
                raise InputError(f"{w} column quarter: expected 1..4, got {q}")
            return q_start((y, q))
    else:
        raise InputError(f"{path}:1: expected columns date,series,value "
                         "(tidy) or date / year,quarter plus series (wide)")
    cols = [(i, ALIASES[h]) for i, h in enumerate(header) if h in ALIASES]
    if len({c for _, c in cols}) != len(cols):
        raise InputError(f"{path}:1: two columns name the same series")
    for n, r in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in r):
            continue
        w = f"{path}:{n}"
        d = get_date(r, w)
        for i, name in cols:
            v = _num(cell(r, i, w), f"{w} column {header[i]}")
            if v is not None:
                out.setdefault(name, []).append(Obs(d, v, None, w))
    return out


def to_quarterly(name: str, obs: List[Obs], cfg: Config
                 ) -> Dict[int, Tuple[float, dt.datetime]]:
    """One series -> {quarter index: (value, available_at)} (spec 3)."""
    lag = dt.timedelta(days=cfg.release_lag_days.get(name, 0))
    by_q: Dict[int, List[Obs]] = {}
    for o in obs:
        i = q_index((o.date.year, (o.date.month - 1) // 3 + 1))
        by_q.setdefault(i, []).append(o)
    monthly = any(len(v) > 1 for v in by_q.values())
    if monthly and name == "real_gdp":
        o = next(v[1] for v in by_q.values() if len(v) > 1)
        raise InputError(f"{o.where}: second real_gdp value in one quarter "
                         "(real_gdp must be quarterly)")
    # release times must not decrease from one period to the next (spec 2.3)
    def release(o: Obs) -> dt.datetime:
        if o.available_at is not None:
            return o.available_at
        end = (q_end((o.date.year, (o.date.month - 1) // 3 + 1)) if not monthly
               else month_end(o.date.year, o.date.month))
        return at_midnight_utc(end + lag)

    prev = None
    for o in sorted(obs, key=lambda o: (o.date.year, o.date.month)
                    if monthly else q_index((o.date.year,
                                             (o.date.month - 1) // 3 + 1))):
        if prev is not None and release(o) < release(prev):
            raise InputError(f"{o.where}: {name} released ({fmt_time(release(o))}) "
                             f"before the previous period's value "
                             f"({fmt_time(release(prev))}, {prev.where})")
        prev = o
    res: Dict[int, Tuple[float, dt.datetime]] = {}
    for i, lst in sorted(by_q.items()):
        q = q_of(i)
        if not monthly:
            o = lst[0]
            res[i] = (o.value, o.available_at or at_midnight_utc(q_end(q) + lag))
            continue
        months: Dict[int, Obs] = {}
        for o in lst:
            if o.date.month in months:
                raise InputError(f"{o.where}: second {name} value for "
                                 f"{o.date.year}-{o.date.month:02d}")
            months[o.date.month] = o
        want = (3 * q[1] - 2, 3 * q[1] - 1, 3 * q[1])
        if any(m not in months for m in want):
            continue                      # incomplete quarter: missing
        s = 0.0
        for m in want:                    # left to right, then divide by 3
            s += months[m].value
        av = max(months[m].available_at or
                 at_midnight_utc(month_end(q[0], m) + lag) for m in want)
        res[i] = (s / 3.0, av)
    return res


# ------------------------------------------------------------------ classify (spec 4-5)
# the spec's output columns (spec 8), then one column beyond the spec
OUT_COLUMNS = ["period", "period_start", "period_end", "available_at",
               "real_gdp", "gdp_yoy", "trend", "gap", "gap_change",
               "direction", "base_stage", "unemployment_rate",
               "unemployment_min_prior", "unemployment_gap",
               "unemployment_triggered", "stage", "reason",
               "inflation_yoy", "term_spread", "raw_stage"]

_BASE_REASON = {EXPANSION: "gap above trend and rising",
                PEAK: "gap above trend and falling",
                CONTRACTION: "gap below trend and falling",
                RECOVERY: "gap below trend and rising"}


def classify(series: Dict[str, List[Obs]], cfg: Config = Config()
             ) -> List[dict]:
    rule = cfg.unemployment_rule
    if rule not in ("require", "override", "off", "when_falling"):
        raise InputError(f"unemployment_rule: unknown value {rule!r}")
    if cfg.trend not in ("trailing", "fixed"):
        raise InputError(f"trend: unknown value {cfg.trend!r}")
    if "real_gdp" not in series:
        raise InputError("no real_gdp series in the input")
    if rule != "off" and "unemployment_rate" not in series:
        raise InputError("no unemployment_rate series in the input "
                         "(required unless unemployment_rule = off)")
    Q = {name: to_quarterly(name, obs, cfg) for name, obs in series.items()}
    gdp = Q["real_gdp"]
    une = Q.get("unemployment_rate", {}) if rule != "off" else {}
    cpi = Q.get("cpi", {})
    sr, lr = Q.get("short_rate", {}), Q.get("long_rate", {})
    first, last = min(gdp), max(gdp)

    # spec 4, step 1: year-over-year growth, %
    g: Dict[int, float] = {}
    for i in range(first, last + 1):
        if i in gdp and i - 4 in gdp:
            g[i] = (gdp[i][0] / gdp[i - 4][0] - 1.0) * 100.0

    # spec 3.2: release time of a quarter's row = running max over the
    # quarters <= q of the release times of real_gdp and (rule != off)
    # unemployment_rate; only quarters with their own values are released
    release = {}
    for src in (gdp, une):
        for i, (_, av) in src.items():
            release[i] = av if i not in release else max(release[i], av)
    run_av: Dict[int, dt.datetime] = {}
    cur = None
    for i in sorted(release):
        cur = release[i] if cur is None else max(cur, release[i])
        run_av[i] = cur

    rows: List[dict] = []
    gaps: Dict[int, float] = {}
    dirs: Dict[int, str] = {}
    raws: Dict[int, str] = {}
    reported: Dict[int, str] = {}
    for i in range(first, last + 1):
        q = q_of(i)
        r = {c: "" for c in OUT_COLUMNS}
        r.update(period=q_label(q), period_start=q_start(q).isoformat(),
                 period_end=q_end(q).isoformat())
        av = None          # released only with its own deciding values
        if i in gdp:
            r["real_gdp"] = gdp[i][0]
            if rule == "off" or i in une:
                av = run_av[max(j for j in run_av if j <= i)]
        reason = ""
        # spec 4, steps 2-3: trend and gap
        gap = None
        if i in g:
            r["gdp_yoy"] = g[i]
            trend = None
            if cfg.trend == "fixed":
                trend = cfg.fixed_trend_pct
            else:
                s, n = 0.0, 0
                for j in range(i - cfg.trend_window_quarters, i):
                    if j in g:
                        s += g[j]
                        n += 1
                if n >= cfg.trend_min_quarters:
                    trend = s / n
            if trend is None:
                reason = "not enough growth history for the trend"
            else:
                r["trend"] = trend
                gap = g[i] - trend
                r["gap"] = gap
                gaps[i] = gap
        else:
            reason = "no real_gdp for this quarter or for 4 quarters earlier"
        # spec 4, step 4: direction
        direction = None
        if gap is not None:
            prev = gaps.get(i - cfg.momentum_quarters)
            if prev is None:
                reason = f"no gap {cfg.momentum_quarters} quarter(s) earlier"
            else:
                d = gap - prev
                r["gap_change"] = d
                if d > EPS:
                    direction = "rising"
                elif d < -EPS:
                    direction = "falling"
                else:
                    direction = dirs.get(i - 1, "rising")
                dirs[i] = direction
        # spec 4, step 5: base stage (four-phase rule)
        base = None
        if direction is not None:
            above = gap >= -EPS
            if above:
                base = EXPANSION if direction == "rising" else PEAK
            else:
                base = RECOVERY if direction == "rising" else CONTRACTION
            r["direction"], r["base_stage"] = direction, base
        # spec 5: unemployment rule and final stage
        trig = None
        if rule != "off":
            if i in une:
                r["unemployment_rate"] = une[i][0]
                L = cfg.unemployment_lookback_quarters
                if all(j in une for j in range(i - L, i)):
                    mn = une[i - L][0]
                    for j in range(i - L + 1, i):
                        if une[j][0] < mn:
                            mn = une[j][0]
                    ug = une[i][0] - mn
                    trig = ug >= cfg.unemployment_threshold_pp - EPS
                    r["unemployment_min_prior"] = mn
                    r["unemployment_gap"] = ug
                    r["unemployment_triggered"] = int(trig)
            if trig is None and base is not None:
                reason = "not enough unemployment history"
        raw = None
        if base is not None and (rule == "off" or trig is not None):
            raw, reason = base, _BASE_REASON[base]
            if rule == "require" and base == CONTRACTION:
                if trig:
                    reason += "; unemployment rule triggered"
                else:
                    raw = PEAK
                    reason += "; unemployment rule not triggered -> Peak"
            elif rule in ("override", "when_falling") and trig:
                if base == CONTRACTION:
                    reason += "; unemployment rule triggered"
                elif rule == "override" or direction == "falling":
                    raw = CONTRACTION
                    reason = "unemployment rule triggered, overrides: " + reason
        # beyond the spec, for experiments: switch after N equal readings
        if raw is None:
            stage = UNKNOWN
        else:
            raws[i] = raw
            prev_rep = reported.get(i - 1)
            N = cfg.confirm_readings
            if prev_rep is None or raw == prev_rep or N <= 1:
                stage = raw
            elif all(raws.get(j) == raw for j in range(i - N + 1, i + 1)):
                stage = raw
            else:
                stage = prev_rep
                reason += f"; {raw} not yet confirmed, stays {prev_rep}"
            reported[i] = stage
        r["raw_stage"] = raw or UNKNOWN
        r["stage"] = stage
        r["reason"] = reason
        # informational only (spec 8): never used by the stage
        if i in cpi and i - 4 in cpi:
            r["inflation_yoy"] = (cpi[i][0] / cpi[i - 4][0] - 1.0) * 100.0
        if i in sr and i in lr:
            r["term_spread"] = lr[i][0] - sr[i][0]
        r["available_at"] = fmt_time(av) if av is not None else ""
        r["_av"], r["_qi"] = av, i
        rows.append(r)
    return rows


# ------------------------------------------------------------------ lookup (spec 6)
class StageLookup:
    """The stage a bar at time t may use: the row of the latest quarter whose
    available_at <= t; unknown before the first, or when that row is older
    than max_stage_age_days."""

    def __init__(self, rows: Sequence[dict], cfg: Config = Config()):
        self.max_age = dt.timedelta(days=cfg.max_stage_age_days)
        self.times: List[dt.datetime] = []
        self.rows: List[dict] = []
        ok = sorted((r for r in rows if r["_av"] is not None),
                    key=lambda r: (r["_av"], r["_qi"]))
        for r in ok:
            if self.rows and r["_qi"] < self.rows[-1]["_qi"]:
                continue                  # an older quarter released later
            if self.times and self.times[-1] == r["_av"]:
                self.rows[-1] = r
            else:
                self.times.append(r["_av"])
                self.rows.append(r)

    def row_at(self, t: dt.datetime) -> Optional[dict]:
        k = bisect.bisect_right(self.times, t) - 1
        return self.rows[k] if k >= 0 else None

    def stage_at(self, t: dt.datetime) -> str:
        if t.tzinfo is None:
            t = t.replace(tzinfo=dt.timezone.utc)
        r = self.row_at(t)
        if r is None or t - r["_av"] > self.max_age:
            return UNKNOWN
        return r["stage"]


# ------------------------------------------------------------------ output / CLI
def fmt_value(v) -> str:
    return repr(v) if isinstance(v, float) else str(v)


def write_rows(rows: Sequence[dict], f) -> None:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(OUT_COLUMNS)
    for r in rows:
        w.writerow([fmt_value(r[c]) for c in OUT_COLUMNS])


def add_config_args(p: argparse.ArgumentParser) -> None:
    d = Config()
    p.add_argument("--trend", choices=["trailing", "fixed"], default=d.trend)
    p.add_argument("--trend-window-quarters", type=int,
                   default=d.trend_window_quarters)
    p.add_argument("--trend-min-quarters", type=int,
                   default=d.trend_min_quarters)
    p.add_argument("--fixed-trend-pct", type=float, default=d.fixed_trend_pct)
    p.add_argument("--momentum-quarters", type=int,
                   default=d.momentum_quarters)
    p.add_argument("--unemployment-rule",
                   choices=["require", "override", "off", "when_falling"],
                   default=d.unemployment_rule)
    p.add_argument("--unemployment-threshold-pp", type=float,
                   default=d.unemployment_threshold_pp)
    p.add_argument("--unemployment-lookback-quarters", type=int,
                   default=d.unemployment_lookback_quarters)
    p.add_argument("--confirm-readings", type=int, default=d.confirm_readings)
    p.add_argument("--release-lag", action="append", metavar="SERIES=DAYS",
                   default=[])
    p.add_argument("--max-stage-age-days", type=int,
                   default=d.max_stage_age_days)


def config_from_args(a) -> Config:
    lags = dict(DEFAULT_LAGS)
    for s in a.release_lag:
        k, _, v = s.partition("=")
        k = ALIASES.get(k.strip().lower(), k.strip())
        if k not in DEFAULT_LAGS or not v.strip().isdigit():
            raise SystemExit(f"--release-lag: expected SERIES=DAYS, got {s!r}")
        lags[k] = int(v)
    for name in ("trend_window_quarters", "trend_min_quarters",
                 "momentum_quarters", "unemployment_lookback_quarters",
                 "confirm_readings"):
        if getattr(a, name) < 1:
            raise SystemExit(f"--{name.replace('_', '-')}: must be >= 1")
    return Config(trend=a.trend, trend_window_quarters=a.trend_window_quarters,
                  trend_min_quarters=a.trend_min_quarters,
                  fixed_trend_pct=a.fixed_trend_pct,
                  momentum_quarters=a.momentum_quarters,
                  unemployment_rule=a.unemployment_rule,
                  unemployment_threshold_pp=a.unemployment_threshold_pp,
                  unemployment_lookback_quarters=a.unemployment_lookback_quarters,
                  confirm_readings=a.confirm_readings,
                  release_lag_days=lags,
                  max_stage_age_days=a.max_stage_age_days)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        description="Economic-cycle classifier, reference implementation "
                    f"(spec {SPEC_VERSION})")
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("classify", help="one row per quarter")
    c.add_argument("input")
    c.add_argument("-o", "--output", default="-")
    add_config_args(c)
    lk = sub.add_parser("lookup", help="point-in-time stage at timestamps")
    lk.add_argument("input")
    lk.add_argument("times", nargs="+")
    add_config_args(lk)
    a = p.parse_args(argv)
    cfg = config_from_args(a)
    try:
        rows = classify(load_observations(a.input), cfg)
    except (InputError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.cmd == "classify":
        if a.output == "-":
            write_rows(rows, sys.stdout)
        else:
            with open(a.output, "w", newline="") as f:
                write_rows(rows, f)
        return 0
    lu = StageLookup(rows, cfg)
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["time", "stage", "period", "available_at"])
    for s in a.times:
        try:
            t = parse_time(s)
        except ValueError:
            print(f"error: bad timestamp {s!r}", file=sys.stderr)
            return 2
        r = lu.row_at(t)
        w.writerow([fmt_time(t), lu.stage_at(t),
                    r["period"] if r else "", r["available_at"] if r else ""])
    return 0


if __name__ == "__main__":
    sys.exit(main())
