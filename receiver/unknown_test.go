package receiver

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hangdog/hangdog/watch"
)

// BenchmarkUnknownToken: an unknown token costs the same with 2,000
// watchers in the home as with none, through the receiver (issue 26, item
// 11: with 2,000 paused watchers it fell from 4,825 to 33 requests a
// second). The ratio is docs/benchmarks.md's; the cost is pinned down,
// counted rather than timed, by watch's TestUnknownTokenReadsNothingOnceIndexed.
func BenchmarkUnknownToken(b *testing.B) {
	for _, n := range []int{0, 2000} {
		b.Run("watchers="+strconv.Itoa(n), func(b *testing.B) { benchmarkUnknownToken(b, n) })
	}
}

// benchmarkUnknownToken posts to an unknown token of a receiver whose
// home holds one live link and n paused watchers besides.
func benchmarkUnknownToken(b *testing.B, n int) {
	l := newLab(b)
	c, err := l.store.Create(context.Background(), &watch.Request{Kind: watch.KindWebhook}, owner, "")
	if err != nil {
		b.Fatal(err)
	}
	cloneWatchers(b, l, c.Spec.ID, n)
	url := l.srv.URL + HookPrefix + strings.Repeat("A", 43)
	b.ResetTimer()
	for b.Loop() {
		resp, err := http.Post(url, "application/json", strings.NewReader("{}"))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			b.Fatalf("an unknown token: %d", resp.StatusCode)
		}
	}
}

// cloneWatchers adds n paused copies of watcher id to the home, each
// under an id of its own (creating 2,000 through the store, which counts
// an owner's watchers at each create, would take minutes).
func cloneWatchers(b *testing.B, l *lab, id string, n int) {
	b.Helper()
	src := filepath.Join(l.home, "watchers", id)
	spec, err := os.ReadFile(filepath.Join(src, "spec.json"))
	if err != nil {
		b.Fatal(err)
	}
	state := []byte(`{"baselined":true,"checks":0,"quiet_checks":0,"skipped_checks":0,"fires_used":0,"paused":true,"reason":"a copy"}` + "\n")
	for k := range n {
		cid := "w" + strconv.Itoa(1000+k)
		dir := filepath.Join(l.home, "watchers", cid)
		if err := os.Mkdir(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		s := strings.Replace(string(spec), `"id": "`+id+`"`, `"id": "`+cid+`"`, 1)
		if err := os.WriteFile(filepath.Join(dir, "spec.json"), []byte(s), 0o600); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "state.json"), state, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	if all, err := l.store.List(bgtasksAll); err != nil || len(all) != n+1 {
		b.Fatalf("%d watchers listed, want %d: %v", len(all), n+1, err)
	}
}
