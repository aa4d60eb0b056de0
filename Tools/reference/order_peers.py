#!/usr/bin/env python3
"""Peer: scripted entry orders and short positions on backtesting.py 0.6.6.

  order_peers.py BARS.csv DECISIONS.csv --out DIR [--shares 100 | --all-in] [--cash 100000]

Runs the decisions of DECISIONS.csv (made by `order_decisions.py`; columns
bar,action,price,valid_bars,stop_loss,profit_target, optionally followed by
trailing_stop,max_bars_held) through backtesting.py
and writes DIR/trades.csv (one row per round trip: decision_bar, side,
entry_bar, entry_price, exit_bar, exit_price, exit_reason, shares; bars are
0-based indices into BARS.csv) and DIR/orders.csv (decision_bar, action,
outcome: filled, expired or not_taken). Compared with the engine by
`Tests/BacktestCoreTests/OrderPeerTests.swift`; the rules it is compared
against are `Docs/orders.md`.

How the script's decisions map onto backtesting.py (commission 0, no spread,
trade_on_close=False, hedging=False, exclusive_orders=False), every fill
done by the library:
  * A decision at the close of bar t is placed in Strategy.next() of bar t
    and fills from bar t + 1: a market order at the next open; a limit buy
    (`buy(limit=L)`) at min(open, L) when the low reaches L; a stop buy
    (`buy(stop=S)`) at max(open, S) when the high reaches S; short sales
    (`sell(...)`) mirrored. Fixed size (`--shares`, default 100), so no
    sizing convention enters the comparison; or `--all-in` (market entries
    only): the engine's all-in rule, the most whole shares of the equity (the
    cash when flat) at the fill price, which for a market order without
    slippage is the next bar's open (read only for that), computed here as
    floor(equity / open) from the library's own equity at the decision and
    passed as a whole number of shares. The library's relative sizes
    (`size=0.99`) would size from the decision close instead.
  * One position at a time, as the engine: an entry while a position is open
    or an order waits is not placed (`not_taken`); an exit of the side not
    held is not placed.
  * valid_bars: the library's orders wait until cancelled, so an order still
    unfilled at the close of its last valid bar (decision bar + valid_bars)
    is cancelled there (`expired`).
  * Stop-loss and profit target are fractions of the entry fill, but the
    library takes absolute prices:
      - market entries: the levels are computed from the next bar's open
        (the price the library will fill at; read only for that) and set on
        the order after it is created (Broker.new_order would refuse levels
        on the wrong side of the current close). The library re-runs its
        order queue after a market fill, so the levels are checked on the
        entry bar too.
      - limit and stop entries: the fill price is not known in advance, so
        the levels are set on the trade (`trade.sl`, `trade.tp`) from its
        library-made entry price at the close of the fill bar. They are
        checked from the next bar on: the library itself never checks a
        limit/stop entry's levels on its fill bar (it warns that the result
        would be "dubious", kernc/backtesting.py#119).
  * Trailing stop z (a long; a short mirrored): the engine's level is
    max(E, highest close since the entry) x (1 - z), set at the entry from
    the fill E, raised at each close, checked like the stop-loss, the nearer
    of the two binding. Here the trade's SL order is that nearer level:
    for a market entry set on the order from the next open (so the library
    checks E x (1 - z) on the entry bar too, as the engine does), and in
    next() at every close of the trade, from E and the closes of bars
    entry_bar..now, `trade.sl = max(fixed stop, trail)`. The library checks
    its SL orders first (before the TP), from the next bar's open, a gap
    through filling at the open. Which of the two levels was the SL is kept
    per trade and gives the exit reason (TRAILING_STOP when the trail was
    strictly nearer, else STOP_LOSS, as the engine). For a limit or stop
    entry the trail is set at the close of its fill bar from the library's
    fill price, like its fixed levels.
  * Time exit N: at the close of bar entry_bar + N - 1 (the entry bar counts
    1; the library's own entry bar of the trade) the trade's SL/TP are
    cancelled and it is closed at the next open, reason TIME, unless the
    script's exit of that side comes at the same close (taken instead, as the
    engine takes a strategy's exit) or the bar is the last.
  * A scripted exit cancels the trade's SL/TP first and closes at the next
    open (otherwise a stop order the open gaps through would take the exit).
  * finalize_trades=False; a trade still open after the last bar is closed
    here at the last close (END_OF_DATA).
  * Exit reasons are read back: TECHNICAL for scripted exits, TIME for time
    exits, STOP_LOSS (or TRAILING_STOP, above) when the exit price is at or
    beyond the SL, PROFIT_TARGET at or beyond the TP.
"""

import argparse
import csv
import math
import os
import sys
import warnings

os.environ.setdefault("TQDM_DISABLE", "1")

from backtesting import Backtest, Strategy  # noqa: E402

import barsio  # noqa: E402

ENTRY_ACTIONS = {"long_market", "long_limit", "long_stop", "short_market", "short_limit", "short_stop"}
EXIT_ACTIONS = {"exit_long", "exit_short"}


def read_decisions(path):
    def num(s, kind=float):
        return None if s == "" else kind(s)
    out = {}
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        want = ["bar", "action", "price", "valid_bars", "stop_loss", "profit_target"]
        extra = ["trailing_stop", "max_bars_held"]
        if r.fieldnames not in (want, want + extra):
            raise barsio.DataError(f"{path}:1: header must be {','.join(want)}[,{','.join(extra)}], got {r.fieldnames}")
        for line, row in enumerate(r, start=2):
            bar = int(row["bar"])
            action = row["action"]
            if action not in ENTRY_ACTIONS | EXIT_ACTIONS:
                raise barsio.DataError(f"{path}:{line}: unknown action {action!r}")
            if bar in out:
                raise barsio.DataError(f"{path}:{line}: a second decision at bar {bar}")
            d = {"bar": bar, "action": action, "price": num(row["price"]),
                 "valid": num(row["valid_bars"], int) or 1,
                 "sl": num(row["stop_loss"]), "tp": num(row["profit_target"]),
                 "trail": num(row.get("trailing_stop") or ""), "held": num(row.get("max_bars_held") or "", int)}
            if d["held"] is not None and d["held"] < 1:
                raise barsio.DataError(f"{path}:{line}: max_bars_held must be at least 1")
            kind = action.split("_")[1]
            if (kind in ("limit", "stop")) != (d["price"] is not None):
                raise barsio.DataError(f"{path}:{line}: {action} needs a price exactly for limit and stop")
            out[bar] = d
    return out


def levels(is_long, entry, sl, tp):
    """Absolute stop and target of an entry at `entry` (the engine's formulas, Docs/orders.md)."""
    if is_long:
        return (entry * (1 - sl) if sl is not None else None, entry * (1 + tp) if tp is not None else None)
    return (entry * (1 + sl) if sl is not None else None, entry * (1 - tp) if tp is not None else None)


def stop_level(is_long, entry, sl, trail, best):
    """The binding stop of a position entered at `entry` whose best close so far is `best`
    (`entry` itself before any close), and its reason: the nearer of the fixed stop and the
    trail, TRAILING_STOP only when the trail is strictly nearer (the engine's rule)."""
    fixed = levels(is_long, entry, sl, None)[0]
    if trail is None:
        return fixed, "STOP_LOSS"
    level = best * (1 - trail) if is_long else best * (1 + trail)
    if fixed is None or (level > fixed if is_long else level < fixed):
        return level, "TRAILING_STOP"
    return fixed, "STOP_LOSS"


def run(bars, decisions, shares, cash, all_in=False):
    n = bars.n
    opens = bars.open.tolist()
    closes = bars.close.tolist()
    outcome = {}

    class Scripted(Strategy):
        def init(self):
            self.pending = None          # (order, decision) of a limit/stop order waiting
            self.needs_levels = {}       # decision bar -> decision, for limit/stop fills
            self.scripted_exits = set()  # decision bars of trades closed by a scripted exit
            self.time_exits = set()      # decision bars of trades closed by their time limit
            self.sl_reason = {}          # decision bar -> the reason of the trade's current SL

        def next(self):
            i = len(self.data) - 1
            if self.pending is not None:
                order, d = self.pending
                if not any(o is order for o in self.orders):
                    self.pending = None                      # filled
                elif i - d["bar"] >= d["valid"]:
                    order.cancel()
                    outcome[d["bar"]] = "expired"
                    self.pending = None
            for tr in self.trades:                           # levels of a limit/stop fill, from its price
                d = self.needs_levels.pop(tr.tag, None)
                if d is not None:
                    sl, tp = levels(tr.is_long, tr.entry_price, d["sl"], d["tp"])
                    if sl is not None:
                        tr.sl = sl
                        self.sl_reason[tr.tag] = "STOP_LOSS"
                    if tp is not None:
                        tr.tp = tp
            for tr in self.trades:                           # trailing stops: the level from this close
                dt = decisions[tr.tag]
                if dt["trail"] is not None:
                    since = closes[tr.entry_bar:i + 1]
                    best = max([tr.entry_price] + since) if tr.is_long else min([tr.entry_price] + since)
                    tr.sl, self.sl_reason[tr.tag] = stop_level(tr.is_long, tr.entry_price, dt["sl"], dt["trail"], best)
            d = decisions.get(i)
            if i >= n - 1:                                   # a decision at the last close never fills
                return
            if d is None or d["action"] not in EXIT_ACTIONS or \
                    not (self.position and self.position.is_long == (d["action"] == "exit_long")):
                for tr in self.trades:                       # time exits (a scripted exit at this close wins)
                    dt = decisions[tr.tag]
                    if dt["held"] is not None and i - tr.entry_bar + 1 >= dt["held"]:
                        tr.sl = None
                        tr.tp = None
                        self.time_exits.add(tr.tag)
                        tr.close()
            if d is None:
                return
            action = d["action"]
            if action in EXIT_ACTIONS:
                want_long = action == "exit_long"
                if self.position and self.position.is_long == want_long:
                    for tr in self.trades:
                        tr.sl = None
                        tr.tp = None
                        self.scripted_exits.add(tr.tag)
                    self.position.close()
                    outcome[i] = "filled"
                else:
                    outcome[i] = "not_taken"
                return
            if self.position or self.pending is not None:
                outcome[i] = "not_taken"
                return
            side, kind = action.split("_")
            place = self.buy if side == "long" else self.sell
            if kind == "market":
                size = shares
                if all_in:                                   # the engine's all-in count at the fill price
                    size = math.floor(self.equity / opens[i + 1])
                order = place(size=size, tag=i)
                sl, reason = stop_level(side == "long", opens[i + 1], d["sl"], d["trail"], opens[i + 1])
                tp = levels(side == "long", opens[i + 1], None, d["tp"])[1]
                order._replace(sl_price=sl, tp_price=tp)
                self.sl_reason[i] = reason
            else:
                order = place(size=shares, tag=i, **{kind: d["price"]})
                self.pending = (order, d)
                if d["sl"] is not None or d["tp"] is not None:
                    self.needs_levels[i] = d
                if all_in:
                    raise barsio.DataError(f"bar {i}: --all-in takes market entries only (a limit or stop fill price is not known in advance)")
            outcome[i] = "placed"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bt = Backtest(bars.frame(), Scripted, cash=cash, commission=0.0, spread=0.0,
                      trade_on_close=False, hedging=False, exclusive_orders=False,
                      finalize_trades=False)
        stats = bt.run()
    strat = stats._strategy

    trades = []
    for r in stats._trades.itertuples(index=False):
        tag = int(r.Tag)
        is_long = r.Size > 0
        xp = float(r.ExitPrice)
        if tag in strat.scripted_exits:
            reason = "TECHNICAL"
        elif tag in strat.time_exits:
            reason = "TIME"
        elif r.SL == r.SL and (xp <= r.SL if is_long else xp >= r.SL):
            reason = strat.sl_reason[tag]
        elif r.TP == r.TP and (xp >= r.TP if is_long else xp <= r.TP):
            reason = "PROFIT_TARGET"
        else:
            reason = "UNKNOWN"
        trades.append((tag, "long" if is_long else "short", int(r.EntryBar), float(r.EntryPrice),
                       int(r.ExitBar), xp, reason, abs(int(r.Size))))
    for tr in strat.trades:                                  # still open after the last bar
        trades.append((int(tr.tag), "long" if tr.is_long else "short", int(tr.entry_bar),
                       float(tr.entry_price), n - 1, closes[-1], "END_OF_DATA", abs(int(tr.size))))
    trades.sort(key=lambda t: t[2])
    filled = {t[0] for t in trades}
    for bar, what in outcome.items():
        if what == "placed":
            outcome[bar] = "filled" if bar in filled else "pending_at_end"
    return trades, outcome


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bars")
    ap.add_argument("decisions")
    ap.add_argument("--out", required=True)
    sizing = ap.add_mutually_exclusive_group()
    sizing.add_argument("--shares", type=int, default=100)
    sizing.add_argument("--all-in", action="store_true")
    ap.add_argument("--cash", type=float, default=100000.0)
    a = ap.parse_args()
    bars = barsio.load_bars(a.bars)
    decisions = read_decisions(a.decisions)
    trades, outcome = run(bars, decisions, a.shares, a.cash, a.all_in)
    barsio.make_out_dir(a.out)
    lines = ["decision_bar,side,entry_bar,entry_price,exit_bar,exit_price,exit_reason,shares"]
    for t in trades:
        lines.append(f"{t[0]},{t[1]},{t[2]},{barsio.fmt(t[3])},{t[4]},{barsio.fmt(t[5])},{t[6]},{t[7]}")
    barsio.write_text_atomic(os.path.join(a.out, "trades.csv"), "\n".join(lines) + "\n")
    lines = ["decision_bar,action,outcome"]
    for bar in sorted(outcome):
        lines.append(f"{bar},{decisions[bar]['action']},{outcome[bar]}")
    barsio.write_text_atomic(os.path.join(a.out, "orders.csv"), "\n".join(lines) + "\n")
    counts = {}
    for v in outcome.values():
        counts[v] = counts.get(v, 0) + 1
    print(f"trades={len(trades)} " + " ".join(f"{k}={v}" for k, v in sorted(counts.items())), file=sys.stderr)
    return 0


if __name__ == "__main__":
    barsio.run_main(main)
