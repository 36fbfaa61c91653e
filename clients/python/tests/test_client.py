"""Tests of the mdqs Python client against a real mdqs binary in demo mode.

Run from the repository root:

    python3 -m unittest discover -s clients/python/tests -v
    python3 -m pytest clients/python/tests

The binary is $MDQS_BIN, else built with ``go build`` from the repository
root into a temporary folder. Tests needing pandas skip without it.
"""

import hashlib
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # clients/python: import the package without installing it
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

import mdqs  # noqa: E402
from mdqs import Client, MdqsError  # noqa: E402

try:
    import pandas as pd  # noqa: F401
    HAVE_PANDAS = True
except ImportError:
    HAVE_PANDAS = False

DEMO_CONFIG = "[demo]\nstocks = 60\nindustries = 6\nconcepts = 8\nhistory_days = 60\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One mdqs serve on a temporary database; ``config`` is added to the
    demo's, ``binary`` is one built already."""

    def __init__(self, config: str = "", binary: str = "") -> None:
        self.tmp = tempfile.mkdtemp(prefix="mdqs-py-")
        # the token cache goes to a folder of the tests, never the user's
        binary = binary or os.environ.get("MDQS_BIN")
        if not binary:
            # Built before the cache folder moves: go build keeps its own
            # cache there, and a fresh one would rebuild everything.
            binary = os.path.join(self.tmp, "mdqs")
            subprocess.run(["go", "build", "-o", binary, "."], cwd=REPO, check=True)
        self.env_saved = {k: os.environ.get(k) for k in ("XDG_CACHE_HOME",)}
        os.environ["XDG_CACHE_HOME"] = os.path.join(self.tmp, "cache")
        self.binary = binary
        with open(os.path.join(self.tmp, "demo.toml"), "w") as f:
            f.write(DEMO_CONFIG + config)
        self.addr = "127.0.0.1:%d" % free_port()
        self.stderr = open(os.path.join(self.tmp, "stderr.log"), "w+")
        self.proc = subprocess.Popen(
            [binary, "serve", "-config", "demo.toml", "-addr", self.addr, "-db", os.path.join(self.tmp, "mdqs.db")],
            cwd=self.tmp, stdout=subprocess.DEVNULL, stderr=self.stderr)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("mdqs exited: " + self.log())
            if "mdqs ready" in self.log():
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("mdqs not ready in 30 s: " + self.log())

    def log(self) -> str:
        with open(self.stderr.name) as f:
            return f.read()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()
        for k, v in self.env_saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(self.tmp, ignore_errors=True)


SERVER = None


def setUpModule():
    global SERVER
    SERVER = Server()


def tearDownModule():
    if SERVER is not None:
        SERVER.stop()


class ServerTest(unittest.TestCase):
    client: Client
    codes: list

    @classmethod
    def setUpClass(cls):
        cls.client = Client("http://" + SERVER.addr)
        cls.codes = [x["code"] for x in cls.client.screen("price > 0", sort="-amount", limit=10)]
        cls.code = cls.codes[0]
        cls.today = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 8 * 3600))
        cls.start = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 8 * 3600 - 60 * 86400))


class TestFunctions(ServerTest):
    def test_whoami(self):
        self.assertEqual(self.client.whoami()["client_id"], "demo")

    def test_top50(self):
        doc = self.client.top50(top=3)
        for name in ("industry", "concept", "sectors", "sectors_out"):
            self.assertTrue(0 < len(doc[name]) <= 3, name)
        self.assertIn("sector_name", doc["sectors"][0])
        self.assertRegex(doc["day"], r"^\d{8}$")

    def test_boards(self):
        for kind in ("industry", "concept"):
            rows = self.client.boards(kind, top=3, sort="pct")
            self.assertTrue(0 < len(rows) <= 3)
            self.assertEqual(rows[0]["type"], kind)
        with self.assertRaises(MdqsError) as cm:
            self.client.boards("industry", sort="bogus")
        self.assertEqual(cm.exception.status, 400)
        self.assertEqual(cm.exception.message, "invalid sort field")

    def test_movements(self):
        m = self.client.movements(type="concept", top=4)
        self.assertTrue(0 < len(m["rows"]) <= 4)
        self.assertIn("stocks_up", m["analysis"])

    def test_movement_events(self):
        # A finished day, so the count does not depend on the wall clock
        # (at 09:30 today's timeline is still empty).
        bars = self.client.kline(self.code, "D", self.start, self.today)["rows"]
        day = [b["trade_date"] for b in bars if b["trade_date"] < self.today][-1].replace("-", "")
        ev = self.client.movement_events(day=day)
        self.assertEqual(ev["day"], day)
        items = ev["items"]
        self.assertGreater(len(items), 2)
        ms = [x["event_ms"] for x in items]
        self.assertEqual(ms, sorted(ms), "oldest first")
        later = self.client.movement_events(day=day, since=str(ms[1]))["items"]
        self.assertEqual([x["id"] for x in later], [x["id"] for x in items if x["event_ms"] > ms[1]])
        self.assertEqual(self.client.movement_events(day=day, since=str(ev["next_since"]))["items"], [])

    def test_kline(self):
        k = self.client.kline(self.code, "D", self.start, self.today, indicators="ma5")
        self.assertGreater(k["count"], 20)
        self.assertEqual(len(k["rows"]), k["count"])
        self.assertIn("ma5", k["rows"][-1])
        self.assertLess(k["rows"][0]["ts"], k["rows"][-1]["ts"])

    def test_csv(self):
        # The CSV form of a list: the JSON's rows, field for field, with the
        # answer's provenance from the X-Mdqs-* headers.
        k = self.client.kline(self.code, "D", self.start, self.today, indicators="ma5")
        raw, meta = self.client.csv("/v1/api/kline", code=self.code, freq="D", start=self.start, end=self.today, indicators="ma5")
        import csv as csvmod
        import io
        records = list(csvmod.reader(io.StringIO(raw.decode("utf-8"))))
        self.assertEqual(records[0], list(k["rows"][0].keys()))
        self.assertEqual(len(records) - 1, len(k["rows"]))
        for rec, row in zip(records[1:], k["rows"]):
            self.assertEqual(rec[records[0].index("trade_date")], row["trade_date"])
            self.assertEqual(float(rec[records[0].index("close")]), row["close"])
        self.assertEqual(meta["source"], k["source"])
        self.assertEqual(meta["code"], self.code)
        self.assertEqual(meta["final_through"], k["final_through"])
        # Excel's form, written to a file.
        path = os.path.join(tempfile.mkdtemp(prefix="mdqs-csv-"), "kline.csv")
        meta = self.client.save_csv(path, "/v1/api/kline", bom=True, code=self.code, freq="D", start=self.start, end=self.today)
        with open(path, "rb") as f:
            self.assertTrue(f.read().startswith(b"\xef\xbb\xbftrade_date,"))
        self.assertEqual(meta["source"], k["source"])
        with self.assertRaises(MdqsError) as cm:
            self.client.csv("/v1/api/kline", code=self.code, freq="2h", start=self.start, end=self.today)
        self.assertEqual(cm.exception.status, 400)
        with self.assertRaises(MdqsError) as cm:
            self.client.csv("/v1/api/whoami")
        self.assertIn("answers JSON only", cm.exception.detail)

    def test_kline_adjusted(self):
        for mode in ("qfq", "hfq"):
            k = self.client.kline_adjusted(self.code, "D", self.start, self.today, mode)
            self.assertEqual(k["adj"], mode)
            self.assertGreater(len(k["rows"]), 20)

    def test_quotes(self):
        q = self.client.quotes(self.codes[:3])
        self.assertEqual(sorted(x["code"] for x in q), sorted(self.codes[:3]))
        self.assertIsInstance(q[0]["last"], (int, float))

    def test_hot_rank(self):
        h = self.client.hot_rank(size=5)
        self.assertEqual(len(h["items"]), 5)
        self.assertEqual(h["items"][0]["rank"], 1)

    def test_news(self):
        n = self.client.news(page_size=3)
        self.assertEqual(len(n["items"]), 3)
        self.assertIn("title", n["items"][0])

    def test_news_view(self):
        first = self.client.news(page_size=1)["items"][0]
        v = self.client.news_view(first["id"])
        self.assertEqual(v["id"], first["id"])
        self.assertEqual(v["title"], first["title"])
        self.assertTrue(v["body"], "the view carries the full text")
        with self.assertRaises(MdqsError) as cm:
            self.client.news_view(10 ** 9)
        self.assertEqual(cm.exception.status, 404)

    def test_hot_rank_detail_and_list(self):
        top = self.client.hot_rank_list(top=3)
        self.assertEqual([x["rank"] for x in top["items"]], [1, 2, 3])
        code = top["items"][0]["stock_code"]
        d = self.client.hot_rank_detail(code)
        self.assertEqual(d["stock_code"], code)
        self.assertEqual(d["latest"]["rank"], 1)
        self.assertGreater(len(d["history"]), 0)
        dates = [h["date"] for h in d["history"]]
        self.assertEqual(dates, sorted(dates, reverse=True))

    def test_market_stats(self):
        m = self.client.market_stats(top=3)
        days = m["daily_stats"]
        self.assertGreater(len(days), 1)
        self.assertLessEqual(len(days[0]["industry_top_in_names"]), 3)
        self.assertTrue(all(len(d["trade_day"]) == 8 for d in days))

    def test_auction_today(self):
        a = self.client.auction_today()
        self.assertEqual(a["source"], "demo")
        self.assertIn("breadth", a)
        self.assertGreater(len(a["sectors"]), 0)

    def test_intraday_kline(self):
        k = self.client.intraday_kline(self.code)
        self.assertEqual(k["code"], self.code)
        self.assertGreater(k["count"], 0)
        self.assertEqual(k["count"], len(k["rows"]))
        times = [r["time"] for r in k["rows"]]
        self.assertEqual(times, sorted(times))
        self.assertTrue(all(r["low"] <= r["close"] <= r["high"] for r in k["rows"]))

    def test_diagnostics(self):
        self.assertIn("jobs", self.client.health_sources())
        names = {f["name"] for f in self.client.screener_fields()["fields"]}
        self.assertTrue({"code", "pct", "price"} <= names, names)

    def test_financial_reports(self):
        r = self.client.financial_reports(page_size=5)
        self.assertGreater(len(r["items"]), 0)
        self.assertIn("period", r["items"][0])

    def _lhb_seat_rows(self):
        # The lhb job imports the demo's last days at start; wait for it.
        deadline = time.time() + 30
        while True:
            jobs = {j["name"]: j for j in self.client.health_sources().get("jobs", [])}
            if jobs.get("lhb", {}).get("runs", 0) > 0 or time.time() > deadline:
                break
            time.sleep(0.2)
        return self.client.lhb_seat("机构专用", start=self.start, end=self.today, page_size=500)

    def test_lhb(self):
        seat = self._lhb_seat_rows()
        self.assertGreater(seat["imported_days"], 0)
        self.assertEqual(seat["source"], "demo")
        self.assertGreater(len(seat["items"]), 0, seat)
        row = seat["items"][0]
        self.assertEqual(row["seat_name"], "机构专用")
        self.assertIn(row["side"], ("buy", "sell"))
        day = self.client.lhb(date=row["date"], seats=True)
        self.assertEqual(day["status"], "listed")
        codes = [it["code"] for it in day["items"]]
        self.assertIn(row["code"], codes)
        self.assertEqual(len(day["items"][0]["buy_seats"]), 5)
        seats = self.client.lhb_stock_seats(row["code"], start=self.start, end=self.today)
        self.assertTrue(any(s["seat_name"] == "机构专用" and s["date"] == row["date"] for s in seats))
        with self.assertRaises(MdqsError) as cm:
            self.client.lhb()
        self.assertEqual(cm.exception.status, 400)
        with self.assertRaises(MdqsError) as cm:
            self.client.lhb(date="2026-11-21")  # a Saturday
        self.assertEqual(cm.exception.status, 404)

    @unittest.skipUnless(HAVE_PANDAS, "pandas not installed")
    def test_lhb_frames(self):
        row = self._lhb_seat_rows()["items"][0]
        df = self.client.lhb(date=row["date"], as_frame=True)
        self.assertGreater(len(df), 0)
        for col in ("date", "code", "name", "reason", "billboard_buy", "billboard_sell", "change_pct", "net_pct"):
            self.assertIn(col, df.columns)
        self.assertEqual(str(df["billboard_buy"].dtype), "float64")
        self.assertEqual(df.attrs["status"], "listed")
        seats = self.client.lhb_stock_seats(row["code"], start=self.start, end=self.today, as_frame=True)
        self.assertEqual(set(seats["side"]), {"buy", "sell"})
        self.assertGreater(seats.attrs["imported_days"], 0)
        act = self.client.lhb_seat("机构专用", start=self.start, end=self.today, as_frame=True)
        self.assertIn("totals", act.attrs)
        self.assertGreater(len(act), 0)

    def _busy_ladder(self):
        """The latest day whose ladder has a stock (the tests' small demo
        market goes days without a limit-up), following prev_date back."""
        ladder = self.client.limit_ladder()
        for _ in range(40):
            if ladder["levels"]:
                return ladder
            ladder = self.client.limit_ladder(date=ladder["prev_date"])
        self.fail("no limit-up in 40 trading days")

    def test_limit_pools(self):
        ladder = self._busy_ladder()
        self.assertEqual(ladder["source"], "demo")
        up = self.client.limit_pool("up", date=ladder["date"])
        self.assertEqual(up["date"], ladder["date"])
        # The ladder holds exactly the day's up pool, each stock at its limit.
        in_ladder = sorted(it["code"] for lv in ladder["levels"] for it in lv["items"])
        self.assertEqual(in_ladder, sorted(it["code"] for it in up["items"]))
        self.assertGreater(len(in_ladder), 0, ladder)
        for it in up["items"]:
            self.assertEqual(it["close"], it["limit_price"])
            self.assertGreaterEqual(it["boards"], 1)
        boards = [lv["boards"] for lv in ladder["levels"]]
        self.assertEqual(boards, sorted(boards, reverse=True))
        broken = self.client.limit_pool("broken", date=ladder["date"])
        for it in broken["items"]:
            self.assertGreaterEqual(it["high"], it["limit_price"])
            self.assertLess(it["close"], it["limit_price"])
        strong = self.client.limit_pool("strong", date=ladder["date"])
        for it in strong["items"]:
            self.assertIn(it["reason"], (1, 2, 3))
            self.assertEqual(it["new_high"], it["reason"] in (1, 3))
        with self.assertRaises(MdqsError) as cm:
            self.client.limit_pool("sideways")
        self.assertEqual(cm.exception.status, 400)
        with self.assertRaises(MdqsError) as cm:
            self.client.limit_ladder(date="2026-11-21")  # a Saturday
        self.assertEqual(cm.exception.status, 400)

    @unittest.skipUnless(HAVE_PANDAS, "pandas not installed")
    def test_limit_pool_frames(self):
        date = self._busy_ladder()["date"]
        df = self.client.limit_ladder(date=date, as_frame=True)
        self.assertGreater(len(df), 0)
        for col in ("code", "name", "close", "limit_price", "boards", "level", "promotion_rate"):
            self.assertIn(col, df.columns)
        self.assertTrue((df["boards"] == df["level"]).all())
        self.assertEqual(df.attrs["source"], "demo")
        up = self.client.limit_pool("up", date=date, as_frame=True)
        self.assertEqual(sorted(up["code"]), sorted(df["code"]))

    def test_screen(self):
        items = self.client.screen("price > 0", sort="-pct", limit=600, page_size=7)
        self.assertGreater(len(items), 21)  # several result pages of 7, joined in order
        pcts = [x["pct"] for x in items if x.get("pct") is not None]
        self.assertEqual(pcts, sorted(pcts, reverse=True))
        self.assertEqual(len({x["code"] for x in items}), len(items))
        with self.assertRaises(MdqsError) as cm:
            self.client.screen("no_such_field > 1")
        self.assertEqual(cm.exception.status, 400)

    def test_corporate_actions(self):
        ca = self.client.corporate_actions(self.code)
        self.assertEqual(ca["code"], self.code)
        self.assertIsInstance(ca["items"], list)

    def test_securities(self):
        # The demo's record starts with its history: a past day's universe.
        u = self.client.securities()
        self.assertGreater(u["count"], 0)
        self.assertEqual(u["date"], u["recorded"]["to"])
        first = self.client.securities(date=u["recorded"]["from"], type="stock", st=False)
        self.assertTrue(all(x["st"] is None for x in first["items"]))
        h = self.client.security_history(self.code)
        self.assertEqual(h["code"], self.code)
        self.assertEqual(h["spans"][0]["field"], "listed")
        # The demo's gbbq has a listing record with the shares of each stock
        # listed within its history; the others have none, all four null.
        known = [x for x in u["items"] if x["float_shares"] is not None]
        self.assertGreater(len(known), 0)
        for x in u["items"]:
            if x["float_shares"] is None:
                self.assertEqual([x["total_shares"], x["shares_day"], x["shares_source"]], [None, None, None])
            else:
                self.assertGreaterEqual(x["total_shares"], x["float_shares"])
                self.assertLessEqual(x["shares_day"], u["date"])
        shares = self.client.security_history(known[0]["code"])["shares"]
        self.assertEqual(shares[0]["day"], known[0]["shares_day"])
        self.assertEqual(shares[0]["float_shares"], known[0]["float_shares"])
        # A well-known demo stock keeps its name: one, in effect before the
        # record began (no start) and still current.
        names = self.client.security_names(self.code)
        self.assertEqual(names, h["names"])
        self.assertEqual([(n["from"], n["to"], n["source"]) for n in names], [(None, None, "demo")])
        with self.assertRaises(MdqsError) as cm:
            self.client.securities(date="2000-01-04")
        self.assertEqual(cm.exception.status, 404)

    def test_indicators(self):
        self.assertIn("marks", self.client.macd_bs(self.code, "D"))
        self.assertIn("micro_vol_ratio", self.client.micro_momentum(self.code, "D"))
        self.assertGreater(len(self.client.chip_metrics(page_size=5)["items"]), 0)

    def test_alerts(self):
        a = self.client.create_alert("pct > -100", universe={"codes": [self.code]}, name="py test")
        self.assertEqual(a["name"], "py test")
        self.assertIn("count", self.client.alert_events())
        self.assertEqual(self.client.alerts(a["id"])["expression"], "pct > -100")
        self.assertIn(a["id"], [x["id"] for x in self.client.alerts()["items"]])
        self.client.delete_alert(a["id"])
        with self.assertRaises(MdqsError) as cm:
            self.client.alerts(a["id"])
        self.assertEqual(cm.exception.status, 404)

    def test_alert_webhook(self):
        # A robot on this machine is refused unless alerts.webhook_allow_private.
        with self.assertRaises(MdqsError) as cm:
            self.client.create_alert("pct > 1", webhook={"url": "http://127.0.0.1:9/hook", "format": "generic", "secret": "s"})
        self.assertEqual(cm.exception.status, 400)
        self.assertIn("alerts.webhook_allow_private", str(cm.exception))
        # A public address literal (never fires: nothing is sent).
        a = self.client.create_alert("pct > 10000", name="py hook", webhook={
            "url": "https://203.0.113.10/robot/send?access_token=py-secret-token", "format": "dingtalk", "secret": "SECpy"})
        self.assertEqual(a["webhook"], {"url": "https://203.0.113.10/robot/send?access_token=***", "format": "dingtalk",
                                        "secret_set": True})
        self.assertEqual(self.client.alert_deliveries(a["id"])["count"], 0)
        self.client.delete_alert(a["id"])


def task_lines(path: str) -> dict:
    """Code lines (not blank, not comments) under each ``# --- `` marker."""
    out, name = {}, None
    with open(path) as f:
        for line in f:
            t = line.strip()
            if t.startswith("# --- "):
                name = t[6:]
                out[name] = 0
            elif name and t and not t.startswith("#"):
                out[name] += 1
    return out


class TestThreeTasks(ServerTest):
    """The examples behind the README's comparison print the same answers."""

    def run_example(self, name: str) -> str:
        env = dict(os.environ, MDQS_ADDR=SERVER.addr)
        p = subprocess.run([sys.executable, os.path.join(HERE, "..", "examples", name), self.start, self.today]
                           + self.codes, env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("time screen", p.stderr)
        return p.stdout

    def test_client_and_raw_agree(self):
        got = self.run_example("three_tasks_client.py")
        self.assertEqual(got, self.run_example("three_tasks_raw.py"))
        lines = got.splitlines()
        self.assertEqual([x.split(" ", 1)[0] for x in lines], ["bars", "ranking", "screen"])
        self.assertIn(self.code, lines[0])
        self.assertGreater(len(lines[2]), len("screen []"), "the screen found something")
        ex = os.path.join(HERE, "..", "examples")
        client, raw = task_lines(os.path.join(ex, "three_tasks_client.py")), task_lines(os.path.join(ex, "three_tasks_raw.py"))
        for task in [k for k in client if k.startswith("task")]:
            self.assertLess(client[task], raw[task], task)


class TestInstall(unittest.TestCase):
    """``pip install ./clients/python`` gives an importable, typed package.

    Offline (as here and in CI) pip cannot fetch setuptools for an isolated
    build, so the test installs with --no-build-isolation from Debian's
    setuptools and wheel, into a venv, from a copy (a build writes build/
    and *.egg-info next to the sources)."""

    def test_pip_install(self):
        try:
            import setuptools  # noqa: F401
            import wheel  # noqa: F401
            import ensurepip  # noqa: F401
        except ImportError as e:
            self.skipTest("needs Debian's python3-venv, python3-pip, python3-setuptools, python3-wheel: %s" % e)
        tmp = tempfile.mkdtemp(prefix="mdqs-pip-")
        try:
            src = os.path.join(tmp, "src")
            os.mkdir(src)
            for name in ("pyproject.toml", "README.md"):
                shutil.copy(os.path.join(HERE, "..", name), src)
            shutil.copytree(os.path.join(HERE, "..", "mdqs"), os.path.join(src, "mdqs"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            venv = os.path.join(tmp, "venv")
            subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True, timeout=120)
            py = os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "python")
            p = subprocess.run([py, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation", src],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            probe = ("import mdqs, os; d = os.path.dirname(mdqs.__file__); "
                     "print(d); print(os.path.exists(os.path.join(d, 'py.typed'))); print(mdqs.Client.__name__)")
            p = subprocess.run([py, "-c", probe], cwd=tmp, capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            where, typed, name = p.stdout.split()
            self.assertTrue(where.startswith(venv), where + " is not the installed copy")
            self.assertEqual(typed, "True", "py.typed (PEP 561) is installed")
            self.assertEqual(name, "Client")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class TestPaging(ServerTest):
    def test_with_realtime_covers_all_rows_once(self):
        rows = list(self.client.kline_with_realtime(self.code, "D", page_size=500))
        days = [r["trade_date"] for r in rows]
        self.assertEqual(len(days), len(set(days)), "a bar came twice")
        self.assertEqual(days, sorted(days, reverse=True), "newest first across pages")
        self.assertGreater(len(rows), 500, "more than one page")
        ranged = self.client.kline(self.code, "D", days[-1], days[0])
        self.assertEqual(sorted(days), [r["trade_date"] for r in ranged["rows"]])
        few = list(self.client.kline_with_realtime(self.code, "D", page_size=7, max_pages=3))
        self.assertEqual([r["trade_date"] for r in few], days[:21])


class TestTokens(unittest.TestCase):
    def test_one_token_for_many_calls(self):
        c = Client(SERVER.addr, token_cache=False)
        for _ in range(25):
            c.whoami()
        c.hot_rank(size=1)
        self.assertEqual(c.tokens_issued, 1)

    def test_renewed_before_expiry(self):
        c = Client(SERVER.addr, token_cache=False)
        c.whoami()
        c._token_expires = time.time() + 30  # inside the last minute: renew before calling
        c.whoami()
        self.assertEqual(c.tokens_issued, 2)

    def test_unknown_token_renewed_once(self):
        c = Client(SERVER.addr, token_cache=False)
        c.whoami()
        c._token = "0" * 64  # the server does not know it: 401, one new token, one retry
        self.assertEqual(c.whoami()["client_id"], "demo")
        self.assertEqual(c.tokens_issued, 2)

    def test_tampered_signature_refused(self):
        c = Client(SERVER.addr, token_cache=False)
        with self.assertRaises(MdqsError) as cm:
            c.request("GET", "/v1/api/whoami", headers={"X-Signature": "0" * 32})
        self.assertEqual(cm.exception.status, 401)
        self.assertEqual(cm.exception.message, "unauthorized")
        self.assertEqual(c.tokens_issued, 1, "a bad signature is not cured by a new token")
        # a body signed as sent is accepted; the same body with one byte changed is not
        tok = c.token()
        body = b'{"expression":"price > 0","limit":1}'
        h = c.sign(tok, body)
        req = urllib.request.Request("http://" + SERVER.addr + "/v1/api/screener/queue/submit",
                                     data=body.replace(b"1}", b"2}"), method="POST", headers=h)
        with self.assertRaises(urllib.error.HTTPError) as he:
            urllib.request.urlopen(req, timeout=10)
        self.assertEqual(he.exception.code, 401)

    def test_signature_is_the_spec_md5(self):
        c = Client(SERVER.addr)
        h = c.sign("t" * 64, b"{}")
        want = hashlib.md5(("t" * 64 + h["X-Timestamp"] + h["X-Nonce"] + "{}").encode()).hexdigest()
        self.assertEqual(h["X-Signature"], want)

    def test_wrong_secret(self):
        with self.assertRaises(MdqsError) as cm:
            Client(SERVER.addr, "demo", "wrong", token_cache=False).whoami()
        self.assertEqual(cm.exception.status, 401)

    def test_env_defaults(self):
        old = {k: os.environ.get(k) for k in ("MDQS_ADDR", "MDQS_CLIENT_ID", "MDQS_CLIENT_SECRET", "MDQS_API_KEY")}
        try:
            os.environ["MDQS_ADDR"] = SERVER.addr
            os.environ.pop("MDQS_CLIENT_ID", None)
            os.environ.pop("MDQS_CLIENT_SECRET", None)
            os.environ.pop("MDQS_API_KEY", None)
            c = Client()
            self.assertEqual(c.base_url, "http://" + SERVER.addr)
            self.assertEqual(c.client_id, "demo")
            os.environ["MDQS_ADDR"] = "http://mdqs.example.com:8080"
            with self.assertRaises(MdqsError):
                Client()  # no demo credentials off loopback
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


class TestTokenCache(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mdqs-cache-")
        self.old = os.environ.get("XDG_CACHE_HOME")
        os.environ["XDG_CACHE_HOME"] = self.dir
        self.path = mdqs.token_cache_path("http://" + SERVER.addr, "demo")

    def tearDown(self):
        os.environ["XDG_CACHE_HOME"] = self.old
        shutil.rmtree(self.dir, ignore_errors=True)

    def read(self):
        with open(self.path) as f:
            return json.load(f)

    def test_file_written_and_reused(self):
        want = hashlib.sha256(("http://%s\ndemo" % SERVER.addr).encode()).hexdigest()[:32] + ".json"
        self.assertEqual(self.path, os.path.join(self.dir, "mdqs", "tokens", want))
        c1 = Client(SERVER.addr + "/")
        c1.whoami()
        self.assertEqual(c1.token_cache_path, self.path)
        self.assertEqual(os.stat(self.path).st_mode & 0o777, 0o600)
        self.assertEqual(os.stat(os.path.dirname(self.path)).st_mode & 0o777, 0o700)
        doc = self.read()
        self.assertEqual(sorted(doc), ["expires", "signature_versions", "token"])
        self.assertEqual(doc["signature_versions"], [1, 2])
        self.assertEqual(doc["token"], c1.token())
        self.assertAlmostEqual(mdqs.client._parse_rfc3339(doc["expires"]), c1.token_expires_at, delta=1)
        self.assertEqual([n for n in os.listdir(os.path.dirname(self.path))], [want], "no temporary file left")
        c2 = Client("http://" + SERVER.addr)
        self.assertEqual(c2.whoami()["client_id"], "demo")
        self.assertEqual(c2.tokens_issued, 0)
        self.assertEqual(c2.token(), doc["token"])

    def test_shared_with_mdqs_call(self):
        env = dict(os.environ, XDG_CACHE_HOME=self.dir, HOME=self.dir)
        for k in ("MDQS_ADDR", "MDQS_CLIENT_ID", "MDQS_CLIENT_SECRET", "MDQS_API_KEY"):
            env.pop(k, None)
        call = [SERVER.binary, "call", "-v", "-addr", SERVER.addr, "GET", "/v1/api/whoami"]
        # mdqs call first: Python reads its file (Go's nanosecond times)
        r = subprocess.run(call, env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("token: new, cached in " + self.path, r.stderr)
        doc = self.read()
        c = Client(SERVER.addr)
        c.whoami()
        self.assertEqual((c.tokens_issued, c.token()), (0, doc["token"]))
        # Python writes a new one: mdqs call reuses it
        c.token(renew=True)
        doc = self.read()
        self.assertNotEqual(doc["token"], c._refused)
        r = subprocess.run(call, env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("token: reused from " + self.path, r.stderr)
        self.assertEqual(self.read(), doc)

    def test_refused_token_dropped_and_renewed(self):
        c = Client(SERVER.addr)
        mdqs.client._save_cached_token(self.path, "0" * 64, time.time() + 3600)
        self.assertEqual(c.whoami()["client_id"], "demo")
        self.assertEqual(c.tokens_issued, 1)
        self.assertNotEqual(self.read()["token"], "0" * 64)
        self.assertEqual(self.read()["token"], c.token())

    def test_token_in_its_last_minute_not_used(self):
        good = Client(SERVER.addr, token_cache=False).token()
        mdqs.client._save_cached_token(self.path, good, time.time() + 30)
        c = Client(SERVER.addr)
        c.whoami()
        self.assertEqual(c.tokens_issued, 1)
        self.assertNotEqual(self.read()["token"], good)

    def test_disabled_and_folder(self):
        Client(SERVER.addr, token_cache=False).whoami()
        self.assertFalse(os.path.exists(self.path))
        other = os.path.join(self.dir, "elsewhere")
        c = Client(SERVER.addr, token_cache=other)
        c.whoami()
        self.assertTrue(c.token_cache_path.startswith(other + os.sep))
        self.assertTrue(os.path.exists(c.token_cache_path))

    def test_go_times(self):
        p = mdqs.client._parse_rfc3339
        self.assertAlmostEqual(p("2026-11-25T21:10:00.123456789+08:00"), 1795612200.123456789, places=5)
        self.assertEqual(p("2026-11-25T13:10:00Z"), 1795612200)
        self.assertEqual(p(mdqs.client._format_rfc3339(1795655400)), 1795655400)


class TestSignatureV2(unittest.TestCase):
    """Signature version 2 against the server: the client uses it when the
    token answer lists it, and it binds the request."""

    def test_signs_with_version_2(self):
        c = Client(SERVER.addr, token_cache=False)
        sent = []
        real = c._send

        def spy(method, url, body, headers):
            sent.append(dict(headers))
            return real(method, url, body, headers)

        c._send = spy
        self.assertEqual(c.whoami()["client_id"], "demo")
        self.assertEqual(c.get("/v1/api/news/list", q="贵州 茅台", page_size=2)["page_size"], 2)
        self.assertEqual((c.signature_versions, c.version), ([1, 2], 2))
        signed = [h for h in sent if "X-Signature" in h]
        self.assertEqual(len(signed), 2)
        self.assertTrue(all(h["X-Signature-Version"] == "2" and len(h["X-Signature"]) == 64 for h in signed), signed)
        v1 = Client(SERVER.addr, token_cache=False, signature_version=1)
        self.assertEqual(v1.whoami()["client_id"], "demo")
        self.assertEqual(v1.version, 1)

    def test_headers_bound_to_their_request(self):
        c = Client(SERVER.addr, token_cache=False)
        tok = c.token()

        def send(method, path, h, body=None):
            req = urllib.request.Request("http://" + SERVER.addr + path, data=body, method=method, headers=h)
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as e:
                return e.code, json.loads(e.read())

        # GET /v1/api/whoami's headers on POST /v1/api/refresh: refused under
        # version 2; the original still passes (the refusal burnt no nonce).
        h = c.sign(tok, b"", "GET", "/v1/api/whoami", version=2)
        status, doc = send("POST", "/v1/api/refresh", h)
        self.assertEqual(status, 401)
        self.assertIn("signature mismatch (version 2", doc["detail"])
        self.assertEqual(send("GET", "/v1/api/whoami", h)[0], 200)
        # the same path, another query
        h = c.sign(tok, b"", "GET", "/v1/api/news/list?page=1&page_size=2", version=2)
        self.assertEqual(send("GET", "/v1/api/news/list?page=2&page_size=2", h)[0], 401)
        self.assertEqual(send("GET", "/v1/api/news/list?page_size=2&page=1", h)[0], 200, "pairs in another order")
        # a swapped body
        body = b'{"expression":"price > 0","limit":1}'
        h = c.sign(tok, body, "POST", "/v1/api/screener/queue/submit", version=2)
        h["Content-Type"] = "application/json"
        self.assertEqual(send("POST", "/v1/api/screener/queue/submit", h, body.replace(b"1}", b"2}"))[0], 401)
        self.assertEqual(send("POST", "/v1/api/screener/queue/submit", h, body)[0], 200)
        # version 1 binds none of it
        h = c.sign(tok, b"", "GET", "/v1/api/whoami", version=1)
        self.assertNotIn("X-Signature-Version", h)
        self.assertNotEqual(send("GET", "/v1/api/screener/fields", h)[0], 401)

    def test_malformed_query_not_signed(self):
        c = Client(SERVER.addr, token_cache=False)
        with self.assertRaises(MdqsError) as cm:
            c.request("GET", "/v1/api/news/list?q=100%")
        self.assertIn("%25", cm.exception.detail)


class TestSignatureV1Refused(unittest.TestCase):
    """A server with auth.signature_v1 = false."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server("[auth]\nsignature_v1 = false\n", binary=SERVER.binary)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_client_works(self):
        c = Client(self.server.addr, token_cache=False)
        self.assertEqual(c.whoami()["client_id"], "demo")
        self.assertEqual((c.signature_versions, c.version), ([2], 2))
        self.assertEqual(next(c.stream(topics="alerts"))["event"], "open")

    def test_version_1_refused_naming_the_setting(self):
        c = Client(self.server.addr, token_cache=False, signature_version=1)
        with self.assertRaises(MdqsError) as cm:
            c.whoami()
        self.assertEqual(cm.exception.status, 401)
        self.assertIn("X-Signature-Version: 2", cm.exception.detail)
        self.assertIn("auth.signature_v1 = false", cm.exception.detail)
        self.assertEqual(c.tokens_issued, 1, "a new token would not help")

    def test_cache_file_from_before_version_2(self):
        folder = tempfile.mkdtemp(prefix="mdqs-py-cache-")
        try:
            good = Client(self.server.addr, token_cache=False).token()
            c = Client(self.server.addr, token_cache=folder)
            mdqs.client._save_cached_token(c.token_cache_path, good, time.time() + 3600)  # no versions
            self.assertEqual(c.whoami()["client_id"], "demo")
            self.assertEqual((c.tokens_issued, c.version), (0, 2), "signed again with version 2, same token")
            with open(c.token_cache_path) as f:
                self.assertEqual(json.load(f)["signature_versions"], [2])
        finally:
            shutil.rmtree(folder, ignore_errors=True)


class TestStream(ServerTest):
    def test_open_then_close(self):
        gen = self.client.stream(topics="alerts")
        ev = next(gen)
        self.assertEqual(ev["event"], "open")
        self.assertEqual(ev["data"], {"topics": ["alert"], "codes": [], "resumed": False})
        self.assertTrue(ev["id"])
        gen.close()
        with self.assertRaises(StopIteration):
            next(gen)

    def test_quotes_with_codes(self):
        gen = self.client.stream(topics=["quotes"], codes=self.codes[:2])
        try:
            ev = next(gen)
        finally:
            gen.close()
        self.assertEqual(ev["data"]["topics"], ["quote"])
        self.assertEqual(sorted(ev["data"]["codes"]), sorted(self.codes[:2]))

    def test_bad_topic(self):
        with self.assertRaises(MdqsError) as cm:
            next(self.client.stream(topics="bogus"))
        self.assertEqual(cm.exception.status, 400)

    def test_sse_parser(self):
        raw = (b"retry: 3000\n: a comment\n\nid: 1-2\nevent: open\ndata: {\"a\":\n"
               b"data: 1}\n\n: hb\n\nid: 1-3\r\nevent: ranking\r\ndata: [1,2]\r\n\r\n"
               b"data: plain text\n\nevent: end\ndata: {\"reason\":\"x\"}\n\n"
               b"event: cut\ndata: 1\n")
        evs = list(mdqs.parse_sse(raw.splitlines(keepends=True)))
        self.assertEqual(evs, [
            {"id": "1-2", "event": "open", "data": {"a": 1}},
            {"id": "1-3", "event": "ranking", "data": [1, 2]},
            {"id": "1-3", "event": "message", "data": "plain text"},
            {"id": "1-3", "event": "end", "data": {"reason": "x"}},
        ])


class TestBridge(ServerTest):
    def test_stocks(self):
        s = self.client.stocks(page_size=5)
        self.assertEqual(len(s["items"]), 5)
        self.assertGreater(s["total"], 5)
        self.assertLessEqual({"code", "name", "market", "type"}, set(s["items"][0]))
        only = self.client.stocks(type="stock", market="SH", page_size=50)["items"]
        self.assertTrue(only and all(x["type"] == "stock" and x["market"] == "SH" for x in only))

    def test_blocks_and_members(self):
        blocks = self.client.blocks()["items"]
        self.assertGreater(len(blocks), 0)
        b = blocks[0]
        self.assertLessEqual({"kind", "name", "code", "member_count"}, set(b))
        m = self.client.block_members(b["name"], kind=b["kind"])
        self.assertEqual(m["name"], b["name"])
        self.assertEqual(len(m["members"]), b["member_count"])
        self.assertIn("code", m["members"][0])
        with self.assertRaises(MdqsError):
            self.client.block_members("no such block")

    def test_minutes(self):
        code = self.client.stocks(type="stock", page_size=1)["items"][0]["code"]
        m = self.client.minutes(code)
        self.assertEqual((m["code"], m["freq"]), (code, "1m"))
        self.assertEqual(m["count"], len(m["rows"]))
        self.assertGreater(m["count"], 0)
        self.assertLessEqual({"ts", "open", "high", "low", "close", "volume"}, set(m["rows"][0]))


class _Stub(http.server.BaseHTTPRequestHandler):
    """Answers a token, then 429 (Retry-After: 0) to the first `fail` calls of
    each path, then 200; records the nonces it saw."""

    fail = 1
    calls = {}
    nonces = []

    def log_message(self, *a):
        pass

    def _send(self, status, doc, headers=()):
        raw = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(raw)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._send(200, {"code": 1, "message": "OK", "data": {"token": "a" * 64, "expire_at": "2099-01-01 00:00:00"}})

    def do_GET(self):
        path = self.path.split("?")[0]
        n = self.calls[path] = self.calls.get(path, 0) + 1
        self.nonces.append(self.headers.get("X-Nonce"))
        if path == "/v1/api/down":
            self._send(503, {"code": 0, "message": "service unavailable", "detail": "not configured"})
        elif n <= self.fail:
            self._send(429, {"code": 0, "message": "too many requests", "retry_after": 0}, [("Retry-After", "0")])
        else:
            self._send(200, {"code": 1, "message": "OK", "data": {"n": n}})


class TestRetry(unittest.TestCase):
    def setUp(self):
        _Stub.calls, _Stub.nonces, _Stub.fail = {}, [], 1
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.client = Client("127.0.0.1:%d" % self.httpd.server_address[1], token_cache=False)

    def tearDown(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def test_429_retried_with_a_fresh_nonce(self):
        self.assertEqual(self.client.get("/v1/api/x"), {"n": 2})
        self.assertEqual(self.client.retries, 1)
        self.assertEqual(len(set(_Stub.nonces)), 2)

    def test_at_most_three_retries(self):
        _Stub.fail = 10
        with self.assertRaises(MdqsError) as cm:
            self.client.get("/v1/api/y")
        self.assertEqual(cm.exception.status, 429)
        self.assertEqual(_Stub.calls["/v1/api/y"], 4)

    def test_503_without_retry_after_not_retried(self):
        with self.assertRaises(MdqsError) as cm:
            self.client.get("/v1/api/down")
        self.assertEqual((cm.exception.status, cm.exception.detail), (503, "not configured"))
        self.assertEqual(_Stub.calls["/v1/api/down"], 1)


@unittest.skipUnless(HAVE_PANDAS or os.environ.get("CI"), "pandas is not installed (apt-get install python3-pandas)")
class TestFrames(ServerTest):
    def test_csv_frame(self):
        rows = self.client.kline(self.code, "D", self.start, self.today)["rows"]
        df = self.client.csv_frame("/v1/api/kline", code=self.code, freq="D", start=self.start, end=self.today)
        self.assertEqual(list(df.columns), list(rows[0].keys()))
        self.assertEqual(len(df), len(rows))
        self.assertEqual(df["close"].tolist(), [r["close"] for r in rows])
        self.assertEqual(df.attrs["code"], self.code)
        hot = self.client.csv_frame("/v1/api/hot_rank", size=5)
        self.assertEqual(hot["stock_code"].iloc[0], self.client.hot_rank(size=5)["items"][0]["stock_code"])

    def test_kline_frame(self):
        df = self.client.kline(self.code, "D", self.start, self.today, as_frame=True)
        self.assertEqual(str(df.index.dtype), "datetime64[ns, Asia/Shanghai]")
        self.assertTrue(df.index.is_monotonic_increasing)
        for col in ("open", "high", "low", "close", "amount"):
            self.assertEqual(str(df[col].dtype), "float64", col)
        self.assertEqual(str(df["volume"].dtype), "Int64")
        self.assertEqual(df.index[0].hour, 15)  # a daily bar closes at 15:00 Shanghai time
        self.assertEqual(df.attrs["code"], self.code)

    def test_bars_daily(self):
        # The market of the last recorded day in one call, over its pages.
        day = self.client.securities()["date"]
        whole = self.client.bars_daily(day)
        self.assertEqual(whole["total"], len(whole["items"]))
        paged = self.client.bars_daily(day, page_size=100)
        self.assertEqual([x["code"] for x in paged["items"]], [x["code"] for x in whole["items"]])
        one = self.client.bars_daily(day, codes=[self.code], as_frame=True)
        self.assertEqual(list(one["code"]), [self.code])
        self.assertEqual(str(one["volume"].dtype), "Int64")

    def test_quality(self):
        q = self.client.quality()
        self.assertEqual([f["field"] for f in q["fields"]], ["open", "high", "low", "close", "volume", "amount"])
        self.assertEqual(q["missing"] + q["archived"] + q["flagged"] + q["gaps"], q["universe"])
        df = self.client.quality(as_frame=True)
        self.assertEqual(list(df["field"]), ["open", "high", "low", "close", "volume", "amount"])
        self.assertEqual(df.attrs["date"], q["date"])
        # A day the security master did not record: the archive part says
        # so (no 404), and the limit pools' comparison still stands.
        old = self.client.quality(date="2001-01-05")
        self.assertEqual(old["archive_status"], "not_recorded")
        self.assertIsNotNone(old["archive_detail"])
        self.assertEqual(old["universe"], 0)
        self.assertEqual(q["archive_status"], "measured")
        with self.assertRaises(MdqsError) as cm:
            self.client.quality(date="2001-13-01")
        self.assertEqual(cm.exception.status, 400)

    def test_quality_comparisons(self):
        # The demo server compares its own demo terminal: the .day files
        # against the store's daily bars (the demo market's both, so they
        # agree), the .lc1 files against the archive (not run yet: none).
        q = self.client.quality()
        pairs = self.client.quality_comparisons()
        self.assertEqual(pairs, q["comparisons"])
        if q["terminal_error"] is not None:
            self.assertEqual(pairs, [])
            return
        self.assertEqual([c["name"] for c in pairs], ["terminal_day", "terminal_minutes"])
        for c in pairs:
            self.assertEqual([f["field"] for f in c["fields"]], ["open", "high", "low", "close", "volume", "amount"])
            self.assertEqual(sum(c["sources"]["a"].values()), c["compared"])
            for f in c["fields"]:
                self.assertLessEqual(f["disagree"], f["compared"])
        df = self.client.quality_comparisons(as_frame=True)
        self.assertEqual(len(df), 12)
        self.assertEqual(list(df["comparison"].unique()), ["terminal_day", "terminal_minutes"])
        self.assertEqual(df.attrs["date"], q["date"])
        self.assertEqual([c["name"] for c in df.attrs["comparisons"]], ["terminal_day", "terminal_minutes"])

    def test_archive_status(self):
        # The demo server's archive job has not run yet: every day of the
        # window is due and pending, and the answer says so.
        st = self.client.archive_status()
        self.assertEqual(st["source"], "demo")
        self.assertEqual(len(st["due"]), 5)
        self.assertLessEqual(set(st["pending"]), set(st["due"]))
        df = self.client.archive_status(as_frame=True)
        self.assertEqual(list(df.attrs["due"]), st["due"])
        self.assertEqual(len(df), len(st["days"]))

    def test_bars_minute(self):
        # The market at one minute of the last recorded day, over its pages.
        day = self.client.securities()["date"]
        whole = self.client.bars_minute(day, "10:30")
        self.assertEqual(whole["total"], len(whole["items"]))
        self.assertEqual(whole["time"], "10:30")
        paged = self.client.bars_minute(day, "10:30", page_size=100)
        self.assertEqual([x["code"] for x in paged["items"]], [x["code"] for x in whole["items"]])
        one = self.client.bars_minute(day, "09:31", codes=[self.code], as_frame=True)
        self.assertEqual(list(one["code"]), [self.code])
        self.assertEqual(one.attrs["time"], "09:31")
        with self.assertRaises(MdqsError) as cm:
            self.client.bars_minute(day, "09:30")
        self.assertEqual(cm.exception.status, 400)
        self.assertIn("09:31", cm.exception.detail)

    def test_securities_frames(self):
        df = self.client.securities(as_frame=True)
        self.assertGreater(len(df), 0)
        self.assertEqual(str(df["suspended"].dtype), "bool")
        for col in ("total_shares", "float_shares"):
            self.assertEqual(str(df[col].dtype), "Int64", col)
        self.assertIn("recorded", df.attrs)
        spans = self.client.security_history(self.code, as_frame=True)
        self.assertIn("field", spans.columns)
        names = self.client.security_names(self.code, as_frame=True)
        self.assertEqual(list(names.columns), ["name", "from", "to", "source"])

    def test_index_membership_frames(self):
        # The demo records its indices' members (demo history, then the
        # demo terminal's spblock.dat); 沪深300 holds every eligible stock
        # of a 60-stock demo.
        df = self.client.index_members("000300.SH", as_frame=True)
        self.assertGreater(len(df), 0)
        self.assertEqual(list(df.columns), ["code", "name", "since"])
        self.assertEqual(df.attrs["code"], "000300.SH")
        self.assertIsNone(df.attrs["weights"])
        self.assertIn("weights", df.attrs["weights_note"])
        self.assertEqual(df.attrs["as_of"], df.attrs["observation"]["date"])
        start = df.attrs["history"]["from"]
        same = self.client.index_members("沪深300", date=start, as_frame=True)
        self.assertEqual(same.attrs["as_of"], start)
        with self.assertRaises(MdqsError) as cm:
            self.client.index_members("000300.SH", date="2000-01-04")
        self.assertEqual(cm.exception.status, 404)
        self.assertIn(start, cm.exception.detail)
        with self.assertRaises(MdqsError) as cm:
            self.client.index_members("000300.SH", date="2026-02-30")
        self.assertEqual(cm.exception.status, 400)
        ch = self.client.index_changes("399001.SZ", as_frame=True)
        self.assertEqual(list(ch.columns)[:4], ["date", "change", "code", "name"])
        self.assertEqual(ch.attrs["ins"] + ch.attrs["outs"], len(ch))
        raw = self.client.index_changes("399006.SZ")
        self.assertEqual(raw["code"], "399006.SZ")

    def test_etfs_frame(self):
        # The demo's funds: IOPV from the demo indices, a premium within
        # 0.3 %, the money fund too.
        df = self.client.etfs()
        self.assertGreaterEqual(len(df), 5)
        for col in ("code", "name", "category", "last", "iopv", "premium_pct", "discount_pct", "volume", "data_date"):
            self.assertIn(col, df.columns)
        self.assertEqual(df.attrs["source"], "demo")
        self.assertEqual(df.attrs["total"], len(df))
        self.assertIn("510300.SH", list(df["code"]))
        self.assertEqual(str(df["premium_pct"].dtype), "float64")
        self.assertTrue((df["premium_pct"].abs() <= 0.35).all())
        a = self.client.etfs(category="a_share", sort="premium", limit=2)
        self.assertEqual(len(a), 2)
        self.assertEqual(set(a["category"]), {"a_share"})
        self.assertGreaterEqual(a["premium_pct"].iloc[0], a["premium_pct"].iloc[1])
        self.assertEqual(a.attrs["total"], 4)
        with self.assertRaises(MdqsError) as cm:
            self.client.etfs(sort="nav")
        self.assertEqual(cm.exception.status, 400)
        raw = self.client.etfs(as_frame=False)
        self.assertEqual(raw["count"], len(raw["etfs"]))

    def test_other_frames(self):
        self.assertGreater(len(self.client.top50(top=3, as_frame=True)), 0)
        b = self.client.boards("industry", as_frame=True)
        self.assertEqual(str(b["pct"].dtype), "float64")
        self.assertEqual(str(self.client.hot_rank(size=5, as_frame=True)["rank"].dtype), "Int64")
        q = self.client.quotes(self.codes[:3], as_frame=True)
        self.assertEqual(len(q), 3)
        s = self.client.screen("price > 0", limit=5, as_frame=True)
        self.assertEqual(len(s), 5)
        i = self.client.intraday_kline(self.code, as_frame=True)
        self.assertEqual(str(i.index.tz), "Asia/Shanghai")
        self.assertEqual(str(i["volume"].dtype), "Int64")
        w = self.client.kline_with_realtime_df(self.code, "D", max_pages=1)
        self.assertTrue(w.index.is_monotonic_increasing)
        self.assertEqual(str(w["close"].dtype), "float64")


if __name__ == "__main__":
    unittest.main()
