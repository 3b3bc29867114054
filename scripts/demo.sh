#!/usr/bin/env bash
# The project's main job: builds the demo (and the modules it needs) and runs it. Any arguments go to the demo;
# --help lists them. Needs only Java 17+: the Maven wrapper fetches Maven, the store is embedded H2.
# `bash scripts/demo.sh grpc [flags]` runs the gRPC demo instead (examples/grpc): the same claim over gRPC.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = grpc ]; then
  shift
  echo "building the gRPC demo (first time: a minute or two) ..." >&2
  ./mvnw -q -B -ntp -pl examples/grpc -am package -DskipTests
  exec java -jar examples/grpc/target/grpc-demo.jar "$@"
fi
echo "building the demo (first time: a minute or two) ..." >&2
./mvnw -q -B -ntp -pl examples -am package -DskipTests
exec java -jar examples/target/demo.jar "$@"
