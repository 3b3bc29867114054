#!/usr/bin/env bash
# Eight callers per key at once on the durable PostgreSQL and MariaDB of benchmarks/durable.sh (every commit flushed
# to disk): the peer-shaped request and the library's two-commit and one-transaction modes, each with the engine's
# default (a duplicate in flight is turned away) and with a bounded wait (DurableContended). Writes
# benchmarks/results/durable-contended-<label>-{postgresql,mariadb}.md and durable-contended-<label>-machine.txt
# (benchmarks/durable-run.sh runs it).
#
# Usage: bash benchmarks/durable-contended.sh <label> [rounds] [keys per kind and round]   (about a minute per server
# with the defaults, 5 rounds of 200 keys)
exec bash "$(dirname "$0")/durable-run.sh" contended "$@"
