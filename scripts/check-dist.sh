#!/usr/bin/env bash
# check-dist.sh: installs the release `make dist` built (in $OUT, default
# dist/) the ways users do, and runs it; CI runs it after make dist.
#   1. SHA256SUMS verifies every artifact.
#   2. The .tar.gz for this machine: each program names the release's version
#      and commit; hangdog runs a command with hangdog-supervisor beside it,
#      and a watcher with hangdog-watch.
#   3. The .deb: dpkg -i, then through the installed package hangdog
#      --version, hangdog run -- echo ok, a watcher run by hangdog-watch,
#      man -w hangdog and the bash
#      completion (which asks the installed hangdog); dpkg -r leaves none of
#      its files behind. Needs root (CI is); otherwise it says it skipped.
#   4. The npm packages, from their tarballs, into a temporary prefix with no
#      Go on PATH and no registry (--offline, an empty cache): npx hangdog
#      run -- echo ok, and an MCP initialize + tools/list through npx
#      hangdog mcp.
# Needs dpkg, man (man-db), bash-completion, npm, python3. Every experiment gets its own
# HANGDOG_HOME; nothing outside its temporary directory is left.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-dist}

fail() {
  echo "check-dist: FAIL: $*" >&2
  exit 1
}
step() { echo "check-dist: $*"; }

[ -s "$OUT/SHA256SUMS" ] || fail "$OUT/SHA256SUMS is missing: run make dist first"
OUT=$(cd "$OUT" && pwd)
tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT

# 1. Checksums.
(cd "$OUT" && sha256sum --quiet -c SHA256SUMS) || fail "an artifact does not match SHA256SUMS"
step "SHA256SUMS verifies $(wc -l <"$OUT/SHA256SUMS") artifacts"

goarch=$(go env GOARCH 2>/dev/null || dpkg --print-architecture)
archive=$(ls "$OUT"/hangdog_*_linux_"$goarch".tar.gz 2>/dev/null | head -1)
[ -n "$archive" ] || fail "no linux_$goarch archive in $OUT/ for this machine"
# The release's version is in the archive's name: hangdog_VERSION_linux_ARCH.
version=$(basename "$archive" "_linux_$goarch.tar.gz")
version=${version#hangdog_}
commit=$(git rev-parse --short=12 HEAD)

# expect_version PROGRAM: its --version names the release and this commit.
expect_version() {
  local out
  out=$("$1" --version) || fail "$1 --version failed"
  [[ $out == *" $version (commit $commit"* ]] || fail "$1 --version says \"$out\", not version $version, commit $commit (HEAD); if $OUT/ was built from another commit, run make dist again"
  echo "  $out"
}

# run_ok HANGDOG: hangdog run -- echo ok prints ok and succeeds.
run_ok() {
  local out
  out=$(HANGDOG_HOME=$(mktemp -d "$tmp/home.XXXXXX") "$@" run -- echo ok) || fail "$* run -- echo ok failed: $out"
  [ "$out" = ok ] || fail "$* run -- echo ok printed \"$out\", not ok"
}

# watch_ok HANGDOG: a file watcher's runner is the hangdog-watch next to
# HANGDOG, and a change to the file fires.
watch_ok() {
  local home dir pid exe i
  home=$(mktemp -d "$tmp/home.XXXXXX")
  dir=$(mktemp -d "$tmp/watched.XXXXXX")
  echo building >"$dir/status"
  HANGDOG_HOME=$home "$1" watch create --kind file "$dir/status" --interval 1s >/dev/null || fail "$1 watch create failed"
  for i in $(seq 100); do
    pid=$(HANGDOG_HOME=$home "$1" bg ls --json | python3 -c 'import json,sys; print(next((t["pid"] for t in json.load(sys.stdin) if t["state"] == "running" and t.get("pid")), ""))')
    exe=$([ -n "$pid" ] && readlink "/proc/$pid/exe" || true)
    [[ $exe == */hangdog-watch ]] && break
    sleep 0.1
  done
  [ "$exe" = "$(dirname "$1")/hangdog-watch" ] || fail "the watchers' runner of $1 runs \"$exe\", not the hangdog-watch next to it"
  echo failed >"$dir/status"
  for i in $(seq 100); do
    HANGDOG_HOME=$home "$1" events --json --all | grep -q '"watch_fired"' && break
    [ "$i" = 100 ] && fail "a change to a file watched through $1 did not fire"
    sleep 0.1
  done
  HANGDOG_HOME=$home "$1" watch rm w1 >/dev/null || fail "$1 watch rm failed"
  # Its last watcher removed, the runner leaves (before its home is).
  for i in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    [ "$i" = 100 ] && fail "the watchers' runner of $1 (pid $pid) did not leave after its last watcher was removed"
    sleep 0.1
  done
  echo "  a watcher, run by $exe: fired; the runner left after watch rm"
}

# 2. The archive.
step "archive $(basename "$archive")"
mkdir "$tmp/archive"
tar -C "$tmp/archive" -xzf "$archive"
adir=$tmp/archive/hangdog_${version}_linux_$goarch
for f in hangdog hangdog-full hangdog-supervisor hangdog-watch completions/hangdog.bash completions/_hangdog completions/hangdog.fish man/man1/hangdog.1; do
  [ -e "$adir/$f" ] || fail "the archive has no $f"
done
expect_version "$adir/hangdog"
expect_version "$adir/hangdog-full"
run_ok "$adir/hangdog"
watch_ok "$adir/hangdog"

# 3. The Debian package.
deb=$(ls "$OUT"/hangdog_*_"$(dpkg --print-architecture 2>/dev/null || echo none)".deb 2>/dev/null | head -1) || true
if [ -z "$deb" ]; then
  fail "no .deb for this machine's architecture in $OUT/"
elif [ "$(id -u)" != 0 ]; then
  step "SKIPPED: installing $(basename "$deb") needs root (CI runs this as root)"
elif dpkg-query -W -f='${Status}' hangdog 2>/dev/null | grep -q ' installed'; then
  fail "a hangdog package is installed already; this check installs and removes its own (dpkg -r hangdog first)"
else
  step "deb $(basename "$deb")"
  # Slim Debian images tell dpkg to skip man pages (path-exclude in
  # /etc/dpkg/dpkg.cfg.d); hangdog's are what this checks, so include them.
  dpkg --path-include='/usr/share/man/man1/hangdog*' -i "$deb" >/dev/null
  removed=
  # Remove the package however this section ends.
  trap 'if [ -z "$removed" ]; then dpkg -r hangdog >/dev/null || true; fi; cleanup' EXIT
  # The package's programs by their paths (another hangdog, from make
  # install, may come first on PATH), and PATH without /usr/local below.
  expect_version /usr/bin/hangdog
  expect_version /usr/bin/hangdog-full
  run_ok /usr/bin/hangdog
  watch_ok /usr/bin/hangdog
  man=$(man -w hangdog) || fail "man -w hangdog finds no page"
  [ "$man" = /usr/share/man/man1/hangdog.1.gz ] || fail "man -w hangdog is $man, not the package's"
  echo "  man -w hangdog: $man"
  # The bash completion as bash-completion loads it on first use (from the
  # package's path), completing through the installed hangdog.
  got=$(PATH=/usr/bin:/bin bash -c '
    source /usr/share/bash-completion/bash_completion
    _comp_load hangdog 2>/dev/null || __load_completion hangdog || exit 1
    COMP_LINE="hangdog ru"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(hangdog ru); COMP_CWORD=1
    # (compopt complains outside a real completion; the candidates are what count)
    __start_hangdog hangdog ru hangdog 2>/dev/null
    printf "%s\n" "${COMPREPLY[@]}"') || fail "bash-completion did not load the package's completion for hangdog"
  [ "$got" = run ] || fail "the bash completion of \"hangdog ru\" gave \"$got\", not run"
  echo "  bash completion of \"hangdog ru\": $got"
  for f in /usr/share/zsh/vendor-completions/_hangdog /usr/share/fish/vendor_completions.d/hangdog.fish; do
    [ -s "$f" ] || fail "the package did not install $f"
  done
  files=$(dpkg -L hangdog)
  dpkg -r hangdog >/dev/null
  removed=1
  dpkg-query -W -f='${Status}' hangdog 2>/dev/null | grep -q ' installed' && fail "dpkg -r left hangdog installed"
  left=()
  while read -r f; do
    # Directories the package shares with others (/usr/bin) stay, so only
    # its files and its own directories count.
    if [ -f "$f" ] || [ -L "$f" ] || { [ -d "$f" ] && [[ $f == */hangdog ]]; }; then left+=("$f"); fi
  done <<<"$files"
  [ ${#left[@]} -eq 0 ] || fail "dpkg -r left behind: ${left[*]}"
  step "deb removed; none of its $(wc -l <<<"$files") paths are left"
fi

# 4. The npm packages.
case $goarch in
  amd64) nodearch=x64 ;;
  *) nodearch=$goarch ;;
esac
main=$OUT/hangdog-$version.tgz
platform=$OUT/hangdog-linux-$nodearch-$version.tgz
[ -s "$main" ] && [ -s "$platform" ] || fail "no npm tarballs $main and $platform"
step "npm $(basename "$main") with $(basename "$platform")"
prefix=$tmp/npm
mkdir -p "$prefix"
# No registry: --offline and an empty cache, so what installs is the tarballs
# (the other platforms' optional packages are skipped, as npm does on a
# machine they do not fit).
export npm_config_cache=$tmp/npm-cache npm_config_offline=true npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
npm install --prefix "$prefix" --no-save --loglevel=error "$main" "$platform" >/dev/null ||
  fail "npm install of the tarballs failed"
# No Go on PATH: the package must need only node.
nogo=/usr/bin:/bin
if PATH=$nogo command -v go >/dev/null; then
  fail "go is in $nogo; this check needs a PATH without Go"
fi
for t in node npm npx; do PATH=$nogo command -v $t >/dev/null || fail "$t is not in $nogo"; done
npx_hangdog() { (cd "$prefix" && PATH=$nogo HANGDOG_HOME=$(mktemp -d "$tmp/home.XXXXXX") npx --no-install hangdog "$@"); }
out=$(npx_hangdog --version) || fail "npx hangdog --version failed"
[[ $out == *" $version (commit $commit"* ]] || fail "npx hangdog --version says \"$out\""
echo "  npx hangdog --version: $out"
out=$(npx_hangdog run -- echo ok) || fail "npx hangdog run -- echo ok failed: $out"
[ "$out" = ok ] || fail "npx hangdog run -- echo ok printed \"$out\", not ok"
echo "  npx hangdog run -- echo ok: $out"
# The exit status comes through the shim.
set +e
npx_hangdog run -- sh -c 'exit 7' >/dev/null 2>&1
status=$?
set -e
[ $status -eq 7 ] || fail "npx hangdog run -- sh -c 'exit 7' exited $status, not 7"
echo "  npx hangdog run -- sh -c 'exit 7': exit status $status"
# An MCP client's first exchange, over the shim's stdio.
(cd "$prefix" && PATH=$nogo HANGDOG_HOME=$(mktemp -d "$tmp/home.XXXXXX") python3 - "$version" npx --no-install hangdog mcp) <<'EOF' || fail "MCP initialize + tools/list through npx hangdog mcp failed"
import json, subprocess, sys

version = sys.argv[1]
proc = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

def call(id, method, params):
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}) + "\n")
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        if not line:
            sys.exit(f"hangdog mcp closed its output before answering {method}")
        msg = json.loads(line)
        if msg.get("id") == id:
            if "error" in msg:
                sys.exit(f"{method}: {msg['error']}")
            return msg["result"]

try:
    init = call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "check-dist", "version": "1"}})
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    proc.stdin.flush()
    if init["serverInfo"]["version"] != version:
        sys.exit(f"the server reports version {init['serverInfo']['version']}, not the release's {version}")
    tools = sorted(t["name"] for t in call(2, "tools/list", {})["tools"])
    if "bash" not in tools:
        sys.exit(f"tools/list has no bash tool: {tools}")
    print(f"  npx hangdog mcp: {init['serverInfo']['name']} {init['serverInfo']['version']}, tools {', '.join(tools)}")
finally:
    proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        sys.exit("hangdog mcp did not exit within 10 s of its input closing")
EOF
step "all checks passed"
