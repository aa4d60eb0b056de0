#!/usr/bin/env python3
"""Writes the SYNTHETIC sample files for the research commands (deterministic).

    python3 Data/make_samples.py

Data/etfs/<SYMBOL>.csv            daily bars, 2022-01-03 .. 2024-11-15, weekdays
Data/etfs/<SYMBOL>_dividends.csv  ex_date,pay_date,amount (monthly or quarterly)
Data/funds/*.json                 NAV history in the Indian mutual-fund API's JSON (newest first)
Data/funds/young_fund.csv         date,nav with only about 2 years of history
Data/ledger.csv                   an income/expense tracker export: date,amount,category,note
Data/tracker_export.json          the income tracker's JSON export (two owners, three accounts, 2024)
None of these are real prices, dividends or NAVs.
"""
import datetime as dt, json, math, os, random

here = os.path.dirname(os.path.abspath(__file__))

def weekdays(start, end):
    d = start
    while d <= end:
        if d.weekday() < 5:
            yield d
        d += dt.timedelta(days=1)

def etf(symbol, seed, price, drift, vol, monthly, amount):
    rng = random.Random(seed)
    days = list(weekdays(dt.date(2022, 1, 3), dt.date(2024, 11, 15)))
    rows, p = [], price
    for d in days:
        o = p
        c = max(1.0, o * math.exp(drift / 252 + vol / math.sqrt(252) * rng.gauss(0, 1)))
        h = max(o, c) * (1 + abs(rng.gauss(0, 0.004)))
        l = min(o, c) * (1 - abs(rng.gauss(0, 0.004)))
        v = int(1_000_000 * math.exp(0.3 * rng.gauss(0, 1)))
        rows.append(f"{d.isoformat()},{o:.2f},{h:.2f},{l:.2f},{c:.2f},{v}")
        p = c
    with open(os.path.join(here, "etfs", f"{symbol}.csv"), "w") as f:
        f.write("date,open,high,low,close,volume\n" + "\n".join(rows) + "\n")
    divs = []
    months = range(1, 13) if monthly else (3, 6, 9, 12)
    for y in (2022, 2023, 2024):
        for m in months:
            ex = dt.date(y, m, 1) + dt.timedelta(days=rng.randint(0, 3))
            while ex.weekday() >= 5:
                ex += dt.timedelta(days=1)
            if ex > dt.date(2024, 11, 15):
                continue
            divs.append(f"{ex.isoformat()},{(ex + dt.timedelta(days=5)).isoformat()},{amount * (1 + rng.uniform(-0.1, 0.1)):.4f}")
    with open(os.path.join(here, "etfs", f"{symbol}_dividends.csv"), "w") as f:
        f.write("ex_date,pay_date,amount\n" + "\n".join(divs) + "\n")

etf("INCM", 11, 55.0, 0.02, 0.12, True, 0.38)
etf("DIVQ", 12, 72.0, 0.07, 0.16, False, 0.62)
etf("HIYD", 13, 18.0, -0.03, 0.14, True, 0.17)
etf("VALU", 14, 105.0, 0.08, 0.15, False, 0.85)

def fund(name, code, seed, start, nav, drift, vol, path, as_json=True):
    rng = random.Random(seed)
    rows = []
    for d in weekdays(start, dt.date(2024, 11, 15)):
        nav *= math.exp(drift / 252 + vol / math.sqrt(252) * rng.gauss(0, 1))
        rows.append((d, round(nav, 4)))
    if as_json:
        doc = {"meta": {"fund_house": "Sample AMC (synthetic)", "scheme_name": name, "scheme_code": code},
               "data": [{"date": d.strftime("%d-%m-%Y"), "nav": f"{v:.4f}"} for d, v in reversed(rows)], "status": "SUCCESS"}
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    else:
        with open(path, "w") as f:
            f.write("date,nav\n" + "".join(f"{d.isoformat()},{v:.4f}\n" for d, v in rows))

fund("Sample Flexi Cap Fund - Direct Growth (synthetic)", 119551, 21, dt.date(2018, 1, 1), 40.0, 0.12, 0.16, os.path.join(here, "funds", "flexi_cap.json"))
fund("Sample Liquid Fund - Direct Growth (synthetic)", "120197", 22, dt.date(2018, 6, 1), 2000.0, 0.06, 0.01, os.path.join(here, "funds", "liquid.json"))
fund("young_fund", None, 23, dt.date(2022, 9, 15), 10.0, 0.10, 0.20, os.path.join(here, "funds", "young_fund.csv"), as_json=False)
def ledger(path, seed):
    """Salary in, rent and spending out, now and then a bonus or a big bill; 2022-01 .. 2024-10."""
    rng = random.Random(seed)
    rows = []
    for year in (2022, 2023, 2024):
        for month in range(1, 13):
            if (year, month) > (2024, 10):
                break
            first = dt.date(year, month, 1)
            rows.append((first + dt.timedelta(days=24), 4200.00, "salary", "monthly pay"))
            rows.append((first, -1450.00, "rent", ""))
            rows.append((first + dt.timedelta(days=rng.randrange(3, 27)), -round(rng.uniform(380, 620), 2), "groceries", ""))
            rows.append((first + dt.timedelta(days=rng.randrange(3, 27)), -round(rng.uniform(90, 160), 2), "utilities", "power, water, phone"))
            rows.append((first + dt.timedelta(days=rng.randrange(3, 27)), -round(rng.uniform(150, 700), 2), "leisure", ""))
            if month == 12:
                rows.append((first + dt.timedelta(days=14), 2500.00, "bonus", "year-end"))
            if rng.random() < 0.12:
                rows.append((first + dt.timedelta(days=rng.randrange(3, 27)), -round(rng.uniform(1500, 3500), 2), "repairs", "car, \"unplanned\""))
    rows.sort(key=lambda r: r[0])
    with open(path, "w") as f:
        f.write("date,amount,category,note\n")
        for d, amount, category, note in rows:
            text = '"' + note.replace('"', '""') + '"' if ('"' in note or "," in note) else note
            f.write(f"{d.isoformat()},{amount:.2f},{category},{text}\n")

ledger(os.path.join(here, "ledger.csv"), 31)

def tracker_export(path, seed):
    """A household's year in the income tracker's JSON export: salaries, rent, subscriptions, spending, a refund."""
    rng = random.Random(seed)
    rows = []
    def add(day, kind, category, amount, description, account, owner, notes="", stamp="T12:00:00Z"):
        rows.append({"date": day.isoformat() + stamp, "description": description, "category": category, "type": kind,
                     "amount": round(amount, 2), "account": account, "owner": owner, "notes": notes})
    for month in range(1, 13):
        first = dt.date(2024, month, 1)
        add(first + dt.timedelta(days=27), "income", "salary", 3800.00, "Payroll ACME", "checking", "alex")
        add(first + dt.timedelta(days=14), "income", "salary", 2900.00, "Payroll Globex", "checking", "sam")
        add(first, "expense", "rent", 1600.00, "Rent", "checking", "alex")
        add(first + dt.timedelta(days=4), "expense", "subscriptions", 15.99, "Streaming", "credit card", "alex")
        if month >= 3:
            add(first + dt.timedelta(days=9), "expense", "subscriptions", 39.00, "Gym", "credit card", "sam", "joined in March")
        for _ in range(rng.randrange(3, 6)):
            add(first + dt.timedelta(days=rng.randrange(0, 27)), "expense", "groceries", rng.uniform(40, 160), "Supermarket",
                rng.choice(["checking", "credit card"]), rng.choice(["alex", "sam"]))
        add(first + dt.timedelta(days=rng.randrange(0, 27)), "expense", "utilities", rng.uniform(110, 190), "Power and water", "checking", "sam")
        for _ in range(rng.randrange(1, 4)):
            add(first + dt.timedelta(days=rng.randrange(0, 27)), "expense", "dining", rng.uniform(25, 120), "Restaurant", "credit card",
                rng.choice(["alex", "sam"]))
        add(first + dt.timedelta(days=rng.randrange(0, 27)), "expense", "transport", rng.uniform(60, 140), "Fuel and transit", "credit card", "alex")
        add(dt.date(2024, month, 28) if month != 2 else dt.date(2024, 2, 28), "income", "interest", rng.uniform(8, 14), "Savings interest",
            "savings", "alex")
    # A refund counts as income of its category; a purchase late at night in New York is dated as written there.
    add(dt.date(2024, 6, 18), "income", "groceries", 23.40, "Refund: spoiled milk", "credit card", "sam", "returned at the store")
    add(dt.date(2024, 3, 31), "expense", "dining", 64.10, "Late dinner", "credit card", "alex", "", "T23:30:00-04:00")
    add(dt.date(2024, 11, 30), "expense", "transport", 212.75, "Car service", "checking", "alex", None, "T08:15:00.000Z")
    rows.sort(key=lambda r: r["date"][:10])
    for k, r in enumerate(rows):
        r["id"] = f"tx-{k + 1:04d}"
    order = ["id", "date", "description", "category", "type", "amount", "account", "owner", "notes"]
    with open(path, "w") as f:
        json.dump([{key: r[key] for key in order} for r in rows], f, indent=2)
        f.write("\n")

tracker_export(os.path.join(here, "tracker_export.json"), 41)
print("ok")
