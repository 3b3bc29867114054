#!/usr/bin/env bash
# Finds the retry-unsafe endpoints of an API from its OpenAPI document (idempotency-openapi's command line):
#   bash scripts/openapi-check.sh check path/to/openapi.yaml [--out DIR] ...   a verdict per operation, exit 1 on failing
#   bash scripts/openapi-check.sh routes path/to/openapi.yaml                   the servlet filter's route table
#   bash scripts/openapi-check.sh verify path/to/openapi.yaml --base-url http://127.0.0.1:8080 ...
#   bash scripts/openapi-check.sh gates path/to/openapi.yaml --base-url http://127.0.0.1:8080 --requests r.json
#   bash scripts/openapi-check.sh check their-openapi.json --third-party [--overlay overlay.yaml] [--lenient]
#   bash scripts/openapi-check.sh --help                                        every option; docs/openapi.md explains
# Exit status: 0 nothing failing, 1 failing operations, differing answers or failed gates, 2 unreadable input,
# usage or build error.
# Builds the module (and the modules it needs) when its jar is missing or older than the sources, then runs it on
# the module path. Paths are relative to the directory you run it from. Needs only Java 17+.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
module="$root/idempotency-openapi"
jar=$(ls "$module"/target/idempotency-openapi-*.jar 2>/dev/null | grep -v -e sources -e javadoc | head -1 || true)
stale=
if [ -z "$jar" ] || [ ! -f "$module/target/runtime-classpath.txt" ]; then
  stale=yes
elif [ -n "$(find "$module/src/main" "$root/idempotency-http/src/main" "$root/idempotency-core/src/main" \
    "$root/idempotency-api/src/main" -newer "$jar" -type f -print -quit)" ]; then
  stale=yes
fi
if [ -n "$stale" ]; then
  echo "building idempotency-openapi (first time: a few minutes) ..." >&2
  # the tests, sources and javadoc jars are not needed to run the tool
  if ! (cd "$root" && ./mvnw -q -B -ntp -pl idempotency-openapi -am package -Dmaven.test.skip=true \
      -Dmaven.source.skip=true -Dmaven.javadoc.skip=true -Dspotless.check.skip=true) >&2; then
    echo "openapi-check: the build failed" >&2
    exit 2
  fi
  jar=$(ls "$module"/target/idempotency-openapi-*.jar | grep -v -e sources -e javadoc | head -1)
fi
exec java --module-path "$jar:$(cat "$module/target/runtime-classpath.txt")" \
  --module dev.idempotency.openapi/dev.idempotency.openapi.OpenApiCli "$@"
