#!/usr/bin/env bash
# The project's main job: builds the demo (and the modules it needs) and runs it. Any arguments go to the demo;
# --help lists them. Needs only Java 17+: the Maven wrapper fetches Maven, the store is embedded H2.
# `bash scripts/demo.sh grpc [flags]` runs the gRPC demo instead (examples/grpc): the same claim over gRPC.
# `bash scripts/demo.sh boot [Spring Boot arguments]` starts the Spring Boot example (examples/spring-boot) on
# port 8080, H2 in memory; `--spring.profiles.active=postgres` runs it on PostgreSQL (docs/spring-boot.md).
#
# The build is the quickest one (-Pdemo: no tests, no javadoc, source jars, format or static checks; the test
# command runs those), and it is skipped when the demo's jar is newer than every source and POM it is built
# from, so that a second call starts the demo at once.
set -euo pipefail
cd "$(dirname "$0")/.."
module=examples jar=examples/target/demo.jar boot=no
if [ "${1:-}" = grpc ]; then
  shift
  module=examples/grpc jar=examples/grpc/target/grpc-demo.jar
elif [ "${1:-}" = boot ]; then
  # no fat jar for the Boot app: its class path, written by the same build, stands in for the jar
  shift
  module=examples/spring-boot jar=examples/spring-boot/target/classpath.txt boot=yes
fi
# the newest input: any POM, main source or resource of the reactor (more than the demo needs, never less)
stale=yes
if [ -f "$jar" ]; then
  newer=$(find . -path ./.git -prune -o -path '*/target' -prune -o \
    \( -name pom.xml -o -path '*/src/main/*' -o -path './.mvn/*' \) -type f -newer "$jar" -print -quit)
  [ -z "$newer" ] && stale=no
fi
if [ "$stale" = yes ]; then
  echo "building the demo (a first build downloads what it needs: a few minutes; later ones: seconds) ..." >&2
  if [ "$boot" = yes ]; then
    # the reactor's last module is the Boot app, so its class path is the one left in the file
    ./mvnw -q -B -ntp -Pdemo -pl "$module" -am package dependency:build-classpath \
      -Dmdep.outputFile="$PWD/$jar.tmp" -Dmdep.includeScope=runtime
    mv "$jar.tmp" "$jar"
  else
    ./mvnw -q -B -ntp -Pdemo -pl "$module" -am package
  fi
fi
if [ "$boot" = yes ]; then
  exec java -cp "examples/spring-boot/target/classes:$(cat "$jar")" \
    dev.idempotency.examples.springboot.PaymentsApplication "$@"
fi
exec java -jar "$jar" "$@"
