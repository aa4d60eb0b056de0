#!/usr/bin/env python3
"""Peer: scripted entry orders and short positions on backtesting.py 0.6.6.

  order_peers.py BARS.csv DECISIONS.csv --out DIR [--shares 100] [--cash 100000]

Runs the decisions of DECISIONS.csv (made by `order_decisions.py`; columns
bar,action,price,valid_bars,stop_loss,profit_target) through backtesting.py
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
    sizing convention enters the comparison.
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
  * A scripted exit cancels the trade's SL/TP first and closes at the next
    open (otherwise a stop order the open gaps through would take the exit).
  * finalize_trades=False; a trade still open after the last bar is closed
    here at the last close (END_OF_DATA).
  * Exit reasons are read back: TECHNICAL for scripted exits, STOP_LOSS when
    the exit price is at or beyond the SL, PROFIT_TARGET at or beyond the TP.
"""

import argparse
import csv
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
        if r.fieldnames != want:
            raise barsio.DataError(f"{path}:1: header must be {','.join(want)}, got {r.fieldnames}")
        for line, row in enumerate(r, start=2):
            bar = int(row["bar"])
            action = row["action"]
            if action not in ENTRY_ACTIONS | EXIT_ACTIONS:
                raise barsio.DataError(f"{path}:{line}: unknown action {action!r}")
            if bar in out:
                raise barsio.DataError(f"{path}:{line}: a second decision at bar {bar}")
            d = {"bar": bar, "action": action, "price": num(row["price"]),
                 "valid": num(row["valid_bars"], int) or 1,
                 "sl": num(row["stop_loss"]), "tp": num(row["profit_target"])}
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


def run(bars, decisions, shares, cash):
    n = bars.n
    opens = bars.open.tolist()
    closes = bars.close.tolist()
    outcome = {}

    class Scripted(Strategy):
        def init(self):
            self.pending = None          # (order, decision) of a limit/stop order waiting
            self.needs_levels = {}       # decision bar -> decision, for limit/stop fills
            self.scripted_exits = set()  # decision bars of trades closed by a scripted exit

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
                    if tp is not None:
                        tr.tp = tp
            d = decisions.get(i)
            if d is None or i >= n - 1:                      # a decision at the last close never fills
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
                order = place(size=shares, tag=i)
                sl, tp = levels(side == "long", opens[i + 1], d["sl"], d["tp"])
                order._replace(sl_price=sl, tp_price=tp)
            else:
                order = place(size=shares, tag=i, **{kind: d["price"]})
                self.pending = (order, d)
                if d["sl"] is not None or d["tp"] is not None:
                    self.needs_levels[i] = d
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
        elif r.SL == r.SL and (xp <= r.SL if is_long else xp >= r.SL):
            reason = "STOP_LOSS"
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
    ap.add_argument("--shares", type=int, default=100)
    ap.add_argument("--cash", type=float, default=100000.0)
    a = ap.parse_args()
    bars = barsio.load_bars(a.bars)
    decisions = read_decisions(a.decisions)
    trades, outcome = run(bars, decisions, a.shares, a.cash)
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
