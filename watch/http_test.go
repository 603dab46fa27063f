package watch

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// page is a local server whose answer the test sets: status, body, ETag,
// and an optional delay (for timeouts).
type page struct {
	mu          sync.Mutex
	status      int
	body, etag  string
	ctype       string
	delay       time.Duration
	conditional atomic.Int32 // requests that carried If-None-Match
	notModified atomic.Int32
}

func (p *page) set(status int, body, etag string) {
	p.mu.Lock()
	p.status, p.body, p.etag = status, body, etag
	p.mu.Unlock()
}

func (p *page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	status, body, etag, ctype, delay := p.status, p.body, p.etag, p.ctype, p.delay
	p.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	if r.Header.Get("If-None-Match") != "" {
		p.conditional.Add(1)
	}
	if etag != "" {
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag && status == 200 {
			p.notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	if ctype != "" {
		w.Header().Set("Content-Type", ctype)
	}
	w.WriteHeader(status)
	fmt.Fprint(w, body)
}

func serve(t *testing.T, p *page) string {
	t.Helper()
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestHTTPETagMakes304AQuietCheck(t *testing.T) {
	s := newStore(t)
	p := &page{status: 200, body: `{"v": 1}`, etag: `"e1"`}
	c := create(t, s, &Request{Kind: KindHTTP, Target: serve(t, p)}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID}
	tick(t, r)
	tick(t, r)
	if p.notModified.Load() != 2 {
		t.Fatalf("server answered 304 %d times, want 2 (the watcher must send If-None-Match)", p.notModified.Load())
	}
	st := state(t, s, c.Spec.ID)
	if st.QuietChecks != 2 || st.FiresUsed != 0 {
		t.Errorf("quiet %d fires %d, want 2 quiet checks and no fire", st.QuietChecks, st.FiresUsed)
	}
	p.set(200, `{"v": 2}`, `"e2"`)
	tick(t, r)
	if n := len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)); n != 1 {
		t.Errorf("%d fires after the content changed, want 1", n)
	}
}

func TestHTTPUnreachableIsSkippedThenOneNoticeAndPause(t *testing.T) {
	s := newStore(t)
	p := &page{status: 200, body: "ok"}
	c := create(t, s, &Request{Kind: KindHTTP, Target: serve(t, p)}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID, httpTimeout: 300 * time.Millisecond}
	answers := []func(){
		func() { p.set(503, "down", "") },
		func() { p.set(429, "slow down", "") },
		func() { p.mu.Lock(); p.delay = time.Second; p.mu.Unlock() }, // a timeout
		func() { p.mu.Lock(); p.delay = 0; p.mu.Unlock(); p.set(500, "oops", "") },
	}
	for _, a := range answers {
		a()
		if tick(t, r) {
			t.Fatal("paused before the grace was over")
		}
	}
	st := state(t, s, c.Spec.ID)
	if st.Skipped != 4 || st.FiresUsed != 0 || st.Value != "ok" || st.Hash != hashText("ok") {
		t.Fatalf("after 4 unreachable checks: %+v; want 4 skipped, no fire, state unchanged", st)
	}
	if !tick(t, r) { // the fifth: the grace is 5
		t.Fatal("not paused after the grace")
	}
	tick(t, r)
	paused := events(t, s, c.Spec.ID, bgtasks.EventWatchPaused)
	if len(paused) != 1 || !strings.Contains(paused[0].Reason, "unreachable on 5 checks") {
		t.Fatalf("pause events %+v: want one notice naming the unreachable checks", paused)
	}
	if n := len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)); n != 0 {
		t.Errorf("an unreachable source fired %d times", n)
	}
}

func TestHTTP404CountsTowardAutoPause(t *testing.T) {
	s := newStore(t)
	p := &page{status: 200, body: "here"}
	c := create(t, s, &Request{Kind: KindHTTP, Target: serve(t, p)}, "o")
	r := &Runner{Store: s, ID: c.Spec.ID}
	p.set(404, "not found", "")
	tick(t, r)
	tick(t, r)
	if st := state(t, s, c.Spec.ID); st.Paused || st.Errors != 2 {
		t.Fatalf("after two 404s: paused=%v errors=%d, want counting, not paused", st.Paused, st.Errors)
	}
	if !tick(t, r) {
		t.Fatal("not paused after three 404s")
	}
	st := state(t, s, c.Spec.ID)
	if !strings.Contains(st.Reason, "404") {
		t.Errorf("reason %q should name the 404", st.Reason)
	}
	// A 404 at create writes nothing.
	if _, err := s.Create(t.Context(), &Request{Kind: KindHTTP, Target: p2url(t)}, "o", ""); err == nil || !strings.Contains(err.Error(), "nothing was created") {
		t.Errorf("create on a 404: %v, want a refusal", err)
	}
}

func p2url(t *testing.T) string { return serve(t, &page{status: 404}) + "/missing" }

func TestHTTPThresholdIsEdgeTriggeredAndBaselineInCreate(t *testing.T) {
	s := newStore(t)
	p := &page{status: 200, ctype: "application/json", body: `{"data":{"items":[{"price":95.10}]}}`}
	c := create(t, s, &Request{Kind: KindHTTP, Target: serve(t, p), Check: CheckBelow, Path: "data.items[0].price", Value: "90"}, "o")
	if c.Baseline != "currently 95.1" {
		t.Fatalf("baseline %q, want the first check's value", c.Baseline)
	}
	r := &Runner{Store: s, ID: c.Spec.ID}
	fires := func() int { return len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)) }
	steps := []struct {
		price string
		want  int
	}{
		{"89.5", 1}, // below: fires
		{"88", 1},   // stays below: quiet
		{"87", 1},   // still below
		{"91", 1},   // above: no fire, re-arms
		{"85", 2},   // below again: fires again
	}
	for _, st := range steps {
		p.set(200, `{"data":{"items":[{"price":`+st.price+`}]}}`, "")
		tick(t, r)
		if got := fires(); got != st.want {
			t.Fatalf("price %s: %d fires, want %d", st.price, got, st.want)
		}
	}
	e := events(t, s, c.Spec.ID, bgtasks.EventWatchFired)[1]
	if !strings.Contains(e.Reason, "now 85 (was 91)") {
		t.Errorf("fire reason %q: want the new and old values", e.Reason)
	}
}

func TestHTTPHTMLIsReadTextNotMarkup(t *testing.T) {
	s := newStore(t)
	p := &page{status: 200, ctype: "text/html", body: `<html><head><script>var t=1</script></head><body><p>Price: <b>$95.10</b></p></body></html>`}
	c := create(t, s, &Request{Kind: KindHTTP, Target: serve(t, p), Check: CheckAbove, Value: "100"}, "o")
	if c.Baseline != "currently 95.1" {
		t.Fatalf("baseline %q: a threshold on text reads the first number of the readable text", c.Baseline)
	}
	r := &Runner{Store: s, ID: c.Spec.ID}
	// Only the script changed: no change for a reader.
	p.set(200, `<html><head><script>var t=2</script></head><body><p>Price: <b>$95.10</b></p></body></html>`, "")
	tick(t, r)
	if st := state(t, s, c.Spec.ID); st.QuietChecks != 1 {
		t.Errorf("a script-only change counted as a change (quiet %d)", st.QuietChecks)
	}
	p.set(200, `<html><body><p>Price: <i>$1,105.00</i></p></body></html>`, "")
	tick(t, r)
	if n := len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)); n != 1 {
		t.Errorf("%d fires for 1105 > 100, want 1", n)
	}
}

func TestNormaliseJSONSortsKeysAndCaps(t *testing.T) {
	a, _ := normalise([]byte(`{"b":1, "a":{"d":2,"c":3}}`), "")
	b, _ := normalise([]byte(`{"a":{"c":3,"d":2},"b":1}`), "application/json")
	if a != b || a != `{"a":{"c":3,"d":2},"b":1}` {
		t.Errorf("normalised %q and %q: key order and spacing must not matter", a, b)
	}
	big, _ := normalise([]byte(strings.Repeat("x", 2*maxText)), "text/plain")
	if len(big) != maxText {
		t.Errorf("text of %d bytes kept, want the cap %d", len(big), maxText)
	}
}

// A source unreachable at create is created without a baseline; the first
// check that gets through is the baseline and fires nothing.
func TestHTTPUnreachableAtCreateBaselinesLater(t *testing.T) {
	s := newStore(t)
	p := &page{status: 503, body: "starting"}
	c := create(t, s, &Request{Kind: KindHTTP, Target: serve(t, p)}, "o")
	if !strings.Contains(c.Baseline, "not reachable now") || c.State.Baselined {
		t.Fatalf("create: %q baselined=%v", c.Baseline, c.State.Baselined)
	}
	r := &Runner{Store: s, ID: c.Spec.ID}
	p.set(200, "v1", "")
	tick(t, r)
	if st := state(t, s, c.Spec.ID); !st.Baselined || st.Value != "v1" || st.FiresUsed != 0 {
		t.Fatalf("after the first good check: %+v; want the baseline and no fire", st)
	}
	p.set(200, "v2", "")
	tick(t, r)
	if n := len(events(t, s, c.Spec.ID, bgtasks.EventWatchFired)); n != 1 {
		t.Errorf("%d fires after a change, want 1", n)
	}
}

// Credentials and query strings in a URL never reach the state, the log
// or an event; the request itself still carries them.
func TestHTTPSecretsInURLAreNotLoggedOrStored(t *testing.T) {
	s := newStore(t)
	var gotQuery atomic.Value
	p := &page{status: 200, body: "ok"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery.Store(r.URL.RawQuery)
		p.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	target := strings.Replace(srv.URL, "http://", "http://user:PASSWORD1@", 1) + "/x?token=SECRET1"
	c := create(t, s, &Request{Kind: KindHTTP, Target: target}, "o")
	if q, _ := gotQuery.Load().(string); q != "token=SECRET1" {
		t.Fatalf("the request's query was %q: the real URL must be fetched", q)
	}
	var log syncBuffer
	r := &Runner{Store: s, ID: c.Spec.ID, Log: &log}
	p.set(503, "down", "")
	for range 5 {
		tick(t, r)
	}
	srv.Close() // connection refused from now on
	r2 := &Runner{Store: s, ID: create(t, s, &Request{Kind: KindHTTP, Target: target}, "o").Spec.ID, Log: &log}
	tick(t, r2)
	st, _ := os.ReadFile(filepath.Join(s.watcherDir(c.Spec.ID), "state.json"))
	evs, _ := os.ReadFile(filepath.Join(s.reg.Home(), "events.jsonl"))
	st2 := state(t, s, r2.ID)
	for what, text := range map[string]string{"state": string(st), "events": string(evs), "log": log.String(), "second state": st2.LastError} {
		if strings.Contains(text, "SECRET1") || strings.Contains(text, "PASSWORD1") {
			t.Errorf("%s holds the URL's secret:\n%s", what, text)
		}
	}
	if !strings.Contains(string(evs), "unreachable") {
		t.Errorf("no pause event: %s", evs)
	}
}
