#!/usr/bin/env python3
"""Expected outputs of `analyze`, `funds` and `screen`, computed independently
from the formulas of issue 7 (plain Python, standard library only).

    python3 Tests/BacktestCoreTests/Fixtures/research/make.py

Writes holdings.csv, fund_performance.csv and screen.csv next to this file.
"""
import csv, datetime as dt, json, math, os, statistics

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "../../../..")

# ---- analyze: Strategies/holdings.yaml (values copied here on purpose: no YAML parser needed)
analysis = dt.date(2024, 11, 22)
holdings = [("JEPI", 150, 54.20, dt.date(2022, 3, 15), 59.45, 0.0035, 0.076),
            ("SCHD", 200, 26.10, dt.date(2021, 6, 1), 28.95, 0.0006, 0.034),
            ("QYLD", 300, 20.85, dt.date(2023, 1, 10), 18.10, 0.0060, 0.119),
            ("VTI", 25, 198.40, dt.date(2020, 11, 2), 298.70, 0.0003, 0.013),
            ("INCM", 120, 59.41, dt.date(2023, 1, 10), 56.15, 0.0035, 0.08)]
own_analysis = {"INCM": dt.date(2024, 11, 15)}
total_current = sum(s * c for _, s, _, _, c, _, _ in holdings)

def realized(name, shares, initial, day, until, days):
    """Closes on (or before) the purchase and analysis dates; dividends with ex-date in (purchase, analysis]."""
    if name != "INCM":
        return ["", "", "", "", ""]
    bars = list(csv.DictReader(open(os.path.join(root, "Data/etfs/INCM.csv"))))
    start = [b for b in bars if dt.date.fromisoformat(b["date"]) <= day][-1]["close"]
    end = [b for b in bars if dt.date.fromisoformat(b["date"]) <= until][-1]["close"]
    divs = sum(float(d["amount"]) for d in csv.DictReader(open(os.path.join(root, "Data/etfs/INCM_dividends.csv")))
               if day < dt.date.fromisoformat(d["ex_date"]) <= until) * shares
    growth = (shares * float(end) + divs) / initial
    return [float(start), float(end), divs, growth - 1, growth ** (365 / days) - 1]
with open(os.path.join(here, "holdings.csv"), "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["name", "days_held", "initial_investment", "current_value", "capital_appreciation", "yield_income", "expenses",
                "gross_return", "net_return", "annualized_return", "allocation", "realized_start_close", "realized_end_close",
                "realized_dividends", "realized_return", "realized_annualized_return"])
    for name, shares, buy, day, now, er, y in holdings:
        until = own_analysis.get(name, analysis)
        days = (until - day).days
        years = days / 365
        initial = shares * buy
        appreciation = (now - buy) * shares
        income = initial * y * years
        expenses = initial * er * years
        net = appreciation + income - expenses
        w.writerow([name, days, initial, shares * now, appreciation, income, expenses, (appreciation + income) / initial,
                    net / initial, ((initial + net) / initial) ** (365 / days) - 1, shares * now / total_current]
                   + realized(name, shares, initial, day, until, days))

# ---- funds
def load_nav(path):
    if path.endswith(".json"):
        data = json.load(open(path))
        rows = [(dt.datetime.strptime(e["date"], "%d-%m-%Y").date(), float(e["nav"])) for e in data["data"]]
        name = data["meta"]["scheme_name"]
    else:
        rows = [(dt.date.fromisoformat(r["date"]), float(r["nav"])) for r in csv.DictReader(open(path))]
        name = os.path.splitext(os.path.basename(path))[0]
    return name, sorted(rows)

def minus_months(d, k):
    total = d.year * 12 + d.month - 1 - k
    y, m = divmod(total, 12)
    m += 1
    last = (dt.date(y + (m == 12), m % 12 + 1, 1) - dt.timedelta(days=1)).day
    return dt.date(y, m, min(d.day, last))

periods = [("1W", None, 7), ("1M", 1, None), ("6M", 6, None), ("1Y", 12, None), ("3Y", 36, None), ("5Y", 60, None)]
with open(os.path.join(here, "fund_performance.csv"), "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["fund", "period", "start_date", "end_date", "start_nav", "end_nav", "total_return", "cagr", "volatility"])
    for path in ["Data/funds/flexi_cap.json", "Data/funds/liquid.json", "Data/funds/young_fund.csv"]:
        name, rows = load_nav(os.path.join(root, path))
        end_day, end_nav = rows[-1]
        for label, months, days in periods:
            target = end_day - dt.timedelta(days=days) if days else minus_months(end_day, months)
            candidates = [k for k, (d, _) in enumerate(rows) if d <= target]
            if not candidates:
                w.writerow([name, label, "", end_day.isoformat(), "", end_nav, "", "", ""])
                continue
            k = candidates[-1]
            start_day, start_nav = rows[k]
            rets = [rows[i][1] / rows[i - 1][1] - 1 for i in range(k + 1, len(rows))]
            vol = statistics.stdev(rets) * math.sqrt(252) if len(rets) > 1 else ""
            cagr = (end_nav / start_nav) ** (365 / (end_day - start_day).days) - 1 if months and months >= 12 else ""
            w.writerow([name, label, start_day.isoformat(), end_day.isoformat(), start_nav, end_nav, end_nav / start_nav - 1, cagr, vol])

# ---- screen: Strategies/dividend-etfs.yaml
universe = [("INCM", 0.0035), ("DIVQ", 0.0006), ("HIYD", 0.0060), ("VALU", 0.0008)]
rows = []
for sym, er in universe:
    bars = list(csv.DictReader(open(os.path.join(root, f"Data/etfs/{sym}.csv"))))
    divs = list(csv.DictReader(open(os.path.join(root, f"Data/etfs/{sym}_dividends.csv"))))
    asof = dt.date.fromisoformat(bars[-1]["date"])
    price = float(bars[-1]["close"])
    paid = [d for d in divs if dt.date.fromisoformat(d["ex_date"]) <= asof]
    ttm = sum(float(d["amount"]) for d in paid if (asof - dt.date.fromisoformat(d["ex_date"])).days < 365)
    gaps = sorted((dt.date.fromisoformat(b["ex_date"]) - dt.date.fromisoformat(a["ex_date"])).days for a, b in zip(paid[-8:], paid[-8:][1:]))
    median = statistics.median(gaps)
    freq, per_year = ("monthly", 12) if median <= 45 else ("quarterly", 4) if median <= 135 else ("semi-annual", 2) if median <= 270 else ("annual", 1)
    month_ago = minus_months(asof, 1)
    prev = [b for b in bars if dt.date.fromisoformat(b["date"]) <= month_ago][-1]
    vols = [float(b["volume"]) for b in bars[-21:]]
    rows.append(dict(symbol=sym, price=price, yld=ttm / price, last=float(paid[-1]["amount"]), ex=paid[-1]["ex_date"], freq=freq,
                     annual=float(paid[-1]["amount"]) * per_year, perf=price / float(prev["close"]) - 1, vol=sum(vols) / len(vols), er=er))

def scale(values):
    lo, hi = min(values), max(values)
    return [(v - lo) / (hi - lo) if hi > lo else 1 for v in values]
ys, ps, es = scale([r["yld"] for r in rows]), scale([r["perf"] for r in rows]), scale([-r["er"] for r in rows])
for r, y, p, e in zip(rows, ys, ps, es):
    r["score"] = 100 * (0.5 * y + 0.3 * p + 0.2 * e) / 1.0
rows.sort(key=lambda r: -r["score"])
with open(os.path.join(here, "screen.csv"), "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["rank", "symbol", "price", "trailing_yield", "last_dividend", "last_ex_date", "frequency", "annual_dividend",
                "one_month_return", "average_volume", "expense_ratio", "score"])
    for k, r in enumerate(rows):
        w.writerow([k + 1, r["symbol"], r["price"], r["yld"], r["last"], r["ex"], r["freq"], r["annual"], r["perf"], r["vol"], r["er"], r["score"]])
print("ok")
