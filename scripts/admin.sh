#!/usr/bin/env bash
# Finds the stuck idempotency records of a JDBC, Redis or DynamoDB store and settles one (idempotency-admin's
# command line):
#   bash scripts/admin.sh list STORE [--selection ABANDONED] [--scope S] [--limit N] [--after CURSOR] [--json]
#   bash scripts/admin.sh show STORE --scope S --key K [--json]
#   bash scripts/admin.sh release STORE --scope S --key K --reason TEXT [--dry-run] [--json]
#   bash scripts/admin.sh extend STORE --scope S --key K (--keep-for P7D | --keep-until INSTANT) --reason TEXT
#       [--dry-run] [--json]                          keep a record past its retention
#   bash scripts/admin.sh --help                      every option; docs/operations.md explains
# STORE is exactly one of:
#   --jdbc-url URL [--user U] [--password P] [--table T]
#   --redis-uri URI [--key-prefix P] [--index-shards N] [--timeout SECONDS]
#   --dynamodb-table T [--dynamodb-endpoint URL] [--region R] [--timeout SECONDS]
# Or from the environment: IDEMPOTENCY_ADMIN_JDBC_URL, _JDBC_USER, _JDBC_PASSWORD; IDEMPOTENCY_ADMIN_REDIS_URI;
# IDEMPOTENCY_ADMIN_DYNAMODB_TABLE, _DYNAMODB_ENDPOINT and AWS_REGION. DynamoDB's credentials: AWS_ACCESS_KEY_ID
# and AWS_SECRET_ACCESS_KEY, else the AWS SDK's default chain (profile, container or instance role).
# Exit status: 0 done, 1 refused (not found, complete, live lease, changed meanwhile; redrive; extend on a store that cannot),
# 2 bad usage or build error, 3 store unavailable.
# Builds the module (and the modules it needs) when its jar is missing or older than the sources, then runs it on
# the class path (the JDBC drivers, Lettuce and the AWS SDK included). Needs only Java 17+.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
module="$root/idempotency-admin"
jar=$(ls "$module"/target/idempotency-admin-*.jar 2>/dev/null | grep -v -e sources -e javadoc | head -1 || true)
stale=
if [ -z "$jar" ] || [ ! -f "$module/target/runtime-classpath.txt" ]; then
  stale=yes
elif [ -n "$(find "$module/src/main" "$module/pom.xml" "$root/store-jdbc/src/main" \
    "$root/store-redis-fenced/src/main" "$root/store-dynamodb/src/main" "$root/idempotency-core/src/main" \
    "$root/idempotency-api/src/main" -newer "$jar" -type f -print -quit)" ]; then
  stale=yes
fi
if [ -n "$stale" ]; then
  echo "building idempotency-admin (first time: a few minutes) ..." >&2
  # the tests, sources and javadoc jars are not needed to run the tool
  if ! (cd "$root" && ./mvnw -q -B -ntp -pl idempotency-admin -am package -Dmaven.test.skip=true \
      -Dmaven.source.skip=true -Dmaven.javadoc.skip=true -Dspotless.check.skip=true) >&2; then
    echo "admin: the build failed" >&2
    exit 2
  fi
  jar=$(ls "$module"/target/idempotency-admin-*.jar | grep -v -e sources -e javadoc | head -1)
fi
exec java -cp "$jar:$(cat "$module/target/runtime-classpath.txt")" dev.idempotency.admin.AdminCli "$@"
