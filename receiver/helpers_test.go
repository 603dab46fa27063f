package receiver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/syncbuf"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/webhooksig"
	"github.com/hangdog/hangdog/watch"
)

const owner = "sess-1"

// lab is a home with a receiver over it, served on 127.0.0.1.
type lab struct {
	t     testing.TB
	home  string
	store *watch.Store
	srv   *httptest.Server
	log   *syncBuffer
	mu    sync.Mutex
	now   time.Time // zero: the real clock
}

// syncBuffer: a process's output or a log read while it is written.
type syncBuffer = syncbuf.Buffer

func newLab(t testing.TB) *lab {
	t.Helper()
	home := t.TempDir()
	reg, err := bgtasks.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	store, err := watch.OpenStore(reg)
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{t: t, home: home, store: store, log: &syncBuffer{}}
	r := New(store, Options{Log: l.log, Now: l.clock})
	l.srv = httptest.NewServer(r)
	t.Cleanup(l.srv.Close)
	return l
}

func (l *lab) clock() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.now.IsZero() {
		return time.Now()
	}
	return l.now
}

func (l *lab) setNow(t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.now = t
}

// link creates a trigger link and returns its id and URL.
func (l *lab) link(q watch.Request) (string, string) {
	l.t.Helper()
	q.Kind = watch.KindWebhook
	c, err := l.store.Create(context.Background(), &q, owner, "")
	if err != nil {
		l.t.Fatalf("create %+v: %v", q, err)
	}
	token, err := l.store.LinkToken(c.Spec.ID, owner)
	if err != nil {
		l.t.Fatal(err)
	}
	return c.Spec.ID, l.srv.URL + HookPrefix + token
}

func (l *lab) secret(id string) string {
	l.t.Helper()
	s, err := l.store.LinkSecret(id, owner)
	if err != nil || s == "" {
		l.t.Fatalf("secret of %s: %q %v", id, s, err)
	}
	return s
}

type answer struct {
	code   int
	body   string
	header http.Header
}

func send(t *testing.T, method, url string, h http.Header, body []byte) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, string(b), resp.Header}
}

func post(t *testing.T, url string, h http.Header, body string) answer {
	t.Helper()
	return send(t, http.MethodPost, url, h, []byte(body))
}

// signed is the headers scheme's sender adds for body.
func signed(t *testing.T, scheme, secret, id string, at time.Time, body string) http.Header {
	t.Helper()
	h, err := webhooksig.Sign(scheme, secret, id, at, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func (l *lab) inbox(id string) int {
	l.t.Helper()
	ents, err := os.ReadDir(l.store.Inbox(id))
	if err != nil {
		l.t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}

func want(t *testing.T, a answer, code int, contains string) {
	t.Helper()
	if a.code != code || !strings.Contains(a.body, contains) {
		t.Errorf("answer %d %s, want %d with %q", a.code, strings.TrimSpace(a.body), code, contains)
	}
}

// tick runs the watcher's runner once, as its task would.
func (l *lab) tick(id string) {
	l.t.Helper()
	if _, err := (&watch.Runner{Store: l.store, ID: id}).Tick(context.Background()); err != nil {
		l.t.Fatal(err)
	}
}

func (l *lab) events(id string) []bgtasks.Event {
	l.t.Helper()
	evs, err := l.store.Registry().Events(0)
	if err != nil {
		l.t.Fatal(err)
	}
	var out []bgtasks.Event
	for _, e := range evs {
		if e.WatcherID == id && e.Kind == bgtasks.EventWatchFired {
			out = append(out, e)
		}
	}
	return out
}

// grepHome lists the files under the home holding s.
func grepHome(t *testing.T, home, s string) []string {
	t.Helper()
	var hits []string
	_ = filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte(s)) {
			rel, _ := filepath.Rel(home, p)
			hits = append(hits, rel)
		}
		return nil
	})
	return hits
}
