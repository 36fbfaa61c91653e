"""Three everyday tasks with the mdqs client: a year of daily bars for ten
codes, today's sector ranking, a full-market screen. The twin of
three_tasks_raw.py (the same tasks over raw HTTP); tests/test_client.py runs
both against a demo server and checks that they print the same thing.

    python3 clients/python/examples/three_tasks_client.py START END CODE...
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # a checkout, not installed
import mdqs  # noqa: E402


# --- task 1: a year of daily bars for ten codes
def year_of_bars(c, codes, start, end):
    return {code: c.kline(code, "D", start, end)["rows"] for code in codes}


# --- task 2: today's sector ranking
def ranking(c):
    return [s["sector_name"] for s in c.top50(top=10)["sectors"]]


# --- task 3: a full-market screen
def full_screen(c):
    return c.screen("pct > 0 and amount > 1e8", sort="-pct")
# --- end of tasks


def main():
    start, end, codes = sys.argv[1], sys.argv[2], sys.argv[3:]
    c = mdqs.Client()
    for name, run in (("bars", lambda: year_of_bars(c, codes, start, end)),
                      ("ranking", lambda: ranking(c)), ("screen", lambda: full_screen(c))):
        t0 = time.perf_counter()
        out = run()
        ms = (time.perf_counter() - t0) * 1000
        if name == "bars":
            out = {k: [(r["trade_date"], r["close"]) for r in v] for k, v in out.items()}
        elif name == "screen":
            out = [(x["code"], x["pct"]) for x in out]
        print(name, repr(out))
        print("time", name, "%.1f" % ms, file=sys.stderr)


if __name__ == "__main__":
    main()
