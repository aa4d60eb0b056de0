#!/usr/bin/env python3
"""Builds the economic-cycle test inputs and their reference outputs.

Run from the project root:  python3 Tests/BacktestCoreTests/Fixtures/cycle/make.py
(any Python 3.11 works: only the standard library and Tools/reference/cycle_ref.py are used).

Inputs, derived deterministically from Data/us_macro_quarterly.csv:
  tidy_monthly.csv  tidy file: quarterly real GDP, MONTHLY unemployment (the
                    quarterly rate +-0.1 around it), CPI; explicit available_at
                    on some rows (earlier and later than the default lags, never
                    decreasing); gaps: GDP 1990Q2 missing, unemployment 1995-05
                    missing (so 1995Q2 has no quarterly rate), a '.' and an 'NA'
  GDPC1.csv, UNRATE.csv   the same data as two FRED downloads (no available_at)
  wide_monthly.csv  wide file with a monthly `date` column, real_gdp only in
                    the first month of each quarter
For each input, <name>.stages.csv is cycle_ref's stage table and
<name>.lookup.csv its stage_at at every release instant, one second before it,
and at the staleness limit and one second after (spec section 11).
"""
import csv, datetime as dt, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../../../../Tools/reference"))
import cycle_ref as ref

rows = list(csv.DictReader(open(os.path.join(here, "../../../../Data/us_macro_quarterly.csv"))))
tidy, gdp_fred, un_fred, wide = [], [], [], []
for r in rows:
    y, q = int(r["year"]), int(r["quarter"])
    if y < 1975:
        continue
    m0 = 3 * q - 2
    day = f"{y}-{m0:02d}-01"
    gdp = r["realgdp"] if (y, q) != (1990, 2) else "."
    av = ""
    if y == 2001 and q == 3:
        av = "2001-10-31T12:30:00Z"          # earlier than the default lag (real advance release)
    if y == 2008 and q == 2:
        av = "2008-08-20"                    # later than the default lag
    tidy.append([day, "GDPC1", gdp, av])
    gdp_fred.append([day, gdp])
    u = float(r["unemp"])
    wide_gdp = {0: gdp}
    for k, delta in enumerate((-0.1, 0.0, 0.1)):
        m = m0 + k
        mday = f"{y}-{m:02d}-01"
        val = f"{u + delta:.1f}"
        if (y, m) == (1995, 5):
            val = "NA"
        tidy.append([mday, "UNRATE", val, ""])
        un_fred.append([mday, val if val != "NA" else "."])
        wide.append([mday, wide_gdp.get(k, ""), val if val != "NA" else "", r["cpi"]])
    tidy.append([day, "CPIAUCSL", r["cpi"], ""])

def write(name, header, body):
    with open(os.path.join(here, name), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(body)

write("tidy_monthly.csv", ["date", "series", "value", "available_at"], tidy)
write("GDPC1.csv", ["observation_date", "GDPC1"], gdp_fred)
write("UNRATE.csv", ["observation_date", "UNRATE"], un_fred)
write("wide_monthly.csv", ["date", "real_gdp", "unemployment_rate", "cpi"], wide)

for name in ["tidy_monthly", "wide_monthly"]:
    cfg = ref.Config()
    out = ref.classify(ref.load_observations(os.path.join(here, name + ".csv")), cfg)
    with open(os.path.join(here, name + ".stages.csv"), "w", newline="") as f:
        ref.write_rows(out, f)
    look = ref.StageLookup(out, cfg)
    times = set()
    for r in out:
        if r["_av"] is not None:
            for d in (dt.timedelta(0), dt.timedelta(seconds=-1), dt.timedelta(days=190),
                      dt.timedelta(days=190, seconds=1)):
                times.add(r["_av"] + d)
    with open(os.path.join(here, name + ".lookup.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["time", "stage"])
        for t in sorted(times):
            w.writerow([ref.fmt_time(t), look.stage_at(t)])
subprocess.run([sys.executable, os.path.join(here, "../../../../Tools/reference/cycle_ref.py"), "classify",
                os.path.join(here, "../../../../Data/us_macro_quarterly.csv"),
                "-o", os.path.join(here, "bundled.stages.csv")], check=True)
print("ok")
