#!/usr/bin/env bash
# bench-registry.sh — what reading a big home costs: an event log of
# 100,000 events (~47 MB) and 5,000 ended tasks, read by two builds of
# hangdog in the same run (BEFORE, a git revision, and this work tree),
# calls interleaved, and Claude Code's SessionStart and Stop hooks
# (`hangdog hook`, JSON on stdin). Prints the median wall time of each command and its
# peak RSS (the largest of the runs); `--version` is the floor, what
# starting the program costs.
#
#   scripts/bench-registry.sh [BEFORE-REV] [RUNS]   (defaults: main, 11)
#
# The home is made by writing the registry's files directly (the format of
# bgtasks.Event, Meta and Result), as years of use would leave them; two
# running tasks are supervised by this script's own shell, so reconciliation
# sees them alive. Everything it makes is removed on exit.
set -euo pipefail
before=${1:-main}
runs=${2:-11}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/hdreg.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/before" "$tmp/after" "$tmp/src"

git -C "$root" archive "$before" | tar -x -C "$tmp/src"
for side in before after; do
	src=$root
	[ "$side" = before ] && src=$tmp/src
	(cd "$src" &&
		CGO_ENABLED=0 go build -tags lite -o "$tmp/$side/hangdog" ./cmd/hangdog &&
		CGO_ENABLED=0 go build -o "$tmp/$side/hangdog-full" ./cmd/hangdog)
done

export HANGDOG_HOME=$tmp/home
unset HANGDOG_SESSION
mkdir -p "$tmp/app" # the project the tasks belong to, where the commands run
python3 - "$HANGDOG_HOME" "$$" "$tmp/app" <<'EOF'
import json, os, sys, datetime
home, pid, project = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.makedirs(home + "/tasks", mode=0o700)
os.makedirs(home + "/consumers", mode=0o700)
os.makedirs(home + "/logs", mode=0o700)
t0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
def ts(s):
    return (t0 + datetime.timedelta(seconds=s)).isoformat().replace("+00:00", "Z")
tail = "".join("line %d of the output of a test run that failed\n" % i for i in range(7))
with open(home + "/events.jsonl", "w") as f:
    for seq in range(1, 100001):
        f.write(json.dumps({"seq": seq, "time": ts(seq * 30), "kind": "exited", "task_id": "t%d" % (seq % 5000 + 1),
                            "command": "npm test -- --watch=false", "exit_code": 1, "duration_ms": 212000,
                            "tail": tail, "project": "/src/app"}, separators=(",", ":")) + "\n")
n = 5002
for i in range(1, n + 1):
    d = "%s/tasks/t%d" % (home, i)
    os.mkdir(d, 0o700)
    meta = {"id": "t%d" % i, "command": "npm test", "shell": True, "cwd": "/src/app", "started": ts(i * 600),
            "mode": "background", "state": "running", "supervisor_pid": pid, "pid": pid, "pgid": pid,
            "project": project}
    with open(d + "/meta.json", "w") as f:
        json.dump(meta, f, indent=2)
    with open(d + "/output.log", "w") as f:
        f.write(tail)
    if i in (10, n):  # two running tasks, an old one and the newest
        continue
    with open(d + "/result.json", "w") as f:
        json.dump({"state": "exited", "exit_code": 0, "ended": ts(i * 600 + 60), "output_bytes": len(tail)}, f, indent=2)
    end = (t0 + datetime.timedelta(seconds=i * 600 + 60)).timestamp()
    os.utime(d + "/result.json", (end, end))  # written when the task ended
with open(home + "/task-counter", "w") as f:
    f.write("%020d\n" % n)
open(home + "/lock", "w").close()
EOF
du -sh "$HANGDOG_HOME/events.jsonl" | sed 's/^/events.jsonl: /'

python3 - "$tmp" "$runs" <<'EOF'
import os, resource, statistics, subprocess, sys, time
tmp, runs = sys.argv[1], int(sys.argv[2])
home = os.environ["HANGDOG_HOME"]
cursor = home + "/consumers/bench.cursor"
claude_cursor = home + "/consumers/claude-bench.cursor"
cases = [
    ("--version (start-up floor)", ["--version"], None),
    ("events --consumer X (100 new)", ["events", "--consumer", "bench", "--all", "--json"], None),
    ("events --since LAST-1 --json", ["events", "--all", "--json", "--since", "99999"], None),
    ("events --json (all 100,000)", ["events", "--all", "--json"], None),
    ("bg ls (5,000 ended)", ["bg", "ls"], None),
    ("bg ls --json", ["bg", "ls", "--json"], None),
    ("bg ls --all (every task)", ["bg", "ls", "--all"], None),
    ("bg ls --json --all", ["bg", "ls", "--json", "--all"], None),
    # Claude Code's hooks as it runs them: JSON on stdin. SessionStart
    # learns where the log ends; Stop passes over 100 new events (none the
    # session's) and looks for the session's live tasks among 5,000 ended.
    ("hook SessionStart (100,000 ev.)", ["hook"], b'{"hook_event_name":"SessionStart","session_id":"bench","cwd":"/"}'),
    ("hook Stop (5,000 ended, 100 new)", ["hook"], b'{"hook_event_name":"Stop","session_id":"bench","cwd":"/"}'),
]
res = {}
for r in range(runs):
    for name, args, stdin in cases:
        for side in ("before", "after"):
            for c in (cursor, claude_cursor):
                with open(c, "w") as f:
                    f.write("99900\n")
            t = time.perf_counter()
            p = subprocess.Popen([tmp + "/" + side + "/hangdog"] + args, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, cwd=tmp + "/app",
                                 stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                 env=dict(os.environ, HANGDOG_STOP_WAIT="0"))
            if stdin:
                p.stdin.write(stdin)
                p.stdin.close()
            _, status, ru = os.wait4(p.pid, 0)
            dt = time.perf_counter() - t
            if status != 0:
                sys.exit("%s %s failed: %d" % (side, args, status))
            res.setdefault((name, side), []).append((dt, ru.ru_maxrss))
print("%-32s %12s %12s %8s %10s %10s" % ("command", "before ms", "after ms", "ratio", "before MB", "after MB"))
for name, _, _ in cases:
    b = res[(name, "before")]
    a = res[(name, "after")]
    bm = statistics.median(x[0] for x in b) * 1000
    am = statistics.median(x[0] for x in a) * 1000
    print("%-32s %12.1f %12.1f %8.3f %10.1f %10.1f" % (name, bm, am, am / bm,
          max(x[1] for x in b) / 1024, max(x[1] for x in a) / 1024))
EOF
