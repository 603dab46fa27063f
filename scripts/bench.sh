#!/usr/bin/env bash
# make bench: hangdog against script(1), then the Go micro-benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/bench.py --bin bin/hangdog "$@"
go test -run '^$' -bench . -benchtime 200x ./supervisor/... 2>/dev/null | grep -E '^(Benchmark|ok|PASS)' || true
