#!/usr/bin/env bash
# The long test command: only the suites tagged "slow" (-Ptck-long -Dgroups=slow), which the default build leaves
# out: the TCK's seeded long runs on every store, its mutant matrix, the outage gates, and the failover tests that
# fault a deployment several times (Patroni, Redis Sentinel and Cluster, Galera's node loss). The default suites are
# scripts/test.sh's job; this runs after it, not instead of it. Patroni and etcd must be installed first
# (scripts/install-patroni.sh, root).
#
# Two phases, one after the other, each through scripts/test.sh (which starts the servers):
#   1. the TCK module and every store but DynamoDB, two modules at a time;
#   2. DynamoDB's slow suites alone. dynalite answers one conditional write at a time (about 4 ms each on two
#      cores); beside the JDBC long runs it once left claims unanswered past the store's 5 s call bound. Here its
#      sequential long run has 30 histories per unit instead of 60 (idempotency.tck.histories): 600 histories of
#      200 calls, 120,000 calls; with the concurrent long run, 11 to 12.5 minutes (the full 240,000 alone took 22.5).
#      The gate keeps its full 1,200 races (4 minutes).
# Measured on two cores, on clean clones: phase 1 15.9 minutes, phase 2 14.8 and 16.7 (its suites and their build).
# Every suite runs even when one before it failed (-Dmaven.test.failure.ignore: a failing unit test would otherwise
# keep its module's database suites from running at all); the failures are then counted from the reports, and any
# failure, or a build that broke, fails the run.
#
# Usage: bash scripts/test-long.sh
set -uo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
slow=(-Ptck-long -Dgroups=slow -Dmaven.test.failure.ignore=true --fail-at-end)
rc=0
started=$(mktemp) # the reports this run wrote are newer than this file
trap 'rm -f "$started"' EXIT

echo "[test-long] phase 1: the TCK module and the JDBC and Redis stores (and the Prometheus alert test)" >&2
bash scripts/test.sh "${slow[@]}" -pl tck,store-jdbc,store-redis-fenced,idempotency-micrometer -am || rc=$?
phase1=$((SECONDS - start))

echo "[test-long] phase 2: the DynamoDB store, alone on dynalite" >&2
# -am builds the modules it needs; the test filters keep their slow suites (the TCK's mutant matrix) from
# running a second time. Only failsafe's: a -Dtest pattern that matched the *IT suites would make surefire run
# them too (it overrides surefire's includes), and DynamoDB's has no slow unit test.
bash scripts/test.sh "${slow[@]}" -pl store-dynamodb -am -Didempotency.tck.histories=30 \
  -Dtest=none -Dit.test='DynamoDb*IT' \
  -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false || { r=$?; [ "$rc" -ne 0 ] || rc=$r; }

failed=$(find . \( -path '*/target/surefire-reports*/TEST-*.xml' -o -path '*/target/failsafe-reports/TEST-*.xml' \) \
  -newer "$started" -print0 | xargs -0 -r grep -l -E '<failure|<error[ >]' | sed 's|.*/TEST-||; s|\.xml$||')
if [ -n "$failed" ]; then
  echo "[test-long] failing suites:" >&2
  echo "$failed" | sed 's/^/  /' >&2
  [ "$rc" -ne 0 ] || rc=1
fi
awk -v a="$phase1" -v t="$((SECONDS - start))" -v rc="$rc" 'BEGIN {
  printf "[test-long] %s: phase 1 %.1f min, phase 2 %.1f min, total %.1f min\n",
    (rc == 0 ? "passed" : "FAILED (exit " rc ")"), a / 60, (t - a) / 60, t / 60 }' >&2
exit "$rc"
