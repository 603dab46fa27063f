#!/usr/bin/env bash
# What one shell call costs through the real Codex CLI (pinned in e2e/codex,
# run offline against the Go stand-in for its Responses API): Codex's own
# shell tool (exec_command, the control), hangdog's MCP bash tool as
# scripts/mcp-config/codex-config.toml configures it, and the nullmcp
# reference (an MCP server whose tool answers at once: Codex's own cost of
# an MCP tool call, the floor under mcp). Each session makes CALLS calls of
# `true` (default 20; the first is left out as warm-up); ROUNDS rounds
# (default 6) with the modes interleaved. Prints each mode's median per call
# and its ratio to Codex's own tool, and the load while it ran.
# Target (issue 27): mcp <= 0.8x codex.
# HANGDOG_E2E_COST_MODES="codex mcp" picks modes (see e2e/codex/cost_test.go).
#
#   scripts/bench-codex.sh [ROUNDS] [CALLS]
set -euo pipefail
rounds=${1:-6}
calls=${2:-20}
cd "$(dirname "$0")/.."
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
out=$(HANGDOG_E2E_COST=$rounds HANGDOG_E2E_COST_CALLS=$calls go test -v -count=1 -timeout 60m -run '^TestCallCost$' ./e2e/codex/ 2>&1) || { printf '%s\n' "$out"; exit 1; }
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
grep '^cost ' <<<"$out" || { printf '%s\n' "$out"; exit 1; }
printf '%s rounds of %s calls per mode, modes interleaved; load average %s before, %s after\n' "$rounds" "$calls" "$load_before" "$load_after"
