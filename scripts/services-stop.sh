#!/usr/bin/env bash
# Stop exactly the servers that scripts/services.sh started (found by their PID files under the
# services dir, each checked against its command line before it is signalled).
# Usage: bash scripts/services-stop.sh [--purge]     --purge also deletes the throwaway data dirs
set -uo pipefail

BASE=${IDEMPOTENCY_SERVICES_DIR:-${TMPDIR:-/tmp}/idempotency-services}
DATA=$BASE/data
PG_MAJOR=${IDEMPOTENCY_PG_MAJOR:-15}
REDIS_PORT=${IDEMPOTENCY_REDIS_PORT:-56379}
DYNAMO_PORT=${IDEMPOTENCY_DYNAMODB_PORT:-58000}
PGBIN=/usr/lib/postgresql/$PG_MAJOR/bin
PGDATA_DIR=$DATA/pg/data
MYDATA=$DATA/mariadb/data

log() { echo "[services] $*" >&2; }

# pid_of PIDFILE NEEDLE: print the PID if that process is alive and its command line contains NEEDLE
pid_of() {
  local pid; [ -s "$1" ] || return 1; pid=$(tr -dc 0-9 < "$1" | head -c 10); [ -n "$pid" ] || return 1
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$2" && echo "$pid"
}

stop_pid() { # NAME PIDFILE NEEDLE
  local name=$1 pidfile=$2 needle=$3 pid i
  if ! pid=$(pid_of "$pidfile" "$needle"); then log "$name not running"; rm -f "$pidfile"; return 0; fi
  kill -TERM "$pid" 2>/dev/null
  for i in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then log "$name (pid $pid) ignored SIGTERM for 30s; sending SIGKILL"; kill -KILL "$pid" 2>/dev/null; sleep 0.5; fi
  rm -f "$pidfile"
  log "$name stopped (pid $pid)"
}

stop_pid pgbouncer      "$DATA/pgbouncer/pgbouncer.pid" "pgbouncer"

# PostgreSQL: pg_ctl knows its own postmaster from the data dir
if [ -f "$PGDATA_DIR/postmaster.pid" ]; then
  owner=$(stat -c %U "$PGDATA_DIR")
  if [ "$(id -u)" = 0 ]; then runuser -u "$owner" -- "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast -w -t 60 stop >&2
  else "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast -w -t 60 stop >&2; fi
  log "postgresql stopped"
else
  log "postgresql not running"
fi

stop_pid mariadb        "$DATA/mariadb/mysqld.pid"    "--datadir=$MYDATA"
stop_pid redis          "$DATA/redis/redis.pid"       ":$REDIS_PORT"
stop_pid dynalite       "$DATA/dynalite/dynalite.pid" "--port $DYNAMO_PORT"

if [ "${1:-}" = --purge ]; then
  rm -rf "$DATA" "$BASE/env.sh"
  log "removed $DATA"
fi
