#!/usr/bin/env python3
"""A sweep's daily returns and their significance statistics, computed
independently of the Swift code (numpy and scipy; the strategy by the
reference implementation in Tools/reference/oracle.py).

Run from the project root, with the venv of Tools/peers/setup.sh:

    .venv-peers/bin/python Tests/BacktestCoreTests/Fixtures/validation/make.py

Writes next to this file:

returns.csv    one row per day, one column per combination of bb_period
               10, 15, 20, 25, 30 and oversold 20, 25, 30, 35 (stop loss 2%,
               the other parameters at the spec's defaults) on
               Data/synthetic_gpix_30min.csv: the simple returns of the equity
               at each day's last bar, as the oracle simulates them, written
               with 10 significant digits. This matrix is the fixture's input;
               everything below is computed from it as written.
expected.json  the Sharpe ratio per day (mean / sample deviation) of every
               column; the best column; the variance (n - 1) of the Sharpe
               ratios; the expected maximum Sharpe ratio of N trials with no
               skill, sqrt(V) ((1 - g) Z(1 - 1/N) + g Z(1 - 1/(N e))), g the
               Euler-Mascheroni constant, Z the inverse normal distribution
               function (Bailey & Lopez de Prado 2014); skewness and (non-excess)
               kurtosis of the best column (population moments); the
               probabilistic Sharpe ratio against 0 and the deflated one
               against the expected maximum,
               Phi((SR - SR*) sqrt(T - 1) / sqrt(1 - g3 SR + (g4 - 1) / 4 SR^2));
               and the probability of backtest overfitting by combinatorially
               symmetric cross-validation (Bailey, Borwein, Lopez de Prado & Zhu
               2017) over S = 10 blocks of T // 10 days (the last T mod 10 days
               left out): for each of the C(10, 5) = 252 choices of 5 blocks as
               the training set, the column with the best training Sharpe ratio,
               its rank among the testing Sharpe ratios (scipy's average rank of
               ties), w = rank / (N + 1), logit ln(w / (1 - w)); PBO = the share
               of logits <= 0. The logits are listed sorted. The same again with
               the best column appended once more (two combinations with the
               same returns, as a sweep often has): `_with_twin`, where ties
               decide the ranks.
"""
import csv
import itertools
import json
import math
import os
import sys
from types import SimpleNamespace

import numpy as np
from scipy import stats

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "../../../.."))
sys.path.insert(0, os.path.join(root, "Tools/reference"))
import barsio  # noqa: E402
import oracle  # noqa: E402

BB_PERIODS = [10, 15, 20, 25, 30]
OVERSOLD = [20, 25, 30, 35]
BLOCKS = 10


def write_returns(path):
    bars = barsio.load_bars(os.path.join(root, "Data/synthetic_gpix_30min.csv"))
    names, columns = [], []
    for bb in BB_PERIODS:
        for oversold in OVERSOLD:
            p = SimpleNamespace(bb_period=bb, bb_std=2.0, rsi_period=14, oversold=float(oversold), overbought=70.0,
                                stop_loss=0.02, profit_target=None, cash=100000.0)
            lower, _, upper, rsi = oracle.indicators_plain(bars.close, bb, 2.0, 14)
            _, equity, _, _ = oracle.simulate(bars, lower, upper, rsi, p)
            r, _ = oracle.daily_returns(equity, bars.day)
            names.append(f"bb{bb}_os{oversold}")
            columns.append(r)
    with open(path, "w", newline="") as f:
        f.write(",".join(names) + "\n")
        for row in zip(*columns):
            f.write(",".join("%.10g" % x for x in row) + "\n")


def sharpe(x):
    return x.mean() / x.std(ddof=1)


def cscv(m):
    """The logits (sorted) and the PBO of the columns of `m`."""
    t, n = m.shape
    size = t // BLOCKS
    blocks = [m[k * size:(k + 1) * size] for k in range(BLOCKS)]
    logits = []
    for train in itertools.combinations(range(BLOCKS), BLOCKS // 2):
        test = [k for k in range(BLOCKS) if k not in train]
        inside = np.vstack([blocks[k] for k in train])
        outside = np.vstack([blocks[k] for k in test])
        chosen = int(np.argmax([sharpe(inside[:, j]) for j in range(n)]))
        rank = stats.rankdata([sharpe(outside[:, j]) for j in range(n)], method="average")[chosen]
        w = rank / (n + 1)
        logits.append(math.log(w / (1 - w)))
    return sorted(logits), sum(1 for x in logits if x <= 0) / len(logits)


def main():
    path = os.path.join(here, "returns.csv")
    write_returns(path)
    with open(path) as f:
        rows = list(csv.reader(f))
    names = rows[0]
    m = np.array([[float(v) for v in row] for row in rows[1:]])  # T x N
    t, n = m.shape

    sharpes = np.array([sharpe(m[:, j]) for j in range(n)])
    best = int(np.argmax(sharpes))
    variance = float(np.var(sharpes, ddof=1))
    g = 0.5772156649015329
    expected_max = math.sqrt(variance) * ((1 - g) * stats.norm.ppf(1 - 1 / n) + g * stats.norm.ppf(1 - 1 / (n * math.e)))
    b = m[:, best]
    skew = float(stats.skew(b, bias=True))
    kurt = float(stats.kurtosis(b, fisher=False, bias=True))
    sr = float(sharpes[best])

    def psr(benchmark):
        return float(stats.norm.cdf((sr - benchmark) * math.sqrt(t - 1) / math.sqrt(1 - skew * sr + (kurt - 1) / 4 * sr * sr)))

    logits, pbo = cscv(m)
    twin_logits, twin_pbo = cscv(np.column_stack([m, m[:, best]]))

    expected = {
        "days": t, "combinations": n, "sharpes": sharpes.tolist(), "best": best, "best_name": names[best],
        "variance": variance, "expected_maximum": expected_max, "skewness": skew, "kurtosis": kurt,
        "psr": psr(0.0), "dsr": psr(expected_max),
        "blocks": BLOCKS, "pbo": pbo, "logits": logits, "pbo_with_twin": twin_pbo, "logits_with_twin": twin_logits,
    }
    with open(os.path.join(here, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print(f"{t} days x {n} combinations; best {names[best]} (daily Sharpe {sr:.6f}); "
          f"PSR {expected['psr']:.6f}, DSR {expected['dsr']:.6f}, PBO {pbo:.4f} ({twin_pbo:.4f} with a twin of the best)")


if __name__ == "__main__":
    main()
