# Throwaway PostgreSQL and Redis on loopback for the tests that need a
# server; sourced by .ci/run (and by a developer:
# `. .ci/services.sh && start_postgres`, or `&& start_redis`).
# start_postgres exports MDQS_TEST_POSTGRES, start_redis MDQS_TEST_REDIS;
# one EXIT trap (stop_services) stops whichever was started and leaves no
# process and no folder behind. Root is needed to run initdb as postgres
# and to install a missing server with apt.
PG_PORT=${PG_PORT:-55432}
REDIS_PORT=${REDIS_PORT:-56379}
stop_services() { stop_postgres; stop_redis; }
start_postgres() {
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql
  fi
  PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
  PGROOT=$(mktemp -d -t mdqs-pg.XXXXXX)
  chown postgres:postgres "$PGROOT"
  trap stop_services EXIT
  runuser -u postgres -- "$PGBIN/initdb" -D "$PGROOT/data" -U postgres --auth=trust \
    -E UTF8 --locale=C.UTF-8 --no-sync >"$PGROOT/initdb.log" 2>&1
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGROOT/data" -l "$PGROOT/server.log" -w -t 60 \
    -o "-p $PG_PORT -k $PGROOT -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null
  export MDQS_TEST_POSTGRES="postgres://postgres@127.0.0.1:$PG_PORT/postgres?sslmode=disable"
}
stop_postgres() { # by the server's own pid file only
  if [ -f "${PGROOT:-/x}/data/postmaster.pid" ]; then
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGROOT/data" -m fast -w stop >/dev/null || true
  fi
  rm -rf "${PGROOT:-/nonexistent}"
}
# Redis with nothing on disk (no RDB snapshot, no AOF): the tests' keys
# live only as long as the server.
start_redis() {
  if ! command -v redis-server >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server
  fi
  RDIR=$(mktemp -d -t mdqs-redis.XXXXXX)
  trap stop_services EXIT
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no \
    --daemonize yes --pidfile "$RDIR/redis.pid" --logfile "$RDIR/redis.log" --dir "$RDIR"
  local _
  for _ in $(seq 100); do # it answers about 40 ms after the launch
    redis_is_ours && break
    grep -qs 'aborting' "$RDIR/redis.log" && break # e.g. the port is taken
    sleep 0.05
  done
  if ! redis_is_ours; then
    echo "redis-server on 127.0.0.1:$REDIS_PORT did not start within 5 s (port taken? set REDIS_PORT):" >&2
    cat "$RDIR/redis.log" >&2
    return 1
  fi
  export MDQS_TEST_REDIS="redis://127.0.0.1:$REDIS_PORT"
}
redis_is_ours() { # the server answering on the port is the one in $RDIR, not another
  [ -f "$RDIR/redis.pid" ] || return 1
  [ "$(redis-cli -p "$REDIS_PORT" info server 2>/dev/null | sed -n 's/^process_id:\([0-9]*\).*/\1/p')" = "$(cat "$RDIR/redis.pid")" ]
}
stop_redis() { # by its pid file only; kill -0 would see the daemon's zombie
  if [ -f "${RDIR:-/x}/redis.pid" ]; then
    kill "$(cat "$RDIR/redis.pid")" 2>/dev/null || true
    local _
    for _ in $(seq 250); do # redis deletes its pid file on the way out
      [ -f "$RDIR/redis.pid" ] || break
      sleep 0.02
    done
  fi
  rm -rf "${RDIR:-/nonexistent}"
}
