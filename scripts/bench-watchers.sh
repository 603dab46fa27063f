#!/usr/bin/env bash
# bench-watchers.sh — what idle watchers cost: this tree, another revision
# (default main) and a single-scheduler reference, in the same run; then
# whether 500 watchers work.
#
#   scripts/bench-watchers.sh [SECONDS] [REV|none]     (default 60, main)
#
# Side by side, each build in a fresh home: 25 file watchers and 25 http
# watchers (every 60 s, against a server on 127.0.0.1), a settle of 10 s,
# then over the same SECONDS: the processes of every running task (runners
# and supervisors, from `bg ls --json`), their total PSS
# (/proc/PID/smaps_rollup), threads, inotify instances (fds on
# anon_inode:inotify), CPU (utime+stime, and schedstat ns) and wake-ups
# (voluntary + involuntary context switches of every thread,
# /proc/PID/task/TID/status). The reference (scripts/bench-watchers/refsched:
# one process, one inotify instance, one timer heap, one http.Client,
# nothing logged) gets the same 25 files and the same URL 25 times and is
# measured the same way over the same window; the ratios are each build's
# over the reference's. Then, this tree only: 500 watchers of 50 sessions
# (250 file, 250 http), all listed active, and a change to a file fires.
# Everything made is removed.
set -euo pipefail
window=${1:-60}
ref=${2:-main}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/hdwatchers.XXXXXX)
unset HANGDOG_SESSION HANGDOG_TASK_ID
server_pid=
ref_pid=
cleanup() {
	for home in "$tmp"/home-*; do
		[ -d "$home" ] || continue
		HANGDOG_HOME=$home "$tmp/new/hangdog" bg ls --json --all 2>/dev/null |
			python3 -c 'import json,sys; [print(t["supervisor_pid"]) for t in json.load(sys.stdin) if t["state"] == "running" and t.get("supervisor_pid")]' 2>/dev/null |
			xargs -r kill 2>/dev/null || true
	done
	[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
	[ -n "$ref_pid" ] && kill "$ref_pid" 2>/dev/null || true
	sleep 1
	rm -rf "$tmp"
}
trap cleanup EXIT

build() { # build DIR SRC: the programs of the source tree SRC into DIR
	mkdir -p "$1"
	(cd "$2" &&
		CGO_ENABLED=0 go build -tags lite -o "$1/hangdog" ./cmd/hangdog &&
		CGO_ENABLED=0 go build -o "$1/hangdog-full" ./cmd/hangdog &&
		CGO_ENABLED=0 go build -o "$1/hangdog-supervisor" ./cmd/hangdog-supervisor &&
		if [ -d cmd/hangdog-watch ]; then CGO_ENABLED=0 go build -o "$1/hangdog-watch" ./cmd/hangdog-watch; fi)
}
build "$tmp/new" "$root"
(cd "$root" && CGO_ENABLED=0 go build -o "$tmp/refsched" ./scripts/bench-watchers/refsched)
if [ "$ref" != none ]; then
	mkdir -p "$tmp/src-old"
	git -C "$root" archive "$ref" | tar -x -C "$tmp/src-old"
	build "$tmp/old" "$tmp/src-old"
fi

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

window_of() { # name pids...: the pids measured over the window, one line (and one per process when they are few)
	local name=$1 p i pss thr ino ticks ns sw ppss pns psw pns0 psw0 per=()
	shift
	if [ $# -le 4 ]; then for p in "$@"; do per+=("$(snapshot "$p")"); done; fi
	read -r _ _ _ ticks0 ns0 sw0 < <(snapshot "$@")
	sleep "$window"
	read -r pss thr ino ticks ns sw < <(snapshot "$@")
	python3 - "$name" "$#" "$pss" "$thr" "$ino" $((ticks - ticks0)) $((ns - ns0)) $((sw - sw0)) "$window" "$tmp/results-$name" <<'EOF'
import sys
name, (procs, pss, thr, ino, ticks, ns, sw, win), out = sys.argv[1], map(int, sys.argv[2:10]), sys.argv[10]
print(f"{name:9} processes {procs:4}  threads {thr:4}  PSS {pss/1024:7.1f} MB  inotify {ino:3}  "
      f"CPU {ns/1e9/win*100:6.3f} % of a core ({ticks} ticks)  wake-ups {sw/win:6.2f}/s")
open(out, "w").write(f"{name} {pss} {ns} {sw}\n")
EOF
	for ((i = 0; i < ${#per[@]}; i++)); do
		p=${*:i+1:1}
		read -r _ _ _ _ pns0 psw0 <<<"${per[i]}"
		read -r ppss _ _ _ pns psw < <(snapshot "$p")
		awk -v c="$(cat "/proc/$p/comm" 2>/dev/null)" -v pss="$ppss" -v ns=$((pns - pns0)) -v sw=$((psw - psw0)) -v w="$window" \
			'BEGIN { printf "  %-16s PSS %5.1f MB  CPU %6.3f %% of a core  wake-ups %6.2f/s\n", c, pss / 1024, ns / 1e9 / w * 100, sw / w }'
	done
}

populate() { # name bindir: 25 file + 25 http watchers in a fresh home
	local name=$1 bin=$2
	export HANGDOG_HOME=$tmp/home-$name
	mkdir -p "$tmp/files-$name"
	for i in $(seq 1 25); do
		echo "$i" >"$tmp/files-$name/f$i"
		HANGDOG_SESSION=s$((i % 5)) "$bin/hangdog" watch create --kind file "$tmp/files-$name/f$i" >/dev/null
		HANGDOG_SESSION=s$((i % 5)) "$bin/hangdog" watch create --kind http "$url" --interval 60s >/dev/null
	done
}

measure() { # name bindir: the home populate made, measured over the window; then its watchers are removed
	local name=$1 bin=$2
	export HANGDOG_HOME=$tmp/home-$name
	mapfile -t ps < <(pids "$bin")
	window_of "$name" "${ps[@]}" >"$tmp/out-$name"
	"$bin/hangdog" watch ls --all --json | python3 -c 'import json,sys; [print(w["spec"]["id"], w["spec"].get("owner", "")) for w in json.load(sys.stdin)]' |
		while read -r w owner; do
			HANGDOG_SESSION=$owner "$bin/hangdog" watch rm "$w" >/dev/null
		done
}

reference() { # the reference, given files made as populate makes them and the same URL
	mkdir -p "$tmp/files-reference"
	local targets=()
	for i in $(seq 1 25); do
		echo "$i" >"$tmp/files-reference/f$i"
		targets+=("$tmp/files-reference/f$i" "$url")
	done
	"$tmp/refsched" -interval 60s "${targets[@]}" >"$tmp/reference.out" &
	ref_pid=$!
}

# The builds and the reference run side by side and are measured over the
# same window: the shared machine's load, which varies by the minute,
# weighs on each alike, and each one's checks fall in the window alike
# (an http watcher's first check is 60 s +- 10 % after its start).
echo "50 idle watchers (25 file, 25 http every 60 s), side by side, measured over ${window}s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
builds=(this)
if [ "$ref" != none ]; then builds=("$ref" this); fi
bindir() { if [ "$1" = this ]; then echo "$tmp/new"; else echo "$tmp/old"; fi; }
made=()
for b in "${builds[@]}"; do
	populate "$b" "$(bindir "$b")" &
	made+=($!)
done
reference
wait "${made[@]}"
sleep 10 # start-up (and the file watchers' first check) is not idle
measured=()
for b in "${builds[@]}"; do
	measure "$b" "$(bindir "$b")" &
	measured+=($!)
done
window_of reference "$ref_pid" >"$tmp/out-reference"
wait "${measured[@]}"
kill "$ref_pid"
ref_pid=
for b in "${builds[@]}" reference; do cat "$tmp/out-$b"; done
echo "(load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
python3 - "$tmp" "${builds[@]}" <<'EOF'
import sys
tmp, names = sys.argv[1], sys.argv[2:]
row = lambda n: open(f"{tmp}/results-{n}").read().split()
ref = dict(zip(("pss", "ns", "sw"), map(int, row("reference")[1:])))
for name in names:
    _, pss, ns, sw = row(name)
    print(f"{name:9} / reference:  CPU {int(ns) / max(ref['ns'], 1):5.2f}x  "
          f"wake-ups {int(sw) / max(ref['sw'], 1):5.2f}x  PSS {int(pss) / max(ref['pss'], 1):5.2f}x")
EOF

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
