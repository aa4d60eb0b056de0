#!/usr/bin/env python3
"""Writes goog_oracle_stages.csv: the reference classifier's stage for each of
the swing oracle's GOOG trades, at the close the buy was decided at (the bar
before the entry fill) and at the entry fill, with the bundled macro file, the
default classifier settings and daily bars stamped at New York midnight.

Run from the project root:  python3 Tests/BacktestCoreTests/Fixtures/cycle/goog_oracle_stages.py
(only the standard library and Tools/reference/cycle_ref.py are used; the
trades are Fixtures/oracle/GOOG-default/trades.csv, made by Fixtures/oracle/make.sh).
"""
import csv, datetime as dt, os, sys
from zoneinfo import ZoneInfo

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "../../../..")
sys.path.insert(0, os.path.join(root, "Tools/reference"))
import cycle_ref as ref

lookup = ref.StageLookup(ref.classify(ref.load_observations(os.path.join(root, "Data/us_macro_quarterly.csv"))))
days = [r[""] for r in csv.DictReader(open(os.path.join(root, "Data/GOOG.csv")))]
new_york = ZoneInfo("America/New_York")


def stage(day):
    return lookup.stage_at(dt.datetime.fromisoformat(day).replace(tzinfo=new_york))


with open(os.path.join(here, "goog_oracle_stages.csv"), "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["entry_time", "decided_at", "decision_stage", "entry_stage"])
    for t in csv.DictReader(open(os.path.join(root, "Tests/BacktestCoreTests/Fixtures/oracle/GOOG-default/trades.csv"))):
        decided = days[days.index(t["entry_time"]) - 1]
        w.writerow([t["entry_time"], decided, stage(decided), stage(t["entry_time"])])
