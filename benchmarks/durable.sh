#!/usr/bin/env bash
# What the library costs a single-step write request with durability on, as users run their databases, beside the
# same with durability off, in one run:
#   - starts a durable PostgreSQL and MariaDB (every commit flushed to the machine's disk) in a directory and on
#     ports of their own, beside the test servers (durability off) that scripts/services.sh starts;
#   - runs SingleStepBenchmark on all four, and WalPerRequest on the durable PostgreSQL;
#   - writes benchmarks/results/durable.{json,txt,md}, durable-machine.txt and wal.txt.
#
# Usage: bash benchmarks/durable.sh [extra JMH arguments]      (about 6 minutes on 2 cores)
# Stop the durable servers afterwards with:
#   IDEMPOTENCY_SERVICES_DIR=${TMPDIR:-/tmp}/idempotency-durable bash scripts/services-stop.sh --purge
set -euo pipefail
cd "$(dirname "$0")/.."

DURABLE_DIR=${IDEMPOTENCY_DURABLE_DIR:-${TMPDIR:-/tmp}/idempotency-durable}
DURABLE_PG_PORT=${IDEMPOTENCY_DURABLE_PG_PORT:-55433}
DURABLE_MYSQL_PORT=${IDEMPOTENCY_DURABLE_MYSQL_PORT:-53307}

eval "$(IDEMPOTENCY_SERVICES='postgres mariadb' bash scripts/services.sh)"
# the same script, durable, its variables renamed so that both sets are in the environment at once
durable_env=$(IDEMPOTENCY_DURABLE=on IDEMPOTENCY_SERVICES='postgres mariadb' IDEMPOTENCY_SERVICES_DIR="$DURABLE_DIR" \
  IDEMPOTENCY_PG_PORT="$DURABLE_PG_PORT" IDEMPOTENCY_MYSQL_PORT="$DURABLE_MYSQL_PORT" bash scripts/services.sh)
eval "$(sed 's/IDEMPOTENCY_TEST_/IDEMPOTENCY_DURABLE_/' <<< "$durable_env")"

pg_bin=/usr/lib/postgresql/${IDEMPOTENCY_PG_MAJOR:-15}/bin
psql_durable=("$pg_bin/psql" -X -q -tA -h 127.0.0.1 -p "$DURABLE_PG_PORT" -U postgres -d postgres)
"${psql_durable[@]}" -c "GRANT pg_checkpoint TO idem"   # WalPerRequest checkpoints before each kind
maria_durable=(mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$DURABLE_MYSQL_PORT" -uroot -N -B)

./mvnw -q -B -ntp -pl benchmarks -am package -DskipTests
jar=benchmarks/target/benchmarks.jar
out=benchmarks/results
mkdir -p "$out"
{
  echo "profile: durable"
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
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
  echo "test servers (durability off): fsync=off synchronous_commit=off full_page_writes=off;" \
    "innodb_flush_log_at_trx_commit=0 innodb_doublewrite=0"
  echo "one flush of this disk (pg_test_fsync -s 2, fdatasync):" \
    "$("$pg_bin/pg_test_fsync" -s 2 -f "$DURABLE_DIR/fsync-probe" 2>/dev/null | awk '/^ +fdatasync/ {print $(NF-1), $NF; exit}')"
} > "$out/durable-machine.txt"
rm -f "$DURABLE_DIR/fsync-probe"
cat "$out/durable-machine.txt"

java -jar "$jar" 'SingleStepBenchmark' -f 1 -wi 3 -i 6 -w 1s -r 2s \
  -rf json -rff "$out/durable.json" "$@" | tee "$out/durable.txt"
java -cp "$jar" dev.idempotency.benchmarks.report.RatioReport "$out/durable.json" "$out/durable.md"
java -cp "$jar" dev.idempotency.benchmarks.WalPerRequest POSTGRESQL_DURABLE 5000 "$out/wal.txt"
echo "results: $out/durable.md, $out/durable.json, $out/durable-machine.txt, $out/wal.txt"
