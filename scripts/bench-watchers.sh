#!/usr/bin/env bash
# bench-watchers.sh — what idle watchers cost, this tree against another
# revision (default main: one runner task, a supervisor and a runner
# process, per watcher) in the same run, then whether 500 watchers work.
#
#   scripts/bench-watchers.sh [SECONDS] [REF]     (default 60, main)
#
# For each build, in a fresh home: 25 file watchers and 25 http watchers
# (every 60 s, against a server on 127.0.0.1), a settle of 10 s, then over
# SECONDS: the processes of every running task (runners and supervisors,
# from `bg ls --json`), their total PSS (/proc/PID/smaps_rollup), threads,
# inotify instances (fds on anon_inode:inotify), CPU (utime+stime, and
# schedstat ns) and wake-ups (voluntary + involuntary context switches of
# every thread, /proc/PID/task/TID/status). Then, this tree only: 500
# watchers of 50 sessions (250 file, 250 http), all listed active, and a
# change to a file fires. Everything made is removed.
set -euo pipefail
window=${1:-60}
ref=${2:-main}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/hdwatchers.XXXXXX)
unset HANGDOG_SESSION HANGDOG_TASK_ID
server_pid=
cleanup() {
	for home in "$tmp"/home-*; do
		[ -d "$home" ] || continue
		HANGDOG_HOME=$home "$tmp/new/hangdog" bg ls --json --all 2>/dev/null |
			python3 -c 'import json,sys; [print(t["supervisor_pid"]) for t in json.load(sys.stdin) if t["state"] == "running" and t.get("supervisor_pid")]' 2>/dev/null |
			xargs -r kill 2>/dev/null || true
	done
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
	sleep 1
	rm -rf "$tmp"
}
trap cleanup EXIT

build() { # build DIR SRC: the three programs of the source tree SRC into DIR
	mkdir -p "$1"
	(cd "$2" &&
		CGO_ENABLED=0 go build -tags lite -o "$1/hangdog" ./cmd/hangdog &&
		CGO_ENABLED=0 go build -o "$1/hangdog-full" ./cmd/hangdog &&
		CGO_ENABLED=0 go build -o "$1/hangdog-supervisor" ./cmd/hangdog-supervisor)
}
build "$tmp/new" "$root"
mkdir -p "$tmp/src-old"
git -C "$root" archive "$ref" | tar -x -C "$tmp/src-old"
build "$tmp/old" "$tmp/src-old"

# The http watchers' server: a small page on 127.0.0.1.
python3 - "$tmp/port" <<'EOF' &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        b = b'{"status":"ok"}'
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b)
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
EOF
server_pid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(cat "$tmp/port")/status"

pids() { # the pids of every running task's command and supervisor in $HANGDOG_HOME
	"$1/hangdog" bg ls --json --all |
		python3 -c 'import json,sys
for t in json.load(sys.stdin):
    if t["state"] == "running":
        for k in ("pid", "supervisor_pid"):
            if t.get(k): print(t[k])'
}
snapshot() { # pids...: "pss_kb threads inotify ticks ns switches"
	python3 - "$@" <<'EOF'
import glob, os, sys
pss = threads = ino = ticks = ns = sw = 0
for p in sys.argv[1:]:
    try:
        for l in open(f"/proc/{p}/smaps_rollup"):
            if l.startswith("Pss:"): pss += int(l.split()[1])
        st = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
        ticks += int(st[11]) + int(st[12])
        for fd in glob.glob(f"/proc/{p}/fd/*"):
            try:
                if os.readlink(fd) == "anon_inode:inotify": ino += 1
            except OSError: pass
        for t in glob.glob(f"/proc/{p}/task/*"):
            threads += 1
            ns += int(open(f"{t}/schedstat").read().split()[0])
            for l in open(f"{t}/status"):
                if l.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")): sw += int(l.split()[1])
    except OSError: pass
print(pss, threads, ino, ticks, ns, sw)
EOF
}

measure() { # name bindir: 25 file + 25 http watchers, idle, measured over the window
	local name=$1 bin=$2
	export HANGDOG_HOME=$tmp/home-$name
	mkdir -p "$tmp/files-$name"
	for i in $(seq 1 25); do
		echo "$i" >"$tmp/files-$name/f$i"
		HANGDOG_SESSION=s$((i % 5)) "$bin/hangdog" watch create --kind file "$tmp/files-$name/f$i" >/dev/null
		HANGDOG_SESSION=s$((i % 5)) "$bin/hangdog" watch create --kind http "$url" --interval 60s >/dev/null
	done
	sleep 10 # start-up (and the file watchers' first check) is not idle
	mapfile -t ps < <(pids "$bin")
	read -r pss0 thr0 ino0 ticks0 ns0 sw0 < <(snapshot "${ps[@]}")
	sleep "$window"
	read -r pss thr ino ticks ns sw < <(snapshot "${ps[@]}")
	python3 - "$name" "${#ps[@]}" "$pss" "$thr" "$ino" $((ticks - ticks0)) $((ns - ns0)) $((sw - sw0)) "$window" <<'EOF'
import sys
name, procs, pss, thr, ino, ticks, ns, sw, win = sys.argv[1], *map(int, sys.argv[2:])
print(f"{name:6} processes {procs:4}  threads {thr:4}  PSS {pss/1024:7.1f} MB  inotify {ino:3}  "
      f"CPU {ns/1e9/win*100:6.3f} % of a core ({ticks} ticks)  wake-ups {sw/win:6.2f}/s")
EOF
	"$bin/hangdog" watch ls --all --json | python3 -c 'import json,sys; [print(w["spec"]["id"], w["spec"].get("owner", "")) for w in json.load(sys.stdin)]' |
		while read -r w owner; do
			HANGDOG_SESSION=$owner "$bin/hangdog" watch rm "$w" >/dev/null
		done
}

echo "50 idle watchers (25 file, 25 http every 60 s), measured over ${window}s; $ref = one runner per watcher"
measure "$ref" "$tmp/old"
measure this "$tmp/new"

# 500 watchers of 50 sessions work.
export HANGDOG_HOME=$tmp/home-500
mkdir -p "$tmp/files-500"
start=$(date +%s)
for i in $(seq 1 250); do
	echo "$i" >"$tmp/files-500/f$i"
	HANGDOG_SESSION=s$((i % 50)) "$tmp/new/hangdog" watch create --kind file "$tmp/files-500/f$i" --interval 1s >/dev/null
	HANGDOG_SESSION=s$((i % 50)) "$tmp/new/hangdog" watch create --kind http "$url" --interval 60s >/dev/null
done
made=$(($(date +%s) - start))
sleep 5
active=$("$tmp/new/hangdog" watch ls --all | grep -c ' active ' || true)
echo changed >"$tmp/files-500/f250"
fired=no
for _ in $(seq 100); do
	if "$tmp/new/hangdog" events --all --json | grep -q '"watch_fired"'; then
		fired=yes
		break
	fi
	sleep 0.1
done
mapfile -t ps < <(pids "$tmp/new")
read -r pss thr ino _ _ _ < <(snapshot "${ps[@]}")
echo "500 watchers of 50 sessions: made in ${made}s; $active listed active; a file change fired: $fired; processes ${#ps[@]}, threads $thr, PSS $((pss / 1024)) MB, inotify instances $ino"
