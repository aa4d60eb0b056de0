# TA-Lib reference values for the functions of the rule language on GOOG
# (run from the project root with the peers' venv):
#   .venv-peers/bin/python Tests/BacktestCoreTests/Fixtures/rules/make.py
# Each column is named by a key; RuleFunctionTests maps each key to the rule
# expression that must give the same values (to 1e-8 relative, undefined alike).
import numpy as np, pandas as pd, talib
df = pd.read_csv("Data/GOOG.csv")
o, h, l, c = (df[k].to_numpy(float) for k in ("Open", "High", "Low", "Close"))
shifted = np.concatenate([[np.nan], c[:-1]])
upper, middle, lower = talib.BBANDS(c, 20, 2.0, 2.0, matype=0)
upper5, middle5, lower5 = talib.BBANDS((h + l) / 2, 5, 1.5, 1.5, matype=0)
out = pd.DataFrame({
    "sma10": talib.SMA(c, 10),
    "ema12_median": talib.EMA((h + l) / 2, 12),
    "std20": talib.STDDEV(c, 20, 1),
    "bb_mid20": middle, "bb_upper20": upper, "bb_lower20": lower,
    "bb_upper5_median": upper5, "bb_lower5_median": lower5,
    "rsi14": talib.RSI(c, 14), "rsi2": talib.RSI(c, 2),
    "atr14": talib.ATR(h, l, c, 14),
    "highest20_high": talib.MAX(h, 20), "lowest20_low": talib.MIN(l, 20),
    "roc10": talib.ROCR(c, 10) - 1,
    "sma5_rsi14": talib.SMA(talib.RSI(c, 14), 5),
    "ema5_close1": talib.EMA(shifted, 5),
    "highest3_roc1": talib.MAX(talib.ROCR(c, 1) - 1, 3),
})
out.to_csv("Tests/BacktestCoreTests/Fixtures/rules/talib_goog.csv", index=False, float_format="%.17g", na_rep="")
