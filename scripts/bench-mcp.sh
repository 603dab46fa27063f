#!/usr/bin/env bash
# Overhead of hangdog's MCP server: a bash tool call of `true` through
# `hangdog mcp` against `hangdog run -- true` from a shell, median over N
# calls of each (default 200), interleaved. Prints the difference in ms.
set -euo pipefail
n=${1:-200}
cd "$(dirname "$0")/.."
out=$(go test -run '^$' -bench BashTrueOverhead -benchtime="${n}x" -count=1 ./mcpserver/)
line=$(grep '^BenchmarkBashTrueOverhead' <<<"$out") || { printf '%s\n' "$out"; exit 1; }
metric() { awk -v u="$1" '{for (i = 2; i <= NF; i++) if ($i == u) print $(i-1)}' <<<"$line"; }
printf 'bash `true` via hangdog mcp: %s ms median; hangdog run -- true: %s ms median; difference: %s ms (over %s calls each)\n' \
	"$(metric mcp-median-ms)" "$(metric run-median-ms)" "$(metric overhead-ms)" "$n"
