#!/usr/bin/env bash
# End-to-end check of `hangdog mcp` with a client nobody on this project
# wrote: the MCP Inspector's CLI from npm (@modelcontextprotocol/inspector).
# It lists the tools (with --strict schema checks), calls bash, calls
# bg_tasks, and answers a prompt across three separate client sessions
# (bash detaches it, bg_send answers, bg_wait returns its exit code).
#
# Usage: scripts/mcp-inspector-e2e.sh
#   HANGDOG_BIN=path        test this binary instead of building one
#   INSPECTOR_VERSION=x.y.z Inspector to use (default below)
#   INSPECTOR_DIR=dir       install it there and keep it (default: a temp dir)
#
# Skips (exit 0, with a message) when npm/npx is not installed. Not part of
# `make test`: the Go tests cover the protocol without the network.
set -euo pipefail

INSPECTOR_VERSION=${INSPECTOR_VERSION:-2.12.0}

if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
	echo "mcp-inspector-e2e: SKIP: npm/node not installed (the Inspector is an npm package)"
	exit 0
fi
root=$(cd "$(dirname "$0")/.." && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/hdi.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A short home: unix socket paths are limited to 108 bytes.
export HANGDOG_HOME="$work/h"
export XDG_CONFIG_HOME="$work/c"

bin=${HANGDOG_BIN:-}
if [[ -z $bin ]]; then
	bin="$work/hangdog"
	(cd "$root" && go build -o "$bin" ./cmd/hangdog)
fi

dir=${INSPECTOR_DIR:-$work/inspector}
inspector="$dir/node_modules/.bin/mcp-inspector"
if [[ ! -x $inspector ]]; then
	echo "installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION into $dir"
	mkdir -p "$dir"
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if ((node_major < 22)); then
	echo "note: node $(node --version) is older than the Inspector asks for (>= 22); trying anyway"
fi

# Each call is a fresh Inspector session; the server gets the test's home
# through -e because the Inspector passes only a minimal environment.
inspect() {
	timeout 120 "$inspector" --cli -e "HANGDOG_HOME=$HANGDOG_HOME" -e "XDG_CONFIG_HOME=$XDG_CONFIG_HOME" "$bin" mcp "$@"
}

failures=0
check() { # check NAME WANT OUTPUT
	if [[ $3 == *"$2"* ]]; then
		echo "ok   $1"
	else
		echo "FAIL $1: want $2 in:"
		printf '%s\n' "$3" | sed 's/^/    /'
		failures=$((failures + 1))
	fi
}

out=$(inspect --method tools/list --strict)
for tool in bash bg_tasks bg_logs bg_send bg_wait bg_kill bg_detach; do
	check "tools/list has $tool" "\"name\": \"$tool\"" "$out"
done

out=$(inspect --method tools/call --tool-name bash --tool-arg 'command=echo hello-from-inspector')
check "bash returns output" "hello-from-inspector" "$out"
check "bash returns exit code" "Exit 0 after" "$out"

out=$(inspect --method tools/call --tool-name bg_tasks)
check "bg_tasks lists the run" "echo hello-from-inspector" "$out"

out=$(inspect --method tools/call --tool-name bash \
	--tool-arg "command=read -p 'Continue? [y/N] ' a; echo \"answered \$a\"; exit 3" --tool-arg timeout_seconds=2)
check "prompt comes back detached" "still running" "$out"
check "detach notice shows the prompt" "Continue? [y/N]" "$out"
id=$(printf '%s' "$out" | grep -o 'Task t[0-9]*' | head -1 | cut -d' ' -f2)

out=$(inspect --method tools/call --tool-name bg_send --tool-arg "id=$id" --tool-arg 'text="y\n"')
check "bg_send answers" "Sent 2 bytes to task $id" "$out"

out=$(inspect --method tools/call --tool-name bg_wait --tool-arg "id=$id" --tool-arg timeout_seconds=30)
check "bg_wait returns the exit code" "exit 3" "$out"
check "bg_wait returns the output" "answered y" "$out"

if ((failures > 0)); then
	echo "mcp-inspector-e2e: $failures check(s) failed"
	exit 1
fi
echo "mcp-inspector-e2e: all checks passed (Inspector $INSPECTOR_VERSION, node $(node --version))"
