//go:build unix

package bgtasks

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// appendEvents writes n events of the given age, each with a full tail, so
// that a few hundred pass the compaction threshold.
func appendEvents(t *testing.T, r *Registry, n int, age time.Duration) {
	t.Helper()
	tail := strings.Repeat("x", maxEventTail-1) + "\n"
	for range n {
		if _, err := r.AppendEvent(Event{Kind: EventExited, TaskID: "t1", Time: time.Now().Add(-age), Tail: tail}); err != nil {
			t.Fatal(err)
		}
	}
}

func eventSeqs(t *testing.T, r *Registry, after int64) []int64 {
	t.Helper()
	evs, err := r.Events(after)
	if err != nil {
		t.Fatal(err)
	}
	seqs := make([]int64, len(evs))
	for i, e := range evs {
		seqs[i] = e.Seq
	}
	return seqs
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestCompactEventsDropsOldEventsAndSeqsGoOn(t *testing.T) {
	r := openTemp(t)
	appendEvents(t, r, 200, 10*day)
	appendEvents(t, r, 3, time.Hour)
	if fileSize(t, r.eventsPath()) < compactEventsFrom {
		t.Fatal("the log is below the threshold; the test needs more events")
	}
	dropped, err := r.compactEvents(time.Now().Add(-week))
	if err != nil || dropped != 200 {
		t.Fatalf("dropped %d (%v), want 200", dropped, err)
	}
	if got := eventSeqs(t, r, 0); len(got) != 3 || got[0] != 201 || got[2] != 203 {
		t.Fatalf("events left: %v, want 201-203", got)
	}
	if size := fileSize(t, r.eventsPath()); size > 4*maxEventTail {
		t.Fatalf("log is %d bytes after compaction", size)
	}
	if e, err := r.AppendEvent(Event{Kind: EventWarning, TaskID: "t2"}); err != nil || e.Seq != 204 {
		t.Fatalf("next event got seq %d (%v), want 204", e.Seq, err)
	}
}

func TestCompactEventsLeavesASmallLogAlone(t *testing.T) {
	r := openTemp(t)
	appendEvents(t, r, 10, 30*day)
	before := fileSize(t, r.eventsPath())
	if dropped, err := r.compactEvents(time.Now()); err != nil || dropped != 0 {
		t.Fatalf("dropped %d (%v) from a %d-byte log", dropped, err, before)
	}
	if got := eventSeqs(t, r, 0); len(got) != 10 {
		t.Fatalf("events left: %v", got)
	}
}

func TestCompactEventsKeepsTheNewestWhenAllAreOld(t *testing.T) {
	r := openTemp(t)
	appendEvents(t, r, 200, 30*day)
	if dropped, err := r.compactEvents(time.Now()); err != nil || dropped != 199 {
		t.Fatalf("dropped %d (%v), want 199", dropped, err)
	}
	if got := eventSeqs(t, r, 0); len(got) != 1 || got[0] != 200 {
		t.Fatalf("events left: %v, want only 200", got)
	}
	if e, err := r.AppendEvent(Event{Kind: EventWarning}); err != nil || e.Seq != 201 {
		t.Fatalf("next event got seq %d (%v), want 201", e.Seq, err)
	}
}

// Torn and foreign lines among the old events go with them, an overlong one
// included.
func TestCompactEventsDropsGarbageAmongOldEvents(t *testing.T) {
	r := openTemp(t)
	appendEvents(t, r, 100, 10*day)
	f, err := os.OpenFile(r.eventsPath(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"seq\": torn\n" + strings.Repeat("z", 3*scanBlock) + "\n")
	f.Close()
	appendEvents(t, r, 100, 10*day)
	appendEvents(t, r, 1, time.Minute)
	if dropped, err := r.compactEvents(time.Now().Add(-week)); err != nil || dropped != 202 {
		t.Fatalf("dropped %d lines (%v), want 202", dropped, err)
	}
	if got := eventSeqs(t, r, 0); len(got) != 1 || got[0] != 201 {
		t.Fatalf("events left: %v, want only 201", got)
	}
}

// A follower and a consumer whose cursor was among the dropped events both
// carry on with what follows.
func TestReadersCarryOnAcrossACompaction(t *testing.T) {
	r := openTemp(t)
	appendEvents(t, r, 200, 10*day)
	appendEvents(t, r, 2, time.Hour)
	if err := r.MarkDelivered("agent", 150); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := make(chan int64, 16)
	done := make(chan error, 1)
	go func() {
		done <- r.FollowEvents(ctx, 202, func(e Event) error {
			seen <- e.Seq
			return nil
		})
	}()
	if _, err := r.compactEvents(time.Now().Add(-week)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.AppendEvent(Event{Kind: EventWarning, TaskID: "t9"}); err != nil {
		t.Fatal(err)
	}
	select {
	case seq := <-seen:
		if seq != 203 {
			t.Fatalf("follower saw %d, want 203", seq)
		}
	case err := <-done:
		t.Fatalf("follower stopped: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the follower saw nothing after the compaction")
	}
	evs, err := r.Undelivered("agent")
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, e := range evs {
		got = append(got, e.Seq)
	}
	if len(got) != 3 || got[0] != 201 || got[2] != 203 {
		t.Fatalf("undelivered after compaction: %v, want 201-203", got)
	}
}

func TestPruneExpiredCompactsTheEventLog(t *testing.T) {
	r := openTemp(t)
	appendEvents(t, r, 200, 10*day)
	appendEvents(t, r, 1, time.Hour)
	writeStamp(t, r, "1\n")
	expired, err := r.PruneExpired(week, time.Hour)
	if err != nil || expired.Events != 200 {
		t.Fatalf("PruneExpired = %+v (%v), want 200 events dropped", expired, err)
	}
}
