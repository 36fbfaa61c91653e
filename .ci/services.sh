# Throwaway PostgreSQL on loopback for the store's tests; sourced by
# .ci/run (and by a developer: `. .ci/services.sh && start_postgres`).
# Exports MDQS_TEST_POSTGRES; stop_postgres (an EXIT trap) leaves no
# process and no folder behind. Root is needed to run initdb as postgres.
PG_PORT=${PG_PORT:-55432}
start_postgres() {
  if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql
  fi
  PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
  PGROOT=$(mktemp -d -t mdqs-pg.XXXXXX)
  chown postgres:postgres "$PGROOT"
  trap stop_postgres EXIT
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
