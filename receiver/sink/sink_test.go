package sink_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/hangdog/hangdog/approval"
	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/fleet/natstest"
	"github.com/hangdog/hangdog/receiver"
	"github.com/hangdog/hangdog/receiver/sink"
	"github.com/hangdog/hangdog/watch"
)

// home is one hangdog home: a sandbox's, or the fleet receiver's.
func home(t *testing.T) *watch.Store {
	t.Helper()
	reg, err := bgtasks.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := watch.OpenStore(reg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// connect is one process's connection to the fleet (replicas 1).
func connect(t *testing.T, url string) *sink.Fleet { return connectR(t, url, 1) }

// connectR is connect with the stream and bucket made with replicas.
func connectR(t *testing.T, url string, replicas int) *sink.Fleet {
	t.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	f, err := sink.Open(t.Context(), js, replicas)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fleetReceiver is a fleet receiver (its own home and connection) on
// 127.0.0.1.
func fleetReceiver(t *testing.T, url string) string {
	t.Helper()
	f := connect(t, url)
	ap := f.Approvals()
	srv := httptest.NewServer(receiver.New(home(t), receiver.Options{Links: f.Links(),
		Mounts: map[string]http.Handler{"/approve/": approval.HandlerFor(ap, ap.NonceKey(approval.NewKey))}}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// register registers a link watcher at the fleet, as the watcher service
// does.
func register(t *testing.T, f *sink.Fleet, w *watch.Watcher, secret, sandbox string) {
	t.Helper()
	rec, err := sink.RecordFor(w, secret, sandbox)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Register(t.Context(), w.Spec.Link.TokenHash, rec, 0); err != nil {
		t.Fatal(err)
	}
}

// link makes a trigger link in a sandbox and registers it at the fleet,
// as the watcher service does.
func link(t *testing.T, store *watch.Store, f *sink.Fleet, q *watch.Request, sandbox string) (*watch.Watcher, string) {
	t.Helper()
	c, err := store.Create(t.Context(), q, "s1", "")
	if err != nil {
		t.Fatal(err)
	}
	token, err := store.LinkToken(c.Spec.ID, "s1")
	if err != nil {
		t.Fatal(err)
	}
	secret, err := store.LinkSecret(c.Spec.ID, "s1")
	if err != nil {
		t.Fatal(err)
	}
	register(t, f, c.Watcher, secret, sandbox)
	return c.Watcher, token
}

// runSandbox runs a link watcher's runner and its fleet consumer until
// the returned stop is called (or the test ends).
func runSandbox(t *testing.T, store *watch.Store, f *sink.Fleet, w *watch.Watcher, token string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	log := &lockedBuf{}
	wg.Add(2)
	go func() { defer wg.Done(); _ = f.Consume(ctx, store, w, token, log) }()
	go func() { defer wg.Done(); _ = (&watch.HomeRunner{Store: store, Log: log}).Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			wg.Wait()
			if t.Failed() {
				t.Logf("sandbox %s log:\n%s", store.Registry().Home(), log.String())
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fires are the watcher's watch_fired events in its home's log.
func fires(t *testing.T, store *watch.Store) []bgtasks.Event {
	t.Helper()
	evs, err := store.Registry().Events(0)
	if err != nil {
		t.Fatal(err)
	}
	var out []bgtasks.Event
	for _, e := range evs {
		if e.Kind == "watch_fired" {
			out = append(out, e)
		}
	}
	return out
}

func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type answer struct {
	code int
	body string
	hdr  http.Header
}

func post(t *testing.T, url string, body string, hdr map[string]string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{code: -1, body: err.Error()}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, string(b), resp.Header}
}

func githubSig(secret, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// A signed trigger link made in one sandbox and called at the fleet
// receiver (another home, another connection) fires that sandbox's
// watcher once, with the sender's body; a repeat is a duplicate, a wrong
// signature is refused, and another sandbox's watcher hears nothing.
func TestFleetLinkFiresItsSandboxOnce(t *testing.T) {
	url := natstest.StartT(t, 1).URLs()
	a, other := home(t), home(t)
	fa, fo := connect(t, url), connect(t, url)
	rcv := fleetReceiver(t, url)
	t.Setenv("HOOK_SECRET", "It's a Secret to Everybody")
	w, token := link(t, a, fa, &watch.Request{Kind: watch.KindWebhook, Signature: "github", SecretEnv: "HOOK_SECRET",
		Check: "status", Path: "status", Value: "done"}, "sandbox-a")
	ow, otoken := link(t, other, fo, &watch.Request{Kind: watch.KindWebhook}, "sandbox-b")
	runSandbox(t, a, fa, w, token)
	runSandbox(t, other, fo, ow, otoken)

	body := `{"status":"done","build":142}`
	sig := githubSig("It's a Secret to Everybody", body)
	if got := post(t, rcv+receiver.HookPrefix+token, body, map[string]string{"X-Hub-Signature-256": sig}); got.code != http.StatusAccepted || strings.Contains(got.body, "duplicate") {
		t.Fatalf("first delivery: %d %s", got.code, got.body)
	}
	if got := post(t, rcv+receiver.HookPrefix+token, body, map[string]string{"X-Hub-Signature-256": sig, "X-GitHub-Delivery": "fresh"}); got.code != http.StatusAccepted || !strings.Contains(got.body, `"duplicate":true`) {
		t.Fatalf("the same signed body again: %d %s", got.code, got.body)
	}
	if got := post(t, rcv+receiver.HookPrefix+token, body, map[string]string{"X-Hub-Signature-256": githubSig("wrong", body)}); got.code != http.StatusUnauthorized {
		t.Fatalf("a wrong signature: %d %s", got.code, got.body)
	}
	if got := post(t, rcv+receiver.HookPrefix+strings.Repeat("A", 43), body, nil); got.code != http.StatusNotFound {
		t.Fatalf("an unknown link: %d %s", got.code, got.body)
	}
	waitFor(t, "the sandbox's watcher to fire", 20*time.Second, func() bool { return len(fires(t, a)) == 1 })
	time.Sleep(500 * time.Millisecond) // a second fire would come now
	evs := fires(t, a)
	if len(evs) != 1 || evs[0].WatcherID != w.Spec.ID || !strings.Contains(evs[0].Payload, `"build":142`) {
		t.Fatalf("fires in the sandbox: %+v", evs)
	}
	if n := len(fires(t, other)); n != 0 {
		t.Fatalf("the other sandbox fired %d times", n)
	}
	if hits := a.LinkHits(w.Spec.ID); hits != 1 {
		t.Fatalf("the sandbox counted %d hits, want 1", hits)
	}
}

// Twenty concurrent senders, each delivery sent to one receiver and
// retried at another (an answer lost on the way), on a 3-node cluster
// with 3 replicas of which one node is killed and restarted mid-run, and
// with the sandbox's consumer stopped and started again mid-run: one
// event per delivery id, and every retry after a 202 is a duplicate.
func TestFleetConcurrentSendersOneEventPerDelivery(t *testing.T) {
	const senders, each = 20, 10
	cluster := natstest.StartT(t, 3)
	url := cluster.URLs()
	a := home(t)
	fa := connectR(t, url, 3)
	rcvs := []string{fleetReceiver(t, url), fleetReceiver(t, url)}
	maxHits := 1000 // more than the deliveries: a used-up link answers even a retry 404, as the local receiver does
	w, token := link(t, a, fa, &watch.Request{Kind: watch.KindWebhook, Rate: "60000/min", MaxHits: &maxHits}, "sandbox-a")
	stop := runSandbox(t, a, fa, w, token)

	var accepted atomic.Int64
	mid := make(chan struct{}) // the disturbances are done
	go func() {
		defer close(mid)
		for accepted.Load() < 40 {
			time.Sleep(5 * time.Millisecond)
		}
		cluster.Kill(1)
		for accepted.Load() < 90 {
			time.Sleep(5 * time.Millisecond)
		}
		stop() // the sandbox goes away: the stream keeps its deliveries
		stop = runSandbox(t, a, fa, w, token)
		for accepted.Load() < 140 {
			time.Sleep(5 * time.Millisecond)
		}
		if err := cluster.Restart(1); err != nil {
			t.Error(err)
		}
	}()
	var wg sync.WaitGroup
	var dups, retried atomic.Int64
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range each {
				id := fmt.Sprintf("s%02d-d%02d", s, d)
				body := fmt.Sprintf(`{"delivery":%q}`, id)
				for try := range 2 { // the second is a retry at the other receiver
					for attempt := 0; ; attempt++ {
						got := post(t, rcvs[(s+d+try)%2]+receiver.HookPrefix+token, body, map[string]string{"Idempotency-Key": id})
						if got.code == http.StatusAccepted {
							if try == 0 {
								accepted.Add(1)
							} else if strings.Contains(got.body, "duplicate") {
								dups.Add(1)
							}
							break
						}
						if got.code != http.StatusServiceUnavailable && got.code != http.StatusInternalServerError {
							t.Errorf("%s: %d %s", id, got.code, got.body)
							return
						}
						if attempt > 400 {
							t.Errorf("%s: still %d after %d tries: %s", id, got.code, attempt, got.body)
							return
						}
						retried.Add(1)
						time.Sleep(50 * time.Millisecond)
					}
				}
			}
		}()
	}
	wg.Wait()
	<-mid
	t.Logf("%d requests answered 503/500 while a node was down, retried", retried.Load())
	if n := dups.Load(); n != senders*each {
		t.Errorf("%d retries after a 202 were answered as duplicates, want %d", n, senders*each)
	}
	waitFor(t, "an event per delivery", 60*time.Second, func() bool { return len(fires(t, a)) >= senders*each })
	time.Sleep(500 * time.Millisecond)
	seen := map[string]int{}
	for _, e := range fires(t, a) {
		var p struct {
			Delivery string `json:"delivery"`
		}
		i := strings.Index(e.Payload, "{")
		if i < 0 || json.Unmarshal([]byte(e.Payload[i:]), &p) != nil || p.Delivery == "" {
			t.Fatalf("a fire without its delivery: %q", e.Payload)
		}
		seen[p.Delivery]++
	}
	if len(seen) != senders*each {
		t.Errorf("%d deliveries fired, want %d", len(seen), senders*each)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("delivery %s fired %d times", id, n)
		}
	}
}

// Two receivers behind a load balancer share a link's rate window: of ten
// distinct deliveries to a link of 5/min, alternating between them, five
// are taken and five refused with a Retry-After; with a window in each
// receiver's memory ten would be taken.
func TestFleetReceiversShareTheRateWindow(t *testing.T) {
	url := natstest.StartT(t, 1).URLs()
	a := home(t)
	fa := connect(t, url)
	rcvs := []string{fleetReceiver(t, url), fleetReceiver(t, url)}
	_, token := link(t, a, fa, &watch.Request{Kind: watch.KindWebhook, Rate: "5/min"}, "sandbox-a")
	taken, refused := 0, 0
	for i := range 10 {
		got := post(t, rcvs[i%2]+receiver.HookPrefix+token, fmt.Sprintf(`{"n":%d}`, i), nil)
		switch got.code {
		case http.StatusAccepted:
			taken++
		case http.StatusTooManyRequests:
			if got.hdr.Get("Retry-After") == "" {
				t.Errorf("a 429 without Retry-After: %s", got.body)
			}
			refused++
		default:
			t.Fatalf("delivery %d: %d %s", i, got.code, got.body)
		}
	}
	if taken != 5 || refused != 5 {
		t.Fatalf("taken %d, refused %d; want 5 and 5 (one window for both receivers)", taken, refused)
	}
}

var nonceField = regexp.MustCompile(`name="nonce" value="([^"]+)"`)

func form(t *testing.T, link string, v url.Values) answer {
	t.Helper()
	resp, err := http.PostForm(link, v)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, string(b), resp.Header}
}

// An approval asked in a sandbox is decided on a page of the fleet
// receiver: the page opened at one receiver is answered at another (they
// share the nonce key and the decision), the sandbox's approval watcher
// fires once with the decision, and a second decision is refused with the
// first shown.
func TestFleetApprovalDecidedAtAnotherReceiver(t *testing.T) {
	url := natstest.StartT(t, 1).URLs()
	a := home(t)
	fa := connect(t, url)
	rcvs := []string{fleetReceiver(t, url), fleetReceiver(t, url)}
	w, token, err := a.CreateApproval(&watch.ApprovalRequest{Question: "Deploy build 142?", Details: "staging is green"}, "s1", "")
	if err != nil {
		t.Fatal(err)
	}
	register(t, fa, w, "", "sandbox-a")
	runSandbox(t, a, fa, w, token)

	resp, err := http.Get(watch.ApprovalURL(rcvs[0], token))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := nonceField.FindStringSubmatch(string(page))
	if resp.StatusCode != http.StatusOK || m == nil || !strings.Contains(string(page), "Deploy build 142?") || !strings.Contains(string(page), "staging is green") {
		t.Fatalf("the page: %d\n%s", resp.StatusCode, page)
	}
	got := form(t, watch.ApprovalURL(rcvs[1], token), map[string][]string{"nonce": {m[1]}, "decision": {"Approve"}, "comment": {"go"}})
	if got.code != http.StatusOK || !strings.Contains(got.body, "Decision recorded") {
		t.Fatalf("the decision at the other receiver: %d\n%s", got.code, got.body)
	}
	got = form(t, watch.ApprovalURL(rcvs[0], token), map[string][]string{"nonce": {m[1]}, "decision": {"Reject"}})
	if got.code != http.StatusConflict || !strings.Contains(got.body, "Approve") {
		t.Fatalf("a second decision: %d\n%s", got.code, got.body)
	}
	waitFor(t, "the sandbox's approval to fire", 20*time.Second, func() bool { return len(fires(t, a)) == 1 })
	time.Sleep(500 * time.Millisecond)
	evs := fires(t, a)
	if len(evs) != 1 || evs[0].WatcherID != w.Spec.ID || evs[0].Decision != "Approve" || !strings.HasSuffix(evs[0].Comment, "go") {
		t.Fatalf("fires in the sandbox: %+v", evs)
	}
}
