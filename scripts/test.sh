#!/usr/bin/env bash
# The project's test command: installs and starts every server the tests need (on loopback, see
# scripts/services.sh), then runs the whole build with its tests through the Maven wrapper on the default JDK
# (Java 17, the oldest the library supports). In the same build, each library module's unit tests run a second
# time on Temurin 25 (the newest LTS), on the classes compiled for Java 17, as a user's JDK 25 runs the published
# jars: both ends of the supported range are tested. The database suites (*IT) run once, on Java 17: they test the
# databases, not the JDK. Two modules build at a time (-T 2): most suites wait on servers, sleeps and child
# processes, not on the CPU.
#
# Usage: bash scripts/test.sh [extra Maven arguments, e.g. -Ptck-long]
# IDEMPOTENCY_JDK25_HOME names the second JDK (default: Temurin 25 where Debian's Temurin package puts it). Without
# it the second run is skipped with a message; in CI (CI=true) its absence fails the build.
# At the end, one line: minutes per phase and the totals of tests run, failed and skipped (from the reports).
set -euo pipefail
cd "$(dirname "$0")/.."

start=$SECONDS
phase_services=0 phase_build=0
dynlog=${IDEMPOTENCY_SERVICES_DIR:-${TMPDIR:-/tmp}/idempotency-services}/data/dynalite/dynalite.log
dynalite_exits() { local n; n=$(grep -c "dynalite exited" "$dynlog" 2>/dev/null) || true; echo "${n:-0}"; }
dyn_exits_before=$(dynalite_exits)
started=$(mktemp) # the reports this run wrote are newer than this file
summary() {
  local rc=$?
  local totals
  # a report's <testsuite> header counts no tests of @Nested classes; its <testcase> elements count them all
  totals=$(find . \( -path '*/target/surefire-reports*/TEST-*.xml' -o -path '*/target/failsafe-reports/TEST-*.xml' \) \
    -newer "$started" -print0 | xargs -0 -r awk '{ t += gsub(/<testcase /, "&"); s += gsub(/<skipped/, "&"); f += gsub(/<failure|<error[ >]/, "&") }
      END { printf "%d tests run, %d failed, %d skipped", t, f, s }')
  awk -v a="$phase_services" -v b="$phase_build" -v t="$((SECONDS - start))" -v totals="$totals" -v rc="$rc" 'BEGIN {
    printf "[test.sh] %s: services %.1f min, build and tests %.1f min, total %.1f min; %s\n",
      (rc == 0 ? "passed" : "FAILED (exit " rc ")"), a / 60, b / 60, t / 60, totals }' >&2
  # services.sh restarts a dynalite that exits; say so, since the tests in flight then met a refused connection
  local restarts=$(($(dynalite_exits) - dyn_exits_before))
  [ "$restarts" -gt 0 ] && echo "[test.sh] dynalite exited $restarts time(s) during the run and was started again (see $dynlog)" >&2
  rm -f "$started"
}
trap summary EXIT

# services.sh prints export lines on stdout (progress goes to stderr); a failure stops here, before Maven
env_lines=$(bash scripts/services.sh)
eval "$env_lines"
phase_services=$((SECONDS - start))

jdk25=${IDEMPOTENCY_JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
jdk25_args=()
if [ -x "$jdk25/bin/java" ]; then
  echo "[test.sh] the unit tests run on Java 17 and again on $("$jdk25/bin/java" -version 2>&1 | head -1)" >&2
  jdk25_args=("-Djdk25.home=$jdk25")
elif [ "${CI:-}" = true ]; then
  echo "[test.sh] no JDK at $jdk25: CI tests on Temurin 25 too; install it or set IDEMPOTENCY_JDK25_HOME" >&2
  exit 1
else
  echo "[test.sh] skipping the Temurin 25 run: no JDK at $jdk25 (set IDEMPOTENCY_JDK25_HOME)" >&2
fi

build_start=$SECONDS
./mvnw -B -ntp -T 2 verify "${jdk25_args[@]}" "$@" || { phase_build=$((SECONDS - build_start)); exit 1; }
phase_build=$((SECONDS - build_start))
