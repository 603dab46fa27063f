package fleetsource_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/fleet"
	"github.com/hangdog/hangdog/fleet/natstest"
	"github.com/hangdog/hangdog/wake"
	"github.com/hangdog/hangdog/wake/fleetsource"
)

func connect(t *testing.T, urls string) *fleet.Conn {
	t.Helper()
	c, err := fleet.Connect(fleet.Config{URLs: urls, Stream: "EV"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func open(t *testing.T, c *fleet.Conn, name string, f fleetsource.Filter) *fleetsource.Source {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := fleetsource.Open(ctx, c, name, f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// publish puts events of host on the stream as the forwarder does.
func publish(t *testing.T, c *fleet.Conn, host string, evs ...bgtasks.Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, e := range evs {
		body, _ := json.Marshal(fleet.Message{Host: host, HomeID: "home-" + host, Event: e})
		if _, err := c.JS.Publish(ctx, fleet.Subject(host, e), body, jetstream.WithMsgID(fleet.MsgID("home-"+host, e))); err != nil {
			t.Fatal(err)
		}
	}
}

func ev(seq int64, kind string) bgtasks.Event {
	return bgtasks.Event{Seq: seq, Kind: kind, TaskID: "t1", Owner: "s1", Project: "/src/app"}
}

func pending(t *testing.T, s *fleetsource.Source) []wake.Item {
	t.Helper()
	items, err := s.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func seqsOf(items []wake.Item) []int64 {
	var out []int64
	for _, it := range items {
		out = append(out, it.Event.Seq)
	}
	return out
}

// What is not acknowledged is handed over again after a restart, in
// order; what is, never; the filter keeps to its kind.
func TestSourceAcksOnlyWhatIsHandled(t *testing.T) {
	cl := natstest.StartT(t, 1)
	c := connect(t, cl.URLs())
	s := open(t, c, "c1", fleetsource.Filter{Kind: "exited"})
	publish(t, c, "box1", ev(1, "exited"), ev(2, "watcher.fired"), ev(3, "exited"), ev(4, "exited"), ev(5, "exited"))
	items := pending(t, s)
	if got := seqsOf(items); len(got) != 4 || got[0] != 1 || got[3] != 5 {
		t.Fatalf("pending: %v, want the four exited events 1 3 4 5", got)
	}
	if items[0].Event.Host != "box1" || items[0].Event.HomeID != "home-box1" || items[0].ID >= items[1].ID {
		t.Fatalf("items %+v", items[:2])
	}
	// A restart before anything was handled: all four again.
	s = open(t, c, "c1", fleetsource.Filter{Kind: "exited"})
	items = pending(t, s)
	if got := seqsOf(items); len(got) != 4 {
		t.Fatalf("after a restart: %v, want all four again", got)
	}
	if err := s.Handled(context.Background(), items[1].ID); err != nil {
		t.Fatal(err)
	}
	if got := seqsOf(pending(t, s)); len(got) != 2 || got[0] != 4 {
		t.Fatalf("after handling two: %v, want 4 5", got)
	}
	s = open(t, c, "c1", fleetsource.Filter{Kind: "exited"})
	items = pending(t, s)
	if got := seqsOf(items); len(got) != 2 || got[0] != 4 || got[1] != 5 {
		t.Fatalf("after a restart: %v, want 4 5", got)
	}
	// Handled before a restart and only then acknowledged (the worker's
	// record said so): not handed over again.
	last := items[1].ID
	s = open(t, c, "c1", fleetsource.Filter{Kind: "exited"})
	if err := s.Handled(context.Background(), last); err != nil {
		t.Fatal(err)
	}
	if got := pending(t, s); len(got) != 0 {
		t.Fatalf("after handling all: %v", seqsOf(got))
	}
	s = open(t, c, "c1", fleetsource.Filter{Kind: "exited"})
	if got := pending(t, s); len(got) != 0 {
		t.Fatalf("after a restart with all handled: %v", seqsOf(got))
	}
	// --seen reads a recorded batch back by its ids.
	found, err := s.Find(context.Background(), []int64{items[0].ID, items[1].ID})
	if err != nil || len(found) != 2 || found[1].Seq != 5 || found[1].Host != "box1" {
		t.Fatalf("Find: %+v, %v", found, err)
	}
}

// The wake worker over the stream: a failed run gets its batch again, a
// succeeding one acknowledges it, and a worker started anew hands over
// only what came since.
func TestWorkerOverTheStream(t *testing.T) {
	cl := natstest.StartT(t, 1)
	c := connect(t, cl.URLs())
	home := t.TempDir()
	reg, err := bgtasks.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(home, "out.jsonl")
	flag := filepath.Join(home, "failed-once")
	run := `[ -e "` + flag + `" ] || { touch "` + flag + `"; exit 1; }; cat >> "` + out + `"`
	start := func() (stop func()) {
		src := open(t, c, "agent", fleetsource.Filter{})
		ctx, cancel := context.WithCancel(context.Background())
		w := &wake.Worker{Reg: reg, Consumer: "agent", Run: run, Source: src, Scope: bgtasks.Scope{All: true},
			Poll: 20 * time.Millisecond, RetryAfter: 20 * time.Millisecond}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Loop(ctx); err != nil {
				t.Errorf("worker: %v", err)
			}
		}()
		return func() { cancel(); wg.Wait() }
	}
	lines := func() []string {
		b, _ := os.ReadFile(out)
		return strings.Fields(strings.TrimSpace(string(b)))
	}
	wait := func(n int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for len(lines()) < n && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond) // nothing more comes
		if got := lines(); len(got) != n {
			t.Fatalf("the run was handed %d events, want %d:\n%s", len(got), n, strings.Join(got, "\n"))
		}
	}
	stop := start()
	publish(t, c, "box1", ev(1, "exited"), ev(2, "exited"), ev(3, "exited"))
	wait(3)
	stop()
	publish(t, c, "box2", ev(1, "exited"), ev(2, "exited"))
	stop = start()
	defer stop()
	wait(5)
	seen := map[string]bool{}
	for _, l := range lines() {
		var e bgtasks.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		key := e.Host + "/" + strconv.FormatInt(e.Seq, 10)
		if seen[key] {
			t.Errorf("event %s handed over twice", key)
		}
		seen[key] = true
	}
}
