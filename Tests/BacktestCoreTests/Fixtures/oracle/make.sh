#!/usr/bin/env bash
# Regenerates the oracle fixtures with the reference scripts in Tools/reference
# (run from the project root):
#   python3 -m venv .venv-reference
#   .venv-reference/bin/pip install -r Tools/reference/requirements.txt
#   bash Tests/BacktestCoreTests/Fixtures/oracle/make.sh
# Each folder holds the oracle's trades.csv, indicators.csv and summary.json for
# one bar file and parameter set: "default" is the spec's defaults, "target"
# adds --profit-target 0.03. edge.csv is built by edge_bars.py (one scenario
# per broker rule) and run with --profit-target 0.03.
set -euo pipefail
PY=${PY:-.venv-reference/bin/python}
P=Tools/reference
F=Tests/BacktestCoreTests/Fixtures/oracle
for ds in EURUSD GOOG synthetic_gpix_30min; do
  $PY $P/oracle.py Data/$ds.csv --out $F/$ds-default
  $PY $P/oracle.py Data/$ds.csv --out $F/$ds-target --profit-target 0.03
  rm $F/$ds-target/indicators.csv   # the same as in $ds-default
done
$PY $P/edge_bars.py --out $F/edge.csv
$PY $P/oracle.py $F/edge.csv --out $F/edge-target --profit-target 0.03
rm $F/edge-target/indicators.csv   # not compared: the trades and summary are the point of these bars
$PY - <<'PY'
# TA-Lib reference values for the indicators the strategies do not use directly.
import numpy as np, pandas as pd, talib
df = pd.read_csv("Data/GOOG.csv")
c, h, l = (df[k].to_numpy(float) for k in ("Close", "High", "Low"))
out = pd.DataFrame({"sma10": talib.SMA(c, 10), "ema10": talib.EMA(c, 10), "stddev20": talib.STDDEV(c, 20, 1),
                    "atr14": talib.ATR(h, l, c, 14), "rsi14": talib.RSI(c, 14)})
out.to_csv("Tests/BacktestCoreTests/Fixtures/talib_goog.csv", index=False, float_format="%.17g", na_rep="")
PY
