#!/usr/bin/env bash
# Start the throwaway test servers the tests need, on loopback only.
#
# Which servers: IDEMPOTENCY_SERVICES (default all four: "postgres mariadb redis dynalite"). With postgres
# comes a PgBouncer in front of it, in transaction pooling mode, as production often runs it.
# Durability: IDEMPOTENCY_DURABLE=on starts PostgreSQL and MariaDB as users run them (every commit flushed
# to disk: fsync, synchronous_commit, full-page writes; innodb_flush_log_at_trx_commit=1, doublewrite);
# the default, off, trades that away for test speed. Give a durable set its own IDEMPOTENCY_SERVICES_DIR
# and ports (benchmarks/durable.sh does).
# Idempotent: installs what is missing (apt as root, npm for dynalite), reuses servers that are already running.
#
# Usage:   eval "$(bash scripts/services.sh)"    # export lines on stdout, progress on stderr
# Stop:    bash scripts/services-stop.sh [--purge]
#
# The tests read the IDEMPOTENCY_TEST_* variables this script prints.
set -euo pipefail

BASE=${IDEMPOTENCY_SERVICES_DIR:-${TMPDIR:-/tmp}/idempotency-services}
DATA=$BASE/data                     # throwaway data dirs (removed by services-stop.sh --purge)
PG_MAJOR=${IDEMPOTENCY_PG_MAJOR:-15}
PG_PORT=${IDEMPOTENCY_PG_PORT:-55432}
PGB_PORT=${IDEMPOTENCY_PGBOUNCER_PORT:-56433}
MYSQL_PORT=${IDEMPOTENCY_MYSQL_PORT:-53306}
REDIS_PORT=${IDEMPOTENCY_REDIS_PORT:-56379}
DYNAMO_PORT=${IDEMPOTENCY_DYNAMODB_PORT:-58000}
DYNALITE_VERSION=4.0.0
DB_NAME=idem DB_USER=idem DB_PASS=idem
WAIT_S=${IDEMPOTENCY_WAIT_S:-60}
SERVICES=" ${IDEMPOTENCY_SERVICES:-postgres mariadb redis dynalite} "
case "${IDEMPOTENCY_DURABLE:-off}" in
  on)  PG_DURABILITY="-c fsync=on -c synchronous_commit=on -c full_page_writes=on"
       MY_DURABILITY="--innodb-flush-log-at-trx-commit=1 --innodb-doublewrite=1" ;;
  off) PG_DURABILITY="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
       MY_DURABILITY="--innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0" ;;
  *)   echo "[services] ERROR: IDEMPOTENCY_DURABLE must be on or off, not '$IDEMPOTENCY_DURABLE'" >&2; exit 2 ;;
esac
wants() { [[ "$SERVICES" == *" $1 "* ]]; }

PGBIN=/usr/lib/postgresql/$PG_MAJOR/bin
PGROOT=$DATA/pg;            PGDATA_DIR=$PGROOT/data
PGBROOT=$DATA/pgbouncer
MYROOT=$DATA/mariadb;       MYDATA=$MYROOT/data; MYSOCK=$MYROOT/mysqld.sock; MYPID=$MYROOT/mysqld.pid
REDISROOT=$DATA/redis
DYNROOT=$DATA/dynalite;     DYN_NPM=$BASE/dynalite-npm

log() { echo "[services] $*" >&2; }
die() { echo "[services] ERROR: $*" >&2; exit 1; }
is_root() { [ "$(id -u)" = 0 ]; }
as_user() { local u=$1; shift; if is_root; then runuser -u "$u" -- "$@"; else "$@"; fi; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# pid_matches PIDFILE NEEDLE: the process in PIDFILE is alive and its command line contains NEEDLE
pid_matches() {
  local pid; [ -s "$1" ] || return 1; pid=$(tr -dc 0-9 < "$1" | head -c 10); [ -n "$pid" ] || return 1
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$2"
}
wait_until() { # NAME LOGFILE CMD...
  local name=$1 logf=$2; shift 2; local deadline=$((SECONDS + WAIT_S))
  until "$@" >/dev/null 2>&1; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "$name did not accept connections within ${WAIT_S}s; tail of $logf:"; tail -n 30 "$logf" >&2 2>/dev/null || true
      exit 1
    fi
    sleep 0.2
  done
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
elapsed() { awk -v a="$1" -v b="$(now_ms)" 'BEGIN { printf "%.2fs", (b - a) / 1000 }'; }

# ---------------------------------------------------------------- install what is missing
install_packages() {
  local pkgs=()
  if wants postgres; then [ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/psql" ] || pkgs+=("postgresql-$PG_MAJOR"); fi
  if wants postgres; then [ -x /usr/sbin/pgbouncer ] || pkgs+=(pgbouncer); fi
  if wants mariadb; then [ -x /usr/sbin/mariadbd ] && command -v mariadb-install-db >/dev/null && command -v mariadb-admin >/dev/null || pkgs+=(mariadb-server); fi
  # the Galera tests' own cluster: the replication library and the rsync state transfer
  if wants mariadb; then [ -e /usr/lib/galera/libgalera_smm.so ] || pkgs+=(galera-4); fi
  if wants mariadb; then command -v rsync >/dev/null || pkgs+=(rsync); fi
  if wants redis; then command -v redis-server >/dev/null && command -v redis-cli >/dev/null || pkgs+=(redis-server); fi
  # promtool, for idempotency-micrometer's Prometheus rule tests; no server: the policy below keeps its service down
  command -v promtool >/dev/null || pkgs+=(prometheus)
  [ ${#pkgs[@]} -eq 0 ] && return 0
  is_root || die "missing packages (${pkgs[*]}) and not root: install them first"
  local t; t=$(now_ms)
  log "apt-get install ${pkgs[*]}"
  # keep the Debian packages from starting their own system services on the default ports
  local made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; made_policy=1; fi
  local rc=0
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}"; } >&2 || rc=$?
  [ "$made_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
  [ "$rc" = 0 ] || die "apt-get install failed ($rc)"
  log "apt-get done in $(elapsed "$t")"
}

install_dynalite() {
  if [ -f "$DYN_NPM/node_modules/dynalite/cli.js" ] && grep -q "\"version\": \"$DYNALITE_VERSION\"" "$DYN_NPM/node_modules/dynalite/package.json"; then return 0; fi
  command -v npm >/dev/null || die "npm not found (dynalite $DYNALITE_VERSION needs Node.js >= 20)"
  local t; t=$(now_ms)
  log "npm install dynalite@$DYNALITE_VERSION into $DYN_NPM"
  mkdir -p "$DYN_NPM"
  [ -f "$DYN_NPM/package.json" ] || echo '{"name":"dynalite-runner","private":true}' > "$DYN_NPM/package.json"
  (cd "$DYN_NPM" && npm install --no-audit --no-fund --loglevel=error "dynalite@$DYNALITE_VERSION") >&2 || die "npm install dynalite failed"
  log "npm done in $(elapsed "$t")"
}

ensure_user() { # NAME HOME
  id "$1" >/dev/null 2>&1 && return 0
  is_root || die "user $1 missing"
  useradd --system --home-dir "$2" --no-create-home --shell /usr/sbin/nologin "$1"
}

# ---------------------------------------------------------------- PostgreSQL
start_pg() {
  local t; t=$(now_ms)
  is_root && ensure_user postgres /var/lib/postgresql
  local owner; owner=$(is_root && echo postgres || id -un)
  pg_ctl_() { as_user "$owner" "$PGBIN/pg_ctl" -D "$PGDATA_DIR" "$@"; }
  if [ -s "$PGDATA_DIR/PG_VERSION" ] && pg_ctl_ status >/dev/null 2>&1; then
    log "postgresql already running on $PG_PORT"
  else
    port_open "$PG_PORT" && die "port $PG_PORT is taken by another process"
    if [ ! -s "$PGDATA_DIR/PG_VERSION" ]; then
      rm -rf "$PGROOT"; install -d -m 700 -o "$owner" "$PGROOT"
      as_user "$owner" "$PGBIN/initdb" -D "$PGDATA_DIR" -U postgres --auth=trust -E UTF8 --no-locale > "$PGROOT/initdb.log" 2>&1 \
        || { tail -n 20 "$PGROOT/initdb.log" >&2; die "initdb failed"; }
    fi
    pg_ctl_ -l "$PGROOT/server.log" -w -t "$WAIT_S" start \
      -o "-p $PG_PORT -k /tmp -c listen_addresses=127.0.0.1 $PG_DURABILITY -c max_connections=300" >&2 \
      || { tail -n 30 "$PGROOT/server.log" >&2; die "postgresql failed to start"; }
  fi
  wait_until postgresql "$PGROOT/server.log" "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"
  local psql_=("$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres)
  "${psql_[@]}" -c "DO \$\$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$DB_USER') THEN CREATE ROLE $DB_USER LOGIN CREATEDB PASSWORD '$DB_PASS'; END IF; END\$\$;" >&2
  [ "$("${psql_[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")" = 1 ] || "${psql_[@]}" -c "CREATE DATABASE $DB_NAME OWNER $DB_USER" >&2
  log "postgresql ready on 127.0.0.1:$PG_PORT ($(elapsed "$t"))"
}

# ---------------------------------------------------------------- PgBouncer, in front of PostgreSQL
# Transaction pooling: a client's transaction gets any server connection, so nothing may outlive one transaction on
# the server side (prepared statements: the tests' URL sets prepareThreshold=0, docs/deployments.md says why).
start_pgbouncer() {
  local t; t=$(now_ms)
  local owner; owner=$(is_root && echo postgres || id -un)
  mkdir -p "$PGBROOT"
  if pid_matches "$PGBROOT/pgbouncer.pid" pgbouncer; then
    log "pgbouncer already running on $PGB_PORT"
  else
    printf '%s\n' \
      '[databases]' \
      "$DB_NAME = host=127.0.0.1 port=$PG_PORT dbname=$DB_NAME" \
      '[pgbouncer]' \
      'listen_addr = 127.0.0.1' \
      "listen_port = $PGB_PORT" \
      'unix_socket_dir =' \
      'auth_type = trust' \
      "auth_file = $PGBROOT/userlist.txt" \
      'pool_mode = transaction' \
      'max_client_conn = 600' \
      'default_pool_size = 100' \
      'ignore_startup_parameters = extra_float_digits,options' \
      "logfile = $PGBROOT/pgbouncer.log" \
      "pidfile = $PGBROOT/pgbouncer.pid" > "$PGBROOT/pgbouncer.ini"
    printf '"%s" "%s"\n' "$DB_USER" "$DB_PASS" > "$PGBROOT/userlist.txt"
    is_root && chown -R "$owner" "$PGBROOT"
    as_user "$owner" /usr/sbin/pgbouncer -d "$PGBROOT/pgbouncer.ini" >&2 \
      || { tail -n 30 "$PGBROOT/pgbouncer.log" >&2; die "pgbouncer failed to start"; }
  fi
  wait_until pgbouncer "$PGBROOT/pgbouncer.log" "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGB_PORT" -d "$DB_NAME"
  log "pgbouncer ready on 127.0.0.1:$PGB_PORT, transaction pooling ($(elapsed "$t"))"
}

# ---------------------------------------------------------------- MariaDB
start_mariadb() {
  local t; t=$(now_ms)
  local owner; owner=$(is_root && echo mysql || id -un)
  is_root && ensure_user mysql /nonexistent
  if pid_matches "$MYPID" "$MYDATA"; then
    log "mariadb already running on $MYSQL_PORT"
  else
    port_open "$MYSQL_PORT" && die "port $MYSQL_PORT is taken by another process"
    if [ ! -d "$MYDATA/mysql" ]; then
      rm -rf "$MYROOT"; install -d -m 750 -o "$owner" "$MYROOT"
      mariadb-install-db --no-defaults --user="$owner" --datadir="$MYDATA" --auth-root-authentication-method=normal --skip-test-db \
        > "$MYROOT/install.log" 2>&1 || { tail -n 20 "$MYROOT/install.log" >&2; die "mariadb-install-db failed"; }
    fi
    rm -f "$MYPID" "$MYSOCK"
    setsid /usr/sbin/mariadbd --no-defaults --user="$owner" --datadir="$MYDATA" --port="$MYSQL_PORT" --bind-address=127.0.0.1 \
      --socket="$MYSOCK" --pid-file="$MYPID" --log-error="$MYROOT/error.log" --skip-name-resolve --skip-log-bin \
      $MY_DURABILITY --innodb-buffer-pool-size=64M --max-connections=200 \
      --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci > /dev/null 2>&1 < /dev/null &
  fi
  wait_until mariadb "$MYROOT/error.log" mariadb-admin --no-defaults --protocol=TCP -h127.0.0.1 -P"$MYSQL_PORT" -uroot status
  mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$MYSQL_PORT" -uroot -e "
    CREATE DATABASE IF NOT EXISTS \`$DB_NAME\`;
    CREATE USER IF NOT EXISTS '$DB_USER'@'%' IDENTIFIED BY '$DB_PASS';
    GRANT ALL PRIVILEGES ON *.* TO '$DB_USER'@'%';
    FLUSH PRIVILEGES;" >&2 || die "mariadb: creating database/user failed"
  log "mariadb ready on 127.0.0.1:$MYSQL_PORT ($(elapsed "$t"))"
}

# ---------------------------------------------------------------- Redis
start_redis() {
  local t; t=$(now_ms)
  mkdir -p "$REDISROOT"
  if pid_matches "$REDISROOT/redis.pid" ":$REDIS_PORT"; then
    log "redis already running on $REDIS_PORT"
  else
    port_open "$REDIS_PORT" && die "port $REDIS_PORT is taken by another process"
    rm -f "$REDISROOT/redis.pid"
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
      --pidfile "$REDISROOT/redis.pid" --logfile "$REDISROOT/redis.log" --dir "$REDISROOT" < /dev/null > /dev/null 2>&1 \
      || die "redis-server failed to start"
  fi
  wait_until redis "$REDISROOT/redis.log" sh -c "redis-cli -h 127.0.0.1 -p $REDIS_PORT ping | grep -q PONG"
  log "redis ready on 127.0.0.1:$REDIS_PORT ($(elapsed "$t"))"
}

http_up() { # any HTTP answer at all (dynalite answers 400 to a bare GET)
  if command -v curl >/dev/null; then [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/")" != 000 ]; else port_open "$1"; fi
}

# ---------------------------------------------------------------- dynalite
start_dynalite() {
  local t; t=$(now_ms)
  mkdir -p "$DYNROOT"
  if pid_matches "$DYNROOT/dynalite.pid" "--port $DYNAMO_PORT"; then
    log "dynalite already running on $DYNAMO_PORT"
  else
    port_open "$DYNAMO_PORT" && die "port $DYNAMO_PORT is taken by another process"
    # dynalite 4 exits on an uncaught ECONNRESET ("Error: aborted") when a client gives up on a request it is
    # still answering, which a test of a call budget does on a loaded machine; one such exit would fail every
    # dynalite test after it. So a supervising sh (its PID in the PID file; SIGTERM stops it and node) starts
    # it again on the same data at once, and says so in dynalite.log, which scripts/test.sh reports.
    setsid sh -c 'echo $$ > "$0"; shift; trap '"'"'kill "$child" 2>/dev/null; wait "$child"; exit 0'"'"' TERM
      while :; do "$@" & child=$!; wait "$child"; echo "[services] dynalite exited ($?); started again" >&2
        sleep 0.2; done' "$DYNROOT/dynalite.pid" \
      node "$DYN_NPM/node_modules/dynalite/cli.js" --host 127.0.0.1 --port "$DYNAMO_PORT" --path "$DYNROOT/db" \
      --createTableMs 0 --deleteTableMs 0 --updateTableMs 0 > "$DYNROOT/dynalite.log" 2>&1 < /dev/null &
  fi
  wait_until dynalite "$DYNROOT/dynalite.log" http_up "$DYNAMO_PORT"
  log "dynalite ready on 127.0.0.1:$DYNAMO_PORT ($(elapsed "$t"))"
}

# ---------------------------------------------------------------- main
T0=$(now_ms)
mkdir -p "$DATA"; chmod 755 "$BASE" "$DATA"   # service users must traverse these
install_packages
wants dynalite && install_dynalite
wants postgres && start_pg
wants postgres && start_pgbouncer
wants mariadb && start_mariadb
wants redis && start_redis
wants dynalite && start_dynalite

ENV_FILE=$BASE/env.sh
{
  if wants postgres; then
  echo "export IDEMPOTENCY_TEST_PG_URL='jdbc:postgresql://127.0.0.1:$PG_PORT/$DB_NAME'"
  echo "export IDEMPOTENCY_TEST_PG_USER='$DB_USER'"
  echo "export IDEMPOTENCY_TEST_PG_PASSWORD='$DB_PASS'"
  echo "export IDEMPOTENCY_TEST_PGBOUNCER_URL='jdbc:postgresql://127.0.0.1:$PGB_PORT/$DB_NAME'"
  fi
  if wants mariadb; then
  echo "export IDEMPOTENCY_TEST_MYSQL_URL='jdbc:mysql://127.0.0.1:$MYSQL_PORT/$DB_NAME'"
  echo "export IDEMPOTENCY_TEST_MARIADB_URL='jdbc:mariadb://127.0.0.1:$MYSQL_PORT/$DB_NAME?sslMode=disable'"
  echo "export IDEMPOTENCY_TEST_MYSQL_USER='$DB_USER'"
  echo "export IDEMPOTENCY_TEST_MYSQL_PASSWORD='$DB_PASS'"
  fi
  wants redis && \
  echo "export IDEMPOTENCY_TEST_REDIS_URL='redis://127.0.0.1:$REDIS_PORT'"
  if wants dynalite; then
  echo "export IDEMPOTENCY_TEST_DYNAMODB_ENDPOINT='http://127.0.0.1:$DYNAMO_PORT'"
  echo "export IDEMPOTENCY_TEST_DYNAMODB_REGION='us-east-1'"
  # for tests that run a dynalite of their own, to kill it with kill -9 (store-dynamodb's DynamoDbFaultsIT)
  echo "export IDEMPOTENCY_TEST_DYNALITE_CLI='$DYN_NPM/node_modules/dynalite/cli.js'"
  fi
  true
} > "$ENV_FILE"
cat "$ENV_FILE"
log "all services up in $(elapsed "$T0"); env also written to $ENV_FILE"
