#!/usr/bin/env python3
"""Expected outputs of `backtest ledger`, computed independently from the
issue's definitions (plain Python, standard library only).

    python3 Tests/BacktestCoreTests/Fixtures/ledger/make.py

Reads Data/ledger.csv, Data/tracker_export.json and Data/tracker_budgets.yaml;
writes, next to this file, for each source (csv_, export_):
  monthly.csv     month,income,expenses,net,savings_rate
  categories.csv  month,category,amount,share
  recurring.csv   category,type,amount,first_month,last_month,months,day_of_month,active,note
and export_budgets.csv, export_monthly_by_account.csv, export_monthly_by_owner.csv.

Definitions: month YYYY-MM; income = sum of the month's positive amounts;
expenses = sum of its negative amounts as a positive number; net = income -
expenses; savings rate = net / income (empty when income is 0); every month
from the first to the last entry. Categories: expenses only, share of the
month's expenses. Recurring: same category and amount to the cent in 3 or
more consecutive months (day: lower median of the first entry each month;
note: the most frequent, first among equals). Export dates: the day as written
(the first ten characters), amounts signed by `type`.
"""
import csv, json, os

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, "../../../..")


def read_csv(path):
    out = []
    for r in csv.DictReader(open(path, newline="")):
        out.append({"day": r["date"], "amount": float(r["amount"]), "category": r["category"] or "uncategorized", "note": r["note"],
                    "account": "", "owner": ""})
    return out


def read_export(path):
    out = []
    for t in json.load(open(path)):
        amount = float(t["amount"]) if t["type"] == "income" else -float(t["amount"])
        description, notes = t.get("description") or "", t.get("notes") or ""
        note = description if not notes else (notes if not description else f"{description} ({notes})")
        out.append({"day": t["date"][:10], "amount": amount, "category": t["category"], "note": note,
                    "account": t.get("account") or "", "owner": t.get("owner") or ""})
    return out


def months_between(first, last):
    y, m = int(first[:4]), int(first[5:7])
    out = []
    while (y, m) <= (int(last[:4]), int(last[5:7])):
        out.append(f"{y:04d}-{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def analyse(entries):
    entries = sorted(entries, key=lambda e: e["day"])  # stable: file order within a day
    months = months_between(entries[0]["day"], entries[-1]["day"])
    income = {m: 0.0 for m in months}
    negatives = {m: 0.0 for m in months}
    spent = {}
    for e in entries:
        m = e["day"][:7]
        if e["amount"] >= 0:
            income[m] += e["amount"]
        else:
            negatives[m] += e["amount"]
            spent.setdefault(m, {}).setdefault(e["category"], 0.0)
            spent[m][e["category"]] += -e["amount"]
    monthly = []
    for m in months:
        expenses = -negatives[m]
        net = income[m] - expenses
        monthly.append([m, income[m], expenses, net, net / income[m] if income[m] != 0 else ""])
    categories = []
    for m, _, expenses, _, _ in monthly:
        for c, amount in sorted(spent.get(m, {}).items(), key=lambda kv: (-kv[1], kv[0])):
            categories.append([m, c, amount, amount / expenses])
    return months, monthly, categories, spent


def month_index(day):
    return int(day[:4]) * 12 + int(day[5:7]) - 1


def recurring(entries, last_month):
    entries = sorted(entries, key=lambda e: e["day"])
    items = {}
    for e in entries:
        if e["amount"] != 0:
            items.setdefault((e["category"], round(e["amount"] * 100)), []).append(e)
    out = []
    for (category, _), es in items.items():
        firsts = []
        for e in es:
            if not firsts or month_index(firsts[-1]["day"]) != month_index(e["day"]):
                firsts.append(e)
        i = 0
        while i < len(firsts):
            j = i
            while j + 1 < len(firsts) and month_index(firsts[j + 1]["day"]) == month_index(firsts[j]["day"]) + 1:
                j += 1
            run = firsts[i:j + 1]
            if len(run) >= 3:
                days = sorted(int(e["day"][8:10]) for e in run)
                lo, hi = month_index(run[0]["day"]), month_index(run[-1]["day"])
                counts = {}
                for e in es:
                    if lo <= month_index(e["day"]) <= hi:
                        counts[e["note"]] = counts.get(e["note"], 0) + 1
                best = max(counts.values())
                note = next(n for n, c in counts.items() if c == best)
                amount = run[0]["amount"]
                out.append([category, "expense" if amount < 0 else "income", abs(amount), run[0]["day"][:7], run[-1]["day"][:7], len(run),
                            days[(len(days) - 1) // 2], "true" if run[-1]["day"][:7] == last_month else "false", note])
            i = j + 1
    return out


def write(name, header, rows):
    with open(os.path.join(here, name), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for r in rows:
            w.writerow([repr(x) if isinstance(x, float) else x for x in r])


for prefix, entries in [("csv_", read_csv(os.path.join(root, "Data/ledger.csv"))),
                        ("export_", read_export(os.path.join(root, "Data/tracker_export.json")))]:
    months, monthly, categories, spent = analyse(entries)
    write(prefix + "monthly.csv", ["month", "income", "expenses", "net", "savings_rate"], monthly)
    write(prefix + "categories.csv", ["month", "category", "amount", "share"], categories)
    write(prefix + "recurring.csv", ["category", "type", "amount", "first_month", "last_month", "months", "day_of_month", "active", "note"],
          recurring(entries, months[-1]))
    if prefix == "export_":
        budgets = []
        for line in open(os.path.join(root, "Data/tracker_budgets.yaml")):
            line = line.split("#")[0].strip()
            if line:
                key, value = line.split(":")
                budgets.append((key.strip(), float(value)))
        rows = []
        for m in months:
            for c, b in budgets:
                s = spent.get(m, {}).get(c, 0.0)
                rows.append([m, c, b, s, b - s, "over" if s > b else "under"])
        write("export_budgets.csv", ["month", "category", "budget", "spent", "remaining", "status"], rows)
        for key in ("account", "owner"):
            rows = []
            for name in sorted({e[key] for e in entries}):
                _, part, _, _ = analyse([e for e in entries if e[key] == name])
                rows += [[name] + r for r in part]
            write(f"export_monthly_by_{key}.csv", [key, "month", "income", "expenses", "net", "savings_rate"], rows)
print("ok")
