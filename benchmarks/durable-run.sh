#!/usr/bin/env bash
# Runs one of the durable benchmarks on the durable PostgreSQL and MariaDB of benchmarks/durable.sh (every commit
# flushed to disk; its own data directory and ports, and a PgBouncer on a port of its own, away from the test
# servers'): single-step (DurableSingleStep) or contended (DurableContended). Writes
# benchmarks/results/durable-<bench>-<label>-{postgresql,mariadb}.md and durable-<bench>-<label>-machine.txt (commit,
# durability settings, one fdatasync of the disk before and after, the load average before and after each server's
# run), which the results files also carry. Called by benchmarks/durable-single-step.sh and
# benchmarks/durable-contended.sh, whose headers say what each measures.
#
# Usage: bash benchmarks/durable-run.sh single-step|contended <label> [rounds] [amount per kind and round]
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${1:?usage: bash benchmarks/durable-run.sh single-step|contended <label> [rounds] [amount]}
label=${2:?usage: bash benchmarks/durable-run.sh single-step|contended <label> [rounds] [amount]}
rounds=${3:-5}
case "$bench" in
  single-step) amount=${4:-1500} main=DurableSingleStep args=(1,8) what="ms per kind, 1 and 8 threads" ;;
  contended) amount=${4:-200} main=DurableContended args=() what="keys per kind, 8 callers per key" ;;
  *) echo "durable-run.sh: unknown benchmark $bench (single-step or contended)" >&2; exit 2 ;;
esac

DURABLE_DIR=${IDEMPOTENCY_DURABLE_DIR:-${TMPDIR:-/tmp}/idempotency-durable}
DURABLE_PG_PORT=${IDEMPOTENCY_DURABLE_PG_PORT:-55433}
DURABLE_MYSQL_PORT=${IDEMPOTENCY_DURABLE_MYSQL_PORT:-53307}
DURABLE_PGBOUNCER_PORT=${IDEMPOTENCY_DURABLE_PGBOUNCER_PORT:-56434}
durable_env=$(IDEMPOTENCY_DURABLE=on IDEMPOTENCY_SERVICES='postgres mariadb' IDEMPOTENCY_SERVICES_DIR="$DURABLE_DIR" \
  IDEMPOTENCY_PG_PORT="$DURABLE_PG_PORT" IDEMPOTENCY_MYSQL_PORT="$DURABLE_MYSQL_PORT" \
  IDEMPOTENCY_PGBOUNCER_PORT="$DURABLE_PGBOUNCER_PORT" bash scripts/services.sh)
eval "$(sed 's/IDEMPOTENCY_TEST_/IDEMPOTENCY_DURABLE_/' <<< "$durable_env")"
pg_bin=/usr/lib/postgresql/${IDEMPOTENCY_PG_MAJOR:-15}/bin
psql_durable=("$pg_bin/psql" -X -q -tA -h 127.0.0.1 -p "$DURABLE_PG_PORT" -U postgres -d postgres)
"${psql_durable[@]}" -c "GRANT pg_checkpoint TO idem"   # DurableSingleStep checkpoints before each thread count
maria_durable=(mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$DURABLE_MYSQL_PORT" -uroot -N -B)

./mvnw -o -q -B -ntp -pl benchmarks -am package -DskipTests -Djacoco.skip=true
jar=benchmarks/target/benchmarks.jar
out=benchmarks/results
name=durable-$bench-$label
machine=$out/$name-machine.txt
mkdir -p "$out"
fdatasync() {
  "$pg_bin/pg_test_fsync" -s 2 -f "$DURABLE_DIR/fsync-probe" 2>/dev/null | awk '/^ +fdatasync/ {print $(NF-1), $NF; exit}'
  rm -f "$DURABLE_DIR/fsync-probe"
}
{
  echo "profile: $name ($rounds rounds of $amount $what)"
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- store-jdbc/src/main idempotency-core/src/main || echo ' (library changed since)')"
  echo "cpu: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "memory: $(free -g | awk '/Mem:/ {print $2}') GiB"
  echo "java: $(java -version 2>&1 | head -1)"
  echo "postgresql: $("$pg_bin/postgres" --version), mariadb: $(mariadbd --version 2>/dev/null | head -1)"
  echo "disk of the durable data: $(df -h --output=source,fstype "$DURABLE_DIR" | tail -1)"
  echo "durable postgresql: fsync=$("${psql_durable[@]}" -c 'SHOW fsync')" \
    "synchronous_commit=$("${psql_durable[@]}" -c 'SHOW synchronous_commit')" \
    "full_page_writes=$("${psql_durable[@]}" -c 'SHOW full_page_writes')" \
    "wal_sync_method=$("${psql_durable[@]}" -c 'SHOW wal_sync_method')"
  echo "durable mariadb: $("${maria_durable[@]}" -e 'SELECT CONCAT("innodb_flush_log_at_trx_commit=", @@innodb_flush_log_at_trx_commit, " innodb_doublewrite=", @@innodb_doublewrite, " innodb_flush_method=", @@innodb_flush_method)')"
  echo "one flush of this disk before the runs (pg_test_fsync -s 2, fdatasync): $(fdatasync)"
} > "$machine"

for server in POSTGRESQL_DURABLE MARIADB_DURABLE; do
  file=$out/$name-$(tr '[:upper:]' '[:lower:]' <<< "${server%_DURABLE}").md
  echo "load average before $server (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg)" >> "$machine"
  java -cp "$jar" "dev.idempotency.benchmarks.$main" "$server" "${args[@]}" "$rounds" "$amount" "$file"
  echo "load average after $server (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg)" >> "$machine"
done
# whether the peer-shaped completions were HOT updates (the statistics lag their transactions by up to a second)
sleep 2
echo "postgresql, peer-shaped completions: $("${psql_durable[@]}" -d idem -c "SELECT n_tup_upd || ' updates, ' || n_tup_hot_upd || ' HOT' FROM pg_stat_user_tables WHERE relname = 'bench_peer_actions'" 2>/dev/null || echo unknown)" >> "$machine"
echo "one flush of this disk after the runs (pg_test_fsync -s 2, fdatasync): $(fdatasync)" >> "$machine"
# each results file carries the machine's figures: the load and the flush time belong with the numbers
for f in "$out/$name"-postgresql.md "$out/$name"-mariadb.md; do
  { echo; echo '## Machine'; echo; sed 's/^/    /' "$machine"; } >> "$f"
done
cat "$machine"
