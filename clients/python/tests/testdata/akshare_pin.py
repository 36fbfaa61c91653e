"""Writes akshare_columns.json: the columns akshare returns, pinned from its
code and its documentation at one commit, for test_akshare.py.

    python3 akshare_pin.py /path/to/akshare.git COMMIT > akshare_columns.json

(the git directory of a clone of https://github.com/akfamily/akshare). The
code's columns below are read by hand from the files named (the final
column selection of each function, and the dtype its to_numeric / .dt.date
/ astype(str) calls give); the documentation's "输出参数" tables and
"接口示例" code are read from the docs at the same commit. Where the two
differ the code wins, since scripts index what the code returns, and the
difference is recorded. Re-pin from a newer commit and the tests say what
drifted."""

import json
import subprocess
import sys

# function -> (code file:line, docs file, [variant: (call, columns "name:dtype ...")]).
# dtype is what akshare's code returns; a bare name is float64.
CODE = {
    "stock_zh_a_hist": ("akshare/stock_feature/stock_hist_em.py:952", "docs/data/stock/stock.md", [
        ({}, "日期:object 股票代码:object 开盘 收盘 最高 最低 成交量:int64 成交额 振幅 涨跌幅 涨跌额 换手率")]),
    "stock_zh_a_hist_min_em": ("akshare/stock_feature/stock_hist_em.py:1042", "docs/data/stock/stock.md", [
        ({"period": "1"}, "时间:object 开盘 收盘 最高 最低 成交量:int64 成交额 均价"),
        ({"period": "5"}, "时间:object 开盘 收盘 最高 最低 涨跌幅 涨跌额 成交量:int64 成交额 振幅 换手率")]),
    "stock_zh_a_spot_em": ("akshare/stock_feature/stock_hist_em.py:15", "docs/data/stock/stock.md", [
        ({}, "序号:int64 代码:object 名称:object 最新价 涨跌幅 涨跌额 成交量 成交额 振幅 最高 最低 今开 昨收 量比 换手率 "
             "市盈率-动态 市净率 总市值 流通市值 涨速 5分钟涨跌 60日涨跌幅 年初至今涨跌幅")]),
    "stock_board_industry_name_em": ("akshare/stock/stock_board_industry_em.py:115", "docs/data/stock/stock.md", [
        ({}, "排名:int64 板块名称:object 板块代码:object 最新价 涨跌额 涨跌幅 总市值:int64 换手率 上涨家数:int64 "
             "下跌家数:int64 领涨股票:object 领涨股票-涨跌幅")]),
    "stock_board_concept_name_em": ("akshare/stock/stock_board_concept_em.py:122", "docs/data/stock/stock.md", [
        ({}, "排名:int64 板块名称:object 板块代码:object 最新价 涨跌额 涨跌幅 总市值:int64 换手率 上涨家数:int64 "
             "下跌家数:int64 领涨股票:object 领涨股票-涨跌幅")]),
    "stock_board_industry_cons_em": ("akshare/stock/stock_board_industry_em.py:461", "docs/data/stock/stock.md", [
        ({"symbol": "电池"}, "序号:int64 代码:object 名称:object 最新价 涨跌幅 涨跌额 成交量 成交额 振幅 最高 最低 今开 昨收 "
                           "换手率 市盈率-动态 市净率")]),
    "stock_board_concept_cons_em": ("akshare/stock/stock_board_concept_em.py:410", "docs/data/stock/stock.md", [
        ({"symbol": "融资融券"}, "序号:int64 代码:object 名称:object 最新价 涨跌幅 涨跌额 成交量 成交额 振幅 最高 最低 今开 昨收 "
                             "换手率 市盈率-动态 市净率")]),
    "stock_sector_fund_flow_rank": ("akshare/stock/stock_fund_em.py:447", "docs/data/stock/stock.md", [
        ({"indicator": p}, ("序号:int64 名称:object {p}涨跌幅 {p}主力净流入-净额 {p}主力净流入-净占比 {p}超大单净流入-净额 "
                            "{p}超大单净流入-净占比 {p}大单净流入-净额 {p}大单净流入-净占比 {p}中单净流入-净额 "
                            "{p}中单净流入-净占比 {p}小单净流入-净额 {p}小单净流入-净占比 {p}主力净流入最大股:object")
         .replace("{p}", p)) for p in ("今日", "5日", "10日")]),
    "stock_hot_rank_em": ("akshare/stock/stock_hot_rank_em.py:13", "docs/data/stock/stock.md", [
        ({}, "当前排名:int64 代码:object 股票名称:object 最新价 涨跌额 涨跌幅")]),
    "stock_news_em": ("akshare/news/news_stock.py:15", "docs/data/stock/stock.md", [
        ({"symbol": "600036"}, "关键词:object 新闻标题:object 新闻内容:object 发布时间:object 文章来源:object 新闻链接:object")]),
    "tool_trade_date_hist_sina": ("akshare/tool/trade_date_hist.py:19", "docs/data/tool/tool.md", [
        ({}, "trade_date:object")]),
    "stock_zt_pool_em": ("akshare/stock_feature/stock_ztb_em.py:24", "docs/data/stock/stock.md", [
        ({}, "序号:int64 代码:object 名称:object 涨跌幅 最新价 成交额:int64 流通市值 总市值 换手率 封板资金:int64 "
             "首次封板时间:object 最后封板时间:object 炸板次数:int64 涨停统计:object 连板数:int64 所属行业:object")]),
    "stock_zt_pool_previous_em": ("akshare/stock_feature/stock_ztb_em.py:110", "docs/data/stock/stock.md", [
        ({}, "序号:int64 代码:object 名称:object 涨跌幅 最新价 涨停价 成交额:int64 流通市值 总市值 换手率 涨速 振幅 "
             "昨日封板时间:object 昨日连板数:int64 涨停统计:object 所属行业:object")]),
    "stock_zt_pool_strong_em": ("akshare/stock_feature/stock_ztb_em.py:187", "docs/data/stock/stock.md", [
        ({}, "序号:int64 代码:object 名称:object 涨跌幅 最新价 涨停价 成交额:int64 流通市值 总市值 换手率 涨速 "
             "是否新高:object 量比 涨停统计:object 入选理由:object 所属行业:object")]),
    "stock_zt_pool_zbgc_em": ("akshare/stock_feature/stock_ztb_em.py:357", "docs/data/stock/stock.md", [
        ({}, "序号:int64 代码:object 名称:object 涨跌幅 最新价 涨停价 成交额:int64 流通市值 总市值 换手率 涨速 "
             "首次封板时间:object 炸板次数:int64 涨停统计:object 振幅 所属行业:object")]),
    "stock_zt_pool_dtgc_em": ("akshare/stock_feature/stock_ztb_em.py:439", "docs/data/stock/stock.md", [
        ({}, "序号:int64 代码:object 名称:object 涨跌幅 最新价 成交额:int64 流通市值 总市值 动态市盈率 换手率 "
             "封单资金:int64 最后封板时间:object 板上成交额:int64 连续跌停:int64 开板次数:int64 所属行业:object")]),
    "stock_lhb_detail_em": ("akshare/stock_feature/stock_lhb_em.py:14", "docs/data/stock/stock.md", [
        ({}, "序号:int64 代码:object 名称:object 上榜日:object 解读:object 收盘价 涨跌幅 龙虎榜净买额 龙虎榜买入额 "
             "龙虎榜卖出额 龙虎榜成交额 市场总成交额 净买额占总成交比 成交额占总成交比 换手率 流通市值 上榜原因:object "
             "上榜后1日 上榜后2日 上榜后5日 上榜后10日")]),
    "fund_etf_spot_em": ("akshare/fund/fund_etf_em.py:44", "docs/data/fund/fund_public.md", [
        ({}, "代码:object 名称:object 最新价 IOPV实时估值 基金折价率 涨跌额 涨跌幅 成交量 成交额 开盘价 最高价 最低价 昨收 "
             "振幅 换手率 量比 委比 外盘 内盘 主力净流入-净额 主力净流入-净占比 超大单净流入-净额 超大单净流入-净占比 "
             "大单净流入-净额 大单净流入-净占比 中单净流入-净额 中单净流入-净占比 小单净流入-净额 小单净流入-净占比 "
             "现手 买一 卖一 最新份额 流通市值:int64 总市值:int64 数据日期:object 更新时间:object")]),
    "index_stock_cons_csindex": ("akshare/index/index_cons.py:126", "docs/data/index/index.md", [
        ({}, "日期:object 指数代码:object 指数名称:object 指数英文名称:object 成分券代码:object 成分券名称:object "
             "成分券英文名称:object 交易所:object 交易所英文名称:object")]),
}

# Columns mdqs answers as float64 where akshare's code gives int64: mdqs
# may not hold the value (a NaN has no int64), and pandas cannot hold both.
FLOAT_FOR_NAN = {
    "stock_board_industry_name_em": {"总市值": "NaN: mdqs keeps no sector market value"},
    "stock_board_concept_name_em": {"总市值": "NaN: mdqs keeps no sector market value"},
    "stock_zt_pool_em": {"成交额": "NaN where the day's bar is not held", "封板资金": "NaN unless EastMoney's pool of the day was imported",
                         "炸板次数": "NaN where the day's minutes are not held"},
    "stock_zt_pool_previous_em": {"成交额": "NaN where the day's bar is not held"},
    "stock_zt_pool_strong_em": {"成交额": "NaN where the day's bar is not held"},
    "stock_zt_pool_zbgc_em": {"成交额": "NaN where the day's bar is not held", "炸板次数": "NaN where the day's minutes are not held"},
    "stock_zt_pool_dtgc_em": {"成交额": "NaN where the day's bar is not held", "封单资金": "NaN unless EastMoney's pool was imported",
                              "板上成交额": "NaN: not collected", "开板次数": "NaN where the day's minutes are not held"},
    "fund_etf_spot_em": {"流通市值": "NaN where the source sends none", "总市值": "NaN where the source sends none"},
}


def git_show(gitdir, commit, path):
    return subprocess.run(["git", "--git-dir", gitdir, "show", "%s:%s" % (commit, path)], check=True,
                          capture_output=True).stdout.decode("utf-8")


def doc_section(text, fn):
    lines = text.split("\n")
    i = next(i for i, l in enumerate(lines) if l.strip() == "接口：" + fn)
    j = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("接口：")), len(lines))
    tables, examples, n, sec = [], [], 0, lines[i:j]
    while n < len(sec):
        l = sec[n]
        if l.startswith("输出参数"):
            title, rows = l.strip(), []
            n += 1
            while n < len(sec) and not sec[n].startswith("|"):
                n += 1
            n += 2
            while n < len(sec) and sec[n].startswith("|"):
                cells = [c.strip() for c in sec[n].strip("|").split("|")]
                rows.append([cells[0], cells[1]])
                n += 1
            tables.append({"title": title, "columns": rows})
            continue
        if l.startswith("接口示例") or l.startswith("示例代码"):
            title = l.strip()
            n += 1
            while not sec[n].startswith("```"):
                n += 1
            n += 1
            code = []
            while not sec[n].startswith("```"):
                code.append(sec[n])
                n += 1
            examples.append({"title": title, "code": "\n".join(code)})
        n += 1
    return i + 1, tables, examples


def main():
    gitdir, commit = sys.argv[1], sys.argv[2]
    out = {"akshare": "https://github.com/akfamily/akshare", "commit": commit,
           "rule": "columns: what akshare's code returns at this commit (name, its dtype); docs_tables: the "
                   "documentation's 输出参数 tables at the same commit; where they differ the code wins and "
                   "docs_differ says how. float_for_nan: columns mdqs gives as float64 where akshare's are int64.",
           "functions": {}}
    for fn, (code_at, doc_path, variants) in CODE.items():
        line, tables, examples = doc_section(git_show(gitdir, commit, doc_path), fn)
        vs = []
        for call, spec in variants:
            cols = []
            for item in spec.split():
                name, _, dtype = item.partition(":")
                cols.append([name, dtype or "float64"])
            vs.append({"call": call, "columns": cols})
        code_names = {c[0] for v in vs for c in v["columns"]}
        doc_names = {c[0] for t in tables for c in t["columns"]}
        differ = {"only_in_code": sorted(code_names - doc_names), "only_in_docs": sorted(doc_names - code_names)}
        doc_types = {c[0]: c[1] for t in tables for c in t["columns"]}
        code_types = {c[0]: c[1] for v in vs for c in v["columns"]}
        differ["dtype"] = {k: {"code": code_types[k], "docs": doc_types[k]} for k in sorted(code_types)
                           if k in doc_types and doc_types[k] != code_types[k]}
        out["functions"][fn] = {"code": code_at, "docs": "%s:%d" % (doc_path, line), "variants": vs,
                                "docs_tables": tables, "docs_differ": differ,
                                "float_for_nan": FLOAT_FOR_NAN.get(fn, {}), "examples": examples}
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
