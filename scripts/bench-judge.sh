#!/usr/bin/env bash
# make bench-judge: both labelled corpora through the local judge — the
# tuning corpus (scripts/scenarios/corpus.yaml) and the held-out one
# (scripts/scenarios/heldout.yaml) and the second held-out one of issue 23
# (scripts/scenarios/heldout2.yaml), which the judge is never tuned to.
# Arguments go to scripts/bench-judge.py, e.g. --markdown, --only 'pager|editor'.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
for corpus in scripts/scenarios/corpus.yaml scripts/scenarios/heldout.yaml scripts/scenarios/heldout2.yaml; do
  echo "== $corpus"
  python3 scripts/bench-judge.py --bin bin/hangdog --corpus "$corpus" "$@" || status=$?
done
exit "$status"
