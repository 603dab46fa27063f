#!/usr/bin/env bash
# fleet-local.sh [-nodes N] [-dir DIR]: starts a local NATS JetStream
# cluster (3 nodes by default) on 127.0.0.1 for trying hangdog's fleet
# (docs/fleet.md), and prints the events.sink to set. No nats-server binary
# is needed: the servers run inside scripts/fleetlocal, built from the same
# in-process helper the tests use. Type "kill 2" / "restart 2" to try a
# node's failure, "quit" (or ^C) to stop them all.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./scripts/fleetlocal "$@"
