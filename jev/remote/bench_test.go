package remote

import (
	"fmt"
	"testing"
	"time"

	"github.com/hangdog/hangdog/jev"
)

// benchState is a typical uncertain check: a build script gone quiet, with a
// full tail of output.
func benchState() jev.State {
	st := idle("cd web && NODE_ENV=production timeout 900 bash -c 'npm ci && npm run build' 2>&1 | tee build.log", 6*time.Minute, 3*time.Minute)
	for i := 0; i < 200; i++ {
		st.Tail = append(st.Tail, fmt.Sprintf("[%03d] transforming src/components/widget%03d.tsx", i, i))
	}
	st.LastLine = "Continue? [y/N] "
	return st
}

// Redacting and capping the tail happens only when a remote model is asked.
func BenchmarkRemotePayload(b *testing.B) {
	st := benchState()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (typesafeFormat{}).request("m", st, jev.Questions()); err != nil {
			b.Fatal(err)
		}
	}
}
