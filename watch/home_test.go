package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// firedDedupeKeys counts watcher id's fire events by dedupe key.
func firedDedupeKeys(t *testing.T, s *Store, id string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, e := range events(t, s, id, bgtasks.EventWatchFired) {
		out[e.DedupeKey]++
	}
	return out
}

// startHome runs the home's runner until the test ends; its log is
// returned.
func startHome(t *testing.T, s *Store, opts ...func(*HomeRunner)) *syncBuffer {
	t.Helper()
	log := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	h := &HomeRunner{Store: s, Log: log}
	for _, o := range opts {
		o(h)
	}
	go func() { done <- h.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("runner: %v", err)
		}
	})
	return log
}

// Issue 26, item 6: a trigger link removed with accepted deliveries still
// in its inbox (each answered 202) tells every one of them first.
// Before, the delete took the inbox with it: no runner here, so all 30
// were lost.
func TestWebhookRemovalTellsEveryAcceptedDelivery(t *testing.T) {
	s := newStore(t)
	id := webhook(t, s, &Request{MaxHits: ptr(1000)}).Spec.ID
	for i := range 30 {
		if accept(t, s, id, fmt.Sprintf("id:d-%d", i), fmt.Sprintf(`{"n":%d}`, i)) {
			t.Fatalf("delivery %d a duplicate", i)
		}
	}
	if _, err := s.Delete(id, "sess"); err != nil {
		t.Fatal(err)
	}
	if got := firedDedupeKeys(t, s, id); len(got) != 30 {
		t.Fatalf("%d deliveries told after the removal, want all 30 accepted", len(got))
	}
}

// The same with senders and the runner at work: deliveries arrive from 8
// senders while the runner drains, and the link is removed midway. Every
// delivery accepted is one event; every other was refused (the link
// closed) before it was accepted.
func TestWebhookRemovalWhileDeliveriesArrive(t *testing.T) {
	s := newStore(t)
	id := webhook(t, s, &Request{MaxHits: ptr(MaxMaxHits), Rate: "60000/min"}).Spec.ID
	startHome(t, s)
	var accepted sync.Map
	var n atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				did := fmt.Sprintf("id:s%d-%d", w, i)
				dup, err := s.AcceptDelivery(id, Delivery{ID: did, Body: []byte(`{"ok":true}`)}, time.Now())
				if errors.Is(err, ErrLinkClosed) {
					return
				}
				if err != nil {
					t.Errorf("accept: %v", err)
					return
				}
				if !dup {
					accepted.Store(seenKey(did), true)
					n.Add(1)
				}
			}
		})
	}
	for n.Load() < 150 {
		time.Sleep(time.Millisecond)
	}
	if _, err := s.Delete(id, "sess"); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	got := map[string]int{} // by the delivery's seen key: the dedupe key is <id>:hook:<seq>-<seen key>
	for k, c := range firedDedupeKeys(t, s, id) {
		got[k[strings.LastIndexByte(k, '-')+1:]] += c
	}
	lost := 0
	accepted.Range(func(k, _ any) bool {
		if got[k.(string)] != 1 {
			lost++
		}
		return true
	})
	if lost > 0 || len(got) != int(n.Load()) {
		t.Fatalf("%d accepted, %d events; %d accepted deliveries not told exactly once", n.Load(), len(got), lost)
	}
	t.Logf("%d deliveries accepted before the removal, each told once", n.Load())
}

// Issue 26, item 5: a backlog queued while no runner ran (1,200
// deliveries, more than a check takes) is all told within seconds of the
// runner's start, not one batch per fallback timer (5 minutes).
func TestWebhookBacklogDrainsAtOnce(t *testing.T) {
	s := newStore(t)
	id := webhook(t, s, &Request{MaxHits: ptr(MaxMaxHits), Rate: "60000/min"}).Spec.ID
	const n = 1200
	queueDeliveries(t, s, id, n)
	start := time.Now()
	log := startHome(t, s)
	waitFor(t, "every queued delivery told", 30*time.Second, func() bool {
		return len(firedDedupeKeys(t, s, id)) == n
	})
	took := time.Since(start)
	t.Logf("%d queued deliveries told %v after the runner's start", n, took.Round(time.Millisecond))
	if took > 15*time.Second {
		t.Errorf("the backlog took %v to drain\n%s", took, log.String())
	}
	waitFor(t, "the inbox emptied", 10*time.Second, func() bool { return inboxLen(t, s, id) == 0 })
}

// queueDeliveries stores n deliveries in a trigger link's inbox and
// counts them, as n calls of AcceptDelivery do (the same files), without
// a sync to disk for each: a backlog made in a moment.
func queueDeliveries(t *testing.T, s *Store, id string, n int) {
	t.Helper()
	h := hookRecord{}
	now := time.Now()
	for i := range n {
		did := fmt.Sprintf("id:d-%d", i)
		key := seenKey(did)
		b, _ := json.Marshal(inboxItem{Seq: i + 1, ID: did, Received: now, Body: json.RawMessage(`{"ok":true}`)})
		if err := os.WriteFile(filepath.Join(s.Inbox(id), inboxName(i+1, key)), b, 0o600); err != nil {
			t.Fatal(err)
		}
		h.Hits++
		h.Seen = append(h.Seen, seenItem{ID: key, At: now})
	}
	b, _ := json.Marshal(h)
	if err := os.WriteFile(filepath.Join(s.watcherDir(id), hookFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// One watcher's check that panics is marked damaged with the reason and
// the others go on being checked.
func TestHomeRunnerSurvivesAPanickingCheck(t *testing.T) {
	s := newStore(t)
	dir := t.TempDir()
	good := dir + "/good.txt"
	writeFile(t, good, "v0")
	bad := create(t, s, &Request{Kind: KindCommand, Target: "true", IntervalSeconds: 1}, "o").Spec.ID
	ok := create(t, s, &Request{Kind: KindFile, Target: good, IntervalSeconds: 1}, "o").Spec.ID
	log := startHome(t, s, func(h *HomeRunner) {
		h.beforeCheck = func(id string) {
			if id == bad {
				panic("a bug in a check")
			}
		}
	})
	waitFor(t, "the panicking watcher marked damaged", 10*time.Second, func() bool {
		w, err := s.Get(bad, "o")
		return err == nil && strings.Contains(w.Damaged, "a check panicked")
	})
	writeFile(t, good, "v1")
	waitFor(t, "the other watcher's fire", 10*time.Second, func() bool {
		return len(events(t, s, ok, bgtasks.EventWatchFired)) == 1
	})
	if !strings.Contains(log.String(), bad+" check panicked") {
		t.Errorf("the log does not say which check panicked:\n%s", log.String())
	}
}

// A check stuck past its deadline (here one that ignores its
// cancellation) gives its place back: with one place, the other watcher
// is still checked and fires.
func TestHomeRunnerGoesOnPastAStuckCheck(t *testing.T) {
	s := newStore(t)
	good := t.TempDir() + "/good.txt"
	writeFile(t, good, "v0")
	stuck := create(t, s, &Request{Kind: KindCommand, Target: "true", IntervalSeconds: 1}, "o").Spec.ID
	ok := create(t, s, &Request{Kind: KindFile, Target: good, IntervalSeconds: 1}, "o").Spec.ID
	release := make(chan struct{})
	defer close(release)
	log := startHome(t, s, func(h *HomeRunner) {
		h.Concurrency = 1
		h.deadline = 300 * time.Millisecond
		h.beforeCheck = func(id string) {
			if id == stuck {
				<-release // a check that never looks at its context
			}
		}
	})
	waitFor(t, "the stuck check reported", 10*time.Second, func() bool {
		return strings.Contains(log.String(), stuck+" check still running past its deadline")
	})
	writeFile(t, good, "v1")
	waitFor(t, "the other watcher's fire", 10*time.Second, func() bool {
		return len(events(t, s, ok, bgtasks.EventWatchFired)) == 1
	})
}

// A runner whose home is removed (the user deleted it, or a test's
// temporary home was cleaned up) leaves: there is nothing left to run.
// Before, it looked again every few seconds for ever, a process pair
// per home left behind, each using CPU.
func TestRunnerLeavesWhenItsHomeIsRemoved(t *testing.T) {
	s := newStore(t)
	target := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(target, []byte("v1"), 0o600); err != nil {
		t.Fatal(err)
	}
	create(t, s, &Request{Kind: KindFile, Target: target, IntervalSeconds: 1}, "o")
	done := make(chan error, 1)
	log := &syncBuffer{}
	go func() { done <- (&HomeRunner{Store: s, Log: log}).Run(context.Background()) }()
	time.Sleep(500 * time.Millisecond)
	if err := os.RemoveAll(s.dir); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("runner: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("the runner of a removed home still runs after 15 s; its log:\n%s", log.String())
	}
}
