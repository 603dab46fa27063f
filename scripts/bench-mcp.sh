#!/usr/bin/env bash
# Overhead of hangdog's MCP server: a bash tool call of `true` through
# `hangdog mcp` (the official Go SDK client over real pipes) against `bash -c
# true` exec'd directly, side by side, and `hangdog run -- true` from a shell:
# N of each (default 200), interleaved. Prints the medians, the ratio
# mcp/bash (issue 13's goal: ≤ 1.5) and the load while it ran.
set -euo pipefail
n=${1:-200}
cd "$(dirname "$0")/.."
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
out=$(go test -run '^$' -bench BashTrueOverhead -benchtime="${n}x" -count=1 ./mcpserver/)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
line=$(grep '^BenchmarkBashTrueOverhead' <<<"$out") || { printf '%s\n' "$out"; exit 1; }
metric() { awk -v u="$1" '{for (i = 2; i <= NF; i++) if ($i == u) print $(i-1)}' <<<"$line"; }
printf 'bash `true` via hangdog mcp: %s ms median; bash -c true exec'"'"'d directly: %s ms median; ratio %s (goal <= 1.5)\n' \
	"$(metric mcp-median-ms)" "$(metric bash-median-ms)" "$(metric mcp/bash)"
printf 'an MCP ping (the protocol round trip): %s ms median; hangdog run -- true: %s ms median (mcp minus run: %s ms)\n' \
	"$(metric ping-median-ms)" "$(metric run-median-ms)" "$(metric mcp-run-ms)"
printf '%s of each, interleaved; load average %s before, %s after\n' "$n" "$load_before" "$load_after"
