#!/usr/bin/env bash
# Runs the benchmarks and writes benchmarks/results/<profile>.json, the table of ratios <profile>.md, the memory
# figure, and the retry-storm CSV and chart (docs/benchmarks/).
#
# Usage: bash benchmarks/run.sh [quick|full] [extra JMH arguments]
#   quick  a few minutes on a 2-core machine: 1 fork, 2 warm-up and 3 measured iterations of 1 s, scale 10^4, 10^5
#   full   for publishing: 2 forks, 5 warm-up and 10 measured iterations of 2 s, scale up to 10^6
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${1:-quick}
shift || true

env_lines=$(bash scripts/services.sh)   # the same database servers the tests use
eval "$env_lines"
./mvnw -q -B -ntp -pl benchmarks -am package -DskipTests

case "$profile" in
  quick) jmh=(-f 1 -wi 2 -i 3 -w 1s -r 1s); existing=10000,100000 ;;
  full)  jmh=(-f 2 -wi 5 -i 10 -w 2s -r 2s); existing=10000,100000,1000000 ;;
  *) echo "usage: bash benchmarks/run.sh [quick|full] [JMH arguments]" >&2; exit 2 ;;
esac

jar=benchmarks/target/benchmarks.jar
out=benchmarks/results
mkdir -p "$out" docs/benchmarks
{
  echo "profile: $profile"
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "cpu: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "memory: $(free -g | awk '/Mem:/ {print $2}') GiB"
  echo "java: $(java -version 2>&1 | head -1)"
  echo "postgresql: $(psql --version 2>/dev/null || echo '?'), mariadb: $(mariadbd --version 2>/dev/null | head -1 || echo '?')"
} > "$out/$profile-machine.txt"

java -jar "$jar" 'ClaimBenchmark|ContendedClaimBenchmark|EngineBenchmark|ScaleBenchmark|ReaperBenchmark|FingerprintBenchmark|HttpPathBenchmark' \
  "${jmh[@]}" -p existing="$existing" -rf json -rff "$out/$profile.json" "$@" | tee "$out/$profile.txt"
java -cp "$jar" dev.idempotency.benchmarks.report.RatioReport "$out/$profile.json" "$out/$profile.md"
java -cp "$jar" dev.idempotency.benchmarks.MemoryFootprint 200000 | tee "$out/memory.txt"
java -cp "$jar" dev.idempotency.benchmarks.storm.RetryStormSimulation docs/benchmarks > /dev/null
echo "results: $out/$profile.md, $out/$profile.json, $out/memory.txt, docs/benchmarks/retry-storm.{csv,svg}"
