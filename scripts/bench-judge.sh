#!/usr/bin/env bash
# make bench-judge: the labelled corpora through the local judge — the
# tuning corpus (scripts/scenarios/corpus.yaml) and the held-out one
# (scripts/scenarios/heldout.yaml), the second held-out one of issue 23
# (scripts/scenarios/heldout2.yaml) and the third (scripts/scenarios/heldout3.yaml),
# which the judge is never tuned to.
# Arguments go to scripts/bench-judge.py, e.g. --markdown, --only 'pager|editor'.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
for corpus in scripts/scenarios/corpus.yaml scripts/scenarios/heldout.yaml scripts/scenarios/heldout2.yaml scripts/scenarios/heldout3.yaml; do
  echo "== $corpus"
  python3 scripts/bench-judge.py --bin bin/hangdog --corpus "$corpus" "$@" || status=$?
done
exit "$status"
