#!/usr/bin/env bash
# The project's test command: installs and starts every server the tests need (on loopback, see
# scripts/services.sh), then runs the whole build with its tests through the Maven wrapper on the default JDK
# (Java 17, the oldest the library supports), then builds again and runs the unit tests on Temurin 25 (the newest
# LTS), so that both ends of the supported range are tested. The database suites (*IT) run once, on Java 17: they
# test the databases, not the JDK.
#
# Usage: bash scripts/test.sh [extra Maven arguments, e.g. -Ptck-long]
# IDEMPOTENCY_JDK25_HOME names the second JDK (default: Temurin 25 where Debian's Temurin package puts it). Without
# it the second run is skipped with a message; in CI (CI=true) its absence fails the build.
set -euo pipefail
cd "$(dirname "$0")/.."

# services.sh prints export lines on stdout (progress goes to stderr); a failure stops here, before Maven
env_lines=$(bash scripts/services.sh)
eval "$env_lines"

./mvnw -B -ntp verify "$@"

jdk25=${IDEMPOTENCY_JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
if [ -x "$jdk25/bin/javac" ]; then
  echo "[test.sh] the unit tests again, on $("$jdk25/bin/java" -version 2>&1 | head -1)" >&2
  # source and javadoc jars and the format check were made and passed above; this run compiles and tests the
  # library's modules: not the examples and the benchmarks (applications of them, tested above), nor the
  # OpenAPI checker, whose tests run the examples' demo API, nor the Spring Boot auto-configuration that can
  # use the checker (and its starter), so that the whole run stays within CI's bound
  # nor the TCK on H2's database clock (tag database-clock), which waits for real leases and tests H2's clock,
  # not the JDK's (the TCK on H2 with the library's clock runs here)
  JAVA_HOME="$jdk25" ./mvnw -B -ntp test -Dmaven.source.skip=true -Dmaven.javadoc.skip=true \
    -Dspotless.check.skip=true -Dsurefire.excludedGroups=slow,database-clock \
    -pl '!examples,!examples/spring-boot,!examples/grpc,!benchmarks,!idempotency-openapi,!idempotency-spring-boot-autoconfigure,!idempotency-spring-boot-starter' \
    "$@"
elif [ "${CI:-}" = true ]; then
  echo "[test.sh] no JDK at $jdk25: CI tests on Temurin 25 too; install it or set IDEMPOTENCY_JDK25_HOME" >&2
  exit 1
else
  echo "[test.sh] skipping the Temurin 25 run: no JDK at $jdk25 (set IDEMPOTENCY_JDK25_HOME)" >&2
fi
