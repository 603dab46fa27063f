package approval

import (
	"io"
	"net/http"
	"testing"

	"github.com/hangdog/hangdog/watch"
)

// BenchmarkPageGET is one page load from this machine, its peer check
// (a scan of this user's /proc/*/fd) included: what a person waits for.
func BenchmarkPageGET(b *testing.B) {
	f := newFixture(b)
	_, token := f.approval(b, &watch.ApprovalRequest{Question: "Ship it?"})
	u := f.url(token)
	for b.Loop() {
		resp, err := http.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("GET = %d", resp.StatusCode)
		}
	}
}
