# hangdog — build, install, test, benchmark.
GO       ?= go
# /usr/local where it is writable (root, or a user who owns it), else ~/.local.
PREFIX   ?= $(shell [ -w /usr/local/bin ] && echo /usr/local || echo $(HOME)/.local)
BINS     := bin/hangdog bin/hangdog-full bin/hangdog-supervisor

.PHONY: build install test test-short vet bench bench-judge clean

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
