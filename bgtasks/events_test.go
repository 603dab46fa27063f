package bgtasks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func appendEvent(t *testing.T, r *Registry, e Event) Event {
	t.Helper()
	out, err := r.AppendEvent(e)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func seqs(evs []Event) []int64 {
	var s []int64
	for _, e := range evs {
		s = append(s, e.Seq)
	}
	return s
}

func TestAppendEventAssignsSeqAndTime(t *testing.T) {
	r := openTemp(t)
	code := 1
	first := appendEvent(t, r, Event{Kind: EventExited, TaskID: "t4", Command: "npm test", ExitCode: &code, DurationMS: 212000})
	if first.Seq != 1 || first.Time.IsZero() {
		t.Fatalf("first event %+v: want seq 1 and a time", first)
	}
	at := time.Date(2026, 11, 29, 10, 1, 2, 0, time.UTC)
	second := appendEvent(t, r, Event{Kind: EventDetached, TaskID: "t5", Time: at})
	if second.Seq != 2 || !second.Time.Equal(at) {
		t.Fatalf("second event %+v: want seq 2 and the given time", second)
	}
	evs, err := r.Events(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Command != "npm test" || *evs[0].ExitCode != 1 || evs[1].Kind != EventDetached {
		t.Fatalf("Events(0) = %+v", evs)
	}
	after, err := r.Events(1)
	if err != nil || len(after) != 1 || after[0].Seq != 2 {
		t.Fatalf("Events(1) = %+v, %v", after, err)
	}
}

func TestEventsWithoutLogIsEmpty(t *testing.T) {
	r := openTemp(t)
	evs, err := r.Events(0)
	if err != nil || len(evs) != 0 {
		t.Fatalf("Events on a new home = %v, %v", evs, err)
	}
}

func TestTornEventLineIsSkipped(t *testing.T) {
	r := openTemp(t)
	appendEvent(t, r, Event{Kind: EventExited, TaskID: "t1"})
	// A writer that died halfway through its line.
	f, err := os.OpenFile(r.eventsPath(), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"seq":2,"time":"2026-11-29T10:0`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	next := appendEvent(t, r, Event{Kind: EventKilled, TaskID: "t2"})
	if next.Seq != 2 {
		t.Fatalf("seq after a torn line = %d, want 2", next.Seq)
	}
	// Garbage of other kinds: not JSON, JSON without a seq, blank lines.
	f, _ = os.OpenFile(r.eventsPath(), os.O_WRONLY|os.O_APPEND, 0o600)
	_, _ = f.WriteString("\x00\x00garbage\n{\"kind\":\"exited\"}\n\n")
	f.Close()
	appendEvent(t, r, Event{Kind: EventWarning, TaskID: "t3"})

	evs, err := r.Events(0)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(seqs(evs)); got != "[1 2 3]" {
		t.Fatalf("seqs %s, want [1 2 3]", got)
	}
	if evs[1].TaskID != "t2" || evs[2].TaskID != "t3" {
		t.Fatalf("events %+v", evs)
	}
}

func TestEventsAcrossManyBlocksAndOverlongGarbage(t *testing.T) {
	r := openTemp(t)
	tail := strings.Repeat("output line\n", 200)
	for range 150 {
		appendEvent(t, r, Event{Kind: EventExited, TaskID: "t1", Tail: tail})
	}
	f, _ := os.OpenFile(r.eventsPath(), os.O_WRONLY|os.O_APPEND, 0o600)
	_, _ = f.Write(bytes.Repeat([]byte("x"), 3*maxEventLine))
	f.Close()
	for range 50 {
		appendEvent(t, r, Event{Kind: EventWarning, TaskID: "t2"})
	}
	evs, err := r.Events(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 200 || evs[0].Seq != 1 || evs[199].Seq != 200 || evs[149].Tail != tail {
		t.Fatalf("got %d events, first %d, last %d", len(evs), evs[0].Seq, evs[len(evs)-1].Seq)
	}
	recent, err := r.Events(140)
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) != 60 || recent[0].Seq != 141 {
		t.Fatalf("Events(140): %d events from %d", len(recent), recent[0].Seq)
	}
}

func TestEventTailIsCapped(t *testing.T) {
	r := openTemp(t)
	long := strings.Repeat("é", maxEventTail) + "THE END"
	e := appendEvent(t, r, Event{Kind: EventExited, TaskID: "t1", Tail: long})
	if len(e.Tail) > maxEventTail || !strings.HasSuffix(e.Tail, "THE END") || !strings.HasPrefix(e.Tail, "é") {
		t.Fatalf("tail of %d bytes, ends %q: want at most %d, keeping the end on a character boundary", len(e.Tail), e.Tail[len(e.Tail)-7:], maxEventTail)
	}
}

func TestConsumerCursors(t *testing.T) {
	r := openTemp(t)
	appendEvent(t, r, Event{Kind: EventExited, TaskID: "t1"})
	appendEvent(t, r, Event{Kind: EventExited, TaskID: "t2"})

	// A new consumer starts at the end: history is not replayed.
	evs, err := r.Undelivered("mcp")
	if err != nil || len(evs) != 0 {
		t.Fatalf("first Undelivered = %v, %v; want nothing", evs, err)
	}
	appendEvent(t, r, Event{Kind: EventKilled, TaskID: "t3"})
	appendEvent(t, r, Event{Kind: EventLost, TaskID: "t4"})
	evs, err = r.Undelivered("mcp")
	if err != nil || fmt.Sprint(seqs(evs)) != "[3 4]" {
		t.Fatalf("Undelivered = %v, %v; want seqs 3 and 4", seqs(evs), err)
	}
	// Not marked yet: still undelivered.
	if again, _ := r.Undelivered("mcp"); len(again) != 2 {
		t.Fatalf("unmarked events vanished: %v", seqs(again))
	}
	if err := r.MarkDelivered("mcp", 3); err != nil {
		t.Fatal(err)
	}
	if evs, _ := r.Undelivered("mcp"); fmt.Sprint(seqs(evs)) != "[4]" {
		t.Fatalf("after marking 3: %v", seqs(evs))
	}
	// Never backwards.
	if err := r.MarkDelivered("mcp", 4); err != nil {
		t.Fatal(err)
	}
	if err := r.MarkDelivered("mcp", 1); err != nil {
		t.Fatal(err)
	}
	if evs, _ := r.Undelivered("mcp"); len(evs) != 0 {
		t.Fatalf("cursor moved back: %v undelivered", seqs(evs))
	}
	// Another consumer has its own cursor.
	if err := r.MarkDelivered("hook", 1); err != nil {
		t.Fatal(err)
	}
	if evs, _ := r.Undelivered("hook"); fmt.Sprint(seqs(evs)) != "[2 3 4]" {
		t.Fatalf("hook consumer: %v", seqs(evs))
	}
	for _, bad := range []string{"", "../x", ".hidden", "a/b", strings.Repeat("a", 65)} {
		if _, err := r.Undelivered(bad); err == nil {
			t.Errorf("consumer name %q accepted", bad)
		}
	}
}

func TestFollowEvents(t *testing.T) {
	r := openTemp(t)
	appendEvent(t, r, Event{Kind: EventExited, TaskID: "t1"})
	appendEvent(t, r, Event{Kind: EventExited, TaskID: "t2"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan Event)
	done := make(chan error, 1)
	go func() {
		done <- r.FollowEvents(ctx, 1, func(e Event) error {
			select {
			case got <- e:
			case <-ctx.Done():
			}
			return nil
		})
	}()
	if e := <-got; e.Seq != 2 {
		t.Fatalf("first followed event seq %d, want 2 (after 1)", e.Seq)
	}
	appendEvent(t, r, Event{Kind: EventKilled, TaskID: "t3"})
	if e := <-got; e.Seq != 3 || e.TaskID != "t3" {
		t.Fatalf("followed %+v, want seq 3", e)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("FollowEvents after cancel: %v", err)
	}

	stop := errors.New("stop")
	err := r.FollowEvents(context.Background(), 0, func(Event) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("FollowEvents did not return the callback's error: %v", err)
	}
}

// Twenty processes creating tasks and appending events at once must never
// share an id or a seq, and leave every file whole.
func TestConcurrentProcessesNeverShareIDsOrSeqs(t *testing.T) {
	r := openTemp(t)
	const procs = 20
	outs := runHelpers(t, procs, r.Home(), "create-and-append", "")
	ids := map[string]bool{}
	for _, out := range outs {
		for _, id := range strings.Fields(out) {
			if ids[id] {
				t.Fatalf("id %s handed out twice", id)
			}
			ids[id] = true
		}
	}
	if len(ids) != procs*helperRounds {
		t.Fatalf("%d ids, want %d", len(ids), procs*helperRounds)
	}
	tasks, err := r.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != procs*helperRounds {
		t.Fatalf("List sees %d tasks, want %d", len(tasks), procs*helperRounds)
	}
	for _, task := range tasks {
		if !ids[task.ID] || !strings.HasPrefix(task.Command, "echo ") {
			t.Fatalf("task %s has meta %+v", task.ID, task.Meta)
		}
	}
	f, err := os.Open(r.eventsPath())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[int64]bool{}
	sc := bufio.NewScanner(f)
	var prev int64
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("corrupt event line %q: %v", sc.Text(), err)
		}
		if seen[e.Seq] || e.Seq != prev+1 {
			t.Fatalf("seq %d after %d", e.Seq, prev)
		}
		seen[e.Seq] = true
		prev = e.Seq
	}
	if len(seen) != procs*helperRounds {
		t.Fatalf("%d events, want %d", len(seen), procs*helperRounds)
	}
}
