"""Times akshare's documented example calls answered by mdqs.akshare.

    python3 clients/python/examples/akshare_timings.py [RUNS]

against the server mdqs.Client() finds (MDQS_ADDR ...; `go run .` serves
the demo market on 127.0.0.1:8080). Prints one Markdown row per call: the
rows answered and the median wall time of RUNS calls (default 5), after
one warm-up call (the first fills the server's cache)."""

import os
import statistics
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import mdqs.akshare as ak  # noqa: E402

CALLS = [
    'stock_zh_a_hist(symbol="000001", period="daily", start_date="20170301", end_date="20240528", adjust="")',
    'stock_zh_a_hist(symbol="000001", period="daily", start_date="20170301", end_date="20240528", adjust="qfq")',
    'stock_zh_a_hist(symbol="000001", period="weekly", start_date="20170301", end_date="20240528", adjust="hfq")',
    'stock_zh_a_hist_min_em(symbol="000001", period="1")',
    'stock_zh_a_hist_min_em(symbol="000001", period="60")',
    'stock_zh_a_spot_em()',
    'stock_board_industry_name_em()',
    'stock_board_concept_cons_em(symbol="融资融券")',
    'stock_sector_fund_flow_rank(indicator="今日", sector_type="行业资金流")',
    'stock_sector_fund_flow_rank(indicator="10日", sector_type="行业资金流")',
    'stock_hot_rank_em()',
    'stock_news_em(symbol="600036")',
    'tool_trade_date_hist_sina()',
    "stock_zt_pool_strong_em(date='20241231')",
    'stock_lhb_detail_em(start_date="20230403", end_date="20230417")',
    'fund_etf_spot_em()',
    'index_stock_cons_csindex(symbol="000300")',
]


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    warnings.simplefilter("ignore")
    print("| call | rows | median ms |")
    print("| --- | --- | --- |")
    for call in CALLS:
        fn = eval("lambda: ak." + call)
        df = fn()
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1000)
        print("| `%s` | %d | %.1f |" % (call, len(df), statistics.median(times)))


if __name__ == "__main__":
    main()
