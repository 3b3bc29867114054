#!/usr/bin/env bash
# A single-step write request in every shape on the durable PostgreSQL and MariaDB of benchmarks/durable.sh (every
# commit flushed to disk): the bare request, the keyed floor, the peer-shaped request, each of the library's modes, a
# replay through the library, a peer-shaped replay and a primary-key read, at 1 and 8 threads, in alternating rounds
# (DurableSingleStep). Writes benchmarks/results/durable-single-step-<label>-{postgresql,mariadb}.md and
# durable-single-step-<label>-machine.txt (commit, durability settings, one fdatasync of the disk before and after,
# the load average before and after each server's run).
#
# Usage: bash benchmarks/durable-single-step.sh <label> [rounds] [ms per kind and round]   (about 3 minutes per
# server with the defaults, 5 rounds of 1500 ms)
set -euo pipefail
cd "$(dirname "$0")/.."
label=${1:?usage: bash benchmarks/durable-single-step.sh <label> [rounds] [ms per kind and round]}
rounds=${2:-5}
millis=${3:-1500}

DURABLE_DIR=${IDEMPOTENCY_DURABLE_DIR:-${TMPDIR:-/tmp}/idempotency-durable}
DURABLE_PG_PORT=${IDEMPOTENCY_DURABLE_PG_PORT:-55433}
DURABLE_MYSQL_PORT=${IDEMPOTENCY_DURABLE_MYSQL_PORT:-53307}
durable_env=$(IDEMPOTENCY_DURABLE=on IDEMPOTENCY_SERVICES='postgres mariadb' IDEMPOTENCY_SERVICES_DIR="$DURABLE_DIR" \
  IDEMPOTENCY_PG_PORT="$DURABLE_PG_PORT" IDEMPOTENCY_MYSQL_PORT="$DURABLE_MYSQL_PORT" bash scripts/services.sh)
eval "$(sed 's/IDEMPOTENCY_TEST_/IDEMPOTENCY_DURABLE_/' <<< "$durable_env")"
pg_bin=/usr/lib/postgresql/${IDEMPOTENCY_PG_MAJOR:-15}/bin
psql_durable=("$pg_bin/psql" -X -q -tA -h 127.0.0.1 -p "$DURABLE_PG_PORT" -U postgres -d postgres)
"${psql_durable[@]}" -c "GRANT pg_checkpoint TO idem"   # DurableSingleStep checkpoints before each thread count
maria_durable=(mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$DURABLE_MYSQL_PORT" -uroot -N -B)

./mvnw -o -q -B -ntp -pl benchmarks -am package -DskipTests -Djacoco.skip=true
jar=benchmarks/target/benchmarks.jar
out=benchmarks/results
name=durable-single-step-$label
machine=$out/$name-machine.txt
mkdir -p "$out"
fdatasync() {
  "$pg_bin/pg_test_fsync" -s 2 -f "$DURABLE_DIR/fsync-probe" 2>/dev/null | awk '/^ +fdatasync/ {print $(NF-1), $NF; exit}'
  rm -f "$DURABLE_DIR/fsync-probe"
}
{
  echo "profile: $name ($rounds rounds of $millis ms per kind, 1 and 8 threads)"
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
  java -cp "$jar" dev.idempotency.benchmarks.DurableSingleStep "$server" 1,8 "$rounds" "$millis" "$file"
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
