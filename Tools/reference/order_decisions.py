#!/usr/bin/env python3
"""A deterministic decision script for the order peers (`order_peers.py`).

  order_decisions.py BARS.csv --out decisions.csv [--spacing 9] [--hold 6]
      [--templates orders|exits] [--market-only]

Walks the bars and, every `--spacing` bars from bar 5, writes one entry
decision taken at that bar's close, cycling through a list of templates:
`orders` (the default; limit, stop and market entries, long and short, with
stop-loss and profit-target fractions) or `exits` (mostly market entries,
long and short, with trailing stops and time exits, alone or with stop-loss
and target; a few limit and stop entries with them). `--market-only` keeps
the market templates of the list only (for a run whose sizing needs the fill
price in advance). Limit and stop prices are set from the decision
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
`--templates exits` adds two columns:
  trailing_stop: the trailing stop's distance, a fraction (empty: none)
  max_bars_held: the time exit, in bars held (the entry bar counts 1; empty: none)
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


# (action, price offset, valid_bars, stop_loss, profit_target, trailing_stop, max_bars_held)
EXIT_TEMPLATES = [
    ("long_market", None, None, None, None, 0.03, None),
    ("short_market", None, None, None, None, 0.03, None),
    # the trail starts nearer than the fixed stop: it binds from the entry
    ("long_market", None, None, 0.02, None, 0.015, None),
    # the fixed stop starts nearer; the trail passes it once the price has moved far enough
    ("short_market", None, None, 0.02, None, 0.04, None),
    ("long_market", None, None, 0.03, 0.04, 0.05, None),
    ("short_market", None, None, None, 0.03, 0.02, None),
    # tight trails: exits on the entry bar and gaps through the level at an open
    ("long_market", None, None, None, None, 0.01, None),
    ("short_market", None, None, None, None, 0.01, None),
    ("long_market", None, None, None, None, 0.005, None),
    ("short_market", None, None, None, None, 0.005, None),
    # time exits, alone and with levels
    ("long_market", None, None, None, None, None, 1),
    ("short_market", None, None, None, None, None, 3),
    ("long_market", None, None, 0.03, 0.03, None, 5),
    ("short_market", None, None, None, None, 0.025, 2),
    ("long_market", None, None, 0.02, None, 0.03, 4),
    ("short_market", None, None, 0.01, None, 0.03, None),
    # a time limit reached on the bar of the scripted exit (with --hold 10): the scripted exit is taken
    ("long_market", None, None, None, None, None, 10),
    ("short_market", None, None, None, None, None, 10),
    # limit and stop entries: the time counts from the fill bar, not the decision
    ("long_limit", -0.004, 2, None, None, None, 3),
    ("short_stop", -0.004, 2, None, None, None, 4),
    ("long_stop", +0.004, 3, None, None, None, 2),
    ("short_limit", +0.005, 2, None, None, None, 1),
    # limit and stop entries with trails (their fill bar is checked by the engine only, as for the fixed stop)
    ("long_limit", -0.004, 2, None, None, 0.03, None),
    ("short_stop", -0.004, 2, 0.03, None, 0.02, None),
]


def cell(x):
    return "" if x is None else repr(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bars")
    ap.add_argument("--out", required=True)
    ap.add_argument("--spacing", type=int, default=9)
    ap.add_argument("--hold", type=int, default=6)
    ap.add_argument("--templates", choices=["orders", "exits"], default="orders")
    ap.add_argument("--market-only", action="store_true")
    a = ap.parse_args()
    if a.hold < 4 or a.spacing < a.hold + 2:
        ap.error("need --hold >= 4 (longer than any valid_bars) and --spacing >= --hold + 2")
    bars = barsio.load_bars(a.bars)
    close = bars.close.tolist()
    exits = a.templates == "exits"
    templates = EXIT_TEMPLATES if exits else [t + (None, None) for t in TEMPLATES]
    if a.market_only:
        templates = [t for t in templates if t[0].endswith("_market")]
    for t in templates:
        if t[6] is not None and t[6] > a.hold:
            ap.error(f"--hold {a.hold} is shorter than a template's max_bars_held {t[6]}")
    rows = ["bar,action,price,valid_bars,stop_loss,profit_target" + (",trailing_stop,max_bars_held" if exits else "")]
    k = 0
    t = 5
    while t + a.hold < bars.n - 2:
        action, offset, valid, sl, tp, trail, held = templates[k % len(templates)]
        price = None if offset is None else round(close[t] * (1 + offset), 2)
        extra = f",{cell(trail)},{cell(held)}" if exits else ""
        rows.append(f"{t},{action},{cell(price)},{cell(valid)},{cell(sl)},{cell(tp)}{extra}")
        side = action.split("_")[0]
        rows.append(f"{t + a.hold},exit_{side},,,," + (",," if exits else ""))
        k += 1
        t += a.spacing
    with open(a.out, "w", newline="") as f:
        f.write("\n".join(rows) + "\n")
    print(f"wrote {k} entries", file=sys.stderr)


if __name__ == "__main__":
    main()
