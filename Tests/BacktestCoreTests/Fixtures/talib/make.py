"""TA-Lib reference values for ADX, PLUS_DI, MINUS_DI, STOCH, MACD, WILLR, CCI, OBV and WMA.

Run from the project root:

    .venv-peers/bin/python Tests/BacktestCoreTests/Fixtures/talib/make.py

with the venv made by `bash Tools/peers/setup.sh .venv-peers` (TA-Lib
0.8.2, numpy 2.4.6, pandas 3.1.1; Tools/reference/requirements.txt pins the
same three, so `.venv-reference/bin/python` gives the same files).

It writes, next to this script, one CSV per bar file, one column per key
(17 significant digits; empty where TA-Lib has no value):

    goog.csv    Data/GOOG.csv (daily, every row): every key below
    gpix30.csv  Data/synthetic_gpix_30min.csv (30-minute, its first 5,000 rows):
                one parameter set per function (GPIX_KEYS)
    edge.csv    60 bars built below (flat stretches, bars without range, ranges
                of 1e-12, closes at the extremes, equal closes), with their open,
                high, low, close and volume, and the functions at short periods

IndicatorTests (the Swift functions) and RuleIndicatorTests (the rule
language) map each key to the values that must equal it to 1e-8.

Keys name the TA-Lib call. stoch_k_14_3 is the slowk of STOCH(14, 3, SMA, 1,
SMA): STOCH withholds slowk until slowd is defined, with the same values
(checked below for each slowd period used); stoch_d_14_3_3 is the slowd of
STOCH(14, 3, SMA, 3, SMA). macd_12_26 is the line of MACD(12, 26, 1), which
MACD(12, 26, 9) withholds likewise (checked below); macd_signal_12_26_9 and
macd_hist_12_26_9 its other outputs. Swapped MACD periods give the same lines
(checked below).
"""
import os

import numpy as np
import pandas as pd
import talib

HERE = os.path.dirname(os.path.abspath(__file__))
GPIX_KEYS = ["adx14", "plus_di14", "minus_di14", "stoch_k_14_3", "stoch_d_14_3_3", "macd_12_26",
             "macd_signal_12_26_9", "macd_hist_12_26_9", "willr14", "cci20", "obv", "wma10"]


def same_where_defined(withheld, full):
    """`withheld` is `full` with more leading NaN."""
    defined = ~np.isnan(withheld)
    assert np.array_equal(withheld[defined], full[defined]) and not np.isnan(full[defined]).any()


def columns(h, l, c, v):
    out = {}
    for n in (14, 5, 2):
        out[f"adx{n}"] = talib.ADX(h, l, c, n)
    for n in (14, 5, 1):
        out[f"plus_di{n}"] = talib.PLUS_DI(h, l, c, n)
        out[f"minus_di{n}"] = talib.MINUS_DI(h, l, c, n)
    for n, smooth, d in ((14, 3, 3), (5, 1, 3), (21, 5, 1)):
        k1, _ = talib.STOCH(h, l, c, n, smooth, 0, 1, 0)
        k, dd = talib.STOCH(h, l, c, n, smooth, 0, d, 0)
        same_where_defined(k, k1)
        out[f"stoch_k_{n}_{smooth}"] = k1
        out[f"stoch_d_{n}_{smooth}_{d}"] = dd
    for fast, slow, signal in ((12, 26, 9), (5, 35, 5), (3, 10, 1)):
        line1, _, _ = talib.MACD(c, fast, slow, 1)
        line, sig, hist = talib.MACD(c, fast, slow, signal)
        same_where_defined(line, line1)
        swapped = talib.MACD(c, slow, fast, signal)
        assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(swapped, (line, sig, hist)))
        out[f"macd_{fast}_{slow}"] = line1
        out[f"macd_signal_{fast}_{slow}_{signal}"] = sig
        out[f"macd_hist_{fast}_{slow}_{signal}"] = hist
    for n in (14, 2):
        out[f"willr{n}"] = talib.WILLR(h, l, c, n)
    for n in (20, 14, 2):
        out[f"cci{n}"] = talib.CCI(h, l, c, n)
    out["obv"] = talib.OBV(c, v)
    for n in (10, 30, 2, 1):
        out[f"wma{n}"] = talib.WMA(c, n)
    # Functions of other functions, for the rule language.
    rsi14 = talib.RSI(c, 14)
    out["wma5_rsi14"] = talib.WMA(rsi14, 5)
    out["macd_12_26_median"] = talib.MACD((h + l) / 2, 12, 26, 1)[0]
    out["macd_hist_12_26_9_rsi14"] = talib.MACD(rsi14, 12, 26, 9)[2]
    out["macd_signal_5_15_4_ema10"] = talib.MACD(talib.EMA(c, 10), 5, 15, 4)[1]
    return pd.DataFrame(out)


def write(frame, name):
    path = os.path.join(HERE, name)
    frame.to_csv(path, index=False, float_format="%.17g", na_rep="")
    print("wrote", path, frame.shape)


def edge_bars():
    """Bars where the zero tests decide: flat, range-less, nearly flat, at the extremes."""
    rows = []
    for k in range(8):                       # flat: no true range, no movement
        rows.append((100, 100, 100, 100, 1000))
    for k in range(8):                       # rising bars without range: the true range is the gap
        c = 101 + k
        rows.append((c, c, c, c, 1000 + k))
    for k in range(8):                       # flat again: the smoothed true range decays, never to 0
        rows.append((108, 108, 108, 108, 500))
    for k in range(8):                       # ranges of 1e-12 (flat to TA-Lib's scale-aware tests)
        rows.append((108, 108 + 1e-12 * (k % 3), 108 - 1e-12 * (k % 2), 108, 700))
    for k in range(8):                       # falling, closing at the low then at the high
        hi, lo = 107 - 2 * k, 104 - 2 * k
        rows.append((hi, hi, lo, lo if k % 2 == 0 else hi, 900 + 10 * k))
    for k in range(10):                      # inside and outside bars around equal closes
        hi, lo = (95, 90) if k % 2 == 0 else (97, 88)
        rows.append((92, hi, lo, 92 if k % 3 else 93, 300 + k))
    for k in range(10):                      # up moves equal to down moves (no DM), then a spike
        rows.append((90, 91 + (k == 9) * 5, 89 - (k == 9) * 5, 90, 100))
    return pd.DataFrame(rows, columns=["open", "high", "low", "close", "volume"]).astype(float)


def edge_columns(bars):
    h, l, c, v = (bars[k].to_numpy(float) for k in ("high", "low", "close", "volume"))
    out = bars.copy()
    out["adx3"] = talib.ADX(h, l, c, 3)
    out["plus_di3"] = talib.PLUS_DI(h, l, c, 3)
    out["minus_di3"] = talib.MINUS_DI(h, l, c, 3)
    out["stoch_k_3_2"], _ = talib.STOCH(h, l, c, 3, 2, 0, 1, 0)
    out["stoch_d_3_2_2"] = talib.STOCH(h, l, c, 3, 2, 0, 2, 0)[1]
    out["willr3"] = talib.WILLR(h, l, c, 3)
    out["cci3"] = talib.CCI(h, l, c, 3)
    out["obv"] = talib.OBV(c, v)
    out["macd_2_4"] = talib.MACD(c, 2, 4, 1)[0]
    _, out["macd_signal_2_4_2"], out["macd_hist_2_4_2"] = talib.MACD(c, 2, 4, 2)
    out["wma3"] = talib.WMA(c, 3)
    return out


goog = pd.read_csv("Data/GOOG.csv")
write(columns(*(goog[k].to_numpy(float) for k in ("High", "Low", "Close", "Volume"))), "goog.csv")
gpix = pd.read_csv("Data/synthetic_gpix_30min.csv", nrows=5000)
write(columns(*(gpix[k].to_numpy(float) for k in ("high", "low", "close", "volume")))[GPIX_KEYS], "gpix30.csv")
write(edge_columns(edge_bars()), "edge.csv")
