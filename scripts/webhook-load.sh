#!/usr/bin/env bash
# webhook-load.sh — trigger links under load: N deliveries (default 1,000)
# from 20 concurrent senders to one link, a kill -9 of the receiver
# halfway and its restart; every delivery that got a 202 must be exactly
# one event, made by a real watcher runner process. Prints the throughput
# and the p50/p99 latency of the 202s.
#
#   scripts/webhook-load.sh [N] [SENDERS]      (default 1000 20)
#
# It runs receiver's TestWebhookLoad (make test runs it with 200), whose
# receiver and runner are separate processes of the test binary: the same
# receiver.Serve and watch.Runner that `hangdog serve` and `hangdog __watch`
# run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
report=$(mktemp /tmp/hdload.XXXXXX)
log=$(mktemp /tmp/hdload.XXXXXX)
trap 'rm -f "$report" "$log"' EXIT
cd "$root"
if ! WEBHOOK_LOAD_N=${1:-1000} WEBHOOK_LOAD_SENDERS=${2:-20} WEBHOOK_LOAD_REPORT=$report \
	go test -count=1 -v -run '^TestWebhookLoad$' ./receiver/ >"$log" 2>&1; then
	cat "$log"
	exit 1
fi
cat "$report"
