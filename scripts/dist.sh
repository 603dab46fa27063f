#!/usr/bin/env bash
# dist.sh: hangdog's release build (make dist). For each platform in
# $PLATFORMS (GOOS/GOARCH, default linux/amd64 linux/arm64) it builds the
# four programs the way `make build` does (static, plus -trimpath and the
# stamped version), then packs into $OUT (default dist/):
#   hangdog_VERSION_linux_ARCH.tar.gz  the programs, completions, man pages
#   hangdog_DEBVERSION_ARCH.deb        the same installed into /usr (nfpm)
#   hangdog-linux-NODEARCH-VERSION.tgz the npm platform package
# and once: hangdog-VERSION.tgz (the npm package `hangdog`, whose optional
# dependencies are the platform packages) and SHA256SUMS over all of them.
#
# VERSION names the release (semantic, no leading v); by default the tag
# vX.Y.Z at HEAD, else 0.0.0-dev.<commit time, UTC>. The commit and its date
# are stamped too, so a rebuild of the same commit is the same release.
# Completions and man pages come from the repository (generated from the
# cobra commands by make docs, kept fresh by TestReferenceIsCurrent); nfpm is pinned in
# tools/tools.mod. Needs git, tar, gzip, sha256sum and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$(date +%s)

GO=${GO:-go}
OUT=${OUT:-dist}
PLATFORMS=${PLATFORMS:-linux/amd64 linux/arm64}
# Where the generated completions and man pages live, and the files the
# packages install from them.
COMPLETIONS_DIR=completions
COMPLETIONS=(hangdog.bash _hangdog hangdog.fish)
MAN_DIR=docs/man
# npm's names for the Go architectures hangdog is built for.
declare -A NODE_ARCH=([amd64]=x64 [arm64]=arm64)

die() {
  echo "dist: $*" >&2
  exit 1
}

for tool in git tar gzip sha256sum npm; do
  command -v "$tool" >/dev/null || die "$tool is needed to build the release and is not on PATH"
done

# Inputs from the repository.
for f in "${COMPLETIONS[@]}"; do
  [ -s "$COMPLETIONS_DIR/$f" ] || die "$COMPLETIONS_DIR/$f is missing: the shell completions are generated from the cobra commands into $COMPLETIONS_DIR/ by make docs; run it, then make dist again"
done
[ -s "$MAN_DIR/hangdog.1" ] || die "$MAN_DIR/hangdog.1 is missing: the man pages are generated from the cobra commands into $MAN_DIR/ by make docs; run it, then make dist again"
mans=("$MAN_DIR"/*.1)

# What the release is called.
commit=$(git rev-parse --short=12 HEAD 2>/dev/null) || die "$root is not a git checkout with a commit: the release stamps its commit and date"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  # Built from changes nobody committed: say so wherever the commit shows.
  commit+=-dirty
fi
date=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ)
epoch=$(git log -1 --format=%ct)
if [ -z "${VERSION:-}" ]; then
  if tag=$(git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null); then
    VERSION=${tag#v}
  else
    VERSION=0.0.0-dev.$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S)
  fi
fi
# Semantic versioning's grammar (what npm and nfpm parse), no build metadata.
semver='^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-((0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*))?$'
[[ $VERSION =~ $semver ]] || die "VERSION=$VERSION is not a semantic version like 1.2.3 or 1.2.3-rc.1 (npm and the .deb need one; no leading v)"

for platform in $PLATFORMS; do
  goos=${platform%/*} goarch=${platform#*/}
  if [ "$goos" != linux ]; then
    die "$platform: hangdog runs on Linux only. Its supervisor reads /proc (supervisor/sampler, supervisor/watch_linux.go), and internal/rawterm and internal/unixsock have Linux implementations only, so GOOS=$goos go build ./cmd/hangdog fails; build for linux/amd64 or linux/arm64"
  fi
  [ -n "${NODE_ARCH[$goarch]:-}" ] || die "$platform: no npm architecture is known for $goarch (known: ${!NODE_ARCH[*]})"
done

ldflags="-s -w -X main.releaseVersion=$VERSION -X main.releaseCommit=$commit -X main.releaseDate=$date"
echo "dist: hangdog $VERSION (commit $commit, $date) for $PLATFORMS into $OUT/"

nfpm=$("$GO" tool -modfile=tools/tools.mod -n nfpm) || die "cannot build nfpm (pinned in tools/tools.mod): fill the module cache once with go mod download -modfile=tools/tools.mod"

rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# Reproducible archives: sorted, owned by root, dated at the commit.
tarflags=(--sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch")
export SOURCE_DATE_EPOCH=$epoch

optional_deps=()
for platform in $PLATFORMS; do
  goos=${platform%/*} goarch=${platform#*/}
  nodearch=${NODE_ARCH[$goarch]}
  dir=$stage/$goos-$goarch
  files=$dir/files
  mkdir -p "$files/completions" "$files/man/man1" "$dir/deb-man"
  echo "dist: building $platform"
  GOOS=$goos GOARCH=$goarch make -s build GO="$GO" BINDIR="$files" BUILDFLAGS="-trimpath -ldflags '$ldflags'"
  cp "${COMPLETIONS[@]/#/$COMPLETIONS_DIR/}" "$files/completions/"
  cp "${mans[@]}" "$files/man/man1/"
  for m in "${mans[@]}"; do
    gzip -9n <"$m" >"$dir/deb-man/$(basename "$m").gz"
  done
  cp README.md "$files/"

  name=hangdog_${VERSION}_${goos}_${goarch}
  tar -C "$dir" "${tarflags[@]}" --transform "s,^files,$name," -cf - files | gzip -9n >"$OUT/$name.tar.gz"

  (cd "$dir" && GOARCH=$goarch VERSION=$VERSION "$nfpm" package --config "$root/packaging/nfpm.yaml" --packager deb --target "$OUT/" >/dev/null)

  npmdir=$dir/npm
  mkdir -p "$npmdir/bin"
  cp "$files/hangdog" "$files/hangdog-full" "$files/hangdog-supervisor" "$files/hangdog-watch" "$npmdir/bin/"
  cat >"$npmdir/package.json" <<EOF
{
  "name": "@hangdog/$goos-$nodearch",
  "version": "$VERSION",
  "description": "hangdog's programs for ${goos^} $nodearch; installed by the npm package hangdog",
  "homepage": "https://github.com/hangdog/hangdog",
  "repository": {"type": "git", "url": "git+https://github.com/hangdog/hangdog.git"},
  "os": ["$goos"],
  "cpu": ["$nodearch"],
  "files": ["bin/"],
  "preferUnplugged": true
}
EOF
  (cd "$npmdir" && npm pack --silent --pack-destination "$OUT" >/dev/null)
  optional_deps+=("\"@hangdog/$goos-$nodearch\": \"$VERSION\"")
done

# The package people name: the shim and, as optional dependencies, every
# platform package; npm installs the one whose os and cpu match.
npmdir=$stage/npm-hangdog
mkdir -p "$npmdir/bin"
cp packaging/npm/hangdog.js "$npmdir/bin/hangdog.js"
chmod 0755 "$npmdir/bin/hangdog.js"
cp packaging/npm/README.md "$npmdir/"
deps=$(IFS=,; echo "${optional_deps[*]}")
cat >"$npmdir/package.json" <<EOF
{
  "name": "hangdog",
  "version": "$VERSION",
  "description": "Terminal process supervisor for AI agents: commands that get stuck go to the background instead of blocking; an MCP server",
  "homepage": "https://github.com/hangdog/hangdog",
  "repository": {"type": "git", "url": "git+https://github.com/hangdog/hangdog.git"},
  "keywords": ["mcp", "mcp-server", "agent", "supervisor", "terminal", "claude-code", "codex"],
  "bin": {"hangdog": "bin/hangdog.js"},
  "files": ["bin/"],
  "engines": {"node": ">=18"},
  "optionalDependencies": {${deps//,/, }}
}
EOF
(cd "$npmdir" && npm pack --silent --pack-destination "$OUT" >/dev/null)

(cd "$OUT" && sha256sum -- *.tar.gz *.deb *.tgz >SHA256SUMS)

echo "dist: done in $(($(date +%s) - started)) s:"
(cd "$OUT" && ls -l -- *.tar.gz *.deb *.tgz | awk '{ printf "  %-54s %8.1f kB\n", $NF, $5 / 1e3 }')
