#!/usr/bin/env bash
# A single-step write request in every shape on the durable PostgreSQL and MariaDB of benchmarks/durable.sh (every
# commit flushed to disk): the bare request, the keyed floor, the peer-shaped request, each of the library's modes, a
# replay through the library, a peer-shaped replay and a primary-key read, at 1 and 8 threads, in alternating rounds
# (DurableSingleStep). Writes benchmarks/results/durable-single-step-<label>-{postgresql,mariadb}.md and
# durable-single-step-<label>-machine.txt (benchmarks/durable-run.sh runs it).
#
# Usage: bash benchmarks/durable-single-step.sh <label> [rounds] [ms per kind and round]   (about 3 minutes per
# server with the defaults, 5 rounds of 1500 ms)
exec bash "$(dirname "$0")/durable-run.sh" single-step "$@"
