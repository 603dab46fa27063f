package jev

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hangdog/hangdog/jev/internal/shell"
)

// benchState is a typical uncertain check: a build script gone quiet, with a
// full tail of output.
func benchState() State {
	st := idle("cd web && NODE_ENV=production timeout 900 bash -c 'npm ci && npm run build' 2>&1 | tee build.log", 6*time.Minute, 3*time.Minute)
	for i := 0; i < 200; i++ {
		st.Tail = append(st.Tail, fmt.Sprintf("[%03d] transforming src/components/widget%03d.tsx", i, i))
	}
	st.LastLine = "Continue? [y/N] "
	return st
}

// The local judge runs at every check in every supervisor.
func BenchmarkLocalAsk(b *testing.B) {
	st, qs, l := benchState(), Questions(), NewLocal()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.Ask(ctx, st, qs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFingerprint(b *testing.B) {
	st := benchState()
	b.ReportAllocs()
	for b.Loop() {
		_ = st.Fingerprint()
	}
}

func BenchmarkDeclaredBound(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		DeclaredBound("sleep 5; for i in $(seq 1 150); do curl -sf localhost:3000/health && break; sleep 3; done")
	}
}

func BenchmarkExpectFromCommand(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ExpectFromCommand("cd web && NODE_ENV=development sudo -E timeout 600 npx vite --host 0.0.0.0 | tee dev.log")
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		shell.Parse(`for f in $(git ls-files '*.go'); do gofmt -l "$f" || echo "bad: $f" >&2; done && go vet ./...`)
	}
}
