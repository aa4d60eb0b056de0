#!/usr/bin/env python3
"""Plain-Python reference for `strategy.type: rotation` (Docs/portfolio.md,
"Rotation"), written from the rules, not from the Swift code.

Hold the `top` assets with the best score, re-ranked at the close of the
first bar of each period (the first bar of the data counts), equal weights,
whole shares, orders at the next open: every asset above its target sold
first, then the chosen bought up to theirs within the cash. Score:
`roc(close, lookback)` = close[i] / close[i - lookback] - 1 on each asset's
own bars (undefined before bar `lookback`: not ranked). Ties by symbol.
Commission per trade. Dividends earned by the shares held at the close
before the ex-bar and credited at the pay-bar (no DRIP). No slippage,
no expense ratio, no cash flows after the initial cash.

    python3 Tools/reference/rotation_ref.py --lookback 63 --top 2 --period monthly \
        --commission 1 --cash 100000 --out DIR SYMBOL=BARS.csv[:DIVIDENDS.csv] ...

Writes DIR/orders.csv (time,symbol,side,shares,price,fee) and DIR/equity.csv
(time,equity,cash), full precision (repr).
"""
import argparse
import csv
import datetime
import math
import os


def read_bars(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return [(r["date"], float(r["open"]), float(r["close"])) for r in rows]


def read_dividends(path):
    if not path:
        return []
    with open(path, newline="") as f:
        return [(r["ex_date"], r["pay_date"], float(r["amount"])) for r in csv.DictReader(f)]


def period_key(date, period):
    d = datetime.date.fromisoformat(date)
    if period == "weekly":
        y, w, _ = d.isocalendar()
        return (y, w)
    if period == "monthly":
        return (d.year, d.month)
    if period == "quarterly":
        return (d.year, (d.month - 1) // 3)
    return (d.year,)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lookback", type=int, required=True)
    p.add_argument("--top", type=int, required=True)
    p.add_argument("--period", choices=["weekly", "monthly", "quarterly", "annually"], required=True)
    p.add_argument("--commission", type=float, default=0.0)
    p.add_argument("--cash", type=float, default=100000.0)
    p.add_argument("--out", required=True)
    p.add_argument("assets", nargs="+")
    a = p.parse_args()

    symbols, bars, dividends = [], [], []
    for spec in a.assets:
        symbol, files = spec.split("=", 1)
        bar_file, _, dividend_file = files.partition(":")
        symbols.append(symbol)
        bars.append(read_bars(bar_file))
        dividends.append(read_dividends(dividend_file))
    m = len(symbols)
    timeline = sorted({b[0] for series in bars for b in series})
    n = len(timeline)
    # Each asset's bar at each timeline bar (None without one), and its score there.
    index = [{b[0]: k for k, b in enumerate(series)} for series in bars]
    at = [[index[s].get(day) for day in timeline] for s in range(m)]

    def score(s, k):
        if k is None or k < a.lookback:
            return None
        closes = bars[s]
        return closes[k][2] / closes[k - a.lookback][2] - 1

    def first_bar_on_or_after(date):
        for t, day in enumerate(timeline):
            if day >= date:
                return t
        return None

    ex = [{} for _ in range(m)]   # timeline bar -> amount per share
    pay = [{} for _ in range(m)]  # dividend number -> pay bar
    for s in range(m):
        for k, (ex_date, pay_date, amount) in enumerate(dividends[s]):
            t = first_bar_on_or_after(ex_date)
            if t is not None and t > 0:  # an ex-date on or before the first bar earns nothing
                ex[s].setdefault(t, []).append((amount, first_bar_on_or_after(pay_date)))

    cash = a.cash
    shares = [0.0] * m
    last_close = [None] * m
    owed = []  # (pay bar, amount)
    weights = [0.0] * m
    due = False
    orders, equity = [], []
    fee = a.commission

    def fill(t, s, quantity, price):
        nonlocal cash
        if quantity == 0:
            return
        if quantity > 0:
            cash -= quantity * price + fee
        else:
            cash += -quantity * price - fee
        shares[s] += quantity
        orders.append((timeline[t], symbols[s], "BUY" if quantity > 0 else "SELL", abs(quantity), price, fee))

    for t in range(n):
        # Dividends: earned by the shares held at the previous close, credited at the pay bar.
        for s in range(m):
            for amount, pay_bar in ex[s].get(t, []):
                earned = shares[s] * amount
                if earned != 0:
                    owed.append((pay_bar, earned))
        still = []
        for pay_bar, amount in owed:
            if pay_bar == t:
                cash += amount
            else:
                still.append((pay_bar, amount))
        owed = still
        # Orders at the open of a full bar: every chosen asset and every holding has a bar.
        chosen = [s for s in range(m) if weights[s] > 0]
        full = all(at[s][t] is not None for s in chosen) and all(shares[s] == 0 or at[s][t] is not None for s in range(m))
        if due and full:
            opens = [bars[s][at[s][t]][1] if at[s][t] is not None else None for s in range(m)]
            value = cash + sum(shares[s] * opens[s] for s in range(m) if shares[s] != 0)
            target = [math.floor(value * weights[s] / opens[s]) if opens[s] is not None else 0.0 for s in range(m)]
            for s in range(m):
                if shares[s] > target[s]:
                    fill(t, s, target[s] - shares[s], opens[s])
            for s in chosen:
                if shares[s] < target[s]:
                    affordable = max(0, math.floor((cash - fee) / opens[s])) if cash > 0 else 0
                    fill(t, s, min(target[s] - shares[s], affordable), opens[s])
            due = False
        # Mark at the close.
        for s in range(m):
            if at[s][t] is not None:
                last_close[s] = bars[s][at[s][t]][2]
        equity.append((timeline[t], cash + sum(shares[s] * last_close[s] for s in range(m) if shares[s] != 0), cash))
        # Rank at the close of the first bar of each period.
        if t == 0 or period_key(timeline[t], a.period) != period_key(timeline[t - 1], a.period):
            scored = [(score(s, at[s][t]), symbols[s], s) for s in range(m)]
            ranked = sorted([x for x in scored if x[0] is not None and not math.isnan(x[0])], key=lambda x: (-x[0], x[1]))
            top = [x[2] for x in ranked[: a.top]]
            weights = [1 / len(top) if s in top else 0.0 for s in range(m)]
            due = True

    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "orders.csv"), "w") as f:
        f.write("time,symbol,side,shares,price,fee\n")
        for o in orders:
            f.write(f"{o[0]},{o[1]},{o[2]},{o[3]!r},{o[4]!r},{o[5]!r}\n")
    with open(os.path.join(a.out, "equity.csv"), "w") as f:
        f.write("time,equity,cash\n")
        for e in equity:
            f.write(f"{e[0]},{e[1]!r},{e[2]!r}\n")
    print(f"{len(orders)} orders, final equity {equity[-1][1]!r}")


if __name__ == "__main__":
    main()
