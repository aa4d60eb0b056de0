#!/usr/bin/env python3
"""Reference ("oracle") implementation of the Bollinger/RSI swing strategy.

Implements Docs/spec/bb-rsi-swing.md literally, one bar at a time, in plain Python.
Indicators come from TA-Lib (BBANDS with matype=0, RSI), as the spec asks;
`--indicators plain` switches to the straightforward numpy/Python formulas in
this file (two-pass population standard deviation, Wilder RSI), which agree
with TA-Lib to ~1e-12 relative (see `--check-indicators`).

Per bar t, in this order (spec "Decisions and fills"):
  1. an order decided at the close of t-1 fills at open[t]
     (buy: shares = floor(cash / open[t]); sell: reason TECHNICAL);
  2. an open position (also one entered at this open) is checked for
     intrabar exits, with stop = entry * (1 - stop_loss) and
     target = entry * (1 + profit_target):
        open <= stop            -> exit at open,   STOP_LOSS
        open >= target          -> exit at open,   PROFIT_TARGET
        low  <= stop            -> exit at stop,   STOP_LOSS  (also when the
                                   target is touched in the same bar)
        high >= target          -> exit at target, PROFIT_TARGET
     A gap through either level is decided by the open, which is the first
     price of the bar; only when neither level gaps does "stop wins" apply.
  3. at the close, once all indicators are defined and t is not the last
     bar: flat and close < lower and rsi < oversold -> buy next open;
     long and (close > upper or rsi > overbought) -> sell next open.
At the end an open position is closed at the last close (END_OF_DATA).

Outputs in --out:
  trades.csv      entry_time,entry_price,exit_time,exit_price,shares,pnl,
                  return,exit_reason,bars_held  (times as written in the input;
                  bars_held counts the entry fill bar through the exit bar)
  indicators.csv  time,close,bb_lower,bb_mid,bb_upper,rsi (empty = undefined)
  summary.json    statistics, all fractions (never percent):
    total_trades  closed trades, END_OF_DATA included
    wins/losses   trades with pnl > 0 / pnl < 0 (pnl == 0 counts as neither)
    win_rate      wins / total_trades
    avg_win       mean trade return of the wins; avg_loss likewise (negative)
    best_trade / worst_trade   largest / smallest trade return
    total_pnl     sum of trade pnl
    total_return  final_equity / cash - 1
    final_equity  cash + shares * close at the last bar
    max_drawdown  min over bar closes of equity / running max - 1 (<= 0)
    sharpe, sortino   daily returns (equity at the last bar of each calendar
                  day as written in the file, simple returns between
                  consecutive days), mean / std(ddof=1) * sqrt(252) and
                  mean / sqrt(mean(min(r, 0)^2)) * sqrt(252)
    profit_factor gross profit / gross loss (pnl)
    exposure      fraction of bars with a position open at the close (the
                  last bar counts when a position is closed END_OF_DATA)
  Undefined values (no trades, zero deviation, no losses) are null.

Usage:
  oracle.py BARS.csv --out DIR [--bb-period 20 --bb-std 2 --rsi-period 14
            --oversold 30 --overbought 70 --stop-loss 0.02
            --profit-target X --cash 100000] [--timing]
"""

import json
import math
import os
import sys

import numpy as np
import talib

import barsio
from barsio import EXIT_END, EXIT_STOP, EXIT_TARGET, EXIT_TECHNICAL


# ---------------------------------------------------------------- indicators

def indicators_talib(close, bb_period, bb_std, rsi_period):
    upper, mid, lower = talib.BBANDS(close, timeperiod=bb_period, nbdevup=bb_std,
                                     nbdevdn=bb_std, matype=0)
    rsi = talib.RSI(close, timeperiod=rsi_period)
    return lower, mid, upper, rsi


def indicators_plain(close, bb_period, bb_std, rsi_period):
    """The spec's formulas written out directly (no running sums)."""
    n = len(close)
    mid = np.full(n, np.nan)
    sd = np.full(n, np.nan)
    if n >= bb_period:
        win = np.lib.stride_tricks.sliding_window_view(close, bb_period)
        step = 65536
        for s in range(0, len(win), step):
            w = win[s:s + step]
            m = w.mean(axis=1)
            mid[bb_period - 1 + s: bb_period - 1 + s + len(w)] = m
            sd[bb_period - 1 + s: bb_period - 1 + s + len(w)] = np.sqrt(
                ((w - m[:, None]) ** 2).mean(axis=1))          # population: / N
    upper = mid + bb_std * sd
    lower = mid - bb_std * sd

    rsi = np.full(n, np.nan)
    p = rsi_period
    c = close.tolist()
    if n > p:
        gain = loss = 0.0
        for i in range(1, p + 1):
            d = c[i] - c[i - 1]
            if d > 0:
                gain += d
            else:
                loss -= d
        gain /= p
        loss /= p
        out = rsi.tolist()
        out[p] = 0.0 if gain + loss == 0 else 100.0 * (gain / (gain + loss))
        for i in range(p + 1, n):
            d = c[i] - c[i - 1]
            gain = (gain * (p - 1) + (d if d > 0 else 0.0)) / p
            loss = (loss * (p - 1) + (-d if d < 0 else 0.0)) / p
            out[i] = 0.0 if gain + loss == 0 else 100.0 * (gain / (gain + loss))
        rsi = np.array(out)
    return lower, mid, upper, rsi


# ---------------------------------------------------------------- simulation

def flat_windows(close, period):
    """True where every close of the Bollinger window is equal (zero deviation):
    the spec says no band condition holds there."""
    flat = np.zeros(len(close), dtype=bool)
    if len(close) >= period:
        w = np.lib.stride_tricks.sliding_window_view(close, period)
        flat[period - 1:] = w.max(axis=1) == w.min(axis=1)
    return flat


def simulate(bars, lower, upper, rsi, p):
    """Run the strategy. Returns (trades, equity, held_at_close, notes)."""
    o = bars.open.tolist()
    h = bars.high.tolist()
    lo = bars.low.tolist()
    c = bars.close.tolist()
    low_band = lower.tolist()
    up_band = upper.tolist()
    rs = rsi.tolist()
    flat = flat_windows(bars.close, p.bb_period).tolist()
    n = bars.n
    first_defined = max(p.bb_period - 1, p.rsi_period)
    sl, pt = p.stop_loss, p.profit_target

    cash = p.cash
    shares = 0
    entry_price = 0.0
    entry_bar = -1
    pending = None                 # None, "BUY" or "SELL", decided at the previous close
    trades = []
    equity = [0.0] * n
    held = [False] * n
    notes = {"gap_target_with_stop_touched": 0, "stop_and_target_same_bar": 0,
             "zero_share_entries": 0}

    def close_position(bar, price, reason):
        nonlocal cash, shares
        trades.append({"entry_bar": entry_bar, "entry_price": entry_price,
                       "exit_bar": bar, "exit_price": price, "shares": shares,
                       "pnl": shares * (price - entry_price),
                       "ret": price / entry_price - 1.0, "reason": reason})
        cash += shares * price
        shares = 0

    for t in range(n):
        # 1. orders decided at the previous close fill at this open
        if pending == "BUY":
            qty = math.floor(cash / o[t])
            if qty > 0:
                shares = qty
                entry_price = o[t]
                entry_bar = t
                cash -= qty * o[t]
            else:
                notes["zero_share_entries"] += 1
        elif pending == "SELL":
            close_position(t, o[t], EXIT_TECHNICAL)
        pending = None

        # 2. intrabar stop-loss / profit-target (including the entry bar)
        if shares > 0:
            stop = entry_price * (1 - sl) if sl is not None else -math.inf
            target = entry_price * (1 + pt) if pt is not None else None
            if o[t] <= stop:
                close_position(t, o[t], EXIT_STOP)
            elif target is not None and o[t] >= target:
                if lo[t] <= stop:
                    notes["gap_target_with_stop_touched"] += 1
                close_position(t, o[t], EXIT_TARGET)
            elif lo[t] <= stop:
                if target is not None and h[t] >= target:
                    notes["stop_and_target_same_bar"] += 1
                close_position(t, stop, EXIT_STOP)
            elif target is not None and h[t] >= target:
                close_position(t, target, EXIT_TARGET)

        equity[t] = cash + shares * c[t]
        held[t] = shares > 0

        # 3. decisions at the close (dropped on the last bar: no next open)
        if t >= first_defined and t < n - 1:
            if shares == 0:
                if not flat[t] and c[t] < low_band[t] and rs[t] < p.oversold:
                    pending = "BUY"
            elif (not flat[t] and c[t] > up_band[t]) or rs[t] > p.overbought:
                pending = "SELL"

    # 4. end of data
    if shares > 0:
        close_position(n - 1, c[n - 1], EXIT_END)
    return trades, np.array(equity), np.array(held), notes


# ---------------------------------------------------------------- statistics

def daily_returns(equity, day):
    """Simple returns of the equity at the last bar of each calendar day."""
    last = np.flatnonzero(day[1:] != day[:-1])          # bar before a day change
    idx = np.append(last, len(equity) - 1)
    eq = equity[idx]
    return eq[1:] / eq[:-1] - 1.0, idx


def sharpe_sortino(r):
    if len(r) < 2:
        return None, None
    mean = r.mean()
    sd = r.std(ddof=1)
    sharpe = mean / sd * math.sqrt(252) if sd > 0 else None
    downside = math.sqrt(np.mean(np.minimum(r, 0.0) ** 2))
    sortino = mean / downside * math.sqrt(252) if downside > 0 else None
    return sharpe, sortino


def summarize(trades, equity, held, day, cash0):
    pnl = np.array([t["pnl"] for t in trades], dtype=float)
    ret = np.array([t["ret"] for t in trades], dtype=float)
    win = pnl > 0
    loss = pnl < 0
    r, _ = daily_returns(equity, day)
    sharpe, sortino = sharpe_sortino(r)
    runmax = np.maximum.accumulate(equity)
    gross_profit = pnl[win].sum()
    gross_loss = -pnl[loss].sum()
    final_equity = float(equity[-1])
    years = (np.datetime64(str(day[-1])[:10]) - np.datetime64(str(day[0])[:10])).astype(int) / 365.0
    cagr = (final_equity / cash0) ** (1.0 / years) - 1.0 if years > 0 and final_equity > 0 else None

    def f(x):
        return None if x is None or not math.isfinite(x) else float(x)

    n = len(trades)
    return {
        "total_trades": n,
        "wins": int(win.sum()),
        "losses": int(loss.sum()),
        "win_rate": f(win.sum() / n) if n else None,
        "avg_win": f(ret[win].mean()) if win.any() else None,
        "avg_loss": f(ret[loss].mean()) if loss.any() else None,
        "best_trade": f(ret.max()) if n else None,
        "worst_trade": f(ret.min()) if n else None,
        "total_pnl": f(pnl.sum()),
        "total_return": f(final_equity / cash0 - 1.0),
        "final_equity": f(final_equity),
        "cagr": f(cagr),
        "max_drawdown": f((equity / runmax - 1.0).min()),
        "sharpe": f(sharpe),
        "sortino": f(sortino),
        "profit_factor": f(gross_profit / gross_loss) if gross_loss > 0 else None,
        "exposure": f(held.mean()),
    }


def check_quantstats(equity, day):
    """Compare our Sharpe/Sortino with quantstats on the same daily returns."""
    import pandas as pd
    import quantstats as qs
    r, idx = daily_returns(equity, day)
    ours = tuple(None if x is None else float(x) for x in sharpe_sortino(r))
    dates = pd.to_datetime(pd.Series(day[idx[1:]]))
    s = pd.Series(r, index=dates.values)
    theirs = (float(qs.stats.sharpe(s)), float(qs.stats.sortino(s)))
    for name, a, b in (("sharpe", ours[0], theirs[0]), ("sortino", ours[1], theirs[1])):
        if a is None:
            print(f"quantstats {name}: ours=null quantstats={b!r}", file=sys.stderr)
        else:
            rel = abs(a - b) / max(abs(a), abs(b), 1e-300)
            print(f"quantstats {name}: ours={a!r} quantstats={b!r} rel_diff={rel:.3g}",
                  file=sys.stderr)


def indicator_diff(a, b):
    """Max relative difference between two indicator arrays (NaN must agree)."""
    if not np.array_equal(np.isnan(a), np.isnan(b)):
        return float("inf")
    m = ~np.isnan(a)
    if not m.any():
        return 0.0
    den = np.maximum(np.maximum(np.abs(a[m]), np.abs(b[m])), 1e-300)
    return float((np.abs(a[m] - b[m]) / den).max())


# ---------------------------------------------------------------- main

def main():
    ap = barsio.common_parser(__doc__.split("\n")[0])
    ap.add_argument("--indicators", choices=["talib", "plain"], default="talib",
                    help="indicator implementation driving the decisions (default talib)")
    ap.add_argument("--check-indicators", action="store_true",
                    help="also compute the other implementation, report the largest "
                         "relative difference and whether the trades change")
    ap.add_argument("--check-quantstats", action="store_true",
                    help="compare sharpe/sortino with quantstats (to stderr)")
    ap.add_argument("--notes", action="store_true",
                    help="print counts of rare broker cases (to stderr)")
    args = ap.parse_args()
    barsio.check_params(args)

    sw = barsio.Stopwatch()
    bars = barsio.load_bars(args.bars)
    sw.lap("load_s")

    calc = indicators_talib if args.indicators == "talib" else indicators_plain
    lower, mid, upper, rsi = calc(bars.close, args.bb_period, args.bb_std, args.rsi_period)
    trades, equity, held, notes = simulate(bars, lower, upper, rsi, args)
    summary = summarize(trades, equity, held, bars.day, args.cash)
    sw.lap("run_s")

    if args.check_indicators:
        other = indicators_plain if calc is indicators_talib else indicators_talib
        lo2, mi2, up2, rs2 = other(bars.close, args.bb_period, args.bb_std, args.rsi_period)
        diffs = {name: indicator_diff(a, b) for name, a, b in
                 (("bb_lower", lower, lo2), ("bb_mid", mid, mi2),
                  ("bb_upper", upper, up2), ("rsi", rsi, rs2))}
        trades2, _, _, _ = simulate(bars, lo2, up2, rs2, args)
        same = barsio.trades_csv_text(trades, bars.times) == barsio.trades_csv_text(trades2, bars.times)
        print("indicator max rel diff talib vs plain: " +
              " ".join(f"{k}={v:.3g}" for k, v in diffs.items()) +
              f"; trades identical: {same}", file=sys.stderr)
    if args.check_quantstats:
        check_quantstats(equity, bars.day)
    if args.notes:
        print("notes: " + " ".join(f"{k}={v}" for k, v in notes.items()), file=sys.stderr)
    if args.check_indicators or args.check_quantstats:
        sw.lap("check_s")

    barsio.make_out_dir(args.out)
    barsio.write_text_atomic(os.path.join(args.out, "trades.csv"),
                             barsio.trades_csv_text(trades, bars.times))
    barsio.write_text_atomic(os.path.join(args.out, "indicators.csv"),
                             barsio.indicators_csv_text(bars.times, bars.close,
                                                        lower, mid, upper, rsi))
    barsio.write_text_atomic(os.path.join(args.out, "summary.json"),
                             json.dumps(summary, indent=2) + "\n")
    sw.lap("write_s")
    if args.timing:
        sw.report(f"bars={bars.n} trades={len(trades)}")
    return 0


if __name__ == "__main__":
    barsio.run_main(main)
