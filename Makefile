# hangdog — build, install, test, benchmark.
GO       ?= go
# /usr/local where it is writable (root, or a user who owns it), else ~/.local.
PREFIX   ?= $(shell [ -w /usr/local/bin ] && echo /usr/local || echo $(HOME)/.local)
BINS     := bin/hangdog bin/hangdog-full bin/hangdog-supervisor

.PHONY: build install test test-short vet bench bench-judge e2e e2e-slow clean

# Static (no cgo): no dynamic loader at every start of hangdog and its
# supervisors. Three programs, installed side by side:
#   hangdog             the CLI, built -tags lite: without the shell, the
#                       settings screen and the MCP server, so every
#                       `hangdog run` starts fast; it hands those to ...
#   hangdog-full        ... the complete CLI (what `go install ./cmd/hangdog`
#                       gives; it works on its own, only starts slower)
#   hangdog-supervisor  the slim per-task supervisor hangdog starts
build:
	CGO_ENABLED=0 $(GO) build -tags lite -o bin/hangdog ./cmd/hangdog
	CGO_ENABLED=0 $(GO) build -o bin/hangdog-full ./cmd/hangdog
	CGO_ENABLED=0 $(GO) build -o bin/hangdog-supervisor ./cmd/hangdog-supervisor

# Installs the three into $(PREFIX)/bin.
install: build
	install -d $(PREFIX)/bin
	install -m 0755 $(BINS) $(PREFIX)/bin/
	@echo "installed hangdog, hangdog-full and hangdog-supervisor in $(PREFIX)/bin"

vet:
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags lite ./cmd/hangdog

# The whole suite, race detector on. CI runs this.
test: vet
	$(GO) test -race -count=1 -timeout 9m ./...

# The real Claude Code and Codex CLIs (installed from npm, pinned) driving
# hangdog's hook recipe and MCP server against scripted API stand-ins.
# `make test` runs the quick scenarios; e2e runs all of them, e2e-slow the
# rest (a prompt and a server under Claude Code).
e2e:
	.ci/install-agent-clis
	HANGDOG_E2E=all $(GO) test -count=1 -v ./e2e/...

e2e-slow:
	.ci/install-agent-clis
	HANGDOG_E2E=slow $(GO) test -count=1 -run TestClaudeCode ./e2e/claudecode/

test-short:
	$(GO) test -short -count=1 ./...

# Benchmarks against `script -qec CMD /dev/null`, measured in the same run.
bench: build
	bash scripts/bench.sh

# The labelled scenario corpus through the local judge.
bench-judge: build
	bash scripts/bench-judge.sh

clean:
	rm -rf bin
