"""Dual momentum's targets on the sample ETFs, from its definition alone (plain Python, no engine).

At the first close of each month (the first date of the merged calendar, then the
first date whose month differs from the previous date's), each asset other than the
safe one that has a bar that day, at its own bar k >= lookback, scores
close[k] / close[k - lookback] - 1; the best (ties by symbol) gets 100% if its score
is above 0, else the safe asset does. One row per asset per decision.

    python3 Examples/Tests/ExampleStrategiesTests/Fixtures/dual_momentum.py > Examples/Tests/ExampleStrategiesTests/Fixtures/dual_momentum_targets.csv

(from the project's root)
"""
import csv
import sys

SYMBOLS = ["INCM", "DIVQ", "HIYD", "VALU"]
SAFE, LOOKBACK = "INCM", 126

closes, index = {}, {}
for s in SYMBOLS:
    with open(f"Data/etfs/{s}.csv") as f:
        rows = list(csv.DictReader(f))
    dates = [r[next(k for k in r if k.lower() in ("date", "time", "timestamp"))][:10] for r in rows]
    closes[s] = [float(r[next(k for k in r if k.lower() == "close")]) for r in rows]
    index[s] = {d: k for k, d in enumerate(dates)}

calendar = sorted(set(d for s in SYMBOLS for d in index[s]))
out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["time", "symbol", "weight"])
previous = None
for d in calendar:
    if previous is None or d[:7] != previous[:7]:
        scores = {}
        for s in SYMBOLS:
            k = index[s].get(d)
            if s != SAFE and k is not None and k >= LOOKBACK:
                scores[s] = closes[s][k] / closes[s][k - LOOKBACK] - 1
        best = sorted(scores, key=lambda s: (-scores[s], s))[0] if scores else None
        chosen = best if best is not None and scores[best] > 0 else SAFE
        for s in SYMBOLS:
            out.writerow([d, s, 1 if s == chosen else 0])
    previous = d
