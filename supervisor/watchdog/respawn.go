package watchdog

import (
	"strings"
	"time"

	"github.com/hangdog/hangdog/supervisor/sampler"
)

// respawns counts short-lived commands started again and again since the
// last output: a quiet retry loop (`while ! nc -z db 5432; do sleep 1; done`)
// prints nothing, and between tries only a sleep is pending, so neither the
// output nor the timers say it is getting nowhere. Each sample sees the try
// or the sleep of the moment; a new PID with the same argv is one more start.
//
// The exit status of the tries is not seen: bash, not the supervisor, reaps
// them (the supervisor is the subreaper only of orphans), so repeats are
// counted by argv alone and the judge asks for the loop's shape too.
type respawns struct {
	since  time.Time                   // the last output when counting started
	starts map[string]map[procKey]bool // argv → the processes that ran it
	top    string                      // the argv started most often
	n      int                         // how often
}

// update adds the processes of t (idempotent: a process is counted once).
// New output starts the count again.
func (r *respawns) update(t sampler.Tree, lastOutput time.Time) {
	if r.starts == nil || !lastOutput.Equal(r.since) {
		r.starts, r.since, r.top, r.n = map[string]map[procKey]bool{}, lastOutput, "", 0
	}
	inTree := make(map[int]bool, len(t.Procs))
	for _, p := range t.Procs {
		inTree[p.PID] = true
	}
	for _, p := range t.Procs {
		// The top process (`bash -c CMD`) runs the loop; its children are the tries.
		if !inTree[p.PPID] || len(p.Argv) == 0 {
			continue
		}
		key := strings.Join(p.Argv, "\x00")
		m := r.starts[key]
		if m == nil {
			if len(r.starts) > 256 {
				continue // many distinct commands: a build, not a retry loop
			}
			m = map[procKey]bool{}
			r.starts[key] = m
		}
		m[procKey{p.PID, p.StartTicks}] = true
		if len(m) > r.n {
			r.top, r.n = strings.Join(p.Argv, " "), len(m)
		}
	}
}
