#!/usr/bin/env bash
# webhook-load.sh — trigger links under load.
#
#   scripts/webhook-load.sh [N] [SENDERS]      (default 1000 20)
#
# N deliveries from SENDERS concurrent senders to one link, a kill -9 of
# the receiver halfway and its restart; every delivery that got a 202 must
# be exactly one event, made by a real watcher runner process. Prints the
# throughput and the p50/p99 latency of the 202s. It runs receiver's
# TestWebhookLoad (make test runs it with 200).
#
#   scripts/webhook-load.sh --storm [N]        (default 10000)
#
# A storm: N deliveries at once, each on a connection of its own, to one
# live link of a receiver with this machine's RLIMIT_NOFILE. No sender may
# get a 404 or a 500 (past its limits the receiver answers 503 or 429 with
# Retry-After, and the senders retry after it); prints the answers, the
# receiver's peak threads, peak RSS and peak PSS, and how long after the
# storm's end the last 202 was an event (at most a minute). It runs
# receiver's TestWebhookStorm (make test runs it with 800 deliveries and
# RLIMIT_NOFILE 256).
#
# The receiver and runner are separate processes of the test binary: the
# same receiver.Serve and watch.HomeRunner that `hangdog serve` and
# `hangdog __watch` run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
report=$(mktemp /tmp/hdload.XXXXXX)
log=$(mktemp /tmp/hdload.XXXXXX)
trap 'rm -f "$report" "$log"' EXIT
cd "$root"
if [ "${1:-}" = --storm ]; then
	run() {
		WEBHOOK_STORM_N=${2:-10000} WEBHOOK_STORM_NOFILE=0 WEBHOOK_LOAD_REPORT=$report \
			go test -count=1 -timeout 30m -v -run '^TestWebhookStorm$' ./receiver/
	}
else
	run() {
		WEBHOOK_LOAD_N=${1:-1000} WEBHOOK_LOAD_SENDERS=${2:-20} WEBHOOK_LOAD_REPORT=$report \
			go test -count=1 -v -run '^TestWebhookLoad$' ./receiver/
	}
fi
if ! run "$@" >"$log" 2>&1; then
	cat "$log"
	exit 1
fi
cat "$report"
