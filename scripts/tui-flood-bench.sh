#!/usr/bin/env bash
# tui-flood-bench: does the interactive shell keep up with a flood?
#
# 1. `yes | head -c SIZE` through `hangdog run` to a file (the baseline),
# 2. the same typed into `hangdog shell` in a tmux pane, timed from Enter to
#    the prompt coming back; the ratio must be at most 2,
# 3. while `yes` floods the shell, keystrokes typed at the prompt: the time
#    until each shows in the pane (the keystroke round trip).
#
# Usage: scripts/tui-flood-bench.sh [SIZE]   (default 200M; needs tmux)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-200M}
command -v tmux >/dev/null || { echo "tmux is needed: apt-get install tmux" >&2; exit 1; }

work=$(mktemp -d /tmp/hdbench.XXXXXX)
sock="hdbench$$"
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export HANGDOG_HOME="$work/h" XDG_CONFIG_HOME="$work/c" NO_COLOR=1
bin="$work/hangdog"
go build -o "$bin" ./cmd/hangdog

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

runs=3
echo "flood: yes | head -c $size, $runs runs each"

# 1. Baseline: hangdog run, output to a file.
for i in $(seq $runs); do
  t0=$(now)
  "$bin" run "yes | head -c $size" >"$work/out.txt"
  elapsed "$t0" "$(now)"; echo
done | median >"$work/run.txt"
run=$(cat "$work/run.txt")
echo "hangdog run > file:    ${run}s (median)"

# 2. The shell in tmux.
tmux -L "$sock" -f /dev/null new-session -d -x 120 -y 40 -c "$work" "$bin shell"
pane() { tmux -L "$sock" capture-pane -p -t 0; }
status() { pane | tail -n 1; }
wait_for() { # wait_for REGEX [timeout seconds]: poll the pane every 10 ms
  local deadline; deadline=$(awk -v t="$(now)" -v d="${2:-120}" 'BEGIN { printf "%.3f", t + d }')
  until pane | grep -qE -- "$1"; do
    if awk -v t="$(now)" -v d="$deadline" 'BEGIN { exit !(t > d) }'; then
      echo "timed out waiting for $1; pane:" >&2; pane >&2; exit 1
    fi
    sleep 0.01
  done
}
wait_for 'idle' 20
for i in $(seq $runs); do
  tmux -L "$sock" send-keys -t 0 -l "yes | head -c $size; echo flood-done-\$((1000+$i))"
  t0=$(now)
  tmux -L "$sock" send-keys -t 0 Enter
  wait_for "^flood-done-$((1000 + i))"
  until status | grep -q idle; do sleep 0.01; done
  elapsed "$t0" "$(now)"; echo
done | median >"$work/shell.txt"
shell=$(cat "$work/shell.txt")
echo "hangdog shell (tmux):  ${shell}s (median)"
ratio=$(awk -v s="$shell" -v r="$run" 'BEGIN { printf "%.2f", s / r }')
verdict=$(awk -v x="$ratio" 'BEGIN { print (x <= 2 ? "ok, at most 2x" : "TOO SLOW, more than 2x") }')
echo "ratio shell/run:       ${ratio}  ($verdict)"

# 3. Keystrokes while flooding: type at the prompt, time until the pane shows it.
tmux -L "$sock" send-keys -t 0 -l "yes"
tmux -L "$sock" send-keys -t 0 Enter
wait_for 'watchdog: 1'
sleep 1
for i in $(seq 5); do
  mark="key$i$RANDOM"
  t0=$(now)
  tmux -L "$sock" send-keys -t 0 -l "$mark"
  wait_for "» $mark" 20
  elapsed "$t0" "$(now)"; echo
  tmux -L "$sock" send-keys -t 0 C-u
  sleep 0.2
done >"$work/keys.txt"
tmux -L "$sock" send-keys -t 0 C-c
sleep 0.2
tmux -L "$sock" send-keys -t 0 C-c
wait_for 'idle' 30
echo "keystroke round trip while flooding (5 keys, seconds, incl. ~10 ms polling):"
echo "  $(tr '\n' ' ' <"$work/keys.txt")  median $(median <"$work/keys.txt")"
