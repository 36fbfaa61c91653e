"""Tests of mdqs.akshare against a real mdqs binary in demo mode.

Every function's columns and dtypes are checked against the list pinned
from akshare's code and documentation (testdata/akshare_columns.json,
written by testdata/akshare_pin.py); every function's values against mdqs's
own API on the same request; and akshare's documented examples (接口示例)
run unchanged with ``import akshare as ak`` bound to mdqs.akshare.

    python3 -m pytest clients/python/tests/test_akshare.py
"""

import contextlib
import datetime
import io
import json
import math
import os
import re
import sys
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from test_client import Server  # noqa: E402

try:
    import pandas as pd  # noqa: F401
    HAVE_PANDAS = True
except ImportError:
    HAVE_PANDAS = False

if HAVE_PANDAS:
    import mdqs.akshare as ak  # noqa: E402

with open(os.path.join(HERE, "testdata", "akshare_columns.json"), encoding="utf-8") as f:
    PIN = json.load(f)

SERVER = None
DATE_COLUMNS = {"日期", "上榜日", "trade_date", "数据日期"}


def setUpModule():
    global SERVER
    if HAVE_PANDAS:
        SERVER = Server()


def tearDownModule():
    if SERVER is not None:
        SERVER.stop()


def isnan(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


@unittest.skipUnless(HAVE_PANDAS, "pandas is not installed")
class AkTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.client = ak.configure("http://" + SERVER.addr)
        cal = cls.client.get("/v1/api/calendar")
        cls.last = cal["last_trading_day"]  # the newest finished or running trading day
        days = [d for d in cal["trading_days"] if d <= cls.last]
        cls.days = days
        cls.ymd = cls.last.replace("-", "")

    def frame(self, fn, **kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(ak, fn)(**kw)


class TestCodes(unittest.TestCase):
    @unittest.skipUnless(HAVE_PANDAS, "pandas is not installed")
    def test_six_digits_mean_a_stock(self):
        # As in akshare's stock functions: never the index with the same digits.
        for symbol, want in [("000001", "000001.SZ"), ("600519", "600519.SH"), ("300750", "300750.SZ"),
                             ("688981", "688981.SH"), ("430047", "430047.BJ"), ("830799", "830799.BJ"),
                             ("920720", "920720.BJ"), ("510300", "510300.SH"), ("159915", "159915.SZ"),
                             ("sh600519", "600519.SH"), ("600519.SH", "600519.SH")]:
            self.assertEqual(ak._stock_code(symbol), want, symbol)
        with self.assertRaises(ValueError):
            ak._stock_code("0001")


class TestColumns(AkTest):
    """Each function's columns, in akshare's order, with akshare's dtypes."""

    def calls(self):
        d = self.ymd
        return {
            "stock_zh_a_hist": [dict(symbol="000001", start_date=self.days[-15].replace("-", ""), end_date=d)],
            "stock_zh_a_hist_min_em": [dict(symbol="000001", period="1"),
                                       dict(symbol="000001", period="5", start_date=self.days[-2] + " 09:30:00",
                                            end_date=self.last + " 15:00:00")],
            "stock_zh_a_spot_em": [{}],
            "stock_board_industry_name_em": [{}],
            "stock_board_concept_name_em": [{}],
            "stock_board_industry_cons_em": [dict(symbol=self.frame("stock_board_industry_name_em")["板块名称"][0])],
            "stock_board_concept_cons_em": [dict(symbol="融资融券")],
            "stock_sector_fund_flow_rank": [dict(indicator="今日"), dict(indicator="5日"), dict(indicator="10日")],
            "stock_hot_rank_em": [{}],
            "stock_news_em": [dict(symbol="600036")],
            "tool_trade_date_hist_sina": [{}],
            "stock_zt_pool_em": [dict(date=d)],
            "stock_zt_pool_previous_em": [dict(date=d)],
            "stock_zt_pool_strong_em": [dict(date=d)],
            "stock_zt_pool_zbgc_em": [dict(date=d)],
            "stock_zt_pool_dtgc_em": [dict(date=d)],
            "stock_lhb_detail_em": [dict(start_date=self.days[-20].replace("-", ""), end_date=d)],
            "fund_etf_spot_em": [{}],
            "index_stock_cons_csindex": [dict(symbol="000300")],
        }

    def test_every_function_is_pinned(self):
        self.assertEqual(sorted(PIN["functions"]), sorted(n for n in ak.__all__ if n not in ("configure", "client", "MISSING")))
        self.assertRegex(PIN["commit"], r"^[0-9a-f]{40}$")

    def test_columns_and_dtypes(self):
        calls = self.calls()
        for fn, spec in PIN["functions"].items():
            for variant, kw in zip(spec["variants"], calls[fn]):
                with self.subTest(fn=fn, call=kw):
                    df = self.frame(fn, **kw)
                    want = variant["columns"]
                    self.assertEqual(list(df.columns), [c for c, _ in want])
                    floats = spec["float_for_nan"]
                    for col, dtype in want:
                        got = str(df[col].dtype)
                        if col in floats:
                            self.assertEqual(got, "float64", "%s: float64 for NaN (%s)" % (col, floats[col]))
                        else:
                            self.assertEqual(got, dtype, col)
                    for col in DATE_COLUMNS & set(df.columns):
                        for v in df[col]:
                            self.assertIsInstance(v, datetime.date, col)
                    if not fn.startswith("stock_zt_pool"):  # a day's pool may be empty
                        self.assertGreater(len(df), 0, "the demo answers rows for %s(%s)" % (fn, kw))

    def test_missing_columns_are_empty(self):
        # A column mdqs has no data for is there, and NaN: never a made-up value.
        calls = self.calls()
        for fn, cols in ak.MISSING.items():
            df = self.frame(fn, **calls[fn][0])
            for day in self.days[::-1][:15] if fn.startswith("stock_zt_pool") else []:
                if len(df):
                    break
                df = self.frame(fn, date=day.replace("-", ""))  # a day whose pool has rows
            for col in cols:
                if fn == "stock_sector_fund_flow_rank":
                    col = "今日" + col
                with self.subTest(fn=fn, col=col):
                    self.assertIn(col, df.columns)
                    self.assertTrue(df[col].isna().all(), col)

    def test_provenance(self):
        calls = self.calls()
        for fn in PIN["functions"]:
            with self.subTest(fn=fn):
                df = self.frame(fn, **calls[fn][0])
                self.assertIn("source", df.attrs)
                self.assertIn("as_of", df.attrs)
                if len(df):
                    self.assertTrue(df.attrs["source"], fn)
                    self.assertTrue(df.attrs["as_of"], fn)


class TestValuesAgree(AkTest):
    """Each function's values are mdqs's own answer to the same request."""

    def test_stock_zh_a_hist(self):
        start, end = self.days[-20], self.last
        for adjust in ("", "qfq", "hfq"):
            df = ak.stock_zh_a_hist(symbol="000001", start_date=start.replace("-", ""), end_date=end.replace("-", ""),
                                    adjust=adjust)
            if adjust:
                api = self.client.get("/v1/api/kline/adjusted", code="000001.SZ", freq="D", mode=adjust,
                                      start=self.days[0], end=end)
            else:
                api = self.client.get("/v1/api/kline", code="000001.SZ", freq="D", start=self.days[0], end=end)
            rows = api["rows"]
            by_day = {r["trade_date"]: r for r in rows}
            self.assertEqual([d.isoformat() for d in df["日期"]], [r["trade_date"] for r in rows if r["trade_date"] >= start])
            for _, row in df.iterrows():
                r = by_day[row["日期"].isoformat()]
                i = rows.index(r)
                prev = rows[i - 1]["close"]
                self.assertEqual(row["股票代码"], "000001")
                self.assertEqual(row["收盘"], r["close"])
                self.assertEqual(row["开盘"], r["open"])
                self.assertEqual(row["成交量"], round(r["volume"] / 100))  # 手
                self.assertEqual(row["成交额"], r["amount"])
                self.assertAlmostEqual(row["涨跌幅"], round(r["pct"], 2), places=6)
                self.assertAlmostEqual(row["涨跌额"], round(r["close"] - prev, 2), places=6)
                self.assertAlmostEqual(row["振幅"], round((r["high"] - r["low"]) / prev * 100, 2), places=6)
            self.assertEqual(df.attrs["source"], api["source"])

    def test_stock_zh_a_hist_weekly_monthly(self):
        daily = ak.stock_zh_a_hist(symbol="600519", start_date=self.days[0].replace("-", ""), end_date=self.ymd)
        for period in ("weekly", "monthly"):
            df = ak.stock_zh_a_hist(symbol="600519", period=period, start_date=self.days[0].replace("-", ""),
                                    end_date=self.ymd)
            key = (lambda d: d.isocalendar()[:2]) if period == "weekly" else (lambda d: (d.year, d.month))
            groups = {}
            for _, r in daily.iterrows():
                groups.setdefault(key(r["日期"]), []).append(r)
            for _, w in df.iloc[1:].iterrows():  # the first may start before the daily range
                g = groups[key(w["日期"])]
                self.assertEqual(w["日期"], g[-1]["日期"], "dated by the period's last trading day")
                self.assertEqual(w["收盘"], g[-1]["收盘"])
                self.assertEqual(w["最高"], max(x["最高"] for x in g))
                self.assertEqual(w["最低"], min(x["最低"] for x in g))
                self.assertAlmostEqual(w["成交额"], sum(x["成交额"] for x in g), delta=1)
        with self.assertRaises(ValueError):
            ak.stock_zh_a_hist(symbol="000001", period="yearly")

    def test_stock_zh_a_hist_min_em(self):
        day = self.days[-2]
        api1 = self.client.get("/v1/api/kline", code="000001.SZ", freq="1m", start=day, end=day)["rows"]
        df = ak.stock_zh_a_hist_min_em(symbol="000001", start_date=day + " 09:30:00", end_date=day + " 15:00:00",
                                       period="1")
        self.assertEqual(list(df["时间"]), [r["time"] for r in api1])
        self.assertEqual(list(df["收盘"]), [r["close"] for r in api1])
        self.assertEqual(list(df["成交量"]), [round(r["volume"] / 100) for r in api1])
        cum_a = cum_v = 0
        for (_, row), r in zip(df.iterrows(), api1):
            cum_a += r["amount"]
            cum_v += r["volume"]
            self.assertAlmostEqual(row["均价"], round(cum_a / cum_v, 3), places=6)
        api5 = self.client.get("/v1/api/kline", code="000001.SZ", freq="5m", start=day, end=day)["rows"]
        for period, n in (("5", 1), ("15", 3), ("30", 6), ("60", 12)):
            df = ak.stock_zh_a_hist_min_em(symbol="000001", start_date=day + " 09:30:00", end_date=day + " 15:00:00",
                                           period=period)
            self.assertEqual(len(df), 48 // n, period)
            for k, (_, row) in enumerate(df.iterrows()):
                part = api5[k * n:(k + 1) * n]
                self.assertEqual(row["时间"], part[-1]["time"], period)
                self.assertEqual(row["收盘"], part[-1]["close"])
                self.assertEqual(row["开盘"], part[0]["open"])
                self.assertEqual(row["最高"], max(x["high"] for x in part))
                self.assertAlmostEqual(row["成交额"], sum(x["amount"] for x in part), delta=1)
            ends = [t[11:16] for t in df["时间"]]
            if period == "60":
                self.assertEqual(ends, ["10:30", "11:30", "14:00", "15:00"])

    def test_stock_zh_a_spot_em(self):
        df = ak.stock_zh_a_spot_em()
        self.assertEqual(list(df["序号"]), list(range(1, len(df) + 1)))
        pct = [x for x in df["涨跌幅"] if not isnan(x)]
        self.assertEqual(pct, sorted(pct, reverse=True))
        sample = list(df["代码"][:20])
        codes = [ak._stock_code(c) for c in sample]
        quotes = {q["code"]: q for q in self.client.get("/v1/api/quotes", codes=",".join(codes))["quotes"]}
        for _, row in df[:20].iterrows():
            q = quotes[ak._stock_code(row["代码"])]
            self.assertEqual(row["最新价"], q["last"])
            self.assertEqual(row["昨收"], q["prev_close"])
            self.assertEqual(row["成交量"], round(q["volume"] / 100))
            self.assertEqual(row["成交额"], q["amount"])
            self.assertEqual(row["名称"], q["name"])
        self.assertEqual(df.attrs["source"], "demo")

    def test_boards(self):
        for kind in ("industry", "concept"):
            df = getattr(ak, "stock_board_%s_name_em" % kind)()
            api = self.client.request("GET", "/v1/api/boards/" + kind, {"top": 10000, "sort": "pct"})["data"]
            self.assertEqual(list(df["板块代码"]), [b["board_code"] for b in api])
            self.assertEqual(list(df["涨跌幅"]), [b["pct"] for b in api])
            self.assertEqual(list(df["上涨家数"]), [b["up"] for b in api])
            self.assertEqual(list(df["领涨股票"]), [b["leader_name"] for b in api])
            # members: by name and by BK code, as the block's members
            name, code = df["板块名称"][0], df["板块代码"][0]
            members = {m["code"].split(".")[0] for m in self.client.get("/v1/api/block/members", block=name)["members"]}
            for symbol in (name, code):
                cons = getattr(ak, "stock_board_%s_cons_em" % kind)(symbol=symbol)
                self.assertEqual(set(cons["代码"]), members, symbol)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            empty = ak.stock_board_industry_cons_em(symbol="不存在的行业")
        self.assertEqual(len(empty), 0)
        self.assertIn("不存在的行业", str(w[0].message))

    def test_sector_fund_flow_rank(self):
        api = {b["board_name"]: b for b in self.client.request("GET", "/v1/api/boards/industry", {"top": 10000})["data"]}
        df = ak.stock_sector_fund_flow_rank(indicator="今日", sector_type="行业资金流")
        self.assertEqual(set(df["名称"]), set(api))
        for _, row in df.iterrows():
            b = api[row["名称"]]
            self.assertEqual(row["今日主力净流入-净额"], b["main_net"])
            self.assertEqual(row["今日主力净流入-净占比"], b["main_net_ratio"])
            self.assertAlmostEqual(row["今日涨跌幅"], b["pct"], places=6)
        net = list(df["今日主力净流入-净额"])
        self.assertEqual(net, sorted(net, reverse=True))
        five = ak.stock_sector_fund_flow_rank(indicator="5日", sector_type="概念资金流")
        self.assertEqual(len(five.attrs["days"]), 5)
        snaps = [self.client.get("/v1/api/boards/concept", top=10000, day=d) for d in five.attrs["days"]]
        for _, row in five.iterrows():
            want = sum(b["main_net"] for s in snaps for b in s if b["board_name"] == row["名称"])
            self.assertAlmostEqual(row["5日主力净流入-净额"], want, delta=1)
        with self.assertRaises(ValueError):
            ak.stock_sector_fund_flow_rank(sector_type="地域资金流")

    def test_hot_rank(self):
        df = ak.stock_hot_rank_em()
        api = self.client.get("/v1/api/hot_rank", size=100)["items"]
        self.assertEqual(list(df["当前排名"]), [x["rank"] for x in api])
        self.assertEqual(list(df["代码"]), [x["stock_code"][-2:] + x["stock_code"][:6] for x in api])
        q = self.client.get("/v1/api/quotes", codes=api[0]["stock_code"])["quotes"][0]
        self.assertEqual(df["最新价"][0], q["last"])
        self.assertEqual(df["涨跌幅"][0], q["pct"])

    def test_news(self):
        df = ak.stock_news_em(symbol="600036")
        api = self.client.get("/v1/api/news/list", stock_code="600036.SH", page_size=100)["items"]
        self.assertEqual(list(df["新闻标题"]), [x["title"] for x in api])
        self.assertEqual(list(df["新闻链接"]), [x["url"] for x in api])
        self.assertEqual(set(df["关键词"]), {"600036"})

    def test_trade_dates(self):
        df = ak.tool_trade_date_hist_sina()
        year = int(self.last[:4])
        api = self.client.get("/v1/api/calendar", start="%d-01-01" % year, end="%d-12-31" % year)["trading_days"]
        got = [d.isoformat() for d in df["trade_date"] if d.year == year]
        self.assertEqual(got, api)
        self.assertEqual(df["trade_date"][0].year, df.attrs["first_year"])
        self.assertEqual(list(df["trade_date"]), sorted(df["trade_date"]))

    def test_limit_pools(self):
        kinds = {"stock_zt_pool_em": "up", "stock_zt_pool_previous_em": "yesterday",
                 "stock_zt_pool_strong_em": "strong", "stock_zt_pool_zbgc_em": "broken", "stock_zt_pool_dtgc_em": "down"}
        seen = 0
        for fn, kind in kinds.items():
            for day in self.days[-15:]:
                api = self.client.get("/v1/api/limit_pool", kind=kind, date=day)["items"]
                df = getattr(ak, fn)(date=day.replace("-", ""))
                self.assertEqual(list(df["代码"]), [x["code"][:6] for x in api], (fn, day))
                self.assertEqual(list(df["最新价"]), [x["close"] for x in api])
                seen += len(api)
                if kind == "up":
                    self.assertEqual(list(df["连板数"]), [x["boards"] for x in api])
                for _, row in df.iterrows():  # the day's own amount, from its bar
                    if not isnan(row["成交额"]):
                        bar = self.client.get("/v1/api/kline", code=ak._stock_code(row["代码"]), freq="D",
                                              start=day, end=day)["rows"][-1]
                        self.assertEqual(row["成交额"], bar["amount"])
                        break
        self.assertGreater(seen, 0, "the demo's last days have limit-pool rows")

    def test_limit_pool_figures_of_a_large_pool(self):
        # A day's amounts come from bars/daily, whose codes parameter takes
        # 1 KiB (about 100 codes): a larger pool is asked in parts, not
        # one K-line request per stock.
        day = self.last
        codes = [x["code"] for x in self.client.get("/v1/api/bars/daily", date=day, page_size=10000)["items"]]
        codes += ["6019%02d.SH" % i for i in range(max(0, 120 - len(codes)))]
        asked = []
        real_get = self.client.get

        def counting_get(path, **params):
            asked.append(path)
            return real_get(path, **params)
        self.client.get = counting_get
        try:
            figs = ak._day_figures(day, codes)
        finally:
            del self.client.get
        self.assertGreater(len(codes), 100)
        self.assertEqual(asked.count("/v1/api/kline"), sum(1 for c in codes if figs[c].get("amount") is None))
        self.assertGreaterEqual(asked.count("/v1/api/bars/daily"), 2)
        have = [c for c in codes if figs[c].get("amount") is not None]
        self.assertGreater(len(have), 50)

    def test_lhb(self):
        start, end = self.days[-20], self.last
        df = ak.stock_lhb_detail_em(start_date=start.replace("-", ""), end_date=end.replace("-", ""))
        want = []
        for day in self.days[-20:]:
            for it in self.client.get("/v1/api/lhb", date=day)["items"]:
                for r in it["reasons"]:
                    want.append((it["date"], it["code"][:6], r["reason"], r["net"]))
        got = [(r["上榜日"].isoformat(), r["代码"], r["上榜原因"], r["龙虎榜净买额"]) for _, r in df.iterrows()]
        self.assertEqual(sorted(got), sorted(want))
        self.assertGreater(len(got), 0)
        dates = list(df["上榜日"])
        self.assertEqual(dates, sorted(dates, reverse=True), "newest first")

    def test_lhb_day_not_imported_warns(self):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            df = ak.stock_lhb_detail_em(start_date="20220314", end_date="20220315")
        self.assertEqual(len(df), 0)
        self.assertEqual(df.attrs["missing_days"], ["2022-03-14", "2022-03-15"])
        self.assertIn("mdqs lhb backfill -from 2022-03-14 -to 2022-03-15", str(w[0].message))

    def test_etfs(self):
        df = ak.fund_etf_spot_em()
        api = self.client.get("/v1/api/etfs")["etfs"]
        self.assertEqual(list(df["代码"]), [e["code"][:6] for e in api])
        self.assertEqual(list(df["最新价"]), [e["last"] for e in api])
        self.assertEqual(list(df["IOPV实时估值"]), [e["iopv"] for e in api])
        self.assertEqual(list(df["成交量"]), [round(e["volume"] / 100) for e in api])

    def test_index_members(self):
        df = ak.index_stock_cons_csindex(symbol="000300")
        api = self.client.get("/v1/api/index/members", code="000300.SH")
        self.assertEqual(list(df["成分券代码"]), [m["code"][:6] for m in api["members"]])
        self.assertEqual(set(df["指数代码"]), {"000300"})
        self.assertEqual(set(df["日期"]), {datetime.date.fromisoformat(api["date"])})
        sz = df[df["成分券代码"].str.startswith("0")]
        self.assertEqual(set(sz["交易所"]), {"深圳证券交易所"})


class TestDocsPage(unittest.TestCase):
    @unittest.skipUnless(HAVE_PANDAS, "pandas is not installed")
    def test_missing_columns_listed_in_the_docs(self):
        # docs/akshare.zh-CN.md's table of NaN columns is MISSING, row for row.
        path = os.path.join(HERE, "..", "..", "..", "docs", "akshare.zh-CN.md")
        with open(path, encoding="utf-8") as f:
            page = f.read()
        rows = []
        for line in page.split("### 为 NaN 的列及原因", 1)[1].splitlines():
            if line.startswith("|"):
                rows.append(line)
            elif rows:
                break  # the end of the first table
        listed = set()
        for line in rows[2:]:
            cells = line.strip("|").split("|")
            fns = set(re.findall(r"`([a-z_]+)`", cells[0]))
            for col in re.findall(r"`([^`]+)`", cells[1]):
                listed |= {(fn, col) for fn in fns}
        want = {(fn, col) for fn, cols in ak.MISSING.items() for col in cols}
        self.assertEqual(listed, want)
        for fn in PIN["functions"]:
            self.assertIn("`%s`" % fn, page)


class TestConfigure(AkTest):
    def test_configure_and_environment(self):
        c = ak.configure("http://" + SERVER.addr, "demo", "demo-secret", token_cache=False)
        self.assertIs(ak.client(), c)
        self.assertEqual(c.base_url, "http://" + SERVER.addr)
        saved = dict(os.environ)
        try:
            os.environ["MDQS_ADDR"] = SERVER.addr
            ak._STATE.client = None
            ak._STATE.kwargs = {}
            self.assertEqual(ak.client().base_url, "http://" + SERVER.addr)
            self.assertGreater(len(ak.stock_board_industry_name_em()), 0)
        finally:
            os.environ.clear()
            os.environ.update(saved)
            ak.configure("http://" + SERVER.addr)


class TestDocExamples(AkTest):
    """akshare's own 接口示例, unchanged, with ``import akshare as ak`` bound to mdqs.akshare."""

    def test_examples_run_unchanged(self):
        n = 0
        for fn, spec in PIN["functions"].items():
            for ex in spec["examples"]:
                with self.subTest(fn=fn, example=ex["title"]):
                    self.assertIn("import akshare as ak", ex["code"])
                    saved = sys.modules.get("akshare")
                    sys.modules["akshare"] = ak
                    out = io.StringIO()
                    try:
                        with contextlib.redirect_stdout(out), warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            scope = {}
                            exec(compile(ex["code"], "<%s %s>" % (fn, ex["title"]), "exec"), scope)
                    finally:
                        if saved is None:
                            sys.modules.pop("akshare", None)
                        else:
                            sys.modules["akshare"] = saved
                    frames = [v for v in scope.values() if isinstance(v, pd.DataFrame)]
                    self.assertEqual(len(frames), 1)
                    want = spec["variants"][0]["columns"]
                    if fn == "stock_zh_a_hist_min_em" and "period=\"5\"" in ex["code"]:
                        want = spec["variants"][1]["columns"]
                    self.assertEqual(list(frames[0].columns), [c for c, _ in want])
                    self.assertTrue(out.getvalue().strip())
                    n += 1
        self.assertEqual(n, 22)


if __name__ == "__main__":
    unittest.main()
