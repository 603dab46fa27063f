#!/usr/bin/env bash
# tool.sh NAME MODULE/PATH@VERSION: prints the path of a Go tool `make vet`
# runs, at the pinned version. It uses the one in $(go env GOBIN) or
# GOPATH/bin when it is that version, else installs it there with
# `go install` (the Go module proxy serves it; nothing else is fetched).
set -euo pipefail
name=$1 pkg=$2
version=${pkg##*@}
bin=$(go env GOBIN)
[ -n "$bin" ] || bin=$(go env GOPATH)/bin
exe=$bin/$name
if [ -x "$exe" ] && go version -m "$exe" 2>/dev/null | awk '$1 == "mod" { print $3 }' | grep -qx "$version"; then
  echo "$exe"
  exit 0
fi
echo "installing $pkg into $bin" >&2
go install "$pkg" >&2
echo "$exe"
