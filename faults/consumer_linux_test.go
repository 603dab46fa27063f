//go:build linux

package faults

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Five readers started at once as one consumer with two events pending: each event reaches exactly one of
// them. Before the consumer's lock, each of the five got events 1 and 2.
func TestSharedConsumerDeliversEachEventOnce(t *testing.T) {
	w := newWorld(t)
	if r := w.run("events", "--consumer", "shared"); r.code != 0 { // registers it at the log's end
		t.Fatalf("events --consumer: %s", r.stderr)
	}
	for range 2 {
		id := strings.TrimSpace(w.run("bg", "run", "--", "true").stdout)
		w.run("bg", "wait", id)
	}
	const readers = 5
	outs := make([]bytes.Buffer, readers)
	var wg sync.WaitGroup
	for i := range readers {
		c := w.command(t.Context(), "events", "--consumer", "shared", "--wait", "1s", "--json")
		c.Stdout = &outs[i]
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); c.Wait() }()
	}
	wg.Wait()
	// Whatever the readers missed, one more call gets; nothing twice.
	var rest bytes.Buffer
	r := w.run("events", "--consumer", "shared", "--json")
	rest.WriteString(r.stdout)
	seen := map[float64]int{}
	for _, out := range append(outs, rest) {
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if line == "" {
				continue
			}
			var ev map[string]any
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("not an event: %q", line)
			}
			seen[ev["seq"].(float64)]++
		}
	}
	if len(seen) != 2 {
		t.Errorf("events delivered: %v, want seq 1 and 2", seen)
	}
	for seq, n := range seen {
		if n != 1 {
			t.Errorf("event %v delivered %d times", seq, n)
		}
	}
}

// Two `hangdog wake` workers with one consumer name: the second is refused
// where the user sees it, naming the first's pid, and 30 events are each
// handed over once (they were 55 hand-overs). Stopping the first frees the
// name.
func TestWakeConsumerHeldByOneWorker(t *testing.T) {
	w := newWorld(t)
	out := filepath.Join(w.root, "handed")
	run := "cat >> " + out
	first := w.run("wake", "--consumer", "agent", "--run", run)
	if first.code != 0 {
		t.Fatalf("hangdog wake: exit %d %s", first.code, first.stderr)
	}
	id := strings.TrimSpace(first.stdout)
	defer w.run("bg", "kill", id)
	eventually(t, "the first worker to start", 10*time.Second, func() bool {
		return strings.Contains(w.run("bg", "logs", id).stdout, "waiting for events")
	})
	pid, _ := os.ReadFile(filepath.Join(w.home, "wake", "agent.worker"))
	second := w.run("wake", "--consumer", "agent", "--run", run)
	if second.code == 0 || !strings.Contains(second.stderr, "pid "+strings.TrimSpace(string(pid))) {
		t.Errorf("a second worker for the consumer: exit %d, stdout %q, stderr %q; want a refusal naming pid %s", second.code, second.stdout, second.stderr, pid)
		defer w.run("bg", "kill", strings.TrimSpace(second.stdout))
	}
	for i := range 30 {
		if r := w.run("bg", "run", "--", "true"); r.code != 0 {
			t.Fatalf("bg run %d: %s", i, r.stderr)
		}
	}
	counts := func() map[float64]int {
		b, _ := os.ReadFile(out)
		seen := map[float64]int{}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var ev map[string]any
			if json.Unmarshal([]byte(line), &ev) == nil && ev["kind"] == "exited" {
				seen[ev["seq"].(float64)]++
			}
		}
		return seen
	}
	eventually(t, "30 task ends handed over", 30*time.Second, func() bool { return len(counts()) >= 30 })
	time.Sleep(time.Second) // a second worker would hand them over again meanwhile
	for seq, n := range counts() {
		if n != 1 {
			t.Errorf("event %v handed over %d times, want once", seq, n)
		}
	}
	w.run("bg", "kill", id)
	eventually(t, "the name to be free", 10*time.Second, func() bool {
		r := w.run("wake", "--consumer", "agent", "--run", run)
		if r.code == 0 {
			w.run("bg", "kill", strings.TrimSpace(r.stdout))
		}
		return r.code == 0
	})
}
