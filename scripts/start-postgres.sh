#!/bin/sh
# Start a throwaway PostgreSQL server for the event-store tests and print its URL.
#
#   export COREFLOW_TEST_POSTGRES="$(scripts/start-postgres.sh)"
#   scripts/start-postgres.sh stop
#
# Idempotent: initialises the cluster only once and starts the server only if it is
# not already running. Runs the server as the `postgres` OS user when called as root.
# Local connections are trusted (no password): this server is for tests only.
#
# Settings (environment): COREFLOW_PG_PORT (54329), COREFLOW_PG_DIR (/tmp/coreflow-pg),
# COREFLOW_PG_DB (coreflow_test), PG_BIN (directory of pg_ctl, initdb, psql).
# Only the URL goes to stdout; progress goes to stderr.
set -eu

PORT="${COREFLOW_PG_PORT:-54329}"
BASE="${COREFLOW_PG_DIR:-/tmp/coreflow-pg}"
DB="${COREFLOW_PG_DB:-coreflow_test}"
DATA="$BASE/data"
LOG="$BASE/server.log"
HOST=127.0.0.1

say() { echo "start-postgres: $*" >&2; }

find_bin() {
    if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$dir/pg_ctl" ]; then echo "$dir"; return; fi
    done
    if command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(readlink -f "$(command -v pg_ctl)")"; return
    fi
    say "cannot find the PostgreSQL binaries (set PG_BIN)"; exit 1
}
BIN="$(find_bin)"

# Run a command as the server's OS user: `postgres` when we are root, else ourselves.
if [ "$(id -u)" = 0 ]; then
    RUN_AS=postgres
    as_owner() {
        if command -v runuser >/dev/null 2>&1; then runuser -u "$RUN_AS" -- "$@"
        else su -s /bin/sh "$RUN_AS" -c "$(printf '%s ' "$@")"; fi
    }
else
    RUN_AS="$(id -un)"
    as_owner() { "$@"; }
fi

running() { as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

if [ "${1:-start}" = stop ]; then
    if [ -d "$DATA" ] && running; then
        as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >&2
    else
        say "not running"
    fi
    exit 0
fi

mkdir -p "$BASE"
[ "$RUN_AS" = "$(id -un)" ] || chown "$RUN_AS" "$BASE"
chmod 700 "$BASE"

if [ ! -f "$DATA/PG_VERSION" ]; then
    say "initialising a cluster in $DATA"
    as_owner "$BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 \
        >"$BASE/initdb.log" 2>&1 || { cat "$BASE/initdb.log" >&2; exit 1; }
fi

if running; then
    say "already running (port $PORT)"
else
    say "starting on $HOST:$PORT (log: $LOG)"
    as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
        -o "-p $PORT -k $BASE -c listen_addresses=$HOST -c fsync=off" start >&2 \
        || { cat "$LOG" >&2; exit 1; }
fi

psql_q() { as_owner "$BIN/psql" -X -q -h "$HOST" -p "$PORT" -U postgres -d postgres "$@"; }
if [ "$(psql_q -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != 1 ]; then
    say "creating database $DB"
    psql_q -c "CREATE DATABASE \"$DB\""
fi

echo "postgresql://postgres@$HOST:$PORT/$DB"
