package receiver

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/hangdog/hangdog/watch"
)

// The limits follow RLIMIT_NOFILE and stay within their caps.
func TestOverloadLimits(t *testing.T) {
	for _, c := range []struct {
		nofile          uint64
		conns, handlers int
	}{
		{256, 144, 12}, {1024, 720, 60}, {20000, maxConns, maxHandlers}, {1 << 40, maxConns, maxHandlers}, {0, 720, 60}, {70, 2, 1},
	} {
		conns, handlers := overloadLimits(c.nofile)
		if conns != c.conns || handlers != c.handlers {
			t.Errorf("RLIMIT_NOFILE %d: %d connections, %d handlers; want %d, %d", c.nofile, conns, handlers, c.conns, c.handlers)
		}
		if c.nofile > fdReserve && uint64(conns+handlers*fdsPerHandler+fdReserve) > c.nofile {
			t.Errorf("RLIMIT_NOFILE %d: %d connections and %d handlers may need more descriptors", c.nofile, conns, handlers)
		}
	}
}

// A link whose deliveries would wait too long for the store is answered
// 503 with a Retry-After, stores nothing and keeps its rate token; once
// the queue is short a delivery is taken.
func TestBusyLinkAnswers503(t *testing.T) {
	l := newLab(t)
	id, url := l.link(watch.Request{Rate: "1/min"})
	rcv := l.srv.Config.Handler.(*Receiver)
	q := rcv.queue(watch.LinkTokenHash(url[len(url)-43:]), id)
	q.took.Store(int64(time.Hour)) // one ahead: an expected wait of 15 minutes
	q.waiting.Add(1)
	a := post(t, url, hdr("Idempotency-Key", "d-1"), `{"n":1}`)
	want(t, a, http.StatusServiceUnavailable, "busy")
	if secs, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || secs < 1 || secs > int(maxRetryAfter/time.Second) {
		t.Errorf("Retry-After %q", a.header.Get("Retry-After"))
	}
	if n := l.inbox(id); n != 0 || l.store.LinkHits(id) != 0 {
		t.Errorf("a refused delivery stored %d / counted %d", n, l.store.LinkHits(id))
	}
	q.waiting.Add(-1)
	q.took.Store(int64(firstStoreTime))
	// The retry is taken: the 503 gave back the one token of 1/min.
	want(t, post(t, url, hdr("Idempotency-Key", "d-1"), `{"n":1}`), http.StatusAccepted, `"accepted":true`)
}

// With every handler taken, a delivery and a page are answered 503 after
// admitWait; the identity, which reads no file, still answers.
func TestFullGateAnswers503ButIdentityAnswers(t *testing.T) {
	l := newLab(t)
	_, url := l.link(watch.Request{})
	rcv := l.srv.Config.Handler.(*Receiver)
	for range cap(rcv.gate.slots) {
		rcv.gate.slots <- struct{}{}
	}
	start := time.Now()
	a := post(t, url, nil, `{"n":1}`)
	want(t, a, http.StatusServiceUnavailable, "busy")
	if a.header.Get("Retry-After") != strconv.Itoa(retryAfter) {
		t.Errorf("Retry-After %q", a.header.Get("Retry-After"))
	}
	if took := time.Since(start); took < admitWait {
		t.Errorf("answered in %v, before waiting %v for a handler", took, admitWait)
	}
	rcv.Mount("/approve/", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	if a := send(t, http.MethodGet, l.srv.URL+"/approve/x", nil, nil); a.code != http.StatusServiceUnavailable {
		t.Errorf("a page with no handler free: %d", a.code)
	}
	if a := send(t, http.MethodGet, l.srv.URL+IdentityPath, nil, nil); a.code != http.StatusOK {
		t.Errorf("the identity with no handler free: %d %s", a.code, a.body)
	}
	for range cap(rcv.gate.slots) {
		rcv.gate.leave()
	}
	want(t, post(t, url, nil, `{"n":2}`), http.StatusAccepted, `"accepted":true`)
}
