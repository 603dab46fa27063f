#!/usr/bin/env bash
# tool.sh NAME: prints the path of the Go tool NAME `make vet` runs
# (staticcheck, goimports; nfpm for make dist), at the version pinned in
# tools/tools.mod, built into Go's build cache by `go tool -n`. For running a
# linter by hand; make runs them as `go tool -modfile=tools/tools.mod NAME`.
# A second argument (the old NAME@VERSION form) is ignored: the pin is in
# tools/tools.mod.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go tool -modfile=tools/tools.mod -n "$1"
