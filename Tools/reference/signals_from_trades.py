#!/usr/bin/env python3
"""Writes a signals file (time,signal) holding the decisions behind a trades.csv.

Each trade's entry was decided at the close of the bar before its entry fill
(buy, or short for a short trade); an exit for the strategy's own rule
(TECHNICAL) at the close of the bar before its exit fill (sell, or cover).
Stops and targets are left to the broker. Standard library only.

    python3 Tools/reference/signals_from_trades.py Reports/reference/goog-swing/trades.csv \
        Data/GOOG.csv > Data/goog_swing_signals.csv
"""
import csv
import sys


def main(trades_path, bars_path):
    with open(bars_path, newline="") as f:
        rows = list(csv.reader(f))
    times = [r[0] for r in rows[1:]]
    index = {t: i for i, t in enumerate(times)}
    out = []
    with open(trades_path, newline="") as f:
        for t in csv.DictReader(f):
            short = t.get("side") == "short"
            out.append((index[t["entry_time"]] - 1, "short" if short else "buy"))
            if t["exit_reason"] == "TECHNICAL":
                out.append((index[t["exit_time"]] - 1, "cover" if short else "sell"))
    print("time,signal")
    for i, word in sorted(out):
        print(f"{times[i]},{word}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
