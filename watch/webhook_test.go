package watch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

func webhook(t *testing.T, s *Store, q *Request) *Created {
	t.Helper()
	q.Kind = KindWebhook
	return create(t, s, q, "sess")
}

func accept(t *testing.T, s *Store, id, did, body string) bool {
	t.Helper()
	dup, err := s.AcceptDelivery(id, Delivery{ID: did, Body: []byte(body)}, time.Now())
	if err != nil {
		t.Fatalf("accept %s: %v", did, err)
	}
	return dup
}

func inboxLen(t *testing.T, s *Store, id string) int {
	t.Helper()
	ds, err := listInbox(s.Inbox(id))
	if err != nil {
		t.Fatal(err)
	}
	return len(ds)
}

func TestWebhookRequestsRefusedNameTheField(t *testing.T) {
	s := newStore(t)
	for _, c := range []struct {
		q     Request
		field string
	}{
		{Request{Signature: "gitlab"}, "signature (--signature)"},
		{Request{SecretEnv: "X"}, "signature (--signature)"},
		{Request{Signature: "github", SecretEnv: "ghp_notaname!"}, "secret_env (--secret-env)"},
		{Request{Signature: "github", SecretEnv: "HANGDOG_TEST_UNSET_SECRET"}, "secret_env (--secret-env)"},
		{Request{MaxHits: ptr(0)}, "max_hits (--max-hits)"},
		{Request{MaxHits: ptr(MaxMaxHits + 1)}, "max_hits (--max-hits)"},
		{Request{Rate: "fast"}, "rate (--rate)"},
		{Request{Rate: "0/min"}, "rate (--rate)"},
		{Request{Rate: "90/h"}, "rate (--rate)"},
		{Request{MaxFires: ptr(5)}, "max_fires (--max-fires)"},
		{Request{MaxWakesPerHour: ptr(5)}, "max_wakes_per_hour (--max-wakes-per-hour)"},
		{Request{CooldownSeconds: ptr(5.0)}, "cooldown_seconds (--cooldown)"},
		{Request{IntervalSeconds: 5}, "interval_seconds (--interval)"},
		{Request{Check: CheckNew, Path: "items"}, "check (--check)"},
		{Request{ExpiresAt: "tomorrow"}, "expires_at (--expires)"},
		{Request{Target: "http://x"}, "target"},
	} {
		q := c.q
		q.Kind = KindWebhook
		_, err := s.Create(t.Context(), &q, "sess", "")
		var ref *Refusal
		if !errors.As(err, &ref) || ref.Field != c.field {
			t.Errorf("%+v: %v, want a refusal of %s", c.q, err, c.field)
		}
	}
	if _, err := s.Create(t.Context(), &Request{Kind: KindFile, Target: "/tmp/x", Rate: "1/min"}, "sess", ""); err == nil {
		t.Error("a file watcher with a rate was accepted")
	}
	if ws, _ := s.List(bgtasks.Scope{All: true}); len(ws) != 0 {
		t.Errorf("refused requests wrote %d watchers", len(ws))
	}
	for text, want := range map[string]int{"60/min": 60, "2/s": 120, "600/h": 10, " 5 / minute ": 5} {
		if n, err := ParseRate(text); err != nil || n != want {
			t.Errorf("ParseRate(%q) = %d, %v; want %d", text, n, err, want)
		}
	}
}

// The secret is read from the environment or a private file at create and
// kept only in <id>/link.secret (0600): not in the spec, the state or the
// label.
func TestWebhookSecretStaysInItsFile(t *testing.T) {
	s := newStore(t)
	const secret = "s3cret-from-the-env-5a1b"
	t.Setenv("HOOK_SECRET", secret)
	c := webhook(t, s, &Request{Signature: "github", SecretEnv: "HOOK_SECRET"})
	if got, err := s.LinkSecret(c.Spec.ID, "sess"); err != nil || got != secret {
		t.Fatalf("LinkSecret = %q, %v", got, err)
	}
	if _, err := s.LinkSecret(c.Spec.ID, "other"); !errors.Is(err, ErrNotFound) {
		t.Errorf("another owner read the secret: %v", err)
	}
	dir := s.watcherDir(c.Spec.ID)
	fi, err := os.Stat(filepath.Join(dir, linkSecretFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v %v", fi, err)
	}
	token, err := s.LinkToken(c.Spec.ID, "sess")
	if err != nil {
		t.Fatal(err)
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, _ error) error {
		if d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), secret) && d.Name() != linkSecretFile {
			t.Errorf("%s holds the secret", p)
		}
		if strings.Contains(string(b), token) && d.Name() != linkTokenFile {
			t.Errorf("%s holds the token", p)
		}
		return nil
	})
	if strings.Contains(c.Spec.Label(), secret) || strings.Contains(c.Spec.Label(), token) {
		t.Error("the label shows a secret")
	}

	// A file others can read is refused; a private one is read.
	f := filepath.Join(t.TempDir(), "secret")
	writeFile(t, f, "from-a-file\n")
	os.Chmod(f, 0o644)
	if _, err := s.Create(t.Context(), &Request{Kind: KindWebhook, Signature: "hmac_sha256", SecretFile: f}, "sess", ""); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a world-readable secret file: %v", err)
	}
	os.Chmod(f, 0o600)
	c2 := webhook(t, s, &Request{Signature: "hmac_sha256", SecretFile: f})
	if got, _ := s.LinkSecret(c2.Spec.ID, "sess"); got != "from-a-file" {
		t.Errorf("secret from the file = %q", got)
	}
	// No source: one is made, in the scheme's form.
	c3 := webhook(t, s, &Request{Signature: "standard_webhooks"})
	if got, _ := s.LinkSecret(c3.Spec.ID, "sess"); !strings.HasPrefix(got, "whsec_") {
		t.Errorf("made secret = %q, want whsec_…", got)
	}
	if c3.Spec.ExpiresAt == nil || time.Until(*c3.Spec.ExpiresAt) < DefaultLinkLife-time.Minute {
		t.Errorf("a link without --expires expires at %v, want in %v", c3.Spec.ExpiresAt, DefaultLinkLife)
	}
}

// Each accepted delivery is one event, with the delivery's dedupe key; a
// repeat of an id stores nothing; a handled delivery leaves the inbox.
func TestWebhookDeliveriesFireOnceEach(t *testing.T) {
	s := newStore(t)
	c := webhook(t, s, &Request{MaxHits: ptr(3)})
	id := c.Spec.ID
	if accept(t, s, id, "id:a", `{"n":1}`) || accept(t, s, id, "id:b", `not json`) {
		t.Fatal("a first delivery counted as a duplicate")
	}
	if !accept(t, s, id, "id:a", `{"n":1}`) {
		t.Fatal("a repeated id was stored again")
	}
	if n := s.LinkHits(id); n != 2 {
		t.Fatalf("hits %d, want 2", n)
	}
	r := &Runner{Store: s, ID: id}
	if tick(t, r) {
		t.Fatal("stopped with a hit left")
	}
	evs := events(t, s, id, bgtasks.EventWatchFired)
	if len(evs) != 2 || !strings.HasPrefix(evs[0].DedupeKey, id+":hook:0000000001-") || !strings.Contains(evs[1].Payload, "not json") {
		t.Fatalf("events %+v", evs)
	}
	if !strings.Contains(evs[0].Payload, "untrusted") {
		t.Error("a delivery's payload is not marked untrusted")
	}
	if n := inboxLen(t, s, id); n != 0 {
		t.Errorf("%d deliveries left in the inbox", n)
	}
	tick(t, r)
	if n := len(events(t, s, id, bgtasks.EventWatchFired)); n != 2 {
		t.Errorf("a second tick made %d events, want still 2", n)
	}
	// The third hit uses the link up: the delivery still fires, then the
	// watcher pauses and the link is closed.
	accept(t, s, id, "id:c", `{"n":3}`)
	if _, err := s.AcceptDelivery(id, Delivery{ID: "id:d", Body: []byte("{}")}, time.Now()); !errors.Is(err, ErrLinkClosed) {
		t.Errorf("a delivery past max_hits: %v, want ErrLinkClosed", err)
	}
	if !tick(t, r) {
		t.Error("the runner did not stop with the link used up")
	}
	if n := len(events(t, s, id, bgtasks.EventWatchFired)); n != 3 {
		t.Errorf("%d fires, want 3", n)
	}
	if st := state(t, s, id); !st.Paused || !strings.Contains(st.Reason, "max_hits") {
		t.Errorf("state after the last hit: paused %v, %q", st.Paused, st.Reason)
	}
}

// Without an id the same body counts once within ten minutes, and again
// after.
func TestWebhookSameBodyWindow(t *testing.T) {
	s := newStore(t)
	c := webhook(t, s, &Request{})
	id := c.Spec.ID
	t0 := time.Now()
	d := Delivery{ID: "body:abc", Body: []byte(`{}`)}
	for i, c := range []struct {
		at  time.Time
		dup bool
	}{{t0, false}, {t0.Add(9 * time.Minute), true}, {t0.Add(BodyDedupeWindow + time.Second), false}} {
		dup, err := s.AcceptDelivery(id, d, c.at)
		if err != nil || dup != c.dup {
			t.Errorf("#%d at +%v: duplicate %v, %v; want %v", i, c.at.Sub(t0), dup, err, c.dup)
		}
	}
	if n := inboxLen(t, s, id); n != 2 {
		t.Errorf("%d stored, want 2", n)
	}
}

// A check reads the body: status at a path fires for each delivery that
// fits (not edge-triggered); one lacking the path wakes the owner once.
func TestWebhookCheckOnTheBody(t *testing.T) {
	s := newStore(t)
	c := webhook(t, s, &Request{Check: CheckStatus, Path: "build.state", Value: "failed"})
	id := c.Spec.ID
	for i, b := range []string{`{"build":{"state":"failed"}}`, `{"build":{"state":"passed"}}`, `{"build":{"state":"failed"}}`, `{"other":1}`, `{"other":2}`} {
		accept(t, s, id, "id:"+string(rune('a'+i)), b)
	}
	tick(t, &Runner{Store: s, ID: id})
	evs := events(t, s, id, bgtasks.EventWatchFired)
	if len(evs) != 3 {
		t.Fatalf("%d events, want 2 fires and 1 misfit notice: %+v", len(evs), evs)
	}
	if !strings.Contains(evs[0].Reason, "status failed") || !strings.Contains(evs[1].Reason, "delivery 3") {
		t.Errorf("fires: %q, %q", evs[0].Reason, evs[1].Reason)
	}
	if !strings.Contains(evs[2].Reason, "delivery 4 lacks what the check reads") || !strings.Contains(evs[2].Reason, "build") {
		t.Errorf("misfit notice: %q", evs[2].Reason)
	}
	if n := inboxLen(t, s, id); n != 0 {
		t.Errorf("%d left in the inbox (misfits are settled too)", n)
	}
}

// A kill -9 between reserving a delivery's event and appending it: the
// restarted runner delivers it once and handles nothing twice.
func TestWebhookCrashBetweenReserveAndDeliver(t *testing.T) {
	s := newStore(t)
	c := webhook(t, s, &Request{})
	id := c.Spec.ID
	accept(t, s, id, "id:1", `{"a":1}`)
	accept(t, s, id, "id:2", `{"a":2}`)
	cmd := helper(t, s.reg.Home(), "run-crash-after-reserve", id)
	if err := cmd.Run(); err == nil {
		t.Fatal("the helper was not killed")
	}
	st := state(t, s, id)
	if len(st.Pending) != 2 || len(st.Keys) != 2 {
		t.Fatalf("after the crash: pending %d, keys %d; want both reserved", len(st.Pending), len(st.Keys))
	}
	if n := len(events(t, s, id, "")); n != 0 {
		t.Fatalf("%d events before the restart", n)
	}
	r := &Runner{Store: s, ID: id}
	tick(t, r)
	tick(t, r)
	evs := events(t, s, id, bgtasks.EventWatchFired)
	if len(evs) != 2 {
		t.Fatalf("%d events after the restart, want 2", len(evs))
	}
	if n := inboxLen(t, s, id); n != 0 {
		t.Errorf("%d left in the inbox", n)
	}
}

// A paused, expired or deleted link takes nothing.
func TestWebhookClosedLinks(t *testing.T) {
	s := newStore(t)
	c := webhook(t, s, &Request{})
	id := c.Spec.ID
	w, _ := s.Get(id, "sess")
	if !s.WebhookOpen(w, time.Now()) {
		t.Fatal("a new link is not open")
	}
	if _, err := s.AcceptDelivery(id, Delivery{ID: "id:x"}, c.Spec.ExpiresAt.Add(time.Second)); !errors.Is(err, ErrLinkClosed) {
		t.Errorf("after the expiry: %v", err)
	}
	if s.WebhookOpen(w, c.Spec.ExpiresAt.Add(time.Second)) {
		t.Error("open after its expiry")
	}
	if err := s.Pause(id, "sess", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AcceptDelivery(id, Delivery{ID: "id:x"}, time.Now()); !errors.Is(err, ErrLinkClosed) {
		t.Errorf("paused: %v", err)
	}
	if _, err := s.Delete(id, "sess"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AcceptDelivery(id, Delivery{ID: "id:x"}, time.Now()); !errors.Is(err, ErrLinkClosed) {
		t.Errorf("deleted: %v", err)
	}
}

// A delivery accepted before the link expired is still told after it: a
// 202 is a promise. Then the watcher says once that it expired.
func TestWebhookDeliveryBeforeExpiryIsStillTold(t *testing.T) {
	s := newStore(t)
	c := webhook(t, s, &Request{ExpiresAt: time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	id := c.Spec.ID
	accept(t, s, id, "id:late", `{"n":1}`)
	later := c.Spec.ExpiresAt.Add(time.Minute)
	r := &Runner{Store: s, ID: id, Now: func() time.Time { return later }}
	if !tick(t, r) {
		t.Fatal("the runner did not stop at the expiry")
	}
	if n := len(events(t, s, id, bgtasks.EventWatchFired)); n != 1 {
		t.Errorf("%d fires, want the delivery told", n)
	}
	exp := events(t, s, id, bgtasks.EventWatchExpired)
	if len(exp) != 1 || !strings.Contains(exp[0].Reason, "after 1 of 100 deliveries") {
		t.Errorf("expiry events %+v", exp)
	}
	if n := inboxLen(t, s, id); n != 0 {
		t.Errorf("%d left in the inbox", n)
	}
}

// A kill between storing a delivery and counting it leaves its file and no
// hit. The sender retries (no answer came): the retry is a duplicate,
// whether the orphan is still in the inbox or the runner already told it.
func TestWebhookOrphanOfACrashIsAdopted(t *testing.T) {
	for _, drained := range []bool{false, true} {
		s := newStore(t)
		c := webhook(t, s, &Request{})
		id := c.Spec.ID
		accept(t, s, id, "id:first", `{"n":0}`)
		accept(t, s, id, "id:d1", `{"n":1}`)
		// As if killed before the hit was written: hook.json as it was.
		h, _ := s.readHook(id)
		h.Hits, h.Seen = 1, h.Seen[:1]
		if err := writeJSON(filepath.Join(s.watcherDir(id), hookFile), h); err != nil {
			t.Fatal(err)
		}
		r := &Runner{Store: s, ID: id}
		if drained {
			tick(t, r)
		}
		// Another sender comes first, then the retry.
		if accept(t, s, id, "id:d2", `{"n":2}`) {
			t.Fatal("a new delivery counted as a duplicate")
		}
		if !accept(t, s, id, "id:d1", `{"n":1}`) {
			t.Errorf("drained %v: the retry of the orphan was stored again", drained)
		}
		tick(t, r)
		if n := len(events(t, s, id, bgtasks.EventWatchFired)); n != 3 {
			t.Errorf("drained %v: %d events, want 3 (first, d1, d2 once each)", drained, n)
		}
		if n := s.LinkHits(id); n != 3 {
			t.Errorf("drained %v: hits %d, want 3", drained, n)
		}
	}
}
