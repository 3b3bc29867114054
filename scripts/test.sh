#!/usr/bin/env bash
# The project's test command: installs and starts every server the tests need (on loopback, see
# scripts/services.sh), then runs the whole build with its tests through the Maven wrapper.
#
# Usage: bash scripts/test.sh [extra Maven arguments, e.g. -Ptck-long]
set -euo pipefail
cd "$(dirname "$0")/.."

# services.sh prints export lines on stdout (progress goes to stderr); a failure stops here, before Maven
env_lines=$(bash scripts/services.sh)
eval "$env_lines"

exec ./mvnw -B -ntp verify "$@"
