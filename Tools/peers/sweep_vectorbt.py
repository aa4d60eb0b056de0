#!/usr/bin/env python3
"""Parameter sweep of the Bollinger/RSI swing strategy in one vectorbt call.

  sweep_vectorbt.py BARS.csv [--out results.csv] [--repeat 3]
                    [--stop-loss 0.02] [--overbought 70] [--cash 100000]
                    [--trades-for 20,2.0,14,30 --trades-out DIR]

Grid (180 combinations): bb_period {10,15,20,25,30} x bb_std {1.5,2.0,2.5}
x rsi_period {7,14,21} x oversold {20,25,30,35}. All combinations are
simulated as the columns of a single Portfolio.from_signals call, with the
same configuration as peer_vectorbt.py (--indicators native): vbt.BBANDS for
the bands, TA-Lib RSI, fills at the next open, whole shares, stop at
fill * (1 - stop_loss), and the pending-exit workaround (low = high = open on
bars where a TECHNICAL sell is due). --trades-for writes that combination's
trades.csv so it can be checked against peer_vectorbt.py / oracle.py.

Timing (stderr): load_s, then for each repeat the seconds for indicators +
signals, the simulation and the per-combination statistics. The first repeat
includes numba compilation (vectorbt's simulator is compiled on first use in
every process); later repeats are warm. combos/s = 180 / seconds and
bar-combos/s = 180 * bars / seconds.
"""

import argparse
import itertools
import os
import sys
import time

import numpy as np
import pandas as pd
import talib
import vectorbt as vbt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))  # barsio.py, in Tools/reference
import barsio

BB_PERIODS = [10, 15, 20, 25, 30]
BB_STDS = [1.5, 2.0, 2.5]
RSI_PERIODS = [7, 14, 21]
OVERSOLD = [20, 25, 30, 35]


def sweep(bars, a):
    t0 = time.perf_counter()
    o, h, l, c = bars.open, bars.high, bars.low, bars.close
    n = bars.n
    close_s = pd.Series(c)
    bb = vbt.BBANDS.run(close_s, window=BB_PERIODS, alpha=BB_STDS, ewm=False,
                        param_product=True)
    lower = bb.lower.to_numpy()              # (n, 15): window-major, then alpha
    upper = bb.upper.to_numpy()
    rsi = np.column_stack([talib.RSI(c, timeperiod=p) for p in RSI_PERIODS])   # (n, 3)

    combos = list(itertools.product(range(len(BB_PERIODS)), range(len(BB_STDS)),
                                    range(len(RSI_PERIODS)), OVERSOLD))
    m = len(combos)
    bb_col = np.array([i * len(BB_STDS) + j for i, j, _, _ in combos])
    rsi_col = np.array([k for _, _, k, _ in combos])
    os_lvl = np.array([v for _, _, _, v in combos], dtype=float)
    with np.errstate(invalid="ignore"):
        buy = (c[:, None] < lower[:, bb_col]) & (rsi[:, rsi_col] < os_lvl[None, :])
        sell = (c[:, None] > upper[:, bb_col]) | (rsi[:, rsi_col] > a.overbought)
    entries = np.zeros((n, m), dtype=bool)
    exits = np.zeros((n, m), dtype=bool)
    entries[1:] = buy[:-1]                   # decided at close t-1, filled at open t
    exits[1:] = sell[:-1]
    lo_eff = np.where(exits, o[:, None], l[:, None])
    hi_eff = np.where(exits, o[:, None], h[:, None])
    t1 = time.perf_counter()

    pf = vbt.Portfolio.from_signals(
        close=c[:, None], entries=entries, exits=exits,
        price=o[:, None], open=o[:, None], high=hi_eff, low=lo_eff,
        size=np.inf, size_type="amount", size_granularity=1.0,
        init_cash=a.cash, fees=0.0, direction="longonly", accumulate=False,
        sl_stop=a.stop_loss, stop_entry_price="fillprice", stop_exit_price="stoplimit",
        upon_stop_exit="close", freq=None)
    t2 = time.perf_counter()

    total_return = np.asarray(pf.total_return())
    n_trades = np.asarray(pf.exit_trades.count())
    t3 = time.perf_counter()

    rows = [(BB_PERIODS[i], BB_STDS[j], RSI_PERIODS[k], v, int(n_trades[x]), float(total_return[x]))
            for x, (i, j, k, v) in enumerate(combos)]
    times = {"signals_s": t1 - t0, "simulate_s": t2 - t1, "stats_s": t3 - t2, "total_s": t3 - t0}
    return rows, times, (pf, combos, exits)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bars")
    ap.add_argument("--out", help="CSV of results per combination")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--stop-loss", type=float, default=0.02)
    ap.add_argument("--overbought", type=float, default=70.0)
    ap.add_argument("--cash", type=float, default=100000.0)
    ap.add_argument("--trades-for", help="bb_period,bb_std,rsi_period,oversold")
    ap.add_argument("--trades-out", help="directory for --trades-for's trades.csv")
    a = ap.parse_args()

    t0 = time.perf_counter()
    bars = barsio.load_bars(a.bars)
    load_s = time.perf_counter() - t0
    print(f"load_s={load_s:.6f} bars={bars.n} combos={len(BB_PERIODS) * len(BB_STDS) * len(RSI_PERIODS) * len(OVERSOLD)}",
          file=sys.stderr)
    for r in range(max(1, a.repeat)):
        rows, times, state = sweep(bars, a)
        m = len(rows)
        tot = times["total_s"]
        print(f"run {r + 1}{' (first: includes numba compilation)' if r == 0 else ' (warm)'}: "
              + " ".join(f"{k}={v:.4f}" for k, v in times.items())
              + f" combos_per_s={m / tot:.1f} bar_combos_per_s={m * bars.n / tot:.4g}",
              file=sys.stderr)

    if a.out:
        lines = ["bb_period,bb_std,rsi_period,oversold,trades,total_return"]
        lines += [f"{p},{s!r},{q},{v!r},{nt},{tr!r}" for p, s, q, v, nt, tr in rows]
        barsio.write_text_atomic(a.out, "\n".join(lines) + "\n")
    if a.trades_for:
        from peer_vectorbt import extract_trades
        pf, combos, exits = state
        bp, bs, rp, ov = a.trades_for.split(",")
        key = (BB_PERIODS.index(int(bp)), BB_STDS.index(float(bs)), RSI_PERIODS.index(int(rp)),
               float(ov))
        x = [(i, j, k, float(v)) for i, j, k, v in combos].index(key)
        rec = pf.exit_trades.values
        rec = rec[rec["col"] == x]
        trades = extract_trades(rec, bars.open, exits[:, x], a.stop_loss, None)
        barsio.make_out_dir(a.trades_out)
        barsio.write_text_atomic(os.path.join(a.trades_out, "trades.csv"),
                                 barsio.trades_csv_text(trades, bars.times))
    return 0


if __name__ == "__main__":
    barsio.run_main(main)
