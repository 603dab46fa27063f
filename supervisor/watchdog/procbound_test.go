package watchdog

import (
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/supervisor/sampler"
)

// A running process's own bound vetoes until its start + bound.
func TestProcessBoundVetoes(t *testing.T) {
	t0 := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	var pb procBounds
	tr := tree(func(t *sampler.Tree) {
		t.Procs[1].Argv = []string{"flock", "-w", "45", "lk", "true"}
		t.Procs[1].Age, t.Procs[1].StartTicks = 5*time.Second, 77
	})
	pb.update(tr, t0)
	// It ends 40 s from now; the veto holds a second past that.
	if in, out := t0.Add(40500*time.Millisecond), t0.Add(41500*time.Millisecond); !pb.holds(in) || pb.holds(out) {
		t.Errorf("flock -w 45 started 5 s ago: holds at +40.5 s %v, at +41.5 s %v; want true, false", pb.holds(in), pb.holds(out))
	}
	veto, note := pb.veto(t0)
	if !strings.HasPrefix(veto, VetoBound) || !strings.Contains(note, "`flock` (pid 101)") {
		t.Errorf("veto %q, note %q", veto, note)
	}
	// A loop's body started again declares nothing about the loop.
	var loop procBounds
	for i := range 2 {
		loop.update(tree(func(t *sampler.Tree) {
			t.Procs[1].Argv, t.Procs[1].PID, t.Procs[1].StartTicks = []string{"sleep", "30"}, 300+i, uint64(500+i)
		}), t0.Add(time.Duration(i)*31*time.Second))
	}
	if loop.holds(t0.Add(32 * time.Second)) {
		t.Error("the second `sleep 30` of a loop vetoes as a bound")
	}
	// Once the process is gone, its bound no longer holds.
	pb.update(tree(), t0.Add(time.Second))
	if pb.holds(t0.Add(2 * time.Second)) {
		t.Error("the bound of a process that ended still holds")
	}
}
