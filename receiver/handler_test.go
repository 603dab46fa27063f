package receiver

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/webhooksig"
	"github.com/hangdog/hangdog/watch"
)

func ptr[T any](v T) *T { return &v }

// Link previews and mail scanners GET links: 405 with a note, and nothing
// is stored or counted.
func TestGetAndHeadAnswer405(t *testing.T) {
	l := newLab(t)
	id, url := l.link(watch.Request{})
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPut} {
		a := send(t, m, url, nil, nil)
		if a.code != http.StatusMethodNotAllowed || a.header.Get("Allow") != "POST" {
			t.Errorf("%s: %d, Allow %q; want 405, POST", m, a.code, a.header.Get("Allow"))
		}
		if m == http.MethodGet && !strings.Contains(a.body, "POST only") {
			t.Errorf("GET's note: %q", a.body)
		}
	}
	if n := l.inbox(id); n != 0 || l.store.LinkHits(id) != 0 {
		t.Errorf("a GET stored %d / counted %d", n, l.store.LinkHits(id))
	}
}

// Unknown, malformed, expired, paused (revoked), deleted and used-up
// links all answer the same 404.
func TestClosedLinksLookTheSame(t *testing.T) {
	l := newLab(t)
	_, open := l.link(watch.Request{})
	first := post(t, open[:len(open)-43]+strings.Repeat("A", 43), nil, "{}")
	want(t, first, http.StatusNotFound, "no such link")
	cases := map[string]string{"malformed token": open[:len(open)-43] + "x", "empty token": open[:len(open)-43], "nested": open + "/more"}

	idPaused, paused := l.link(watch.Request{})
	if err := l.store.Pause(idPaused, owner, ""); err != nil {
		t.Fatal(err)
	}
	cases["paused"] = paused
	idGone, gone := l.link(watch.Request{})
	if _, err := l.store.Delete(idGone, owner); err != nil {
		t.Fatal(err)
	}
	cases["deleted"] = gone
	_, used := l.link(watch.Request{MaxHits: ptr(1)})
	want(t, post(t, used, nil, `{"n":1}`), http.StatusAccepted, `"accepted":true`)
	cases["used up"] = used
	for name, url := range cases {
		a := post(t, url, nil, `{"n":2}`)
		if a.code != http.StatusNotFound || a.body != first.body {
			t.Errorf("%s: %d %q, want the unknown link's 404 %q", name, a.code, a.body, first.body)
		}
	}
	// Expired: the same link, a week and a second later.
	l.setNow(time.Now().Add(watch.DefaultLinkLife + time.Second))
	if a := post(t, open, nil, "{}"); a.code != http.StatusNotFound || a.body != first.body {
		t.Errorf("expired: %d %q", a.code, a.body)
	}
	if strings.Contains(l.log.String(), open[len(open)-43:]) {
		t.Error("the log holds a token")
	}
}

func TestPayloadLimit(t *testing.T) {
	l := newLab(t)
	id, url := l.link(watch.Request{})
	big := bytes.Repeat([]byte("a"), MaxPayload+1)
	a := send(t, http.MethodPost, url, nil, big)
	want(t, a, http.StatusRequestEntityTooLarge, "1048576 bytes (1 MiB)")
	// Without a Content-Length (chunked), the reader stops at the limit.
	req, _ := http.NewRequest(http.MethodPost, url, struct{ *bytes.Reader }{bytes.NewReader(big)})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || req.ContentLength != 0 {
		t.Errorf("chunked over the limit: %d (content length %d)", resp.StatusCode, req.ContentLength)
	}
	want(t, send(t, http.MethodPost, url, nil, big[:MaxPayload]), http.StatusAccepted, `"accepted":true`)
	if n := l.inbox(id); n != 1 {
		t.Errorf("%d stored, want the one at the limit", n)
	}
}

// Each scheme: the right signature is accepted, a wrong or missing one is
// 401 and stores nothing.
func TestSignatures(t *testing.T) {
	l := newLab(t)
	body := `{"action":"completed"}`
	for _, scheme := range webhooksig.Schemes() {
		id, url := l.link(watch.Request{Signature: scheme})
		secret := l.secret(id)
		want(t, post(t, url, signed(t, scheme, secret, "msg_1", time.Now(), body), body), http.StatusAccepted, `"accepted":true`)
		want(t, post(t, url, nil, body), http.StatusUnauthorized, "signature missing")
		other := secret + "x"
		if scheme == webhooksig.StandardWebhooks {
			other = "whsec_QUJDREVGR0hJSktMTU5PUA=="
		}
		want(t, post(t, url, signed(t, scheme, other, "msg_2", time.Now(), body), body), http.StatusUnauthorized, "does not match")
		// The right signature over another body.
		want(t, post(t, url, signed(t, scheme, secret, "msg_3", time.Now(), body), `{"action":"forged"}`), http.StatusUnauthorized, "does not match")
		if n := l.inbox(id); n != 1 {
			t.Errorf("%s: %d stored, want 1", scheme, n)
		}
	}
}

// A Standard Webhooks delivery signed more than five minutes ago (or
// ahead) is a replay: refused although its signature matches.
func TestStandardWebhooksReplayRefused(t *testing.T) {
	l := newLab(t)
	id, url := l.link(watch.Request{Signature: webhooksig.StandardWebhooks})
	secret := l.secret(id)
	body := `{"n":1}`
	for _, at := range []time.Time{time.Now().Add(-6 * time.Minute), time.Now().Add(6 * time.Minute)} {
		want(t, post(t, url, signed(t, webhooksig.StandardWebhooks, secret, "msg_old", at, body), body), http.StatusUnauthorized, "outside the tolerance")
	}
	want(t, post(t, url, signed(t, webhooksig.StandardWebhooks, secret, "msg_now", time.Now().Add(-4*time.Minute), body), body), http.StatusAccepted, `"accepted":true`)
	if n := l.inbox(id); n != 1 {
		t.Errorf("%d stored, want 1", n)
	}
}

// A GitHub ping is acknowledged and nothing else: not stored, not
// counted, no event.
func TestGitHubPing(t *testing.T) {
	l := newLab(t)
	id, url := l.link(watch.Request{Signature: webhooksig.GitHub})
	body := `{"zen":"Keep it logically awesome.","hook_id":1}`
	h := signed(t, webhooksig.GitHub, l.secret(id), "", time.Now(), body)
	h.Set("X-GitHub-Event", "ping")
	h.Set("X-GitHub-Delivery", "ping-1")
	want(t, post(t, url, h, body), http.StatusAccepted, `"ping":true`)
	l.tick(id)
	if n, hits, evs := l.inbox(id), l.store.LinkHits(id), len(l.events(id)); n != 0 || hits != 0 || evs != 0 {
		t.Errorf("a ping stored %d, counted %d, made %d events", n, hits, evs)
	}
	// An unsigned ping on a signed link is still refused.
	h.Del(webhooksig.HeaderGitHub)
	want(t, post(t, url, h, body), http.StatusUnauthorized, "signature missing")
}

// A delivery is stored once per Idempotency-Key, webhook-id or
// X-GitHub-Delivery, whatever its body; the repeat answers 202.
func TestDedupeHeaders(t *testing.T) {
	l := newLab(t)
	for _, name := range []string{"Idempotency-Key", "webhook-id", "X-GitHub-Delivery"} {
		id, url := l.link(watch.Request{})
		want(t, post(t, url, hdr(name, "d-1"), `{"try":1}`), http.StatusAccepted, `"accepted":true`)
		want(t, post(t, url, hdr(name, "d-1"), `{"try":2}`), http.StatusAccepted, `"duplicate":true`)
		want(t, post(t, url, hdr(name, "d-2"), `{"try":1}`), http.StatusAccepted, `"accepted":true`)
		if n, hits := l.inbox(id), l.store.LinkHits(id); n != 2 || hits != 2 {
			t.Errorf("%s: stored %d, hits %d; want 2, 2", name, n, hits)
		}
		l.tick(id)
		if evs := l.events(id); len(evs) != 2 || !strings.Contains(evs[0].Payload, `"try":1`) {
			t.Errorf("%s: events %+v", name, evs)
		}
	}
	// A signed Standard Webhooks retry (same webhook-id, new timestamp and
	// signature) is the same delivery.
	id, url := l.link(watch.Request{Signature: webhooksig.StandardWebhooks})
	secret := l.secret(id)
	for i := range 2 {
		a := post(t, url, signed(t, webhooksig.StandardWebhooks, secret, "msg_retry", time.Now().Add(time.Duration(i)*time.Second), `{}`), `{}`)
		if a.code != http.StatusAccepted {
			t.Fatalf("attempt %d: %d %s", i, a.code, a.body)
		}
	}
	if n := l.inbox(id); n != 1 {
		t.Errorf("a Standard Webhooks retry stored %d, want 1", n)
	}
}

// A captured signed delivery replayed with fresh unsigned ids is still
// one delivery: an unsigned header (Idempotency-Key, X-GitHub-Delivery)
// never widens a signed delivery's identity. Standard Webhooks signs its
// webhook-id, so that is the identity (a replay outside the tolerance is
// refused by its timestamp); GitHub's and X-Signature's signatures cover
// the body only, so the signed body is the identity, remembered as long as
// a sender's id.
func TestSignedIdentityIgnoresUnsignedIDs(t *testing.T) {
	l := newLab(t)
	t0 := time.Now()
	l.setNow(t0)

	id, url := l.link(watch.Request{Signature: webhooksig.StandardWebhooks})
	body := `{"type":"invoice.paid"}`
	captured := signed(t, webhooksig.StandardWebhooks, l.secret(id), "msg_1", t0, body)
	for i := range 4 {
		h := captured.Clone()
		h.Set("Idempotency-Key", "fresh-"+strconv.Itoa(i))
		if a := post(t, url, h, body); a.code != http.StatusAccepted {
			t.Fatalf("replay %d: %d %s", i, a.code, a.body)
		}
	}
	if n := l.inbox(id); n != 1 {
		t.Errorf("standard_webhooks: one message replayed with 4 fresh Idempotency-Keys stored %d, want 1", n)
	}

	for _, scheme := range []string{webhooksig.GitHub, webhooksig.HMACSHA256} {
		id, url := l.link(watch.Request{Signature: scheme})
		body := `{"action":"completed","run":7}`
		captured := signed(t, scheme, l.secret(id), "", t0, body)
		for i := range 4 {
			// Later than the unsigned body window: a signed body is
			// remembered as long as an id is.
			l.setNow(t0.Add(time.Duration(i) * (watch.BodyDedupeWindow + time.Minute)))
			h := captured.Clone()
			h.Set("X-GitHub-Delivery", "guid-"+strconv.Itoa(i))
			h.Set("Idempotency-Key", "key-"+strconv.Itoa(i))
			if a := post(t, url, h, body); a.code != http.StatusAccepted {
				t.Fatalf("%s replay %d: %d %s", scheme, i, a.code, a.body)
			}
		}
		if n := l.inbox(id); n != 1 {
			t.Errorf("%s: one signed body replayed with fresh delivery ids stored %d, want 1", scheme, n)
		}
		// A different signed body is a different delivery.
		other := `{"action":"completed","run":8}`
		want(t, post(t, url, signed(t, scheme, l.secret(id), "", t0, other), other), http.StatusAccepted, `"accepted":true`)
		if n := l.inbox(id); n != 2 {
			t.Errorf("%s: a second body stored %d in all, want 2", scheme, n)
		}
		l.setNow(t0)
	}
}

// Without an id, the same body counts once within ten minutes.
func TestSameBodyWithinTenMinutes(t *testing.T) {
	l := newLab(t)
	id, url := l.link(watch.Request{})
	t0 := time.Now()
	l.setNow(t0)
	want(t, post(t, url, nil, `{"state":"done"}`), http.StatusAccepted, `"accepted":true`)
	l.setNow(t0.Add(9 * time.Minute))
	want(t, post(t, url, nil, `{"state":"done"}`), http.StatusAccepted, `"duplicate":true`)
	want(t, post(t, url, nil, `{"state":"other"}`), http.StatusAccepted, `"accepted":true`)
	l.setNow(t0.Add(watch.BodyDedupeWindow + time.Second))
	want(t, post(t, url, nil, `{"state":"done"}`), http.StatusAccepted, `"accepted":true`)
	if n := l.inbox(id); n != 3 {
		t.Errorf("%d stored, want 3", n)
	}
}

func TestMaxHits(t *testing.T) {
	l := newLab(t)
	id, url := l.link(watch.Request{MaxHits: ptr(3)})
	for i := range 3 {
		want(t, post(t, url, nil, `{"n":`+strconv.Itoa(i)+`}`), http.StatusAccepted, `"accepted":true`)
	}
	want(t, post(t, url, nil, `{"n":4}`), http.StatusNotFound, "no such link")
	l.tick(id)
	if evs := l.events(id); len(evs) != 3 {
		t.Errorf("%d events, want 3", len(evs))
	}
	w, _ := l.store.Get(id, owner)
	if !w.State.Paused || !strings.Contains(w.State.Reason, "max_hits") {
		t.Errorf("after the last hit: paused %v %q", w.State.Paused, w.State.Reason)
	}
}

// The link's rate counts verified requests only; with a wrong signature a
// request counts against a cap of its own, four times the rate, so a
// stranger cannot use up the sender's rate.
func TestRateLimits(t *testing.T) {
	l := newLab(t)
	l.setNow(time.Now())
	// Signed: 3 a minute.
	id, url := l.link(watch.Request{Signature: webhooksig.HMACSHA256, Rate: "3/min"})
	secret := l.secret(id)
	good := func(n int) answer {
		b := `{"n":` + strconv.Itoa(n) + `}`
		return post(t, url, signed(t, webhooksig.HMACSHA256, secret, "", time.Now(), b), b)
	}
	for i := range 3 * watch.UnverifiedFactor {
		want(t, post(t, url, hdr(webhooksig.HeaderHMAC, "sha256=00"), `{"junk":`+strconv.Itoa(i)+`}`), http.StatusUnauthorized, "does not match")
	}
	a := post(t, url, hdr(webhooksig.HeaderHMAC, "sha256=00"), `{"junk":"more"}`)
	want(t, a, http.StatusTooManyRequests, "missing or wrong signature")
	for i := range 3 {
		want(t, good(i), http.StatusAccepted, `"accepted":true`) // the junk used none of these
	}
	a = good(3)
	want(t, a, http.StatusTooManyRequests, "3 deliveries a minute")
	if ra, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || ra < 1 || ra > 21 {
		t.Errorf("Retry-After %q, want the seconds until a token (about 20)", a.header.Get("Retry-After"))
	}
	// Twenty seconds later one more fits.
	l.setNow(l.clock().Add(21 * time.Second))
	want(t, good(4), http.StatusAccepted, `"accepted":true`)
	if n := l.inbox(id); n != 4 {
		t.Errorf("%d stored, want 4", n)
	}

	// Unsigned: every request counts against the rate.
	id2, url2 := l.link(watch.Request{Rate: "2/min"})
	want(t, post(t, url2, nil, `{"a":1}`), http.StatusAccepted, `"accepted":true`)
	want(t, post(t, url2, nil, `{"a":2}`), http.StatusAccepted, `"accepted":true`)
	want(t, post(t, url2, nil, `{"a":3}`), http.StatusTooManyRequests, "2 deliveries a minute")
	if n := l.inbox(id2); n != 2 {
		t.Errorf("unsigned: %d stored, want 2", n)
	}
}

// The signing secret and the token are in no log line, no event, no
// answer and no file under the home but their own.
func TestSecretAndTokenStayInTheirFiles(t *testing.T) {
	l := newLab(t)
	const secret = "receiver-test-secret-91c3"
	t.Setenv("HOOK_SECRET", secret)
	id, url := l.link(watch.Request{Signature: webhooksig.GitHub, SecretEnv: "HOOK_SECRET", Check: watch.CheckStatus, Path: "state", Value: "failed"})
	token := url[strings.LastIndex(url, "/")+1:]
	var answers []string
	for _, b := range []string{`{"state":"failed"}`, `{"state":"passed"}`, `{"other":1}`} {
		answers = append(answers, post(t, url, signed(t, webhooksig.GitHub, secret, "", time.Now(), b), b).body)
	}
	answers = append(answers, post(t, url, hdr(webhooksig.HeaderGitHub, "sha256="+secret), "{}").body)
	answers = append(answers, send(t, http.MethodGet, url, nil, nil).body)
	l.tick(id)
	if evs := l.events(id); len(evs) != 2 {
		t.Fatalf("%d events, want the fire and the misfit notice", len(evs))
	}
	for _, s := range []string{secret, token} {
		if strings.Contains(l.log.String(), s) {
			t.Errorf("the receiver's log holds %q:\n%s", s, l.log.String())
		}
		for _, a := range answers {
			if strings.Contains(a, s) {
				t.Errorf("an answer holds %q: %s", s, a)
			}
		}
	}
	if got := grepHome(t, l.home, secret); len(got) != 1 || got[0] != "watchers/"+id+"/link.secret" {
		t.Errorf("files holding the secret: %v", got)
	}
	if got := grepHome(t, l.home, token); len(got) != 1 || got[0] != "watchers/"+id+"/link.token" {
		t.Errorf("files holding the token: %v", got)
	}
}
