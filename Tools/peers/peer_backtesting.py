#!/usr/bin/env python3
"""Peer: the Bollinger/RSI swing strategy on backtesting.py (kernc/backtesting.py).

Same command line as oracle.py; writes DIR/trades.csv only.

How the spec maps onto backtesting.py, and where it needs help:
  * Market orders placed in Strategy.next() fill at the next bar's open
    (trade_on_close=False), and a stop-loss / take-profit attached to a
    market order is checked on the fill bar itself (the library re-runs the
    order queue after the fill), with the spec's gap rules: a stop fills at
    min(open, stop), a limit at max(open, target).
  * SL/TP must be absolute prices known when the order is placed, but the
    spec puts them relative to the fill price (the next open). The script
    reads the next bar's open only to compute those two levels and the share
    count floor(cash / open) - the fill itself is done by the library.
    They are set on the order after it is created, because Broker.new_order
    validates SL < current close < TP, which a gap at the next open breaks.
  * Before a TECHNICAL exit the SL/TP orders are cancelled: the library
    checks contingent SL orders ahead of the market close order, so a gap
    below the stop would otherwise be booked as a stop (same price, other
    reason) instead of the spec's "market order at the open first".
  * backtesting.py starts calling next() one bar after the longest indicator
    warm-up (start = 1 + warm-up), which would skip the spec's first decision
    bar; the indicators are therefore held as plain arrays, not Strategy.I.
  * finalize_trades=True would close an open trade at the last bar's OPEN;
    the spec closes at the last close, so an open trade is read back from
    the strategy and closed at the last close here (END_OF_DATA).
  * Where the spec and the library still differ: when a bar opens at or
    above the target and also trades down to the stop, the library's SL
    order (always first in its queue) wins at the stop price; the spec takes
    the target at the open.
Indicators: TA-Lib (the library has none of its own).
"""

import math
import os
import sys
import warnings

os.environ.setdefault("TQDM_DISABLE", "1")          # no progress bar on stderr

import talib  # noqa: E402
from backtesting import Backtest, Strategy  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))  # barsio.py, in Tools/reference
import barsio  # noqa: E402
from barsio import EXIT_END, EXIT_STOP, EXIT_TARGET, EXIT_TECHNICAL  # noqa: E402


def run_backtest(bars, p):
    close = bars.close
    upper, mid, lower = talib.BBANDS(close, timeperiod=p.bb_period, nbdevup=p.bb_std,
                                     nbdevdn=p.bb_std, matype=0)
    rsi = talib.RSI(close, timeperiod=p.rsi_period)
    first_defined = max(p.bb_period - 1, p.rsi_period)
    n = bars.n
    opens = bars.open.tolist()
    closes = close.tolist()
    lo_l, up_l, rsi_l = lower.tolist(), upper.tolist(), rsi.tolist()
    sl, pt = p.stop_loss, p.profit_target

    class BbRsi(Strategy):
        def init(self):
            self.technical_entry_bars = set()

        def next(self):
            i = len(self.data) - 1
            if i < first_defined or i >= n - 1:     # undefined indicators / no next open
                return
            if not self.position:
                if closes[i] < lo_l[i] and rsi_l[i] < p.oversold:
                    fill = opens[i + 1]             # the price the library will fill at
                    size = math.floor(self.equity / fill)
                    if size > 0:
                        order = self.buy(size=size)
                        order._replace(sl_price=fill * (1 - sl),
                                       tp_price=fill * (1 + pt) if pt is not None else None)
            elif closes[i] > up_l[i] or rsi_l[i] > p.overbought:
                for trade in self.trades:
                    trade.sl = None
                    trade.tp = None
                    self.technical_entry_bars.add(trade.entry_bar)
                self.position.close()

    df = bars.frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bt = Backtest(df, BbRsi, cash=p.cash, commission=0.0, spread=0.0,
                      trade_on_close=False, hedging=False, exclusive_orders=False,
                      finalize_trades=False)
        stats = bt.run()
    strat = stats._strategy

    trades = []
    for r in stats._trades.itertuples(index=False):
        entry_bar, exit_bar = int(r.EntryBar), int(r.ExitBar)
        ep, xp = float(r.EntryPrice), float(r.ExitPrice)
        if entry_bar in strat.technical_entry_bars:
            reason = EXIT_TECHNICAL
        elif r.SL == r.SL and xp <= r.SL:
            reason = EXIT_STOP
        elif r.TP == r.TP and xp >= r.TP:
            reason = EXIT_TARGET
        else:
            reason = "UNKNOWN"
        trades.append({"entry_bar": entry_bar, "entry_price": ep, "exit_bar": exit_bar,
                       "exit_price": xp, "shares": int(r.Size), "pnl": float(r.PnL),
                       "ret": float(r.ReturnPct), "reason": reason})
    for t in strat.trades:                          # still open at the end
        xp = closes[-1]
        trades.append({"entry_bar": int(t.entry_bar), "entry_price": float(t.entry_price),
                       "exit_bar": n - 1, "exit_price": xp, "shares": int(t.size),
                       "pnl": t.size * (xp - t.entry_price), "ret": xp / t.entry_price - 1.0,
                       "reason": EXIT_END})
    trades.sort(key=lambda t: t["entry_bar"])
    return trades


def main():
    ap = barsio.common_parser(__doc__.split("\n")[0])
    args = ap.parse_args()
    barsio.check_params(args)
    sw = barsio.Stopwatch()
    bars = barsio.load_bars(args.bars)
    sw.lap("load_s")
    trades = run_backtest(bars, args)
    sw.lap("run_s")
    barsio.make_out_dir(args.out)
    barsio.write_text_atomic(os.path.join(args.out, "trades.csv"),
                             barsio.trades_csv_text(trades, bars.times))
    sw.lap("write_s")
    if args.timing:
        sw.report(f"bars={bars.n} trades={len(trades)}")
    return 0


if __name__ == "__main__":
    barsio.run_main(main)
