#!/usr/bin/env bash
# What one lease-renewal tick costs on a durable PostgreSQL, per lease, at 100 to 100,000 leases:
#   - starts the durable PostgreSQL of benchmarks/durable.sh (every commit flushed to disk), if not running;
#   - runs HeartbeatBenchmark on it (-p store=POSTGRESQL_DURABLE);
#   - writes benchmarks/results/heartbeat-durable-<label>.{json,txt,md} and heartbeat-durable-<label>-machine.txt
#     (commit, durability settings, one fdatasync of the disk, the load average before and after the run).
#
# Usage: bash benchmarks/heartbeat.sh <label> [extra JMH arguments]      (about 10 minutes on 2 cores)
# Compare two commits by running it on each with the same arguments and different labels.
set -euo pipefail
cd "$(dirname "$0")/.."
label=${1:?usage: bash benchmarks/heartbeat.sh <label> [JMH arguments]}
shift

DURABLE_DIR=${IDEMPOTENCY_DURABLE_DIR:-${TMPDIR:-/tmp}/idempotency-durable}
DURABLE_PG_PORT=${IDEMPOTENCY_DURABLE_PG_PORT:-55433}
durable_env=$(IDEMPOTENCY_DURABLE=on IDEMPOTENCY_SERVICES='postgres' IDEMPOTENCY_SERVICES_DIR="$DURABLE_DIR" \
  IDEMPOTENCY_PG_PORT="$DURABLE_PG_PORT" bash scripts/services.sh)
eval "$(sed 's/IDEMPOTENCY_TEST_/IDEMPOTENCY_DURABLE_/' <<< "$durable_env")"
pg_bin=/usr/lib/postgresql/${IDEMPOTENCY_PG_MAJOR:-15}/bin
psql_durable=("$pg_bin/psql" -X -q -tA -h 127.0.0.1 -p "$DURABLE_PG_PORT" -U postgres -d postgres)

./mvnw -q -B -ntp -o -pl benchmarks -am package -DskipTests
jar=benchmarks/target/benchmarks.jar
out=benchmarks/results
name=heartbeat-durable-$label
mkdir -p "$out"
{
  echo "profile: $name"
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- store-jdbc/src/main || echo ' (store-jdbc changed since)')"
  echo "cpu: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "memory: $(free -g | awk '/Mem:/ {print $2}') GiB"
  echo "java: $(java -version 2>&1 | head -1)"
  echo "postgresql: $("$pg_bin/postgres" --version)"
  echo "disk of the durable data: $(df -h --output=source,fstype "$DURABLE_DIR" | tail -1)"
  echo "durable postgresql: fsync=$("${psql_durable[@]}" -c 'SHOW fsync')" \
    "synchronous_commit=$("${psql_durable[@]}" -c 'SHOW synchronous_commit')" \
    "full_page_writes=$("${psql_durable[@]}" -c 'SHOW full_page_writes')" \
    "wal_sync_method=$("${psql_durable[@]}" -c 'SHOW wal_sync_method')" \
    "autovacuum=$("${psql_durable[@]}" -c 'SHOW autovacuum')"
  echo "one flush of this disk (pg_test_fsync -s 2, fdatasync):" \
    "$("$pg_bin/pg_test_fsync" -s 2 -f "$DURABLE_DIR/fsync-probe" 2>/dev/null | awk '/^ +fdatasync/ {print $(NF-1), $NF; exit}')"
  echo "load average before the run (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/$name-machine.txt"
rm -f "$DURABLE_DIR/fsync-probe"

java -jar "$jar" HeartbeatBenchmark -p store=POSTGRESQL_DURABLE -p inFlight=100,1000,10000,100000 \
  -f 1 -wi 1 -i 3 -w 1s -r 1s -rf json -rff "$out/$name.json" "$@" | tee "$out/$name.txt"
echo "load average after the run (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/$name-machine.txt"

# per lease: the median of the measured iterations' time per tick, divided by the leases renewed
python3 - "$out/$name.json" > "$out/$name.md" <<'PY'
import json, statistics, sys
rows = json.load(open(sys.argv[1]))
print("| leases per tick | median tick | per lease | iterations (µs per tick) |")
print("|---:|---:|---:|---|")
for r in rows:
    n = int(r["params"]["inFlight"])
    raw = [v for fork in r["primaryMetric"]["rawData"] for v in fork]
    assert r["primaryMetric"]["scoreUnit"] == "us/op"
    med = statistics.median(raw)
    tick = f"{med / 1000:,.1f} ms" if med >= 1000 else f"{med:,.0f} µs"
    print(f"| {n:,} | {tick} | {med / n:.1f} µs | {', '.join(f'{v:,.0f}' for v in raw)} |")
PY
cat "$out/$name-machine.txt" "$out/$name.md"
