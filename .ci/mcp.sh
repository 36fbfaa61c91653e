#!/usr/bin/env bash
# The MCP server (issue 34) against a client no one here wrote: the official
# TypeScript SDK (@modelcontextprotocol/sdk 1.32.2) drives `mdqs mcp` on
# stdio and /mcp by URL, listing and calling every tool and checking the
# answers; then the MCP conformance suite (@modelcontextprotocol/conformance
# 0.1.13, the newest that runs on node 20) runs against /mcp with the
# baseline of clients/mcp-check/conformance-baseline.yml. The versions are
# pinned by clients/mcp-check/package-lock.json; `npm ci` installs them into
# the checkout (node_modules is gitignored) with an npm cache inside this
# run's temporary folder, so nothing is cached outside the run.
#
# It builds the binary, serves the small demo market with [mcp] http = true
# on a free loopback port, takes the demo client's token, runs
# clients/mcp-check/check.mjs, and stops the server. Any failure fails the
# step, loudly.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
say() { echo "mcp.sh: $* ($(( $(date +%s) - start ))s)"; }
die() { echo "mcp.sh: FAILED: $*" >&2; exit 1; }

command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
  die "node and npm are needed (node 20 or newer: https://nodejs.org/, or apt-get install nodejs npm where it is new enough)"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || die "node $(node --version) is too old: the TypeScript SDK and the conformance suite want node 20 or newer"

work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

say "building mdqs"
CGO_ENABLED=0 go build -o "$work/mdqs" .

say "npm ci (clients/mcp-check: @modelcontextprotocol/sdk, @modelcontextprotocol/conformance)"
(cd clients/mcp-check && npm ci --no-audit --no-fund --cache "$work/npm-cache" --loglevel=error) || die "npm ci in clients/mcp-check"

say "serving the demo market with /mcp on"
{ cat testdata/small-demo.toml; printf '\n[mcp]\nhttp = true\n'; } > "$work/config.toml"
"$work/mdqs" serve -config "$work/config.toml" -addr 127.0.0.1:0 -db "$work/mdqs.db" 2> "$work/serve.log" &
pid=$!
addr=""
for _ in $(seq 1 300); do
  addr=$(sed -n 's/.*msg="mdqs listening" addr=\([^ ]*\).*/\1/p' "$work/serve.log" | head -1)
  [ -n "$addr" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log" >&2; die "the server exited at start"; }
  sleep 0.1
done
[ -n "$addr" ] || { cat "$work/serve.log" >&2; die "the server did not say where it listens"; }
for _ in $(seq 1 600); do
  grep -q 'msg="mdqs ready' "$work/serve.log" && break
  sleep 0.1
done
grep -q 'msg="mdqs ready' "$work/serve.log" || { cat "$work/serve.log" >&2; die "the server was not ready within a minute"; }
token=$(XDG_CACHE_HOME="$work/cache" "$work/mdqs" call -addr "$addr" POST /v1/auth/token '{"client_id":"demo","client_secret":"demo-secret"}' |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).data.token))') || die "no token for the demo client"

say "clients/mcp-check against $addr"
XDG_CACHE_HOME="$work/cache" node clients/mcp-check/check.mjs --bin "$work/mdqs" --addr "$addr" --token "$token" \
  --conformance-out "$work/conformance" || { tail -50 "$work/serve.log" >&2; die "clients/mcp-check"; }

kill -TERM "$pid"
wait "$pid" || die "the server did not stop cleanly"
pid=""
say "done"
