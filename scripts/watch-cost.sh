#!/usr/bin/env bash
# watch-cost.sh — what 20 idle watchers cost: CPU of their runner processes
# and their supervisors over a window, as a percentage of one core: from
# /proc/PID/stat (utime+stime, in 10 ms ticks) and, finer, from each
# thread's /proc/PID/task/TID/schedstat (ns on the CPU).
#
#   scripts/watch-cost.sh [SECONDS]      (default 30)
#
# Builds hangdog into a temporary directory, makes 10 file watchers
# (inotify) and 10 process watchers (polled every 30 s) in a fresh home,
# lets them settle, measures, and removes everything it made.
set -euo pipefail
window=${1:-30}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/hdcost.XXXXXX)
export HANGDOG_HOME=$tmp/h
unset HANGDOG_SESSION
cleanup() {
	for w in $("$tmp/bin/hangdog" watch ls --json 2>/dev/null | python3 -c 'import json,sys; [print(w["spec"]["id"]) for w in json.load(sys.stdin)]' 2>/dev/null); do
		"$tmp/bin/hangdog" watch rm "$w" >/dev/null 2>&1 || true
	done
	sleep 1
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/bin" "$tmp/files"
(cd "$root" &&
	CGO_ENABLED=0 go build -tags lite -o "$tmp/bin/hangdog" ./cmd/hangdog &&
	CGO_ENABLED=0 go build -o "$tmp/bin/hangdog-full" ./cmd/hangdog &&
	CGO_ENABLED=0 go build -o "$tmp/bin/hangdog-supervisor" ./cmd/hangdog-supervisor &&
	CGO_ENABLED=0 go build -o "$tmp/bin/hangdog-watch" ./cmd/hangdog-watch)
hd=$tmp/bin/hangdog
for i in $(seq 1 10); do
	echo "$i" >"$tmp/files/f$i"
	"$hd" watch create --kind file "$tmp/files/f$i" --interval 1s >/dev/null
	"$hd" watch create --kind process "pid:$$" >/dev/null
done
sleep 3 # start-up is not idle

tasks=$("$hd" bg ls --json)
mapfile -t sups < <(python3 -c 'import json,sys; [print(t["supervisor_pid"]) for t in json.load(sys.stdin) if t["state"] == "running"]' <<<"$tasks")
mapfile -t runners < <(python3 -c 'import json,sys; [print(t["pid"]) for t in json.load(sys.stdin) if t["state"] == "running"]' <<<"$tasks")
ticks() { # sum of utime+stime of the pids given, in clock ticks (/proc/PID/stat)
	local sum=0 p f
	for p in "$@"; do
		f=$(cat "/proc/$p/stat" 2>/dev/null) || continue
		f=${f##*) }
		# shellcheck disable=SC2086
		set -- $f
		sum=$((sum + ${12} + ${13}))
	done
	echo "$sum"
}
nanos() { # CPU time of every thread of the pids given, in ns (/proc/PID/task/TID/schedstat): finer than ticks
	local sum=0 p t a
	for p in "$@"; do
		for t in /proc/"$p"/task/*/schedstat; do
			read -r a _ <"$t" 2>/dev/null || continue
			sum=$((sum + a))
		done
	done
	echo "$sum"
}
hz=$(getconf CLK_TCK)
rb=$(ticks "${runners[@]}") sb=$(ticks "${sups[@]}")
rnb=$(nanos "${runners[@]}") snb=$(nanos "${sups[@]}")
sleep "$window"
ra=$(ticks "${runners[@]}") sa=$(ticks "${sups[@]}")
rna=$(nanos "${runners[@]}") sna=$(nanos "${sups[@]}")
python3 - "$((ra - rb))" "$((sa - sb))" "$((rna - rnb))" "$((sna - snb))" "$hz" "$window" "${#runners[@]}" <<'PY'
import sys
r, s, rn, sn, hz, window, n = map(float, sys.argv[1:])
pct = lambda sec: 100 * sec / window
print(f"{int(n)} idle watchers over {window:.0f} s:")
print(f"  runners:     {rn/1e6:8.2f} ms CPU = {pct(rn/1e9):.4f} % of one core   (/proc/PID/stat: {r:.0f} ticks)")
print(f"  supervisors: {sn/1e6:8.2f} ms CPU = {pct(sn/1e9):.4f} % of one core   (/proc/PID/stat: {s:.0f} ticks)")
print(f"  in all:      {(rn+sn)/1e6:8.2f} ms CPU = {pct((rn+sn)/1e9):.4f} % of one core (goal < 0.5 %)")
PY
