#!/usr/bin/env python3
"""Expected figures of the shipped portfolio run files, from an independent
implementation of the rules documented in PortfolioEngine.run (plain Python,
no packages). Run from the repository root:

    python3 Tests/BacktestCoreTests/Fixtures/portfolio/make.py > Tests/BacktestCoreTests/Fixtures/portfolio/expected.json
"""
import calendar, csv, datetime as dt, json, math

def date(s):
    return dt.date.fromisoformat(s.strip())

def bars(path):
    with open(path) as f:
        return {date(r["date"]): (float(r["open"]), float(r["close"])) for r in csv.DictReader(f)}

def dividends(path):
    if not path:
        return []
    with open(path) as f:
        return [(date(r["ex_date"]), date(r["pay_date"]), float(r["amount"])) for r in csv.DictReader(f)]

def ledger_flows(path):
    months = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            d = date(r["date"])
            months[(d.year, d.month)] = months.get((d.year, d.month), 0.0) + float(r["amount"])
    first, last = min(months), max(months)
    out, (y, m) = [], first
    while (y, m) <= last:
        net = months.get((y, m), 0.0)
        ny, nm = (y + 1, 1) if m == 12 else (y, m + 1)
        if net != 0:
            out.append((dt.date(ny, nm, 1), net))
        y, m = ny, nm
    return out

def monthly_flows(amount, day, first, last):
    """A fixed deposit on `day` (clamped to the month's length) of every month after the first."""
    out, (y, m) = [], (first.year, first.month)
    while True:
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        d = dt.date(y, m, min(day, calendar.monthrange(y, m)[1]))
        if d > last:
            return out
        out.append((d, amount))

def run(assets, weights, cash0, rebalance="never", drip=False, fractional=False, per_trade=0.0, flows=(), detail=None):
    dates = sorted(set().union(*[set(a["bars"]) for a in assets]))
    n, m = len(dates), len(assets)
    def first_on_or_after(d):
        for i, x in enumerate(dates):
            if x >= d:
                return i
        return None
    flow_at = [0.0] * n
    for d, amount in flows:
        i = first_on_or_after(d)
        if i is not None:
            flow_at[i] += amount
    events = []  # (asset, ex bar, pay bar, amount)
    for k, a in enumerate(assets):
        for ex, pay, amount in a["dividends"]:
            e = first_on_or_after(ex)
            if e is None or e == 0:
                continue
            p = first_on_or_after(pay)
            events.append((k, e, n if p is None else p, amount))
    q = (lambda x: math.floor(x * 1e6) / 1e6) if fractional else math.floor
    up = (lambda x: math.ceil(x * 1e6) / 1e6) if fractional else math.ceil
    shares, last_close, drip_cash = [0.0] * m, [None] * m, [0.0] * m
    cash, invested, due = 0.0, False, False
    waiting_deposit = owed_withdrawal = unpaid = 0.0
    owed = []
    paid_total = fees = expense = 0.0
    fills = []  # (bar, asset, shares, reason)
    equity, flow_col, cash_col, start_value = [], [], [], []
    def price(k, t):
        return assets[k]["bars"].get(dates[t])
    def trade(k, t, qty, reason):
        nonlocal cash, fees
        if qty == 0:
            return
        p = price(k, t)[0]
        cash -= qty * p + per_trade
        fees += per_trade
        shares[k] += qty
        if abs(shares[k]) < 1e-9:
            shares[k] = 0.0
        fills.append((t, k, qty, reason))
    def affordable(k, t, money):
        budget = min(money, cash)
        if budget <= 0:
            return 0
        return max(0, q((budget - per_trade) / price(k, t)[0]))
    def to_weights(t, reason):
        value = cash + sum(shares[k] * price(k, t)[0] for k in range(m) if shares[k] != 0)
        target = [q(value * weights[k] / price(k, t)[0]) for k in range(m)]
        for k in range(m):
            if shares[k] > target[k]:
                trade(k, t, target[k] - shares[k], reason)
        for k in range(m):
            if weights[k] > 0 and shares[k] < target[k]:
                trade(k, t, min(target[k] - shares[k], affordable(k, t, math.inf)), reason)
    def new_period(a, b):
        if rebalance == "monthly":
            return (a.year, a.month) != (b.year, b.month)
        if rebalance == "quarterly":
            return (a.year, (a.month - 1) // 3) != (b.year, (b.month - 1) // 3)
        if rebalance == "annually":
            return a.year != b.year
        return False
    for t in range(n):
        # The account at this open before anything happens: the holdings valued at the prices they would fill at (no
        # slippage in these runs: the open), an asset without a bar at its last close. A flow of this bar splits the
        # time-weighted return here.
        start_value.append(cash + sum(shares[k] * (price(k, t)[0] if price(k, t) else last_close[k]) for k in range(m) if shares[k] != 0))
        full = all(price(k, t) for k in range(m) if weights[k] > 0) and all(price(k, t) for k in range(m) if shares[k] != 0)
        # Deposits are credited at once (the initial cash at the first bar); withdrawals wait for a full bar.
        flow = cash0 if t == 0 else 0.0
        cash += flow
        if flow_at[t] > 0:
            cash += flow_at[t]
            flow += flow_at[t]
            waiting_deposit += flow_at[t]
        else:
            owed_withdrawal -= flow_at[t]
        for (k, e, p, amount) in events:
            if e == t and shares[k] * amount > 0:
                owed.append((k, p, shares[k] * amount))
        keep = []
        for (k, p, c) in owed:
            if p <= t:
                cash += c
                paid_total += c
                if drip:
                    drip_cash[k] += c
            else:
                keep.append((k, p, c))
        owed = keep
        if t > 0:
            days = (dates[t] - dates[t - 1]).days
            for k in range(m):
                if shares[k] > 0 and assets[k]["er"] > 0:
                    fee = shares[k] * last_close[k] * assets[k]["er"] * days / 365
                    cash -= fee
                    expense += fee
        if invested and t > 0 and new_period(dates[t - 1], dates[t]):
            due = True
        if full:
            paid = 0.0
            if owed_withdrawal > 0:
                # At most what selling everything at this open raises, after the sale fees.
                available = cash + sum(shares[k] * price(k, t)[0] - per_trade for k in range(m) if shares[k] > 0)
                if owed_withdrawal >= available:
                    for k in range(m):
                        if shares[k] > 0:
                            trade(k, t, -shares[k], "WITHDRAWAL")
                    paid = min(owed_withdrawal, max(0.0, cash))
                else:
                    paid = owed_withdrawal
                cash -= paid
            if not invested:
                to_weights(t, "INITIAL")
                invested = True
            elif due:
                to_weights(t, "REBALANCE")
                due = False
            elif waiting_deposit > owed_withdrawal:
                for k in range(m):
                    if weights[k] > 0:
                        trade(k, t, affordable(k, t, (waiting_deposit - owed_withdrawal) * weights[k]), "CONTRIBUTION")
            if paid > 0 and cash < 0:
                holdings = sum(shares[k] * price(k, t)[0] for k in range(m) if shares[k] > 0)
                need = -cash
                for k in range(m):
                    if shares[k] > 0:
                        trade(k, t, -min(shares[k], up(need * shares[k] / holdings)), "WITHDRAWAL")
                for _ in range(2 * m):  # the commissions of those sales: from the largest holding
                    held = [k for k in range(m) if shares[k] > 0]
                    if cash >= 0 or not held:
                        break
                    k = max(held, key=lambda k: shares[k] * price(k, t)[0])
                    trade(k, t, -min(shares[k], up((-cash + per_trade) / price(k, t)[0])), "WITHDRAWAL")
            if paid > 0 and cash < 0:  # what the sales could not raise is not paid
                shortfall = min(-cash, paid)
                paid -= shortfall
                cash += shortfall
            if drip:
                for k in range(m):
                    if drip_cash[k] > 0 and price(k, t):
                        trade(k, t, affordable(k, t, drip_cash[k]), "DRIP")
                        drip_cash[k] = 0.0
            unpaid += owed_withdrawal - paid
            flow -= paid
            waiting_deposit = owed_withdrawal = 0.0
        for k in range(m):
            if price(k, t):
                last_close[k] = price(k, t)[1]
        equity.append(cash + sum(shares[k] * last_close[k] for k in range(m) if shares[k] != 0))
        flow_col.append(flow)
        cash_col.append(cash)
    unpaid += owed_withdrawal
    if detail is not None:
        detail.update(dates=dates, fills=fills, cash=cash_col, equity=equity, flow=flow_col, unpaid=unpaid)
    # Time-weighted: each flow splits its bar at the open, where it is invested (the value there at the fill prices);
    # the money before it earns the move from the previous close to this open, the money after it the rest of the bar
    # (nothing, when the flow leaves nothing invested or the withdrawal empties the account: its sale fees are its cost).
    twr = 1.0
    for t in range(n):
        previous = equity[t - 1] if t > 0 else 0.0
        if flow_col[t] != 0:
            if previous > 0:
                twr *= start_value[t] / previous
            invested = start_value[t] + flow_col[t]
            twr *= equity[t] / invested if invested > 0 and equity[t] > 0 else 1.0
        elif previous > 0:
            twr *= equity[t] / previous
    cash_flows = [(dates[t], -flow_col[t]) for t in range(n) if flow_col[t] != 0] + [(dates[-1], equity[-1])]
    def npv(r):
        return sum(a / (1 + r) ** ((d - dates[0]).days / 365) for d, a in cash_flows)
    lo, hi = -0.99, 10.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if npv(mid) > 0:
            lo = mid
        else:
            hi = mid
    return {"final_equity": equity[-1], "dividend_income": paid_total, "fees": fees + expense, "fills": len(fills),
            "twr": twr - 1, "xirr": (lo + hi) / 2, "shares": shares, "unpaid_withdrawals": unpaid}

def asset(symbol, er=0.0, divs=True):
    return {"symbol": symbol, "bars": bars(f"Data/etfs/{symbol}.csv"),
            "dividends": dividends(f"Data/etfs/{symbol}_dividends.csv" if divs else None), "er": er}

incm = asset("INCM", er=0.0035)
divq, valu, hiyd = asset("DIVQ"), asset("VALU"), asset("HIYD")
expected = {
    "income-etf": run([incm], [1.0], 10000),
    "income-etf-drip": run([incm], [1.0], 10000, drip=True),
    "three-fund": run([divq, valu, hiyd], [0.5, 0.3, 0.2], 50000, rebalance="quarterly", per_trade=1.0),
    "three-fund without rebalancing": run([divq, valu, hiyd], [0.5, 0.3, 0.2], 50000, per_trade=1.0),
    "dca-ledger": run([divq, valu], [0.6, 0.4], 5000, rebalance="annually", drip=True, fractional=True,
                      flows=ledger_flows("Data/ledger.csv")),
}
# The edge cases of Docs/portfolio.md on the same sample ETFs (PortfolioEdgeCaseTests builds the same runs).
three, weights = [divq, valu, hiyd], [0.5, 0.3, 0.2]
first, last = min(divq["bars"]), max(divq["bars"])
valu_gap = dict(valu, bars={d: b for d, b in valu["bars"].items() if d != dt.date(2022, 3, 14)})
divq_july = dict(divq, dividends=[(ex, dt.date(2022, 7, 1) if ex == dt.date(2022, 6, 3) else pay, a) for ex, pay, a in divq["dividends"]])
expected["deposit on a missing bar"] = run([divq, valu_gap, hiyd], weights, 50000, per_trade=1.0,
                                           flows=monthly_flows(1000, 14, first, last))
expected["DRIP on a rebalance bar"] = run([divq_july, valu, hiyd], weights, 50000, rebalance="quarterly", drip=True, per_trade=1.0)
expected["withdrawal larger than the account"] = run(three, weights, 50000, rebalance="quarterly", per_trade=1.0,
                                                     flows=[(dt.date(2023, 6, 15), -100000)])
print(json.dumps(expected, indent=1, sort_keys=True))
