//go:build linux

package faults

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
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
