#!/usr/bin/env bash
# What one Bash call costs through the real Claude Code CLI (pinned in
# e2e/claudecode, run offline against the Go stand-in for its API), per way
# of wiring hangdog in: plain Claude Code (its own Bash, the control), the
# hook recipe (scripts/claude-code/settings.json: `hangdog hook`), `hangdog
# mcp` with the recipe's hooks, and `hangdog mcp` alone. Each session makes
# CALLS calls of `true` (default 20; the first is left out as warm-up);
# ROUNDS rounds (default 6) with the modes interleaved. Prints each mode's
# median per call and its ratio to plain, and the load while it ran.
# Targets (issue 27): hook and mcp(+hooks) <= 1.3x plain, mcp alone <= 1.0x.
# HANGDOG_E2E_COST_MODES="plain nullhook nullrewrite nullmcp prefix hook mcp mcp-alone" adds the
# references that say where the time goes (see e2e/claudecode/cost_test.go).
#
#   scripts/bench-claude-code.sh [ROUNDS] [CALLS]
set -euo pipefail
rounds=${1:-6}
calls=${2:-20}
cd "$(dirname "$0")/.."
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
out=$(HANGDOG_E2E_COST=$rounds HANGDOG_E2E_COST_CALLS=$calls go test -v -count=1 -timeout 60m -run '^TestCallCost$' ./e2e/claudecode/ 2>&1) || { printf '%s\n' "$out"; exit 1; }
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
grep '^cost ' <<<"$out" || { printf '%s\n' "$out"; exit 1; }
printf '%s rounds of %s calls per mode, modes interleaved; load average %s before, %s after\n' "$rounds" "$calls" "$load_before" "$load_after"
