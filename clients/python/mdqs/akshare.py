"""akshare's functions, answered by mdqs: ``import mdqs.akshare as ak``.

A script written for akshare keeps its calls, parameters and column names;
only the import changes. Each function takes akshare's parameters (same
names, defaults and accepted values) and returns a pandas DataFrame with the
columns akshare's code returns, in its order, with its dtypes and units
(成交量 in 手 where akshare says 手, 涨跌幅 in %). The data come from one mdqs
server (its cache, its collector, its archive), never from EastMoney per
call. Where mdqs does not hold a column's data the column is there and
empty (NaN); ``MISSING`` lists each with the reason. mdqs's provenance stays
reachable: ``df.attrs["source"]`` and ``df.attrs["as_of"]``.

The server is found as :class:`mdqs.Client` finds it (``MDQS_ADDR``,
``MDQS_CLIENT_ID``, ``MDQS_CLIENT_SECRET``, ``MDQS_API_KEY``, the token cache
shared with ``mdqs call``), or set in code with :func:`configure`.
docs/akshare.md is the table of functions and what differs.
"""

import concurrent.futures
import datetime as _dt
import math
import re
import threading
import warnings
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .client import Client
from .errors import MdqsError

__all__ = [
    "configure", "client", "MISSING",
    "stock_zh_a_hist", "stock_zh_a_hist_min_em", "stock_zh_a_spot_em",
    "stock_board_industry_name_em", "stock_board_concept_name_em",
    "stock_board_industry_cons_em", "stock_board_concept_cons_em",
    "stock_sector_fund_flow_rank", "stock_hot_rank_em", "stock_news_em",
    "tool_trade_date_hist_sina",
    "stock_zt_pool_em", "stock_zt_pool_previous_em", "stock_zt_pool_strong_em",
    "stock_zt_pool_zbgc_em", "stock_zt_pool_dtgc_em",
    "stock_lhb_detail_em", "fund_etf_spot_em", "index_stock_cons_csindex",
]

NaN = float("nan")

# The columns mdqs has no data for, per function, with the reason: each is
# present and NaN (never a made-up value). docs/akshare.md shows the same.
_NOT_COLLECTED = "mdqs does not collect it"
MISSING: Dict[str, Dict[str, str]] = {
    "stock_zh_a_spot_em": {
        "涨速": "the 5-minute speed needs the tick stream of the last minutes; " + _NOT_COLLECTED,
        "5分钟涨跌": "needs the last 5 minutes' quotes of every stock; " + _NOT_COLLECTED,
        "60日涨跌幅": "the screen holds 80 daily bars, but no 60-day change field; not derived here per stock",
        "年初至今涨跌幅": "needs the year's first close of every stock; not derived here per stock",
    },
    "stock_board_industry_name_em": {
        "最新价": "mdqs keeps a sector's change, flows and breadth, not its index level",
        "涨跌额": "mdqs keeps a sector's change in %, not its index level",
        "总市值": "mdqs keeps no sector market value",
    },
    "stock_board_concept_name_em": {
        "最新价": "mdqs keeps a sector's change, flows and breadth, not its index level",
        "涨跌额": "mdqs keeps a sector's change in %, not its index level",
        "总市值": "mdqs keeps no sector market value",
    },
    "stock_sector_fund_flow_rank": {
        "超大单净流入-净额": "mdqs keeps the main-force (super-large + large) net inflow only",
        "超大单净流入-净占比": "mdqs keeps the main-force net inflow only",
        "大单净流入-净额": "mdqs keeps the main-force net inflow only",
        "大单净流入-净占比": "mdqs keeps the main-force net inflow only",
        "中单净流入-净额": "mdqs keeps the main-force net inflow only",
        "中单净流入-净占比": "mdqs keeps the main-force net inflow only",
        "小单净流入-净额": "mdqs keeps the main-force net inflow only",
        "小单净流入-净占比": "mdqs keeps the main-force net inflow only",
        "主力净流入最大股": "mdqs keeps a sector's leader by change, not by inflow",
    },
    "stock_zt_pool_em": {
        "封板资金": "published by EastMoney's pool only: NaN on days whose pool mdqs did not import (and in the demo)",
    },
    "stock_zt_pool_previous_em": {
        "涨速": "needs the tick stream; " + _NOT_COLLECTED,
    },
    "stock_zt_pool_strong_em": {
        "涨速": "needs the tick stream; " + _NOT_COLLECTED,
        "量比": "a past day's volume ratio is not kept",
    },
    "stock_zt_pool_zbgc_em": {
        "涨速": "needs the tick stream; " + _NOT_COLLECTED,
    },
    "stock_zt_pool_dtgc_em": {
        "封单资金": "published by EastMoney's pool only: NaN on days whose pool mdqs did not import (and in the demo)",
        "动态市盈率": "a past day's P/E is not kept",
        "板上成交额": "needs the trades at the limit price; " + _NOT_COLLECTED,
    },
    "stock_lhb_detail_em": {
        "上榜后1日": "the later returns are EastMoney's own computation; not served",
        "上榜后2日": "not served",
        "上榜后5日": "not served",
        "上榜后10日": "not served",
    },
    "fund_etf_spot_em": {
        "量比": "not kept for funds",
        "委比": "needs the order book; " + _NOT_COLLECTED,
        "外盘": "needs the tick stream; " + _NOT_COLLECTED,
        "内盘": "needs the tick stream; " + _NOT_COLLECTED,
        "主力净流入-净额": "not kept for funds",
        "主力净流入-净占比": "not kept for funds",
        "超大单净流入-净额": "not kept for funds",
        "超大单净流入-净占比": "not kept for funds",
        "大单净流入-净额": "not kept for funds",
        "大单净流入-净占比": "not kept for funds",
        "中单净流入-净额": "not kept for funds",
        "中单净流入-净占比": "not kept for funds",
        "小单净流入-净额": "not kept for funds",
        "小单净流入-净占比": "not kept for funds",
        "现手": "needs the tick stream; " + _NOT_COLLECTED,
        "买一": "needs the order book; " + _NOT_COLLECTED,
        "卖一": "needs the order book; " + _NOT_COLLECTED,
    },
    "index_stock_cons_csindex": {
        "指数英文名称": "mdqs keeps Chinese names only",
        "成分券英文名称": "mdqs keeps Chinese names only",
    },
}


class _State:
    """The module's one client, made on first use (or by configure)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.client: Optional[Client] = None
        self.kwargs: Dict[str, Any] = {}


_STATE = _State()


def configure(base_url: Optional[str] = None, client_id: Optional[str] = None,
              client_secret: Optional[str] = None, **kwargs: Any) -> Client:
    """Point the module at a server in code (else the environment
    ``mdqs.Client()`` reads). Other keyword arguments go to
    :class:`mdqs.Client` (``api_key``, ``timeout``, ``token_cache`` ...).
    Returns the client now in use."""
    kw = dict(kwargs, base_url=base_url, client_id=client_id, client_secret=client_secret)
    c = Client(**kw)
    with _STATE.lock:
        _STATE.kwargs = kw
        _STATE.client = c
    return c


def client() -> Client:
    """The client the functions call (made from the environment on first use)."""
    with _STATE.lock:
        if _STATE.client is None:
            _STATE.client = Client(**_STATE.kwargs)
        return _STATE.client


def _pd():
    return Client._pandas()


# ---------------------------------------------------------------------- codes and dates

_SUFFIXED = re.compile(r"^(\d{6})\.(SH|SZ|BJ)$", re.I)
_PREFIXED = re.compile(r"^(SH|SZ|BJ)(\d{6})$", re.I)


def _stock_code(symbol: str) -> str:
    """A 6-digit symbol as akshare's stock functions read it: 6xxxxx
    Shanghai, 0xxxxx/3xxxxx Shenzhen, 4/8/9xxxxx Beijing (a stock, never
    the index with the same digits: 000001 is 平安银行). Funds: 5xxxxx
    Shanghai, 1xxxxx Shenzhen. 600519.SH and sh600519 are taken as written."""
    s = str(symbol).strip()
    m = _SUFFIXED.match(s)
    if m:
        return m.group(1) + "." + m.group(2).upper()
    m = _PREFIXED.match(s)
    if m:
        return m.group(2) + "." + m.group(1).upper()
    if not re.fullmatch(r"\d{6}", s):
        raise ValueError("symbol=%r: a 6-digit code such as '000001' is expected" % symbol)
    first = s[0]
    if first in "65":
        return s + ".SH"
    if first in "0321":
        return s + ".SZ"
    return s + ".BJ"  # 4, 8, 9


def _bare(code: Optional[str]) -> Optional[str]:
    """600519.SH -> 600519 (akshare's 代码 has no market)."""
    return code.split(".")[0] if isinstance(code, str) else code


def _prefixed(code: str) -> str:
    """600519.SH -> SH600519 (akshare's hot rank form)."""
    num, _, mkt = code.partition(".")
    return mkt.upper() + num


def _day(s: Any) -> _dt.date:
    """'20240528', '2024-05-28', '2024-05-28 09:30:00' or a date -> a date."""
    if isinstance(s, _dt.datetime):
        return s.date()
    if isinstance(s, _dt.date):
        return s
    t = str(s).strip()
    digits = re.sub(r"\D", "", t[:10])
    if len(digits) != 8:
        raise ValueError("not a date: %r" % (s,))
    return _dt.date(int(digits[:4]), int(digits[4:6]), int(digits[6:8]))


def _datetime(s: Any) -> _dt.datetime:
    """'2024-03-20 09:30:00' (or a bare date: its start) -> a naive Shanghai datetime."""
    if isinstance(s, _dt.datetime):
        return s.replace(tzinfo=None)
    t = str(s).strip()
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y%m%d %H:%M:%S", "%Y%m%d%H%M%S"):
        try:
            return _dt.datetime.strptime(t, fmt)
        except ValueError:
            pass
    d = _day(t)
    return _dt.datetime(d.year, d.month, d.day)


def _today() -> _dt.date:
    return _dt.datetime.now(_dt.timezone(_dt.timedelta(hours=8))).date()


def _clamp(d: _dt.date, lo: _dt.date, hi: _dt.date) -> _dt.date:
    return max(lo, min(hi, d))


# The exchanges opened in December 1990: a default such as akshare's
# 19700101 means "everything held", asked from here.
_EARLIEST = _dt.date(1990, 12, 1)


# ---------------------------------------------------------------------- frames

def _num(v: Any) -> float:
    if v is None or isinstance(v, bool):
        return NaN
    try:
        return float(v)
    except (TypeError, ValueError):
        return NaN


def _r(v: float, nd: int) -> float:
    return NaN if v is None or (isinstance(v, float) and math.isnan(v)) else round(v, nd)


def _lots(shares: Any) -> float:
    """Shares -> 手 (100 shares), as EastMoney rounds them."""
    v = _num(shares)
    return NaN if math.isnan(v) else float(round(v / 100.0))


def _frame(columns: Sequence[Tuple[str, str]], rows: List[Mapping[str, Any]], attrs: Mapping[str, Any]) -> Any:
    """A DataFrame of ``rows`` (dicts by column name) with exactly
    ``columns`` ((name, dtype) in order). int64 columns that hold a
    missing value become float64 (pandas has no NaN int64), object columns
    keep Python values (str, datetime.date)."""
    pd = _pd()
    import numpy as np
    data: Dict[str, Any] = {}
    for name, dtype in columns:
        vals = [r.get(name) for r in rows]
        if dtype == "object":
            data[name] = pd.Series(vals, dtype="object")
        elif dtype in ("int64", "int32"):
            nums = [_num(v) for v in vals]
            if any(math.isnan(x) for x in nums):
                data[name] = pd.Series(nums, dtype="float64")
            else:
                data[name] = pd.Series([int(x) for x in nums], dtype=np.dtype(dtype))
        else:
            data[name] = pd.Series([_num(v) for v in vals], dtype="float64")
    df = pd.DataFrame(data, columns=[c for c, _ in columns])
    df.attrs.update({k: v for k, v in attrs.items() if v is not None or k in ("source", "as_of")})
    df.attrs.setdefault("source", None)
    df.attrs.setdefault("as_of", None)
    return df


def _empty_on_404(fn: Callable[[], Any], columns: Sequence[Tuple[str, str]], what: str) -> Tuple[Any, Any]:
    """Call ``fn``; a 404 (a day or range mdqs does not hold) is akshare's
    empty answer instead: an empty frame with the columns, the server's
    reason in ``attrs["note"]`` and a warning."""
    try:
        return fn(), None
    except MdqsError as e:
        if e.status != 404:
            raise
        note = "%s: %s" % (e.message, e.detail) if e.detail else e.message
        warnings.warn("mdqs.akshare.%s: empty: %s" % (what, note), stacklevel=3)
        return None, _frame(columns, [], {"source": None, "as_of": None, "note": note})


# ---------------------------------------------------------------------- the pinned columns

def _cols(spec: str) -> List[Tuple[str, str]]:
    """'名称:object 最新价:float64 ...' -> [(name, dtype)]; a bare name is float64."""
    out = []
    for item in spec.split():
        name, _, dtype = item.partition(":")
        out.append((name, dtype or "float64"))
    return out


COLUMNS: Dict[str, List[Tuple[str, str]]] = {
    "stock_zh_a_hist": _cols("日期:object 股票代码:object 开盘 收盘 最高 最低 成交量:int64 成交额 振幅 涨跌幅 涨跌额 换手率"),
    "stock_zh_a_hist_min_em_1": _cols("时间:object 开盘 收盘 最高 最低 成交量:int64 成交额 均价"),
    "stock_zh_a_hist_min_em": _cols("时间:object 开盘 收盘 最高 最低 涨跌幅 涨跌额 成交量:int64 成交额 振幅 换手率"),
    "stock_zh_a_spot_em": _cols("序号:int64 代码:object 名称:object 最新价 涨跌幅 涨跌额 成交量 成交额 振幅 最高 最低 今开 "
                                "昨收 量比 换手率 市盈率-动态 市净率 总市值 流通市值 涨速 5分钟涨跌 60日涨跌幅 年初至今涨跌幅"),
    "stock_board_industry_name_em": _cols("排名:int64 板块名称:object 板块代码:object 最新价 涨跌额 涨跌幅 总市值 换手率 "
                                          "上涨家数:int64 下跌家数:int64 领涨股票:object 领涨股票-涨跌幅"),
    "stock_board_industry_cons_em": _cols("序号:int64 代码:object 名称:object 最新价 涨跌幅 涨跌额 成交量 成交额 振幅 最高 最低 "
                                          "今开 昨收 换手率 市盈率-动态 市净率"),
    "stock_hot_rank_em": _cols("当前排名:int64 代码:object 股票名称:object 最新价 涨跌额 涨跌幅"),
    "stock_news_em": _cols("关键词:object 新闻标题:object 新闻内容:object 发布时间:object 文章来源:object 新闻链接:object"),
    "tool_trade_date_hist_sina": _cols("trade_date:object"),
    "stock_zt_pool_em": _cols("序号:int64 代码:object 名称:object 涨跌幅 最新价 成交额 流通市值 总市值 换手率 封板资金 "
                              "首次封板时间:object 最后封板时间:object 炸板次数 涨停统计:object 连板数:int64 所属行业:object"),
    "stock_zt_pool_previous_em": _cols("序号:int64 代码:object 名称:object 涨跌幅 最新价 涨停价 成交额 流通市值 总市值 换手率 "
                                       "涨速 振幅 昨日封板时间:object 昨日连板数:int64 涨停统计:object 所属行业:object"),
    "stock_zt_pool_strong_em": _cols("序号:int64 代码:object 名称:object 涨跌幅 最新价 涨停价 成交额 流通市值 总市值 换手率 "
                                     "涨速 是否新高:object 量比 涨停统计:object 入选理由:object 所属行业:object"),
    "stock_zt_pool_zbgc_em": _cols("序号:int64 代码:object 名称:object 涨跌幅 最新价 涨停价 成交额 流通市值 总市值 换手率 "
                                   "涨速 首次封板时间:object 炸板次数 涨停统计:object 振幅 所属行业:object"),
    "stock_zt_pool_dtgc_em": _cols("序号:int64 代码:object 名称:object 涨跌幅 最新价 成交额 流通市值 总市值 动态市盈率 换手率 "
                                   "封单资金 最后封板时间:object 板上成交额 连续跌停:int64 开板次数 所属行业:object"),
    "stock_lhb_detail_em": _cols("序号:int64 代码:object 名称:object 上榜日:object 解读:object 收盘价 涨跌幅 龙虎榜净买额 "
                                 "龙虎榜买入额 龙虎榜卖出额 龙虎榜成交额 市场总成交额 净买额占总成交比 成交额占总成交比 换手率 "
                                 "流通市值 上榜原因:object 上榜后1日 上榜后2日 上榜后5日 上榜后10日"),
    "fund_etf_spot_em": _cols("代码:object 名称:object 最新价 IOPV实时估值 基金折价率 涨跌额 涨跌幅 成交量 成交额 开盘价 最高价 "
                              "最低价 昨收 振幅 换手率 量比 委比 外盘 内盘 主力净流入-净额 主力净流入-净占比 超大单净流入-净额 "
                              "超大单净流入-净占比 大单净流入-净额 大单净流入-净占比 中单净流入-净额 中单净流入-净占比 "
                              "小单净流入-净额 小单净流入-净占比 现手 买一 卖一 最新份额 流通市值 总市值 数据日期:object "
                              "更新时间:object"),
    "index_stock_cons_csindex": _cols("日期:object 指数代码:object 指数名称:object 指数英文名称:object 成分券代码:object "
                                      "成分券名称:object 成分券英文名称:object 交易所:object 交易所英文名称:object"),
}
COLUMNS["stock_board_concept_name_em"] = COLUMNS["stock_board_industry_name_em"]
COLUMNS["stock_board_concept_cons_em"] = COLUMNS["stock_board_industry_cons_em"]


def _fund_flow_columns(indicator: str) -> List[Tuple[str, str]]:
    p = indicator
    return _cols("序号:int64 名称:object {p}涨跌幅 {p}主力净流入-净额 {p}主力净流入-净占比 {p}超大单净流入-净额 "
                 "{p}超大单净流入-净占比 {p}大单净流入-净额 {p}大单净流入-净占比 {p}中单净流入-净额 {p}中单净流入-净占比 "
                 "{p}小单净流入-净额 {p}小单净流入-净占比 {p}主力净流入最大股:object".replace("{p}", p))


# ---------------------------------------------------------------------- K-lines

def _bars(c: Client, code: str, freq: str, start: str, end: str, adjust: str,
          timeout: Optional[float] = None) -> Dict[str, Any]:
    """/v1/api/kline (adjust '') or /v1/api/kline/adjusted (qfq, hfq)."""
    if adjust not in ("", "qfq", "hfq"):
        raise ValueError("adjust=%r: one of '', 'qfq', 'hfq'" % adjust)
    params = {"code": code, "freq": freq, "start": start, "end": end}
    saved = c.timeout
    if timeout:
        c.timeout = timeout
    try:
        if adjust:
            return c.get("/v1/api/kline/adjusted", mode=adjust, **params)
        return c.get("/v1/api/kline", **params)
    finally:
        c.timeout = saved


def _price_digits(code: str) -> int:
    """A fund's tick is 0.001, a stock's 0.01."""
    return 3 if code[:1] in "15" else 2


def _kline_attrs(data: Mapping[str, Any], code: str) -> Dict[str, Any]:
    return {"source": data.get("source"), "as_of": data.get("realtime_as_of") or data.get("final_through"),
            "code": code, "final_through": data.get("final_through"), "adj": data.get("adj"),
            "adj_method": data.get("adj_method"), "anchor": data.get("anchor")}


def _period_key(d: _dt.date, period: str) -> Tuple[int, int]:
    if period == "weekly":
        iso = d.isocalendar()
        return iso[0], iso[1]
    return d.year, d.month


def _merge_bars(bars: List[Dict[str, Any]], key: Callable[[Dict[str, Any]], Any],
                dated: Callable[[Dict[str, Any], Any], Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Consecutive bars of one ``key`` merged into one (the first open, the
    highest high, the lowest low, the last close, the sums); ``dated`` gives
    the merged bar's date fields from its last bar and the key."""
    merged: List[Dict[str, Any]] = []
    for r in bars:
        k = key(r)
        if merged and merged[-1]["_key"] == k:
            g = merged[-1]
            g["high"] = max(g["high"], _num(r["high"]))
            g["low"] = min(g["low"], _num(r["low"]))
            g["close"] = _num(r["close"])
            g["volume"] += _num(r.get("volume"))
            g["amount"] += _num(r.get("amount"))
            g["turnover_rate"] += _num(r.get("turnover_rate"))
        else:
            g = {"_key": k, "open": _num(r["open"]), "high": _num(r["high"]), "low": _num(r["low"]),
                 "close": _num(r["close"]), "volume": _num(r.get("volume")), "amount": _num(r.get("amount")),
                 "turnover_rate": _num(r.get("turnover_rate"))}
            merged.append(g)
        g.update(dated(r, k))
    return merged


def stock_zh_a_hist(symbol: str = "000001", period: str = "daily", start_date: str = "19700101",
                    end_date: str = "20500101", adjust: str = "", timeout: Optional[float] = None) -> Any:
    """东方财富-沪深京 A 股日频率数据, from mdqs's daily bars
    (/v1/api/kline; qfq/hfq from /v1/api/kline/adjusted, the terminal's
    method). weekly and monthly bars are built from the daily ones (dated
    by their last trading day, as EastMoney dates them). 成交量 in 手;
    振幅, 涨跌幅 and 涨跌额 against the previous bar's close (NaN for a
    code's first bar held)."""
    if period not in ("daily", "weekly", "monthly"):
        raise ValueError("period=%r: one of 'daily', 'weekly', 'monthly'" % period)
    code = _stock_code(symbol)
    cols = COLUMNS["stock_zh_a_hist"]
    today = _today()
    lo = _clamp(_day(start_date), _EARLIEST, today)
    hi = _clamp(_day(end_date), _EARLIEST, today)
    if lo > hi or _day(start_date) > today:
        return _frame(cols, [], {"source": None, "as_of": None, "code": code})
    # Earlier bars: the previous close of the first row, and whole weeks/months.
    fetch_lo = lo - _dt.timedelta(days=70 if period != "daily" else 20)
    c = client()
    rows: List[Dict[str, Any]] = []
    data: Dict[str, Any] = {}
    # At most 20,000 rows a request: ask in spans of 20 years at most.
    span_lo = fetch_lo
    while span_lo <= hi:
        span_hi = min(hi, _dt.date(span_lo.year + 20, 1, 1) - _dt.timedelta(days=1))
        data = _bars(c, code, "D", span_lo.isoformat(), span_hi.isoformat(), adjust, timeout)
        rows.extend(data.get("rows") or [])
        span_lo = span_hi + _dt.timedelta(days=1)
    nd = _price_digits(code)
    bars = [r for r in rows if r.get("close") is not None]
    if period != "daily":
        # A week or month is dated by its last trading day, as EastMoney dates it.
        bars = _merge_bars(bars, lambda r: _period_key(_day(r["trade_date"]), period),
                           lambda r, key: {"trade_date": r["trade_date"], "pct": None})
    out = []
    prev = NaN
    for r in bars:
        d = _day(r["trade_date"])
        close = _num(r["close"])
        if lo <= d <= hi:
            pct = _num(r.get("pct")) if period == "daily" else (close / prev - 1) * 100 if prev else NaN
            out.append({
                "日期": d, "股票代码": _bare(code), "开盘": _num(r["open"]), "收盘": close,
                "最高": _num(r["high"]), "最低": _num(r["low"]), "成交量": _lots(r.get("volume")),
                "成交额": _num(r.get("amount")),
                "振幅": _r((_num(r["high"]) - _num(r["low"])) / prev * 100, 2) if prev else NaN,
                "涨跌幅": _r(pct, 2), "涨跌额": _r(close - prev, nd), "换手率": _r(_num(r.get("turnover_rate")), 2),
            })
        prev = close
    return _frame(cols, out, _kline_attrs(data, code))


_MIN_PERIODS = ("1", "5", "15", "30", "60")


def _session_offset(t: _dt.datetime) -> int:
    """Minutes of trading from 09:30 to the end of the bar at ``t`` (the
    morning's 120, then the afternoon's from 13:00)."""
    m = t.hour * 60 + t.minute
    if m <= 11 * 60 + 30:
        return m - (9 * 60 + 30)
    return 120 + m - 13 * 60


def _offset_time(day: _dt.date, off: int) -> _dt.datetime:
    m = 9 * 60 + 30 + off if off <= 120 else 13 * 60 + off - 120
    return _dt.datetime(day.year, day.month, day.day, m // 60, m % 60)


def stock_zh_a_hist_min_em(symbol: str = "000001", start_date: str = "1979-09-01 09:32:00",
                           end_date: str = "2222-01-01 09:32:00", period: str = "5", adjust: str = "") -> Any:
    """东方财富网-沪深京 A 股-分时行情, from mdqs's minute bars (the
    archive where it holds the range, so further back than EastMoney's 5
    days of 1-minute bars). period '1' and '5' are the server's bars;
    '15', '30', '60' are built from its 5-minute bars on EastMoney's
    boundaries (10:30, 11:30, 14:00, 15:00 for '60'). A bar is named by
    its end minute: 09:31 is the first 1-minute bar (mdqs folds the 09:25
    auction and 09:30 into it; EastMoney lists a 09:30 row). Without
    ``start_date`` the last 5 trading days ('1') or 30 calendar days are
    given. 1-minute bars are never adjusted, as in akshare."""
    if str(period) not in _MIN_PERIODS:
        raise ValueError("period=%r: one of '1', '5', '15', '30', '60'" % period)
    period = str(period)
    code = _stock_code(symbol)
    cols = COLUMNS["stock_zh_a_hist_min_em_1" if period == "1" else "stock_zh_a_hist_min_em"]
    t_lo, t_hi = _datetime(start_date), _datetime(end_date)
    now = _dt.datetime.now(_dt.timezone(_dt.timedelta(hours=8))).replace(tzinfo=None)
    hi = min(t_hi, now).date()
    c = client()
    if t_lo.date() < _EARLIEST:  # the default: the recent bars only, as EastMoney gives them
        days = c.get("/v1/api/calendar", end=hi.isoformat(), start=(hi - _dt.timedelta(days=30)).isoformat())
        held = [x for x in days.get("trading_days") or [] if x <= hi.isoformat()]
        lo = _day(held[-5]) if period == "1" and len(held) >= 5 else hi - _dt.timedelta(days=30)
        t_lo = _dt.datetime(lo.year, lo.month, lo.day)
    lo = t_lo.date()
    if lo > hi:
        return _frame(cols, [], {"source": None, "as_of": None, "code": code})
    freq = "1m" if period == "1" else "5m"
    adj = "" if period == "1" else adjust
    rows: List[Dict[str, Any]] = []
    data: Dict[str, Any] = {}
    span_lo = lo - _dt.timedelta(days=7)  # the bar before the first: its close
    while span_lo <= hi:  # at most 20,000 rows a request: 60 days of 1-minute bars
        span_hi = min(hi, span_lo + _dt.timedelta(days=59))
        data = _bars(c, code, freq, span_lo.isoformat(), span_hi.isoformat(), adj)
        rows.extend(data.get("rows") or [])
        span_lo = span_hi + _dt.timedelta(days=1)
    bars = []
    for r in rows:
        if r.get("close") is None:
            continue
        bars.append(dict(r, _t=_dt.datetime.strptime(r["time"], "%Y-%m-%d %H:%M:%S")))
    n = int(period)
    if n > 5:
        # A bar is dated by the end of its n minutes of the session.
        bars = _merge_bars(bars, lambda r: (r["_t"].date(), -(-_session_offset(r["_t"]) // n) * n),
                           lambda r, key: {"_t": _offset_time(*key)})
    nd = _price_digits(code)
    out = []
    prev = NaN
    cum_day, cum_amount, cum_volume = None, 0.0, 0.0
    for r in bars:
        t = r["_t"]
        close = _num(r["close"])
        if t.date() != cum_day:
            cum_day, cum_amount, cum_volume = t.date(), 0.0, 0.0
        cum_amount += _num(r.get("amount")) if r.get("amount") is not None else 0.0
        cum_volume += _num(r.get("volume")) if r.get("volume") is not None else 0.0
        if t_lo <= t <= t_hi:
            row = {"时间": t.strftime("%Y-%m-%d %H:%M:%S"), "开盘": _num(r["open"]), "收盘": close,
                   "最高": _num(r["high"]), "最低": _num(r["low"]), "成交量": _lots(r.get("volume")),
                   "成交额": _num(r.get("amount"))}
            if period == "1":
                row["均价"] = _r(cum_amount / cum_volume, 3) if cum_volume else NaN
            else:
                row.update({"涨跌幅": _r((close / prev - 1) * 100, 2) if prev else NaN,
                            "涨跌额": _r(close - prev, nd),
                            "振幅": _r((_num(r["high"]) - _num(r["low"])) / prev * 100, 2) if prev else NaN,
                            "换手率": _r(_num(r.get("turnover_rate")), 2)})
            out.append(row)
        prev = close
    return _frame(cols, out, _kline_attrs(data, code))


# ---------------------------------------------------------------------- the whole market (the screen)

_SPOT_FIELDS = ("price", "pct", "open", "high", "low", "prev_close", "volume", "amount", "turnover",
                "amplitude", "volume_ratio", "pe", "pb", "market_cap", "float_cap")


def _screen_all(universe: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """Every stock of ``universe`` with the spot fields, from one screen
    over the server's latest snapshot (the expression is true for every
    stock; it names the fields so that the result carries them)."""
    expr = 'code != "" || ' + " + ".join(_SPOT_FIELDS) + " > 0"
    return client().screen(expr, universe=dict(universe), limit=5000)


def _screen_market() -> List[Dict[str, Any]]:
    items: List[Dict[str, Any]] = []
    for m in ("SH", "SZ", "BJ"):  # a screen answers at most 5,000 stocks: one per market
        items.extend(_screen_all({"market": m}))
    return items


def _spot_row(it: Mapping[str, Any]) -> Dict[str, Any]:
    price, prev = _num(it.get("price")), _num(it.get("prev_close"))
    nd = _price_digits(it["code"])
    return {
        "代码": _bare(it["code"]), "名称": it.get("name"), "最新价": price, "涨跌幅": _num(it.get("pct")),
        "涨跌额": _r(price - prev, nd), "成交量": _lots(it.get("volume")), "成交额": _num(it.get("amount")),
        "振幅": _num(it.get("amplitude")), "最高": _num(it.get("high")), "最低": _num(it.get("low")),
        "今开": _num(it.get("open")), "昨收": prev, "量比": _num(it.get("volume_ratio")),
        "换手率": _num(it.get("turnover")), "市盈率-动态": _num(it.get("pe")), "市净率": _num(it.get("pb")),
        "总市值": _num(it.get("market_cap")), "流通市值": _num(it.get("float_cap")),
    }


def _quote_meta() -> Dict[str, Any]:
    """The source and as_of of the server's quote snapshot (one quote of a
    liquid stock names them for the whole snapshot the screen reads)."""
    try:
        q = client().get("/v1/api/quotes", codes="000001.SZ").get("quotes") or []
    except MdqsError:
        return {}
    return q[0] if q else {}


def _sort_desc(rows: List[Dict[str, Any]], key: str) -> List[Dict[str, Any]]:
    """Largest first, unknown last (EastMoney's order of its lists)."""
    def order(r: Mapping[str, Any]) -> Tuple[bool, float]:
        v = _num(r.get(key))
        return (True, 0.0) if math.isnan(v) else (False, -v)
    return sorted(rows, key=order)


def stock_zh_a_spot_em() -> Any:
    """东方财富网-沪深京 A 股-实时行情: every stock of the server's latest
    snapshot (one screen per market), sorted by 涨跌幅 as EastMoney's list
    is. 成交量 in 手."""
    items = _screen_market()
    rows = _sort_desc([_spot_row(it) for it in items], "涨跌幅")
    for i, r in enumerate(rows, 1):
        r["序号"] = i
    meta = _quote_meta()
    return _frame(COLUMNS["stock_zh_a_spot_em"], rows, {"source": meta.get("source"), "as_of": meta.get("as_of")})


# ---------------------------------------------------------------------- sectors

def _boards(kind: str) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
    doc = client().request("GET", "/v1/api/boards/" + kind, {"top": 10000, "sort": "pct", "order": "desc"})
    return doc.get("data") or [], doc.get("meta") or {}


def _board_name_em(kind: str) -> Any:
    rows, meta = _boards(kind)
    out = []
    for i, b in enumerate(rows, 1):
        out.append({"排名": i, "板块名称": b.get("board_name"), "板块代码": b.get("board_code"),
                    "涨跌幅": _num(b.get("pct")), "换手率": _num(b.get("turnover")), "上涨家数": b.get("up"),
                    "下跌家数": b.get("down"), "领涨股票": b.get("leader_name"), "领涨股票-涨跌幅": _num(b.get("leader_pct"))})
    return _frame(COLUMNS["stock_board_%s_name_em" % kind], out,
                  {"source": meta.get("source"), "as_of": meta.get("as_of"), "day": meta.get("day")})


def stock_board_industry_name_em() -> Any:
    """东方财富-沪深京板块-行业板块, from mdqs's sector snapshot
    (/v1/api/boards/industry), ranked by 涨跌幅."""
    return _board_name_em("industry")


def stock_board_concept_name_em() -> Any:
    """东方财富网-沪深京板块-概念板块, from /v1/api/boards/concept."""
    return _board_name_em("concept")


def _board_cons_em(kind: str, symbol: str) -> Any:
    cols = COLUMNS["stock_board_%s_cons_em" % kind]
    rows, meta = _boards(kind)
    by_code = {str(b.get("board_code", "")).upper(): b.get("board_name") for b in rows}
    name = by_code.get(symbol.upper(), symbol) if re.match(r"^BK\d+", symbol) else symbol
    if name not in by_code.values():
        # akshare fails on a board EastMoney does not list; mdqs answers
        # akshare's empty frame, saying which boards it holds.
        note = "no %s board %r in mdqs's sector list of %s (%d boards, e.g. %s)" % (
            kind, symbol, meta.get("day"), len(by_code), ", ".join(sorted(n for n in by_code.values() if n)[:5]))
        warnings.warn("mdqs.akshare.stock_board_%s_cons_em: empty: %s" % (kind, note), stacklevel=3)
        return _frame(cols, [], {"source": meta.get("source"), "as_of": meta.get("as_of"), "note": note})
    items = _screen_all({"block": name})
    rows = _sort_desc([_spot_row(it) for it in items], "涨跌幅")
    for i, r in enumerate(rows, 1):
        r["序号"] = i
    quote = _quote_meta()
    return _frame(cols, rows, {"source": quote.get("source"), "as_of": quote.get("as_of"), "board": name})


def stock_board_industry_cons_em(symbol: str = "小金属") -> Any:
    """东方财富-沪深板块-行业板块-板块成份: the board's members (name or
    BK code) with their spot figures, from one screen over the board."""
    return _board_cons_em("industry", symbol)


def stock_board_concept_cons_em(symbol: str = "融资融券") -> Any:
    """东方财富-沪深板块-概念板块-板块成份 (name or BK code)."""
    return _board_cons_em("concept", symbol)


_FLOW_KIND = {"行业资金流": "industry", "概念资金流": "concept"}
_FLOW_DAYS = {"今日": 1, "5日": 5, "10日": 10}


def stock_sector_fund_flow_rank(indicator: str = "今日", sector_type: str = "行业资金流") -> Any:
    """东方财富网-板块资金流-排名, from mdqs's sector snapshots: 今日 is the
    day's; 5日 and 10日 add up the main-force net inflow of the last 5 or
    10 trading days' snapshots held (净占比 = their sum over the sum of
    turnover; 涨跌幅 compounded). Columns as akshare's code names them
    (今日主力净流入-净额 ...). 地域资金流 is not served: mdqs keeps no
    regional sectors."""
    if indicator not in _FLOW_DAYS:
        raise ValueError("indicator=%r: one of '今日', '5日', '10日'" % indicator)
    if sector_type not in _FLOW_KIND:
        if sector_type == "地域资金流":
            raise ValueError("sector_type='地域资金流' is not served: mdqs keeps no regional sectors")
        raise ValueError("sector_type=%r: one of '行业资金流', '概念资金流'" % sector_type)
    kind = _FLOW_KIND[sector_type]
    c = client()
    n = _FLOW_DAYS[indicator]
    first = c.request("GET", "/v1/api/boards/" + kind, {"top": 10000})
    meta = first.get("meta") or {}
    snaps = [first.get("data") or []]
    days = [meta.get("day")]
    if n > 1 and meta.get("day"):
        last = _day(meta["day"])
        cal = c.get("/v1/api/calendar", start=(last - _dt.timedelta(days=40)).isoformat(), end=last.isoformat())
        earlier = [d for d in cal.get("trading_days") or [] if d < last.isoformat()][-(n - 1):]
        for d in reversed(earlier):
            try:
                snaps.append(c.get("/v1/api/boards/" + kind, top=10000, day=d))
                days.append(d.replace("-", ""))
            except MdqsError as e:
                if e.status != 404:
                    raise
    acc: Dict[str, Dict[str, Any]] = {}
    for snap in snaps:
        for b in snap:
            a = acc.setdefault(b["board_code"], {"name": b.get("board_name"), "net": 0.0, "amount": 0.0,
                                                 "growth": 1.0, "days": 0, "net_known": True})
            net, amount, pct = _num(b.get("main_net")), _num(b.get("amount")), _num(b.get("pct"))
            a["net"] += net
            a["amount"] += amount
            a["growth"] *= 1 + pct / 100
            a["days"] += 1
    p = indicator
    rows = []
    for code, a in acc.items():
        if n == 1:
            b = next(x for x in snaps[0] if x["board_code"] == code)
            ratio = _num(b.get("main_net_ratio"))
        else:
            ratio = _r(a["net"] / a["amount"] * 100, 2) if a["amount"] else NaN
        rows.append({"名称": a["name"], p + "涨跌幅": _r((a["growth"] - 1) * 100, 2),
                     p + "主力净流入-净额": a["net"], p + "主力净流入-净占比": ratio})
    rows = _sort_desc(rows, p + "主力净流入-净额")
    for i, r in enumerate(rows, 1):
        r["序号"] = i
    return _frame(_fund_flow_columns(p), rows, {"source": meta.get("source"), "as_of": meta.get("as_of"),
                                                "days": [d for d in days if d]})


# ---------------------------------------------------------------------- hot rank, news, calendar

def stock_hot_rank_em() -> Any:
    """东方财富-个股人气榜: the top 100 of mdqs's hot rank, with the
    quotes' 最新价 and 涨跌幅 (涨跌额 = 最新价 x 涨跌幅 / 100, as akshare
    computes it). 代码 as akshare writes it: SZ000001."""
    c = client()
    data = c.get("/v1/api/hot_rank", size=100)
    items = data.get("items") or []
    quotes = {}
    codes = [it["stock_code"] for it in items]
    if codes:
        quotes = {q["code"]: q for q in c.get("/v1/api/quotes", codes=",".join(codes[:100])).get("quotes") or []}
    rows = []
    for it in items:
        q = quotes.get(it["stock_code"], {})
        last, pct = _num(q.get("last")), _num(q.get("pct"))
        rows.append({"当前排名": it.get("rank"), "代码": _prefixed(it["stock_code"]), "股票名称": it.get("stock_name"),
                     "最新价": last, "涨跌幅": pct, "涨跌额": last * pct / 100})
    src = items[0].get("source") if items else None
    return _frame(COLUMNS["stock_hot_rank_em"], rows, {"source": src, "as_of": data.get("date"),
                                                       "quotes_as_of": next(iter(quotes.values()), {}).get("as_of")})


def stock_news_em(symbol: str = "603777") -> Any:
    """东方财富-个股新闻: the latest 100 news items mdqs holds of the stock
    (a 6-digit code), or of a keyword (any other text: full-text search).
    新闻内容 is the item's summary (its full text: ``client().news_view(id)``)."""
    c = client()
    s = str(symbol).strip()
    params: Dict[str, Any] = {"page_size": 100}
    if re.fullmatch(r"\d{6}", s) or _SUFFIXED.match(s) or _PREFIXED.match(s):
        params["stock_code"] = _stock_code(s)
    else:
        params["q"] = s
    cols = COLUMNS["stock_news_em"]
    data, empty = _empty_on_404(lambda: c.get("/v1/api/news/list", **params), cols, "stock_news_em")
    if data is None:
        empty.attrs["source"] = "news"
        return empty
    items = data.get("items") or []
    rows = [{"关键词": symbol, "新闻标题": it.get("title"), "新闻内容": it.get("summary"),
             "发布时间": it.get("published_at"), "文章来源": it.get("source"), "新闻链接": it.get("url"),
             } for it in items]
    return _frame(cols, rows, {"source": "news", "as_of": items[0].get("published_at") if items else None,
                               "sources": sorted({it.get("source") for it in items if it.get("source")})})


def tool_trade_date_hist_sina() -> Any:
    """新浪财经-交易日历: every trading day of the years whose exchange
    holidays mdqs knows (from its first to its last year, 2015 on; Sina's
    list starts in 1990), as datetime.date values."""
    c = client()
    first = c.get("/v1/api/calendar")
    y0, y1 = int(first.get("first_year")), int(first.get("last_year"))
    days: List[str] = []
    start = _dt.date(y0, 1, 1)
    stop = _dt.date(y1, 12, 31)
    while start <= stop:  # at most 731 days a request
        end = min(stop, _dt.date(start.year + 1, 12, 31))
        got = c.get("/v1/api/calendar", start=start.isoformat(), end=end.isoformat())
        days.extend(got.get("trading_days") or [])
        start = end + _dt.timedelta(days=1)
    rows = [{"trade_date": _day(d)} for d in days]
    return _frame(COLUMNS["tool_trade_date_hist_sina"], rows,
                  {"source": first.get("source"), "as_of": first.get("today"), "first_year": y0, "last_year": y1})


# ---------------------------------------------------------------------- limit pools

def _seal_time(v: Optional[str]) -> Optional[str]:
    """'09:31' (mdqs, minute resolution) -> '093100', akshare's HHMMSS."""
    if not v:
        return None
    digits = str(v)[-8:].replace(":", "")
    return (digits + "00")[:6] if len(digits) == 4 else digits.zfill(6)


def _pool(kind: str, date: str, what: str) -> Tuple[Optional[List[Dict[str, Any]]], Any, Dict[str, Any]]:
    cols = COLUMNS[what]
    d = _day(date)
    data, empty = _empty_on_404(lambda: client().get("/v1/api/limit_pool", kind=kind, date=d.isoformat()), cols, what)
    if data is None:
        return None, empty, {}
    items = data.get("items") or []
    attrs = {"source": data.get("source"), "as_of": data.get("as_of") or data.get("date"), "date": data.get("date"),
             "prev_date": data.get("prev_date"), "final": data.get("final"),
             "seal_fund_source": data.get("seal_fund_source")}
    return items, None, attrs


def _day_figures(day: str, codes: List[str]) -> Dict[str, Dict[str, Any]]:
    """The day's own figures of ``codes``: amount and turnover from that
    day's bars (/v1/api/bars/daily), market values from a screen of that
    day (the share counts in force then) and the industry (today's)."""
    out: Dict[str, Dict[str, Any]] = {c: {} for c in codes}
    if not codes:
        return out
    c = client()
    try:
        for i in range(0, len(codes), 90):  # the codes parameter takes 1 KiB: 90 codes a request
            bars = c.get("/v1/api/bars/daily", date=day, codes=",".join(codes[i:i + 90]), page_size=10000)
            for it in bars.get("items") or []:
                out.setdefault(it["code"], {}).update(amount=it.get("amount"), turnover=it.get("turnover_rate"))
    except MdqsError as e:
        if e.status != 404:  # 404: a day the server did not record
            raise
    def bar(code: str) -> List[Dict[str, Any]]:
        try:
            return c.get("/v1/api/kline", code=code, freq="D", start=day, end=day).get("rows") or []
        except MdqsError as e:
            if e.status not in (400, 404):
                raise
            return []

    # A bar the cross-section lacks (a day before the server recorded the
    # whole market): the code's own K-line, a few requests at a time.
    lacking = [code for code in codes if out.get(code, {}).get("amount") is None]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for code, rows in zip(lacking, pool.map(bar, lacking)):
            if rows:
                out.setdefault(code, {}).update(amount=rows[-1].get("amount"), turnover=rows[-1].get("turnover_rate"))
    expr = 'code != "" || market_cap + float_cap > 0 || industry != ""'
    try:
        try:
            items = c.screen(expr, universe={"codes": codes, "date": day}, limit=5000)
        except MdqsError as e:
            # The current day is screened without a date (its live figures).
            if e.status != 400 or "leave it out" not in e.detail:
                raise
            items = c.screen(expr, universe={"codes": codes}, limit=5000)
        for it in items:
            out.setdefault(it["code"], {}).update(market_cap=it.get("market_cap"), float_cap=it.get("float_cap"),
                                                  industry=it.get("industry"))
    except MdqsError as e:
        if e.status not in (400, 404):
            raise
    return out


def _pool_base(it: Mapping[str, Any], i: int, fig: Mapping[str, Any]) -> Dict[str, Any]:
    return {"序号": i, "代码": _bare(it["code"]), "名称": it.get("name"), "涨跌幅": _num(it.get("pct")),
            "最新价": _num(it.get("close")), "涨停价": _num(it.get("limit_price")),
            "成交额": _num(fig.get("amount")), "流通市值": _num(fig.get("float_cap")),
            "总市值": _num(fig.get("market_cap")), "换手率": _num(fig.get("turnover")),
            "所属行业": fig.get("industry") or None}


def _pool_frame(kind: str, date: str, what: str, fill: Callable[[Mapping[str, Any], Dict[str, Any]], None]) -> Any:
    items, empty, attrs = _pool(kind, date, what)
    if items is None:
        return empty
    figs = _day_figures(attrs["date"], [it["code"] for it in items])
    rows = []
    for i, it in enumerate(items, 1):
        row = _pool_base(it, i, figs.get(it["code"], {}))
        fill(it, row)
        rows.append(row)
    return _frame(COLUMNS[what], rows, attrs)


def _count(it: Mapping[str, Any]) -> Optional[str]:
    if it.get("count_days") is None or it.get("count_up") is None:
        return None
    return "%s/%s" % (it["count_days"], it["count_up"])


def stock_zt_pool_em(date: str = "20241008") -> Any:
    """东方财富-涨停股池, from mdqs's limit pool (derived from the day's
    bars and minutes: /v1/api/limit_pool kind=up)."""
    def fill(it, row):
        row.update({"封板资金": _num(it.get("seal_fund")), "首次封板时间": _seal_time(it.get("first_seal")),
                    "最后封板时间": _seal_time(it.get("last_seal")), "炸板次数": it.get("opened_times"),
                    "涨停统计": _count(it), "连板数": it.get("boards")})
    return _pool_frame("up", date, "stock_zt_pool_em", fill)


def stock_zt_pool_previous_em(date: str = "20240415") -> Any:
    """东方财富-昨日涨停股池 (kind=yesterday): the stocks sealed the trading
    day before, with this day's figures."""
    seals: Dict[str, Optional[str]] = {}

    def fill(it, row):
        hi, lo, prev = _num(it.get("high")), _num(it.get("low")), _num(it.get("prev_close"))
        row.update({"振幅": _r((hi - lo) / prev * 100, 2) if prev else NaN,
                    "昨日封板时间": seals.get(it["code"]),
                    "昨日连板数": it.get("yesterday_boards"), "涨停统计": _count(it)})
    # 昨日封板时间 is the last seal of the day before, in that day's up pool.
    try:
        prev_day = client().get("/v1/api/limit_pool", kind="yesterday", date=_day(date).isoformat()).get("prev_date")
        if prev_day:
            for it in client().get("/v1/api/limit_pool", kind="up", date=prev_day).get("items") or []:
                seals[it["code"]] = _seal_time(it.get("last_seal"))
    except MdqsError as e:
        if e.status not in (400, 404):
            raise
    return _pool_frame("yesterday", date, "stock_zt_pool_previous_em", fill)


def stock_zt_pool_strong_em(date: str = "20241231") -> Any:
    """东方财富-强势股池 (kind=strong): 入选理由 1 60日新高, 2 近期多次涨停,
    3 both, as EastMoney numbers them."""
    reasons = {1: "60日新高", 2: "近期多次涨停", 3: "60日新高且近期多次涨停"}

    def fill(it, row):
        nh = it.get("new_high")
        row.update({"是否新高": None if nh is None else ("是" if nh else "否"), "涨停统计": _count(it),
                    "入选理由": reasons.get(it.get("reason"), it.get("reason"))})
    return _pool_frame("strong", date, "stock_zt_pool_strong_em", fill)


def stock_zt_pool_zbgc_em(date: str = "20241011") -> Any:
    """东方财富-炸板股池 (kind=broken): touched the limit-up, not sealed at
    the close. Any day mdqs holds (akshare: the last 30 trading days)."""
    def fill(it, row):
        hi, lo, prev = _num(it.get("high")), _num(it.get("low")), _num(it.get("prev_close"))
        row.update({"首次封板时间": _seal_time(it.get("first_seal")), "炸板次数": it.get("opened_times"),
                    "涨停统计": _count(it), "振幅": _r((hi - lo) / prev * 100, 2) if prev else NaN})
    return _pool_frame("broken", date, "stock_zt_pool_zbgc_em", fill)


def stock_zt_pool_dtgc_em(date: str = "20241011") -> Any:
    """东方财富-跌停股池 (kind=down)."""
    def fill(it, row):
        row.update({"封单资金": _num(it.get("seal_fund")), "最后封板时间": _seal_time(it.get("last_seal")),
                    "连续跌停": it.get("boards"), "开板次数": it.get("opened_times")})
    return _pool_frame("down", date, "stock_zt_pool_dtgc_em", fill)


# ---------------------------------------------------------------------- the dragon-tiger list

def stock_lhb_detail_em(start_date: str = "20230403", end_date: str = "20230417") -> Any:
    """东方财富网-龙虎榜单-龙虎榜详情: every listing of the trading days from
    start_date to end_date that mdqs has imported (/v1/api/lhb?date=, one
    request a day), one row per stock, day and reason, newest day first as
    akshare sorts. A day not imported is left out with a warning naming
    the command that imports it."""
    cols = COLUMNS["stock_lhb_detail_em"]
    c = client()
    lo, hi = _day(start_date), min(_day(end_date), _today())
    rows: List[Dict[str, Any]] = []
    missing: List[str] = []
    src = None
    d = lo
    while d <= hi:
        cal = c.get("/v1/api/calendar", start=d.isoformat(), end=min(hi, d + _dt.timedelta(days=700)).isoformat())
        for day in cal.get("trading_days") or []:
            try:
                data = c.get("/v1/api/lhb", date=day)
            except MdqsError as e:
                if e.status != 404:
                    raise
                missing.append(day)
                continue
            src = data.get("source") or src
            for it in data.get("items") or []:
                for r in it.get("reasons") or [{}]:
                    rows.append({"代码": _bare(it["code"]), "名称": it.get("name"), "上榜日": _day(it["date"]),
                                 "解读": r.get("reading"), "收盘价": _num(it.get("close")),
                                 "涨跌幅": _num(it.get("change_pct")), "龙虎榜净买额": _num(r.get("net")),
                                 "龙虎榜买入额": _num(r.get("buy")), "龙虎榜卖出额": _num(r.get("sell")),
                                 "龙虎榜成交额": _num(r.get("deal")), "市场总成交额": _num(it.get("amount")),
                                 "净买额占总成交比": _num(r.get("net_pct")), "成交额占总成交比": _num(r.get("deal_pct")),
                                 "换手率": _num(it.get("turnover_pct")), "流通市值": _num(it.get("float_cap")),
                                 "上榜原因": r.get("reason")})
        d = d + _dt.timedelta(days=701)
    if missing:
        warnings.warn("mdqs.akshare.stock_lhb_detail_em: %d day(s) not imported, left out (%s ... %s): "
                      "`mdqs lhb backfill -from %s -to %s` imports them"
                      % (len(missing), missing[0], missing[-1], missing[0], missing[-1]), stacklevel=2)
    rows.sort(key=lambda r: (-r["上榜日"].toordinal(), r["代码"]))
    for i, r in enumerate(rows, 1):
        r["序号"] = i
    return _frame(cols, rows, {"source": src, "as_of": hi.isoformat() if rows else None, "missing_days": missing})


# ---------------------------------------------------------------------- ETFs, index members

def fund_etf_spot_em() -> Any:
    """东方财富-ETF 实时行情, from mdqs's ETF list (/v1/api/etfs): 基金折价率
    is the source's own discount rate as sent; 成交量 in 手."""
    data = client().get("/v1/api/etfs")
    rows = []
    for e in data.get("etfs") or []:
        hi, lo, prev = _num(e.get("high")), _num(e.get("low")), _num(e.get("prev_close"))
        rows.append({"代码": _bare(e["code"]), "名称": e.get("name"), "最新价": _num(e.get("last")),
                     "IOPV实时估值": _num(e.get("iopv")), "基金折价率": _num(e.get("discount_pct")),
                     "涨跌额": _num(e.get("change")), "涨跌幅": _num(e.get("pct")), "成交量": _lots(e.get("volume")),
                     "成交额": _num(e.get("amount")), "开盘价": _num(e.get("open")), "最高价": hi, "最低价": lo,
                     "昨收": prev, "振幅": _r((hi - lo) / prev * 100, 2) if prev else NaN,
                     "换手率": _num(e.get("turnover_rate")), "最新份额": _num(e.get("shares")),
                     "流通市值": _num(e.get("float_value")), "总市值": _num(e.get("market_value")),
                     "数据日期": _day(e["data_date"]) if e.get("data_date") else None,
                     "更新时间": e.get("as_of")})
    return _frame(COLUMNS["fund_etf_spot_em"], rows, {"source": data.get("source"), "as_of": data.get("as_of"),
                                                      "stale": data.get("stale"), "partial": data.get("partial")})


_EXCHANGES = {"SH": ("上海证券交易所", "Shanghai Stock Exchange"), "SZ": ("深圳证券交易所", "Shenzhen Stock Exchange"),
              "BJ": ("北京证券交易所", "Beijing Stock Exchange")}


def index_stock_cons_csindex(symbol: str = "000300") -> Any:
    """中证指数网站-成份股目录: the index's latest members from mdqs's
    recorded history (/v1/api/index/members). 6 digits here name an index
    (000300 沪深300, 000016 上证50, 000905 中证500), as in akshare."""
    s = str(symbol).strip()
    code = s if "." in s else s + (".SZ" if s.startswith("399") else ".SH")
    cols = COLUMNS["index_stock_cons_csindex"]
    data, empty = _empty_on_404(lambda: client().get("/v1/api/index/members", code=code),
                                cols, "index_stock_cons_csindex")
    if data is None:
        return empty
    day = _day(data["date"]) if data.get("date") else None
    rows = []
    for m in data.get("members") or []:
        mkt = m["code"].split(".")[-1].upper()
        cn, en = _EXCHANGES.get(mkt, (None, None))
        rows.append({"日期": day, "指数代码": _bare(data.get("code") or code), "指数名称": data.get("name"),
                     "成分券代码": _bare(m["code"]), "成分券名称": m.get("name"), "交易所": cn, "交易所英文名称": en})
    obs = data.get("observation") or {}
    return _frame(cols, rows, {"source": data.get("source"), "as_of": data.get("as_of"),
                               "observation": obs, "note": data.get("note")})
