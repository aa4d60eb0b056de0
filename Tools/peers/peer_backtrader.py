#!/usr/bin/env python3
"""Peer: the Bollinger/RSI swing strategy on backtrader.

Same command line as oracle.py, plus
  --indicators native|talib   backtrader's own BollingerBands / RSI (default)
                              or its TA-Lib wrappers (bt.talib.BBANDS / RSI)
  --write-indicators          also write DIR/indicators.csv
Writes DIR/trades.csv.

How the spec maps onto backtrader:
  * cheat_on_open=True. A buy decided in next() at the close of bar t-1 is
    placed in next_open() of bar t, where the open is known: a market buy of
    floor(cash / open) shares (filled by the broker at that open), a sell
    Stop at open * (1 - stop_loss) and, with a profit target, a sell Limit at
    open * (1 + profit_target), the two linked one-cancels-other. Placed
    together they are all examined on the entry bar, so the entry bar's
    stop/target check of the spec happens. (A bracket order would not work:
    its children only become active on the bar after the parent fills.)
  * backtrader's Stop fills at the open when the open is at or through the
    stop, else at the stop when the low reaches it; the Limit likewise at
    the open or at the target - the spec's gap rules.
  * A TECHNICAL exit is a market close() placed in next(), filled at the next
    open; the stop/target orders are cancelled first, so that the market
    order is the one that fills (spec: market orders fill before intrabar
    exits).
  * backtrader has no end-of-data close; an open position is closed at the
    last close in stop() by this script (END_OF_DATA).
  * Where the spec and the library still differ: when a bar opens at or
    above the target and also trades down to the stop, the Stop (first in
    the broker's queue) fills at the stop price; the spec takes the target
    at the open.
  * Native RSI is created with safediv=True, safelow=0 so that a window with
    no movement gives 0 as in TA-Lib (backtrader's default would divide by
    zero).
"""

import math
import os
import sys

import backtrader as bt
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))  # barsio.py, in Tools/reference
import barsio
from barsio import EXIT_END, EXIT_STOP, EXIT_TARGET, EXIT_TECHNICAL


def run_backtest(bars, p, indicators="native", want_indicators=False):
    n = bars.n
    first_defined = max(p.bb_period - 1, p.rsi_period)
    sl, pt = p.stop_loss, p.profit_target

    class BbRsi(bt.Strategy):
        def __init__(self):
            c = self.data.close
            if indicators == "native":
                bb = bt.indicators.BollingerBands(c, period=p.bb_period, devfactor=p.bb_std)
                self.lower, self.mid, self.upper = bb.lines.bot, bb.lines.mid, bb.lines.top
                self.rsi = bt.indicators.RSI(c, period=p.rsi_period, safediv=True,
                                             safelow=0.0, safehigh=100.0)
            else:
                bb = bt.talib.BBANDS(c, timeperiod=p.bb_period, nbdevup=p.bb_std,
                                     nbdevdn=p.bb_std, matype=0)
                self.upper, self.mid, self.lower = bb.lines.upperband, bb.lines.middleband, \
                    bb.lines.lowerband
                self.rsi = bt.talib.RSI(c, timeperiod=p.rsi_period)
            self.want_buy = False
            self.buy_order = self.stop_order = self.target_order = self.exit_order = None
            self.entry = None
            self.trades = []

        def next_open(self):
            if not self.want_buy:
                return
            self.want_buy = False
            fill = self.data.open[0]
            size = math.floor(self.broker.getcash() / fill)
            if size <= 0:
                return
            self.buy_order = self.buy(size=size, exectype=bt.Order.Market)
            self.stop_order = self.sell(size=size, exectype=bt.Order.Stop, price=fill * (1 - sl))
            if pt is not None:
                self.target_order = self.sell(size=size, exectype=bt.Order.Limit,
                                              price=fill * (1 + pt), oco=self.stop_order)

        def notify_order(self, order):
            if order.status != order.Completed:
                return
            bar = len(self.data) - 1
            price = order.executed.price

            def ref(o):
                return None if o is None else o.ref
            # notifications carry copies of the orders: match them by reference number
            if order.ref == ref(self.buy_order):
                self.entry = (bar, price, int(order.executed.size))
                return
            if order.ref == ref(self.stop_order):
                reason = EXIT_STOP
            elif order.ref == ref(self.target_order):
                reason = EXIT_TARGET
            elif order.ref == ref(self.exit_order):
                reason = EXIT_TECHNICAL
            else:
                reason = "UNKNOWN"
            self._book(bar, price, reason)

        def _book(self, bar, price, reason):
            eb, ep, size = self.entry
            self.trades.append({"entry_bar": eb, "entry_price": ep, "exit_bar": bar,
                                "exit_price": price, "shares": size,
                                "pnl": size * (price - ep), "ret": price / ep - 1.0,
                                "reason": reason})
            self.entry = None
            self.buy_order = self.stop_order = self.target_order = self.exit_order = None

        def next(self):
            i = len(self.data) - 1
            if i < first_defined or i >= n - 1:
                return
            c = self.data.close[0]
            if not self.position:
                if c < self.lower[0] and self.rsi[0] < p.oversold:
                    self.want_buy = True
            elif c > self.upper[0] or self.rsi[0] > p.overbought:
                for o in (self.stop_order, self.target_order):
                    if o is not None and o.alive():
                        self.cancel(o)
                self.exit_order = self.close()

        def stop(self):
            if self.position and self.entry is not None:
                self._book(n - 1, self.data.close[0], EXIT_END)

    df = bars.frame()
    df.index = bars.utc_index()       # backtrader needs datetimes; only their order matters here
    cerebro = bt.Cerebro(stdstats=False, cheat_on_open=True, runonce=True, preload=True)
    cerebro.broker.set_cash(p.cash)
    cerebro.broker.set_checksubmit(False)
    cerebro.broker.setcommission(commission=0.0)
    cerebro.adddata(bt.feeds.PandasData(dataname=df, openinterest=None))
    cerebro.addstrategy(BbRsi)
    strat = cerebro.run()[0]
    trades = strat.trades
    ind = None
    if want_indicators:
        ind = [np.asarray(line.array[:n], dtype=float)
               for line in (strat.lower, strat.mid, strat.upper, strat.rsi)]
    return trades, ind


def main():
    ap = barsio.common_parser(__doc__.split("\n")[0])
    ap.add_argument("--indicators", choices=["native", "talib"], default="native")
    ap.add_argument("--write-indicators", action="store_true")
    args = ap.parse_args()
    barsio.check_params(args)
    sw = barsio.Stopwatch()
    bars = barsio.load_bars(args.bars)
    sw.lap("load_s")
    trades, ind = run_backtest(bars, args, args.indicators, args.write_indicators)
    sw.lap("run_s")
    barsio.make_out_dir(args.out)
    barsio.write_text_atomic(os.path.join(args.out, "trades.csv"),
                             barsio.trades_csv_text(trades, bars.times))
    if ind is not None:
        barsio.write_text_atomic(os.path.join(args.out, "indicators.csv"),
                                 barsio.indicators_csv_text(bars.times, bars.close, *ind))
    sw.lap("write_s")
    if args.timing:
        sw.report(f"bars={bars.n} trades={len(trades)}")
    return 0


if __name__ == "__main__":
    barsio.run_main(main)
