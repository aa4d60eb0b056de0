#!/usr/bin/env python3
"""Peer: the Bollinger/RSI swing strategy on vectorbt (Portfolio.from_signals).

Same command line as oracle.py, plus
  --indicators native|talib  Bollinger bands from vbt.BBANDS (default) or
                             TA-Lib; RSI is always TA-Lib (see below)
  --raw-stops                turn off the pending-exit workaround (below)
  --write-indicators         also write DIR/indicators.csv
Writes DIR/trades.csv. With --timing the backtest runs twice in the process
and run_warm_s reports the second run (the first may include numba
compilation or loading numba's on-disk cache).

How the spec maps onto from_signals:
  * Signals are computed on the close of bar t and shifted one bar, with
    price=open, so the order fills at the next open (spec step 1).
  * size=inf, size_granularity=1 buys floor(cash / open) whole shares.
  * sl_stop / tp_stop with stop_entry_price=FillPrice put the levels at
    fill * (1 - stop_loss) and fill * (1 + profit_target); a level gapped
    through at the open fills at the open, else at the level; the stop is
    tested before the target, so "stop wins" holds when both are touched.
  * Pending-exit workaround: vectorbt tests stops before the bar's signals
    and allows one order per bar, so on a bar where a TECHNICAL sell is due
    at the open it would exit at the stop/target level if the bar's range
    reaches it. The spec fills the market order at the open first. On such
    bars the script therefore hands vectorbt low = high = open, so the only
    exit possible there is at the open, and books it as TECHNICAL.
  * Not expressible: stops are armed only after the entry bar (one order
    per bar and column), so the spec's stop/target check on the entry bar
    itself is missing - a position the spec stops out on its entry bar is
    kept by vectorbt. Also, when a bar opens at or above the target and
    trades down to the stop, vectorbt takes the stop; the spec the target.
  * vectorbt's own RSI is a simple or EMA-smoothed average, not Wilder's
    smoothing with TA-Lib's seeding, so the RSI comes from TA-Lib.
  * An open position at the end is an "open" trade valued at the last
    close, which is written as END_OF_DATA.
"""

import os
import sys
import time

import numpy as np
import talib
import vectorbt as vbt

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))  # barsio.py, in Tools/reference
import barsio
from barsio import EXIT_END, EXIT_STOP, EXIT_TARGET, EXIT_TECHNICAL


def indicators(close_s, p, kind):
    close = close_s.to_numpy()
    if kind == "native":
        bb = vbt.BBANDS.run(close_s, window=p.bb_period, alpha=p.bb_std, ewm=False)
        lower, mid, upper = (np.asarray(x.to_numpy(), dtype=float)
                             for x in (bb.lower, bb.middle, bb.upper))
    else:
        upper, mid, lower = talib.BBANDS(close, timeperiod=p.bb_period, nbdevup=p.bb_std,
                                         nbdevdn=p.bb_std, matype=0)
    rsi = talib.RSI(close, timeperiod=p.rsi_period)
    return lower, mid, upper, rsi


def extract_trades(rec, o, exits, stop_loss, profit_target, raw_stops=False):
    """Turn vectorbt trade records of one column into the trades.csv rows."""
    trades = []
    for r in rec:
        eb, xb = int(r["entry_idx"]), int(r["exit_idx"])
        ep, xp = float(r["entry_price"]), float(r["exit_price"])
        fill = o[eb]       # the order's fill price (the trade record's average may be 1 ulp off)
        stop = fill * (1 - stop_loss)
        target = fill * (1 + profit_target) if profit_target is not None else None
        # vectorbt does not record why a position was closed; infer it from the price
        if int(r["status"]) == 0:            # still open: valued at the last close
            reason = EXIT_END
        elif exits[xb] and not raw_stops:    # masked bar: the only possible exit is at the open
            reason = EXIT_TECHNICAL if xp == o[xb] else "UNKNOWN"
        elif xp <= stop:                     # stops are tested before the bar's signals
            reason = EXIT_STOP
        elif target is not None and xp >= target:
            reason = EXIT_TARGET
        elif exits[xb] and xp == o[xb]:
            reason = EXIT_TECHNICAL
        else:
            reason = "UNKNOWN"
        trades.append({"entry_bar": eb, "entry_price": ep, "exit_bar": xb, "exit_price": xp,
                       "shares": int(round(float(r["size"]))), "pnl": float(r["pnl"]),
                       "ret": xp / ep - 1.0, "reason": reason})
    return trades


def run_backtest(bars, p, kind="native", raw_stops=False):
    n = bars.n
    df = bars.frame()
    close_s = df["Close"]
    o, h, l, c = bars.open, bars.high, bars.low, bars.close
    lower, mid, upper, rsi = indicators(close_s, p, kind)

    first_defined = max(p.bb_period - 1, p.rsi_period)
    defined = np.zeros(n, dtype=bool)
    defined[first_defined:] = True
    with np.errstate(invalid="ignore"):
        buy_sig = defined & (c < lower) & (rsi < p.oversold)
        sell_sig = defined & ((c > upper) | (rsi > p.overbought))
    entries = np.zeros(n, dtype=bool)
    exits = np.zeros(n, dtype=bool)
    entries[1:] = buy_sig[:-1]           # decided at close t-1, filled at open t
    exits[1:] = sell_sig[:-1]

    if raw_stops:
        lo_eff, hi_eff = l, h
    else:
        lo_eff = np.where(exits, o, l)
        hi_eff = np.where(exits, o, h)

    pf = vbt.Portfolio.from_signals(
        close=close_s, entries=entries, exits=exits,
        price=o, open=o, high=hi_eff, low=lo_eff,
        size=np.inf, size_type="amount", size_granularity=1.0,
        init_cash=p.cash, fees=0.0, fixed_fees=0.0, slippage=0.0,
        direction="longonly", accumulate=False,
        sl_stop=p.stop_loss,
        tp_stop=p.profit_target if p.profit_target is not None else np.nan,
        stop_entry_price="fillprice", stop_exit_price="stoplimit",
        upon_stop_exit="close", freq=None)

    trades = extract_trades(pf.exit_trades.values, o, exits, p.stop_loss, p.profit_target,
                            raw_stops)
    return trades, (lower, mid, upper, rsi)


def main():
    ap = barsio.common_parser(__doc__.split("\n")[0])
    ap.add_argument("--indicators", choices=["native", "talib"], default="native")
    ap.add_argument("--raw-stops", action="store_true")
    ap.add_argument("--write-indicators", action="store_true")
    args = ap.parse_args()
    barsio.check_params(args)
    sw = barsio.Stopwatch()
    bars = barsio.load_bars(args.bars)
    sw.lap("load_s")
    trades, ind = run_backtest(bars, args, args.indicators, args.raw_stops)
    sw.lap("run_s")
    extra = ""
    if args.timing:
        t0 = time.perf_counter()
        run_backtest(bars, args, args.indicators, args.raw_stops)
        extra = f"run_warm_s={time.perf_counter() - t0:.6f} "
        sw.t0 = time.perf_counter()
    barsio.make_out_dir(args.out)
    barsio.write_text_atomic(os.path.join(args.out, "trades.csv"),
                             barsio.trades_csv_text(trades, bars.times))
    if args.write_indicators:
        barsio.write_text_atomic(os.path.join(args.out, "indicators.csv"),
                                 barsio.indicators_csv_text(bars.times, bars.close, *ind))
    sw.lap("write_s")
    if args.timing:
        sw.report(extra + f"bars={bars.n} trades={len(trades)}")
    return 0


if __name__ == "__main__":
    barsio.run_main(main)
