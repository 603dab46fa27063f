# hangdog — build, install, test, benchmark.
GO       ?= go
# /usr/local where it is writable (root, or a user who owns it), else ~/.local.
PREFIX   ?= $(shell [ -w /usr/local/bin ] && echo /usr/local || echo $(HOME)/.local)
BINDIR   ?= bin
BINS     := $(BINDIR)/hangdog $(BINDIR)/hangdog-full $(BINDIR)/hangdog-supervisor $(BINDIR)/hangdog-watch
# Extra `go build` flags; the release build (make dist) sets -trimpath and
# its -ldflags (the stamped version) here.
BUILDFLAGS ?=
# The programs the build and tests run (linters, the .deb packager), pinned
# in tools/tools.mod apart from hangdog's own dependencies; once the module
# cache holds them nothing is fetched.
GOTOOL   := $(GO) tool -modfile=tools/tools.mod

.PHONY: build install dist test test-short vet docs bench bench-judge e2e e2e-slow clean

# Static (no cgo): no dynamic loader at every start of hangdog and its
# supervisors. Four programs, installed side by side:
#   hangdog             the CLI, built -tags lite: without the shell, the
#                       settings screen, the MCP server and the watcher and
#                       link commands, so every `hangdog run` starts fast;
#                       it hands those to ...
#   hangdog-full        ... the complete CLI (what `go install ./cmd/hangdog`
#                       gives; it works on its own, only starts slower)
#   hangdog-supervisor  the slim per-task supervisor hangdog starts
#   hangdog-watch       the slim runner of a home's watchers (one
#                       background task for all of them), without the CLI;
#                       where it is missing hangdog-full runs them
build:
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -tags lite -o $(BINDIR)/hangdog ./cmd/hangdog
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -o $(BINDIR)/hangdog-full ./cmd/hangdog
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -o $(BINDIR)/hangdog-supervisor ./cmd/hangdog-supervisor
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -o $(BINDIR)/hangdog-watch ./cmd/hangdog-watch

# Installs the four into $(PREFIX)/bin.
install: build
	install -d $(PREFIX)/bin
	install -m 0755 $(BINS) $(PREFIX)/bin/
	@echo "installed hangdog, hangdog-full, hangdog-supervisor and hangdog-watch in $(PREFIX)/bin"

# The release: for each of $(PLATFORMS) a .tar.gz (the four programs,
# completions, man pages), a .deb and an npm platform package; the npm
# package hangdog; SHA256SUMS. In dist/. VERSION=1.2.3 names the release
# (default: the tag vX.Y.Z at HEAD, else 0.0.0-dev.<commit time>).
PLATFORMS ?= linux/amd64 linux/arm64
dist:
	PLATFORMS="$(PLATFORMS)" GO="$(GO)" scripts/dist.sh

# gofmt, goimports (hangdog's own imports in a group of their own), go vet
# and staticcheck with and without the lite tag, and the layout rules:
# nothing imports a package above it, only bgtasks names a task's files.
vet:
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	@out=$$($(GOTOOL) goimports -local github.com/hangdog/hangdog -l .) && \
		test -z "$$out" || { echo "goimports -local github.com/hangdog/hangdog -w needed:"; echo "$$out"; exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags lite ./cmd/hangdog
	$(GOTOOL) staticcheck ./...
	$(GOTOOL) staticcheck -tags lite ./cmd/hangdog
	$(GO) test -count=1 ./internal/layout

# The whole suite, race detector on. CI runs this. Through testsummary:
# go test's own output, then every skipped test with its reason (plain go
# test lists those only under -v), and go test's exit status.
test: vet
	@$(GO) build -o $(BINDIR)/testsummary ./scripts/testsummary
	$(BINDIR)/testsummary $(GO) test -json -race -count=1 -timeout 9m ./...

# The generated reference (docs/reference: CLI pages, settings, MCP tools,
# exit codes), the man pages (docs/man) and the shell completions
# (completions/), written from the code; `make test` fails while any is
# stale (TestReferenceIsCurrent). Needs no network.
docs:
	HANGDOG_UPDATE_REFERENCE=1 $(GO) test -count=1 -run '^TestReferenceIsCurrent$$' ./cmd/hangdog

# The real Claude Code and Codex CLIs (installed from npm, pinned) driving
# hangdog's hook recipe and MCP server against scripted API stand-ins.
# `make test` runs the quick scenarios; e2e runs all of them, e2e-slow the
# rest (a prompt and a server under Claude Code, and the two tests that wake
# a real Claude Code, interactive and headless).
e2e:
	.ci/install-agent-clis
	HANGDOG_E2E=all $(GO) test -count=1 -v ./e2e/...

e2e-slow:
	.ci/install-agent-clis
	HANGDOG_E2E=slow $(GO) test -count=1 -run 'TestClaudeCode|TestInteractiveSessionIsWokenByItsEvents|TestWakeResumesHeadlessClaude' ./e2e/claudecode/

test-short:
	$(GO) test -short -count=1 ./...

# Benchmarks against `script -qec CMD /dev/null`, measured in the same run.
bench: build
	bash scripts/bench.sh

# The labelled scenario corpus through the local judge.
bench-judge: build
	bash scripts/bench-judge.sh

clean:
	rm -rf bin dist
