#!/usr/bin/env bash
# The project's main job: builds the demo (and the modules it needs) and runs it. Any arguments go to the demo;
# --help lists them. Needs only Java 17+: the Maven wrapper fetches Maven, the store is embedded H2.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "building the demo (first time: a minute or two) ..." >&2
./mvnw -q -B -ntp -pl examples -am package -DskipTests
exec java -jar examples/target/demo.jar "$@"
