package remote

import (
	"fmt"
	"strings"
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

// A watcher's largest text (a page's 256 KiB) made fit to send: printable,
// redacted, capped. It runs once per match a condition is asked about.
func BenchmarkConditionTextOfAFullPage(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 256<<10; i++ {
		fmt.Fprintf(&sb, "<li>item %d: price $%d.99, token=abc%dxyz, see https://user:pw@shop.example/p/%d</li>\n", i, i%500, i, i)
	}
	page := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		body, err := (openaiFormat{}).conditionRequest("m", "the price fell", wrapWatched(jev.ConditionText(page)))
		if err != nil || len(body) > 3*jev.MaxConditionTextChars { // JSON escapes < and > as six bytes
			b.Fatalf("%d bytes, %v", len(body), err)
		}
	}
}
