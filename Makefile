# hangdog — build, install, test, benchmark.
GO       ?= go
# /usr/local where it is writable (root, or a user who owns it), else ~/.local.
PREFIX   ?= $(shell [ -w /usr/local/bin ] && echo /usr/local || echo $(HOME)/.local)
BIN      := bin/hangdog

.PHONY: build install test test-short vet bench bench-judge clean

# Static (no cgo): no dynamic loader at every start of hangdog and its supervisors.
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/hangdog

# Installs hangdog into $(PREFIX)/bin.
install: build
	install -d $(PREFIX)/bin
	install -m 0755 $(BIN) $(PREFIX)/bin/hangdog
	@echo "installed $(PREFIX)/bin/hangdog"

vet:
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

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
