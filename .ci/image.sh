#!/usr/bin/env bash
# CI's container step (docs/container.md#what-ci-checks): build the image
# from a binary built on the host (no base image can be pulled here), run
# it and check it from outside, measure it; then bring the team of
# compose.yaml up with podman-compose, PostgreSQL and Redis coming from a
# Debian image built with mmdebstrap (cached), and check the pair.
#
# Environment:
#   MDQS_IMAGE_BINARY   a linux/amd64 mdqs to put in the image (the release
#                       step's); else dist/release/*_linux_amd64*/mdqs when
#                       present; else built here with the release's flags.
#   MDQS_IMAGE_COMPOSE  1 (default) runs the compose test, 0 skips it.
#
# Whatever happens, it removes every container, volume, network and image
# it made (trap), and leaves no listener.
set -euo pipefail
cd "$(dirname "$0")/.."
export CONTAINERS_CONF="$PWD/.ci/containers.conf" # runc and the ulimits this sandbox allows
root=$PWD
# Debian's python: podman-compose's PyYAML is there, whatever python3 the
# PATH finds first (a pyenv shim here).
py=/usr/bin/python3
tag="mdqs-ci-$$"
image="localhost/mdqs:$tag"
work="$root/dist/image-ci"
rm -rf "$work" && mkdir -p "$work"

# Seconds per sub-step, printed as they end and summed up at the end.
timings=()
t_last=$(date +%s.%N)
took() {
  local now; now=$(date +%s.%N)
  local s; s=$("$py" -c "print(f'{$now - $t_last:.1f}')")
  timings+=("$1: ${s}s"); echo "   ($1: ${s}s)"; t_last=$now
}
fail() { echo "FAIL: $*" >&2; exit 1; }
# has PATTERN COMMAND...: COMMAND's output (stdout and stderr) matches.
# Not COMMAND | grep -q: grep leaves at the first match, and under
# pipefail the writer's SIGPIPE would fail the check.
has() { local pat=$1 out; shift; out=$("$@" 2>&1) || true; grep -q -- "$pat" <<<"$out"; }
free_port() { "$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

containers=() volumes=() networks=() images=()
compose_project=""
cleanup() {
  local rc=$?
  set +e
  if [ -n "$compose_project" ]; then
    (cd "$work/compose" && podman-compose -p "$compose_project" -f compose.yaml down -v -t 5) >/dev/null 2>&1
    # podman-compose 1.0.3's down leaves the network, and the one-shot run's container when it failed.
    for c in $(podman ps -aq --filter "label=io.podman.compose.project=$compose_project"); do podman rm -f "$c" >/dev/null 2>&1; done
    for v in $(podman volume ls -q --filter "label=io.podman.compose.project=$compose_project"); do podman volume rm -f "$v" >/dev/null 2>&1; done
    networks+=("${compose_project}_default")
  fi
  for c in "${containers[@]}"; do podman rm -f -t 5 "$c" >/dev/null 2>&1; done
  for v in "${volumes[@]}"; do podman volume rm -f "$v" >/dev/null 2>&1; done
  for n in "${networks[@]}"; do podman network rm -f "$n" >/dev/null 2>&1; done
  for i in "${images[@]}"; do podman rmi -f "$i" >/dev/null 2>&1; done
  rm -rf "$work/compose/secrets"
  [ ${#timings[@]} -gt 0 ] && { echo "image step timings:"; printf '  %s\n' "${timings[@]}"; }
  exit $rc
}
trap cleanup EXIT

# --- tools -------------------------------------------------------------------
want=()
command -v podman >/dev/null 2>&1 || want+=(podman)
command -v runc >/dev/null 2>&1 || want+=(runc)
compose=${MDQS_IMAGE_COMPOSE:-1}
if [ "$compose" = 1 ]; then
  command -v podman-compose >/dev/null 2>&1 || want+=(podman-compose)
  command -v mmdebstrap >/dev/null 2>&1 || want+=(mmdebstrap)
fi
if [ ${#want[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${want[@]}" >/dev/null
fi
echo "podman $(podman version --format '{{.Client.Version}}'), $(buildah --version 2>/dev/null | cut -d' ' -f1-3)"
took "tools"

# --- the binary ----------------------------------------------------------------
ctx="$root/dist/image"
rm -rf "$ctx" && mkdir -p "$ctx/data"
bin=${MDQS_IMAGE_BINARY:-}
if [ -z "$bin" ]; then
  bin=$(ls dist/release/*_linux_amd64*/mdqs 2>/dev/null | head -1 || true)
fi
if [ -n "$bin" ]; then
  echo "binary: $bin (given)"
  cp "$bin" "$ctx/mdqs"
else
  echo "binary: built here (CGO_ENABLED=0, -trimpath, -s -w)"
  CGO_ENABLED=0 GOOS=linux GOARCH=amd64 GOFLAGS=-buildvcs=auto go build -trimpath -ldflags "-s -w" -o "$ctx/mdqs" .
fi
cp /etc/ssl/certs/ca-certificates.crt "$ctx/"
took "binary"

# What the release flags buy: the same source built plainly, and with
# -trimpath alone, against the image's binary (-trimpath -s -w). Off by
# default: two more builds, about 40 s, for figures that docs/container.md
# keeps (MDQS_IMAGE_SIZES=1 to see them again).
if [ "${MDQS_IMAGE_SIZES:-0}" = 1 ]; then
  CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -o "$work/mdqs-plain" .
  CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -o "$work/mdqs-trimpath" .
  for f in "$work/mdqs-plain" "$work/mdqs-trimpath" "$ctx/mdqs"; do
    printf '  %-28s %6.1f MB, gzip -6 %5.1f MB\n' "$(basename "$(dirname "$f")")/$(basename "$f")" \
      "$("$py" -c "print($(stat -c %s "$f")/1e6)")" "$("$py" -c "print($(gzip -6 -c "$f" | wc -c)/1e6)")"
  done
  rm -f "$work/mdqs-plain" "$work/mdqs-trimpath"
  took "binary sizes (plain and -trimpath builds)"
fi

# --- build ---------------------------------------------------------------------
version=$("$ctx/mdqs" version 2>/dev/null | awk '{print $2}')
# Every image the build makes (the stages' too) is removed at the end:
# those that were not there before it. (--layers=false would make none,
# but buildah 1.28 then fails with "identifier is not an image".)
before_build=$(podman images -aq --no-trunc | sort)
images+=("$image")
podman build -q --force-rm --format docker --build-arg BINARY_FROM=prebuilt --build-arg VERSION="$version" -t "$image" . >/dev/null
took "podman build"
images+=($(comm -13 <(echo "$before_build") <(podman images -aq --no-trunc | sort)))

# --- size ----------------------------------------------------------------------
# Compressed as a registry stores it: the gzip'd layer blobs of an OCI
# archive (what a push uploads), plus its config and manifest.
podman save -q --format oci-archive -o "$work/image.tar" "$image"
mkdir -p "$work/oci" && tar -xf "$work/image.tar" -C "$work/oci"
read -r compressed layers < <("$py" - "$work/oci" <<'EOF'
import json, os, sys
d = sys.argv[1]
blob = lambda digest: os.path.join(d, "blobs", *digest.split(":"))
index = json.load(open(os.path.join(d, "index.json")))
m = index["manifests"][0]
manifest = json.load(open(blob(m["digest"])))
total = m["size"] + manifest["config"]["size"] + sum(l["size"] for l in manifest["layers"])
print(total, len(manifest["layers"]))
EOF
)
uncompressed=$(podman image inspect "$image" --format '{{.Size}}')
rm -rf "$work/oci" "$work/image.tar"
printf 'image size: %.1f MB compressed (%d layers, goal under 25 MB), %.1f MB uncompressed\n' \
  "$("$py" -c "print($compressed/1e6)")" "$layers" "$("$py" -c "print($uncompressed/1e6)")"
[ "$compressed" -lt 25000000 ] || fail "the image is $compressed bytes compressed, over the 25 MB goal"
[ "$(podman image inspect "$image" --format '{{.Config.User}}')" = "65532:65532" ] || fail "the image does not run as 65532:65532"
has healthcheck podman image inspect "$image" --format '{{json .Config.Healthcheck}}' || fail "the image has no HEALTHCHECK (built without --format docker?)"
took "size"

# --- run -----------------------------------------------------------------------
# As a user would: the image's own settings (0.0.0.0:8080 inside, demo
# client off), a volume for /data, the port published on loopback only.
port=$(free_port)
name="$tag-run"
vol="$tag-data"
volumes+=("$vol") containers+=("$name")
podman volume create "$vol" >/dev/null
# (podman logs "unable to get systemd connection" for the health timer it
# cannot start here: kept out of the output; the check is run by hand below.)
podman run -d --name "$name" -v "$vol:/data" -p "127.0.0.1:$port:8080" "$image" >/dev/null 2>"$work/run.err" || { cat "$work/run.err"; fail "podman run"; }
hostbin="$ctx/mdqs"
for _ in $(seq 1 60); do
  "$hostbin" healthcheck -addr "127.0.0.1:$port" -timeout 1s >/dev/null 2>&1 && break
  sleep 0.5
done
"$hostbin" healthcheck -addr "127.0.0.1:$port" || { podman logs "$name" | tail -20; fail "/healthz through the published port"; }
took "run until /healthz answers"
podman healthcheck run "$name" || fail "the image's HEALTHCHECK (mdqs healthcheck inside) failed"
has 'msg="mdqs listening" addr=\[::\]:8080' podman logs "$name" || { podman logs "$name" | tail; fail "not listening on every interface"; }
# A client added inside the container's store while the server runs
# (SQLite in WAL: the server sees it at once, docs/operations.md), then a
# signed call from the host.
out=$(podman exec "$name" /mdqs client add -id ci -scopes '*' 2>&1) || { echo "$out"; fail "client add inside the container"; }
secret=$(sed -n 's/^client_secret=//p' <<<"$out")
[ -n "$secret" ] || { echo "$out"; fail "client add printed no secret"; }
has '"client_id":"ci"' "$hostbin" call -token-cache=false -addr "127.0.0.1:$port" -id ci -secret "$secret" GET /v1/api/whoami ||
  fail "a signed call as the client added inside the container"
has '"source":"demo"' "$hostbin" call -token-cache=false -addr "127.0.0.1:$port" -id ci -secret "$secret" GET '/v1/api/boards/top50?top=3' ||
  fail "the sector ranking through the container"
if demo=$("$hostbin" call -token-cache=false -addr "127.0.0.1:$port" GET /v1/api/whoami 2>&1); then
  fail "the public demo client was let in: $demo"
fi
grep -q unauthorized <<<"$demo" || fail "the demo client: want 401 unauthorized, got $demo"
# /metrics trusts loopback callers only: through the published port the
# caller is the bridge's gateway, so it must ask for a signature.
status() { "$py" -c 'import sys, urllib.request, urllib.error
try: print(urllib.request.urlopen(sys.argv[1], timeout=5).status)
except urllib.error.HTTPError as e: print(e.code)' "$1"; }
[ "$(status "http://127.0.0.1:$port/metrics")" = 401 ] || fail "/metrics through the published port answered without a signature"
podman stop -t 15 "$name" >/dev/null 2>>"$work/run.err"
[ "$(podman inspect "$name" --format '{{.State.ExitCode}}')" = 0 ] || fail "mdqs did not exit 0 on SIGTERM"
has 'msg="mdqs stopped"' podman logs "$name" || fail "no clean stop in the log"
took "checks (client inside, signed call, demo refused, stop)"

[ "$compose" = 1 ] || { echo "compose test skipped (MDQS_IMAGE_COMPOSE=$compose)"; exit 0; }

# --- compose -------------------------------------------------------------------
# PostgreSQL 15 and Redis 7.0 from Debian bookworm in one image (no official
# image can be pulled here), made by mmdebstrap once and cached by its
# package list.
pkgs="postgresql-15,redis-server"
key=$(printf 'bookworm %s v1' "$pkgs" | sha256sum | cut -c1-12)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/mdqs-ci"
tarball="$cache/pgredis-$key.tar"
if [ ! -f "$tarball" ] || [ ! -s "$tarball" ]; then
  mkdir -p "$cache"
  mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
  # (mmdebstrap picks its output's format by the name's extension: the
  # partial file must end in .tar too.)
  rm -rf "$cache/pgredis-$key.partial.tar"
  mmdebstrap -q --format=tar --variant=apt --include="$pkgs" bookworm "$cache/pgredis-$key.partial.tar" "${mirror:-http://deb.debian.org/debian}" </dev/null
  mv "$cache/pgredis-$key.partial.tar" "$tarball"
  took "mmdebstrap (PostgreSQL and Redis from Debian, cached as $tarball)"
fi
pgimage="localhost/mdqs-ci-pgredis:$key"
images+=("$pgimage")
podman import -q "$tarball" "$pgimage" >/dev/null
took "import the PostgreSQL and Redis image"

# compose.yaml as shipped, but for two services: postgres becomes the
# Debian cluster started by a script (the official image's entrypoint
# makes the role and database from POSTGRES_*), redis the same command on
# the Debian image. The mdqs services, the client step and the secrets are
# the file's own.
mkdir -p "$work/compose/secrets"
chmod 700 "$work/compose/secrets"
pw() { "$py" -c 'import secrets; print(secrets.token_hex(24), end="")'; }
pw >"$work/compose/secrets/postgres_password"
pw >"$work/compose/secrets/redis_password"
printf 'postgres://mdqs:%s@postgres:5432/mdqs?sslmode=disable' "$(cat "$work/compose/secrets/postgres_password")" >"$work/compose/secrets/mdqs_db"
printf 'redis://:%s@redis:6379/0' "$(cat "$work/compose/secrets/redis_password")" >"$work/compose/secrets/mdqs_redis"
chmod 644 "$work/compose/secrets/"*
"$py" - compose.yaml "$work/compose/compose.yaml" "$pgimage" <<'EOF'
import sys, yaml
src, dst, pgimage = sys.argv[1:]
c = yaml.safe_load(open(src))
pg = "/usr/lib/postgresql/15/bin"
conf = "/etc/postgresql/15/main/postgresql.conf"
data = "/var/lib/postgresql/15/main"
start = f"""set -e
echo 'host all all 0.0.0.0/0 scram-sha-256' >> /etc/postgresql/15/main/pg_hba.conf
install -d -o postgres -g postgres /var/run/postgresql
as_pg() {{ runuser -u postgres -- "$@"; }}
as_pg {pg}/pg_ctl -D {data} -o '-c config_file={conf} -c listen_addresses=127.0.0.1 -c ssl=off' -w start
echo "CREATE ROLE mdqs LOGIN PASSWORD :'pw'; CREATE DATABASE mdqs OWNER mdqs;" | as_pg psql -q -v ON_ERROR_STOP=1 -v pw="$(cat /run/secrets/postgres_password)"
as_pg {pg}/pg_ctl -D {data} -w stop
exec runuser -u postgres -- {pg}/postgres -D {data} -c config_file={conf} -c listen_addresses='*' -c ssl=off
"""
c["services"]["postgres"] = {
    "image": pgimage,
    "secrets": ["postgres_password"],
    "command": ["sh", "-c", start],
}
c["services"]["redis"]["image"] = pgimage
for name in ("mdqs-a", "mdqs-b", "client-add"):
    c["services"][name].pop("build", None)  # the image is built above
yaml.safe_dump(c, open(dst, "w"), sort_keys=False)
EOF
compose_project="mdqsci$$"
port_a=$(free_port) port_b=$(free_port)
export MDQS_IMAGE="$image" MDQS_SOURCES_DEFAULT=demo MDQS_PORT_A=$port_a MDQS_PORT_B=$port_b MDQS_SECRETS="$work/compose/secrets"
pc() { (cd "$work/compose" && podman-compose -p "$compose_project" -f compose.yaml "$@"); }
# Only the services: podman-compose 1.0.3 knows no profiles, and would
# run the client step on every up.
pc up -d postgres redis mdqs-a mdqs-b >"$work/compose-up.log" 2>&1 || { cat "$work/compose-up.log"; fail "podman-compose up"; }
took "podman-compose up"

# Poll rather than trust depends_on: the instances may start before
# PostgreSQL listens, exit, and come back under restart: unless-stopped.
ready() { "$hostbin" healthcheck -addr "127.0.0.1:$1" -timeout 1s >/dev/null 2>&1; }
for _ in $(seq 1 120); do
  ready "$port_a" && ready "$port_b" && break
  sleep 0.5
done
for p in "$port_a" "$port_b"; do
  ready "$p" || { for s in postgres mdqs-a mdqs-b; do echo "--- $s"; podman logs "${compose_project}_${s}_1" 2>&1 | tail -15; done; fail "instance on port $p: no /healthz"; }
done
took "both instances answer /healthz"
# The health checks compose.yaml and the image give (podman-compose 1.0.3
# passes them on, though it does not wait for them).
for s in redis mdqs-a mdqs-b; do
  podman healthcheck run "${compose_project}_${s}_1" || fail "the health check of $s"
done
for s in mdqs-a mdqs-b; do
  echo "  $s: restarted $(podman inspect "${compose_project}_${s}_1" --format '{{.RestartCount}}') times before it served (podman-compose 1.0.3 does not wait for depends_on's conditions)"
done

out=$(pc run --rm --no-deps client-add 2>&1) || { echo "$out"; fail "the client-add step"; }
secret=$(sed -n 's/^client_secret=//p' <<<"$out" | tr -d '\r')
[ -n "$secret" ] || { echo "$out"; fail "the client-add step printed no secret"; }
took "client-add step"

leaders=0
for p in "$port_a" "$port_b"; do
  has '"client_id":"desk"' "$hostbin" call -token-cache=false -addr "127.0.0.1:$p" -id desk -secret "$secret" GET /v1/api/whoami ||
    fail "a signed call on port $p as the client the step added"
  body=$("$hostbin" call -token-cache=false -addr "127.0.0.1:$p" -id desk -secret "$secret" GET /v1/api/health/instance) ||
    fail "the instance's health on port $p: $body"
  echo "  $p: $body"
  "$py" -c 'import json,sys; d=json.loads(sys.argv[1])["data"]; sys.exit(0 if d["redis"]["up"] and d["store"]["kind"] == "postgresql" and d["store"]["up"] else 1)' "$body" ||
    fail "instance on port $p: want PostgreSQL and Redis up"
  if "$py" -c 'import json,sys; sys.exit(0 if json.loads(sys.argv[1])["data"]["leader"] else 1)' "$body"; then
    leaders=$((leaders + 1))
  fi
done
[ "$leaders" = 1 ] || fail "$leaders leaders among the two instances, want exactly 1"
# The same ranking from both: one store, one shared cache.
for p in "$port_a" "$port_b"; do
  has '"source":"demo"' "$hostbin" call -token-cache=false -addr "127.0.0.1:$p" -id desk -secret "$secret" GET '/v1/api/boards/top50?top=3' ||
    fail "the ranking on port $p"
done
took "signed calls on both, one leader"

pc down -v -t 5 >/dev/null 2>&1 || fail "podman-compose down"
took "podman-compose down"
echo "image and compose: ok"
