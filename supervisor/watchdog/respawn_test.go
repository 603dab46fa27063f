package watchdog

import (
	"testing"
	"time"

	"github.com/hangdog/hangdog/supervisor/sampler"
)

// Starts of the same argv are counted once per process, from the last output.
func TestRespawnsCountStartsOfTheSameCommand(t *testing.T) {
	var r respawns
	out := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	for i := range 3 {
		r.update(tree(func(t *sampler.Tree) {
			t.Procs[1].PID, t.Procs[1].StartTicks = 200+i, uint64(1000+i)
			t.Procs[1].Argv = []string{"sleep", "1"}
		}), out)
		r.update(tree(func(t *sampler.Tree) { // the same process seen twice counts once
			t.Procs[1].PID, t.Procs[1].StartTicks = 200+i, uint64(1000+i)
			t.Procs[1].Argv = []string{"sleep", "1"}
		}), out)
	}
	if r.n != 3 || r.top != "sleep 1" {
		t.Errorf("counted %d × %q, want 3 × sleep 1", r.n, r.top)
	}
	r.update(tree(), out.Add(time.Second)) // new output: counting starts again
	if r.n != 0 {
		t.Errorf("new output left the count at %d", r.n)
	}
}
