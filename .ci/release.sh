#!/usr/bin/env bash
# The release archives, as a snapshot (docs/release.md): goreleaser builds
# the six CGO-free targets of .goreleaser.yaml into dist/release, then this
# checks what a user would get: every archive with its members, the
# checksums, and this machine's binary (linux/amd64 in CI) taken from its
# archive serving the demo, answering /healthz and a signed call, and
# saying its version.
# Called by .ci/run; runs alone too (.ci/release.sh). Fails on any miss.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
say() { echo "  $* ($(( $(date +%s) - t0 ))s)"; }
fail() { echo "release: $*" >&2; exit 1; }

# goreleaser, installed once into a cached folder: a cold install fetches
# about 1.9 GB of modules and compiles for minutes; later runs find it.
want=v2.15.1
bin="${MDQS_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mdqs-ci}/bin"
goreleaser="$bin/goreleaser"
if ! "$goreleaser" --version 2>/dev/null | grep -q "GitVersion: *$want\$"; then
  say "installing goreleaser $want into $bin"
  GOBIN="$bin" go install "github.com/goreleaser/goreleaser/v2@$want"
  "$goreleaser" --version | grep -q "GitVersion: *$want\$" || fail "$goreleaser is not $want after go install"
fi
say "goreleaser $want: $goreleaser"

"$goreleaser" check

# goreleaser reads the commit and its time (the members' time, the
# snapshot's name) only when git names a remote; without one (a clone made
# from a folder, a fresh repository) it falls back to "none" and the
# build's own clock. A remote for this process alone, never contacted: the
# release is not published.
if ! git ls-remote --get-url >/dev/null 2>&1; then
  n=${GIT_CONFIG_COUNT:-0}
  export "GIT_CONFIG_KEY_$n=remote.origin.url" "GIT_CONFIG_VALUE_$n=file://$PWD"
  export GIT_CONFIG_COUNT=$((n + 1))
fi

"$goreleaser" release --snapshot --clean --skip=publish
say "snapshot built"

dist=dist/release
version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' "$dist/metadata.json")
commit=$(git rev-parse --short=7 HEAD)
case "$version" in
  *-SNAPSHOT-"$commit") ;;
  *) fail "the snapshot's version is \"$version\", want one ending -SNAPSHOT-$commit (HEAD)" ;;
esac

# Every archive, with exactly these members. A zip's through python3's
# zipfile: unzip is not always installed, python3 is for CI's other steps.
zip_members() {
  python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$1" 2>/dev/null
}
members="QUICKSTART.txt README.md README.zh-CN.md config.toml"
for target in windows_amd64 windows_arm64 linux_amd64 linux_arm64 darwin_amd64 darwin_arm64; do
  name="mdqs_${version}_$target"
  case "$target" in
    windows_*) archive="$dist/$name.zip"; want_list=$(printf '%s\n' $members mdqs.exe | sort)
      got=$(zip_members "$archive" | sort) || fail "$archive: missing or not a zip" ;;
    *) archive="$dist/$name.tar.gz"; want_list=$(printf '%s\n' $members mdqs | sort)
      got=$(tar -tzf "$archive" 2>/dev/null | sort) || fail "$archive: missing or not a tar.gz" ;;
  esac
  [ "$got" = "$want_list" ] || fail "$archive holds
$got
want
$want_list"
  grep -q "  $(basename "$archive")\$" "$dist/checksums.txt" || fail "$archive is not in checksums.txt"
done
[ "$(wc -l <"$dist/checksums.txt")" -eq 6 ] || fail "checksums.txt lists $(wc -l <"$dist/checksums.txt") files, want the 6 archives"
(cd "$dist" && sha256sum --quiet -c checksums.txt) || fail "the checksums do not verify"
say "6 archives, their members and checksums.txt verified"

# The binary for this machine (linux/amd64 in CI), from its archive, in a
# folder of its own: what a user unpacks and runs (the archive's
# config.toml serves the demo).
host="$(go env GOHOSTOS)_$(go env GOHOSTARCH)"
case "$host" in
  linux_amd64 | linux_arm64 | darwin_amd64 | darwin_arm64) ;;
  *) fail "no archive of this script's to run on $host" ;;
esac
tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
tar -xzf "$dist/mdqs_${version}_$host.tar.gz" -C "$tmp"
# Without the caller's MDQS_* variables (configuration, MDQS_ADDR): the
# archive's defaults are what is checked.
run=(env)
for v in $(compgen -e); do case "$v" in MDQS_*) run+=(-u "$v") ;; esac; done
said=$(cd "$tmp" && "${run[@]}" ./mdqs version 2>&1)
case "$said" in
  "mdqs $version go"*) ;;
  *) fail "mdqs version says \"$said\", want mdqs $version and the Go version" ;;
esac

(cd "$tmp" && exec "${run[@]}" ./mdqs serve -addr 127.0.0.1:0 2>serve.log) &
pid=$!
addr=
for _ in $(seq 1 300); do # 30 s
  addr=$(sed -n 's/.*msg="mdqs listening" addr=\([^ ]*\).*/\1/p' "$tmp/serve.log")
  [ -n "$addr" ] && break
  kill -0 "$pid" 2>/dev/null || fail "mdqs serve exited before listening:
$(cat "$tmp/serve.log")"
  sleep 0.1
done
[ -n "$addr" ] || fail "mdqs serve did not listen within 30 s:
$(cat "$tmp/serve.log")"
grep -q "mode=demo .*version=\"\\?$version" "$tmp/serve.log" ||
  fail "the listening line does not say demo mode and version $version:
$(cat "$tmp/serve.log")"
health=$(curl -sS --max-time 10 "http://$addr/healthz") || fail "GET /healthz: curl failed"
[ "$health" = '{"status":"ok"}' ] || fail "GET /healthz answered $health"
who=$(cd "$tmp" && "${run[@]}" XDG_CACHE_HOME="$tmp/cache" ./mdqs call -addr "$addr" GET /v1/api/whoami) ||
  fail "mdqs call GET /v1/api/whoami failed: $who"
case "$who" in *'"client_id":"demo"'*) ;; *) fail "whoami answered $who" ;; esac
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || fail "mdqs exited $status after SIGTERM:
$(cat "$tmp/serve.log")"
grep -q "mdqs stopped" "$tmp/serve.log" || fail "no orderly stop in the log:
$(cat "$tmp/serve.log")"
say "$host from its archive: mdqs $version served the demo on $addr, /healthz ok, whoami signed, stopped cleanly"
