#!/usr/bin/env bash
# mdqs export read back by a reader no one here wrote (issue 35): DuckDB,
# through its npm package (clients/duckdb-check, pinned; its native library
# comes in the package, nothing is downloaded at install).
#
# A demo store gets a year of the whole market's daily bars (mdqs
# backfill); mdqs export writes them to Parquet and CSV (store-only: the
# store holds them); a demo server on the same store then answers the API,
# and mdqs export writes the minute archive of three codes, the daily
# rankings and the limit pools (a breadth dataset) of the last days to both
# formats, filling the store as the API does. DuckDB reads every file back;
# its counts and sums are held to the API's answers, fetched with mdqs call
# from that server: per code (/v1/api/kline), per day across the market
# (/v1/api/bars/daily), per day and list (/v1/api/boards/top50), per day
# and pool (/v1/api/limit_pool). The year's Parquet must be at most a
# quarter of its CSV; the time it took is printed (the benchmark measures
# it, docs/csv-and-export.md).
#
# About 1 min: the backfill 20-30 s, npm ci 3 s, the rest a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
say() { echo "export: $*"; }
fail() {
  echo "export: FAIL: $*" >&2
  exit 1
}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends nodejs npm
fi
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3 # the comparison needs the standard library only

tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

(cd clients/duckdb-check && npm ci --no-audit --no-fund --loglevel=error)
go build -o "$tmp/mdqs" .
# Without the caller's MDQS_* variables: the shipped defaults (demo mode,
# the real market's 5,300 stocks) are what is exported.
# env takes its -u options before any NAME=value: after one it reads the
# rest as the command.
run=(env)
for v in $(compgen -e); do case "$v" in MDQS_*) run+=(-u "$v") ;; esac; done
run+=(XDG_CACHE_HOME="$tmp/cache")
mdqs() { (cd "$tmp" && "${run[@]}" ./mdqs "$@"); }

store="$tmp/demo.db"
to=$(TZ=Asia/Shanghai date +%F)
from=$(TZ=Asia/Shanghai date -d "$to -1 year" +%F)
say "a year of the whole market's daily bars into a demo store ($from to $to)"
mdqs backfill -codes all -freq D -from "$from" -to "$to" -db "$store" -create | tail -1

out="$tmp/out"
mkdir -p "$out"
t0=$(date +%s%N)
mdqs export -what bars -codes all -from "$from" -to "$to" -db "$store" -store-only -out "$out/year.parquet" | tail -1
t1=$(date +%s%N)
mdqs export -what bars -codes all -from "$from" -to "$to" -db "$store" -store-only -out "$out/year.csv" | tail -1
t2=$(date +%s%N)
pq=$(stat -c %s "$out/year.parquet")
cs=$(stat -c %s "$out/year.csv")
say "the year: $(awk -v a="$t0" -v b="$t1" -v c="$t2" -v p="$pq" -v s="$cs" 'BEGIN { printf "Parquet %d bytes in %.1f s, CSV %d bytes in %.1f s (CSV/Parquet %.2f)", p, (b-a)/1e9, s, (c-b)/1e9, s/p }')"
[ $((pq * 4)) -le "$cs" ] || fail "the year's Parquet ($pq bytes) is more than a quarter of its CSV ($cs bytes)"

# The year's days, read back: the comparison days are the last but one
# (the server's end of day may write today's bars) and twenty before it.
cat >"$tmp/days.json" <<EOF
[{"name": "days", "sql": "SELECT DISTINCT CAST(trade_date AS VARCHAR) AS d FROM '$out/year.parquet' ORDER BY d"}]
EOF
days=$(cd clients/duckdb-check && node check.mjs "$tmp/days.json" | $py -c 'import json,sys; print(" ".join(r["d"] for r in json.load(sys.stdin)["days"]))')
read -r -a alldays <<<"$days"
n=${#alldays[@]}
[ "$n" -gt 200 ] || fail "the year holds $n trading days"
last=${alldays[n - 2]}
earlier=${alldays[n - 22]}
recent=("${alldays[@]:n-4:3}") # three days up to the last but one
say "$n trading days; checked across the market on $earlier and $last, the datasets on ${recent[*]}"

# exec: $pid is the server itself, which SIGTERM stops in order.
(cd "$tmp" && exec "${run[@]}" ./mdqs serve -addr 127.0.0.1:0 -db "$store" 2>"$tmp/serve.log" >/dev/null) &
pid=$!
addr=
for _ in $(seq 1 1200); do # 120 s: the start-up jobs record the demo's universe
  grep -q "mdqs ready" "$tmp/serve.log" && addr=$(sed -n 's/.*msg="mdqs listening" addr=\([^ ]*\).*/\1/p' "$tmp/serve.log") && break
  kill -0 "$pid" 2>/dev/null || fail "mdqs serve exited: $(cat "$tmp/serve.log")"
  sleep 0.1
done
[ -n "$addr" ] || fail "mdqs serve was not ready within 120 s: $(cat "$tmp/serve.log")"
say "a demo server on the same store at $addr"

codes=(600519.SH 000001.SZ 300750.SZ)
joined=$(IFS=,; echo "${codes[*]}")
first=${recent[0]}
for fmt in parquet csv; do
  mdqs export -what minutes -codes "$joined" -freq 1m -from "$first" -to "$last" -db "$store" -out "$out/minutes.$fmt" | tail -1
  mdqs export -what rankings -from "$first" -to "$last" -db "$store" -out "$out/rankings.$fmt" | tail -1
  mdqs export -what limit-pools -from "$first" -to "$last" -db "$store" -out "$out/pools.$fmt" | tail -1
done

# The API's answers, signed by mdqs call.
api="$tmp/api"
mkdir -p "$api"
call() { mdqs call -addr "$addr" GET "$1" >"$api/$2.json" || fail "mdqs call GET $1"; }
for c in "${codes[@]}"; do
  call "/v1/api/kline?code=$c&freq=D&start=$from&end=$to&fields=close,volume" "kline-$c"
  call "/v1/api/kline?code=$c&freq=1m&start=$first&end=$last&fields=close,volume" "min-$c"
done
for d in "$earlier" "$last"; do
  call "/v1/api/bars/daily?date=$d&type=stock&page_size=10000" "daily-$d"
done
for d in "${recent[@]}"; do
  call "/v1/api/boards/top50?day=$d" "top50-$d"
  for k in up down broken; do call "/v1/api/limit_pool?date=$d&kind=$k" "pool-$d-$k"; done
done
kill -TERM "$pid"
wait "$pid" || fail "mdqs serve exited $? after SIGTERM"
pid=

# DuckDB's side: the same counts and sums from every file, Parquet and CSV.
$py - "$out" "$tmp/queries.json" "$last" "$earlier" "${codes[@]}" <<'EOF'
import json, sys
out, path, last, earlier, codes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
q = []
for fmt in ("parquet", "csv"):
    # A CSV's codes are text, not the numbers 000001 would become.
    def src(name, codes=True):
        if fmt == "parquet":
            return f"'{out}/{name}.parquet'"
        types = "{'code': 'VARCHAR', 'trade_date': 'DATE'}" if codes else "{'trade_date': 'DATE'}"
        return f"read_csv('{out}/{name}.csv', auto_detect=true, types={types})"
    q.append({"name": f"{fmt}-year-codes", "sql": f"SELECT code, count(*) AS n, sum(volume) AS vol, sum(close) AS close FROM {src('year')} WHERE code IN ({','.join(repr(c) for c in codes)}) GROUP BY code"})
    q.append({"name": f"{fmt}-year-days", "sql": f"SELECT CAST(trade_date AS VARCHAR) AS d, count(*) AS n, sum(volume) AS vol, sum(close) AS close FROM {src('year')} WHERE trade_date IN ('{last}', '{earlier}') GROUP BY d"})
    q.append({"name": f"{fmt}-year-total", "sql": f"SELECT count(*) AS n, count(DISTINCT code) AS codes, sum(volume) AS vol FROM {src('year')}"})
    q.append({"name": f"{fmt}-minutes", "sql": f"SELECT code, count(*) AS n, sum(volume) AS vol, sum(close) AS close FROM {src('minutes')} GROUP BY code"})
    q.append({"name": f"{fmt}-rankings", "sql": f"SELECT CAST(trade_date AS VARCHAR) AS d, list, count(*) AS n, sum(main_net) AS main_net FROM {src('rankings', codes=False)} GROUP BY d, list"})
    q.append({"name": f"{fmt}-pools", "sql": f"SELECT CAST(trade_date AS VARCHAR) AS d, kind, count(*) AS n, sum(close) AS close FROM {src('pools')} GROUP BY d, kind"})
q.append({"name": "types", "sql": f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '{out}/year.parquet')"})
q.append({"name": "meta", "sql": f"SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('{out}/year.parquet')"})
q.append({"name": "ts", "sql": f"SELECT CAST(timezone('Asia/Shanghai', ts) AS VARCHAR) AS local, CAST(trade_date AS VARCHAR) AS d FROM '{out}/year.parquet' LIMIT 1"})
json.dump(q, open(path, "w"))
EOF
(cd clients/duckdb-check && node check.mjs "$tmp/queries.json" >"$tmp/duckdb.json") || fail "DuckDB could not read the files"

# Held to the API: counts and integer sums exactly, sums of prices to a
# part in 10^9 (DuckDB and Python add doubles in different orders).
$py - "$tmp/duckdb.json" "$api" "$last" "$earlier" "${codes[@]}" <<'EOF'
import glob, json, math, os, sys
got = json.load(open(sys.argv[1]))
api, last, earlier, codes = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
failures = []
def data(name):
    d = json.load(open(os.path.join(api, name + ".json")))
    return d.get("data", d)
def same(what, a, b, exact):
    a, b = float(a or 0), float(b or 0)
    ok = a == b if exact else math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)
    if not ok:
        failures.append(f"{what}: DuckDB {a!r}, the API {b!r}")
def rows(name, key):
    return {tuple(str(r[k]) for k in key): r for r in got[name]}
for fmt in ("parquet", "csv"):
    by = rows(f"{fmt}-year-codes", ["code"])
    for c in codes:
        k = data("kline-" + c)["rows"]
        r = by.get((c,), {})
        same(f"{fmt} year {c} rows", r.get("n"), len(k), True)
        same(f"{fmt} year {c} volume", r.get("vol"), sum(x["volume"] for x in k), True)
        same(f"{fmt} year {c} close", r.get("close"), sum(x["close"] for x in k), False)
    by = rows(f"{fmt}-year-days", ["d"])
    for d in (earlier, last):
        items = [x for x in data("daily-" + d)["items"] if x["close"] is not None]
        r = by.get((d,), {})
        same(f"{fmt} {d} bars", r.get("n"), len(items), True)
        same(f"{fmt} {d} volume", r.get("vol"), sum(x["volume"] for x in items), True)
        same(f"{fmt} {d} close", r.get("close"), sum(x["close"] for x in items), False)
    by = rows(f"{fmt}-minutes", ["code"])
    for c in codes:
        k = data("min-" + c)["rows"]
        r = by.get((c,), {})
        same(f"{fmt} minutes {c} rows", r.get("n"), len(k), True)
        same(f"{fmt} minutes {c} volume", r.get("vol"), sum(x["volume"] for x in k), True)
        same(f"{fmt} minutes {c} close", r.get("close"), sum(x["close"] for x in k), False)
    by = rows(f"{fmt}-rankings", ["d", "list"])
    for f in sorted(glob.glob(os.path.join(api, "top50-*.json"))):
        d = os.path.basename(f)[len("top50-"):-len(".json")]
        top = data("top50-" + d)
        for lst in ("industry", "industry_out", "concept", "concept_out", "sectors", "sectors_out"):
            r = by.get((d, lst), {})
            same(f"{fmt} rankings {d} {lst} rows", r.get("n"), len(top[lst]), True)
            same(f"{fmt} rankings {d} {lst} main_net", r.get("main_net"), sum(x["main_net"] for x in top[lst]), False)
    by = rows(f"{fmt}-pools", ["d", "kind"])
    pools = 0
    for f in sorted(glob.glob(os.path.join(api, "pool-*.json"))):
        d, kind = os.path.basename(f)[len("pool-"):-len(".json")].rsplit("-", 1)
        items = data(f"pool-{d}-{kind}")["items"]
        pools += len(items)
        r = by.get((d, kind), {})
        same(f"{fmt} pool {d} {kind} rows", r.get("n"), len(items), True)
        same(f"{fmt} pool {d} {kind} close", r.get("close"), sum(x["close"] or 0 for x in items), False)
    if pools == 0:
        failures.append("the limit pools of the recent days are all empty: nothing was compared")
p, c = got["parquet-year-total"][0], got["csv-year-total"][0]
for k in ("n", "codes", "vol"):
    same(f"the year's {k}, Parquet against CSV", p[k], c[k], True)
types = {r["column_name"]: r["column_type"] for r in got["types"]}
want = {"code": "VARCHAR", "trade_date": "DATE", "ts": "TIMESTAMP WITH TIME ZONE", "open": "DOUBLE", "close": "DOUBLE",
        "volume": "BIGINT", "amount": "DOUBLE", "source": "VARCHAR"}
for k, v in want.items():
    if types.get(k) != v:
        failures.append(f"DuckDB reads {k} as {types.get(k)}, want {v}")
meta = {r["k"]: r["v"] for r in got["meta"]}
for k in ("source", "as_of", "final_through", "rows"):
    if not meta.get(k):
        failures.append(f"the Parquet file's metadata lacks {k}: {meta}")
if meta.get("rows") != p["n"]:
    failures.append(f"metadata rows {meta.get('rows')}, DuckDB counted {p['n']}")
ts = got["ts"][0]
if not ts["local"].endswith(" 15:00:00") or not ts["local"].startswith(ts["d"]):
    failures.append(f"a daily bar's ts in Asia/Shanghai is {ts['local']} on {ts['d']}, want 15:00 that day")
if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
print(f"export: DuckDB {got['version']} read back {p['n']} bars of {p['codes']} codes from Parquet and CSV; "
      f"counts and sums agree with the API per code, per day, per list and per pool (source {meta['source']}, as of {meta['as_of']})")
EOF
