#!/usr/bin/env bash
# make bench-judge: the labelled scenario corpus through the local judge.
# Arguments go to scripts/bench-judge.py, e.g. --markdown, --only 'pager|editor'.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/bench-judge.py --bin bin/hangdog "$@"
