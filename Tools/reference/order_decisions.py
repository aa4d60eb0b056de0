#!/usr/bin/env python3
"""A deterministic decision script for the order peers (`order_peers.py`).

  order_decisions.py BARS.csv --out decisions.csv [--spacing 9] [--hold 6]

Walks the bars and, every `--spacing` bars from bar 5, writes one entry
decision taken at that bar's close, cycling through the templates below
(limit, stop and market entries, long and short, with stop-loss and
profit-target fractions). Limit and stop prices are set from the decision
bar's close only (what a strategy knows then), rounded to cents. Each entry
is followed `--hold` bars later by a scripted exit of its side (taken only if
the position is still open), and the next entry comes after that exit has
filled, so that every round trip is independent of the one before.

Columns: bar,action,price,valid_bars,stop_loss,profit_target
  action: long_market, long_limit, long_stop, short_market, short_limit,
          short_stop, exit_long, exit_short
  price: the limit or stop price (empty for market orders and exits)
  valid_bars: bars a limit or stop order waits (empty: 1)
  stop_loss, profit_target: fractions of the entry fill (empty: none)
"""

import argparse
import sys

import barsio

# (action, price offset from the decision close, valid_bars, stop_loss, profit_target)
TEMPLATES = [
    ("long_limit", -0.004, 1, 0.02, 0.03),
    ("short_market", None, None, 0.02, 0.03),
    ("long_stop", +0.004, 2, 0.02, 0.03),
    ("short_stop", -0.004, 2, 0.025, 0.03),
    ("long_limit", -0.015, 3, 0.02, 0.04),
    ("short_limit", +0.005, 2, 0.02, 0.03),
    ("long_market", None, None, 0.02, 0.03),
    ("short_limit", +0.015, 3, None, 0.02),
    ("long_stop", +0.012, 3, 0.03, None),
    ("short_stop", -0.012, 1, 0.015, 0.025),
    # near the close: the next open often gaps through the price (a fill at the open)
    ("long_limit", -0.001, 1, 0.02, 0.03),
    ("short_stop", -0.001, 1, 0.02, 0.03),
    ("long_stop", +0.001, 1, 0.02, 0.03),
    ("short_limit", +0.001, 1, 0.02, 0.03),
    # a tight stop above a short: gaps through it at an open
    ("short_market", None, None, 0.01, 0.03),
]


def cell(x):
    return "" if x is None else repr(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bars")
    ap.add_argument("--out", required=True)
    ap.add_argument("--spacing", type=int, default=9)
    ap.add_argument("--hold", type=int, default=6)
    a = ap.parse_args()
    if a.hold < 4 or a.spacing < a.hold + 2:
        ap.error("need --hold >= 4 (longer than any valid_bars) and --spacing >= --hold + 2")
    bars = barsio.load_bars(a.bars)
    close = bars.close.tolist()
    rows = ["bar,action,price,valid_bars,stop_loss,profit_target"]
    k = 0
    t = 5
    while t + a.hold < bars.n - 2:
        action, offset, valid, sl, tp = TEMPLATES[k % len(TEMPLATES)]
        price = None if offset is None else round(close[t] * (1 + offset), 2)
        rows.append(f"{t},{action},{cell(price)},{cell(valid)},{cell(sl)},{cell(tp)}")
        side = action.split("_")[0]
        rows.append(f"{t + a.hold},exit_{side},,,,")
        k += 1
        t += a.spacing
    with open(a.out, "w", newline="") as f:
        f.write("\n".join(rows) + "\n")
    print(f"wrote {k} entries", file=sys.stderr)


if __name__ == "__main__":
    main()
