#!/usr/bin/env bash
# Idle cost of background tasks: starts N tasks running `sleep 300` (50 by
# default), lets them settle, then measures their supervisors over D seconds
# (30 by default) from /proc: CPU time (utime+stime of every thread, from
# /proc/PID/task/TID/stat) and wake-ups (context switches of every thread,
# voluntary + involuntary, from /proc/PID/task/TID/status).
#
#   scripts/idle-bench.sh [N] [D]        (HANGDOG=path/to/hangdog to pick a build)
#
# Goal (issue 14): all N together ≤ 1 % of one core, each ≤ 2 wake-ups/s.
set -euo pipefail
N=${1:-50}
D=${2:-30}
cd "$(dirname "$0")/.."
if [ -z "${HANGDOG:-}" ]; then
	make -s build >/dev/null
	HANGDOG=$PWD/bin/hangdog
fi
home=$(mktemp -d /tmp/hdidle.XXXXXX)
export HANGDOG_HOME=$home/h XDG_CONFIG_HOME=$home/c
cleanup() {
	for id in $("$HANGDOG" bg ls --json 2>/dev/null | python3 -c 'import json,sys; [print(t["id"]) for t in json.load(sys.stdin)]' 2>/dev/null); do
		"$HANGDOG" bg kill "$id" --grace 1s >/dev/null 2>&1 &
	done
	wait
	rm -rf "$home"
}
trap cleanup EXIT

for _ in $(seq "$N"); do "$HANGDOG" bg run -- sleep 300 >/dev/null; done
sleep 3 # past start-up (the image trim after 1 s, the first ticks)
pids=$(cat "$HANGDOG_HOME"/tasks/*/meta.json | python3 -c '
import json, sys
dec = json.JSONDecoder(); s = sys.stdin.read(); i = 0
while i < len(s):
    while i < len(s) and s[i].isspace(): i += 1
    if i >= len(s): break
    m, i = dec.raw_decode(s, i); print(m["supervisor_pid"])')

# snapshot prints "pid ticks switches" for each supervisor, summed over its threads.
snapshot() {
	for p in $pids; do
		t=0 c=0
		for d in /proc/$p/task/*; do
			# fields after the ")" : utime is field 14, stime 15 (1-based)
			s=$(sed "s/.*) //" "$d/stat" 2>/dev/null) || continue
			set -- $s
			t=$((t + ${12} + ${13}))
			v=$(awk '/^voluntary_ctxt_switches|^nonvoluntary_ctxt_switches/ {n += $2} END {print n}' "$d/status")
			c=$((c + v))
		done
		echo "$p $t $c"
	done
}
before=$(snapshot)
sleep "$D"
after=$(snapshot)
hz=$(getconf CLK_TCK)
python3 - "$D" "$hz" "$N" <<PY
import sys
d, hz, n = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
b = {l.split()[0]: list(map(int, l.split()[1:])) for l in """$before""".strip().splitlines()}
a = {l.split()[0]: list(map(int, l.split()[1:])) for l in """$after""".strip().splitlines()}
ticks = sum(a[p][0] - b[p][0] for p in a if p in b)
wakes = sorted((a[p][1] - b[p][1]) / d for p in a if p in b)
cpu = ticks / hz / d * 100
print(f"{len(wakes)} idle supervisors over {d:.0f} s: CPU {cpu:.2f} % of one core in all "
      f"({cpu / max(len(wakes), 1) * 1000:.1f} milli-% each)")
print(f"wake-ups per supervisor per second: median {wakes[len(wakes)//2]:.2f}, max {wakes[-1]:.2f}, mean {sum(wakes)/len(wakes):.2f}")
ok = cpu <= 1.0 and wakes[-1] <= 2.0
print("goal (≤ 1 % in all, ≤ 2 wake-ups/s each):", "met" if ok else "NOT met")
PY
