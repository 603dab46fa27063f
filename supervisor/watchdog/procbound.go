package watchdog

import (
	"fmt"
	"strings"
	"time"

	"github.com/hangdog/hangdog/jev"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

// procKey names one process across samples (a PID alone may be reused).
type procKey struct {
	pid   int
	start uint64
}

// procBound is the bound a running process declares in its argv
// (jev.ProgramBound), anchored at its own start.
type procBound struct {
	end   time.Time
	pid   int
	argv0 string
	d     time.Duration
	ok    bool
}

// procBounds remembers what each process of the tree declares, worked out
// once per process, and which live bound ends last.
//
// A command started again and again (the `sleep 1` of a retry loop) is a
// loop's body: its end says nothing about when the loop ends, so its bound
// stops counting from its second start.
type procBounds struct {
	seen   map[procKey]procBound
	starts map[string]int // argv → processes seen running it
	latest procBound      // of the processes alive at the last sample
}

// procBoundGrace is how long past its end a process's bound still holds:
// the sample that sees it gone may come a second later.
const procBoundGrace = time.Second

// update reads the bounds of the processes in t. Processes that ended drop
// out: a bound holds only while its process runs.
func (pb *procBounds) update(t sampler.Tree, now time.Time) {
	if pb.seen == nil {
		pb.seen, pb.starts = map[procKey]procBound{}, map[string]int{}
	}
	pb.latest = procBound{}
	for _, p := range t.Procs {
		k := procKey{p.PID, p.StartTicks}
		b, known := pb.seen[k]
		if !known {
			d, ok := jev.ProgramBound(p.Argv)
			b = procBound{end: now.Add(-p.Age).Add(d), pid: p.PID, d: d, ok: ok}
			if len(p.Argv) > 0 {
				b.argv0 = p.Argv[0]
			}
			if len(pb.seen) > 4096 { // a long build: forget old processes
				clear(pb.seen)
				clear(pb.starts)
			}
			pb.seen[k] = b
			if ok {
				pb.starts[strings.Join(p.Argv, "\x00")]++
			}
		}
		if b.ok && pb.starts[strings.Join(p.Argv, "\x00")] < 2 && b.end.After(pb.latest.end) {
			pb.latest = b
		}
	}
}

// holds reports whether a running process's bound (with boundGrace) has not
// passed at now.
func (pb *procBounds) holds(now time.Time) bool {
	return pb.latest.ok && now.Before(pb.latest.end.Add(procBoundGrace))
}

func (pb *procBounds) veto(now time.Time) (veto, note string) {
	b := pb.latest
	until := b.end.Add(procBoundGrace).In(now.Location())
	return fmt.Sprintf("%s (until %s / %s)", VetoBound, until.Format("15:04:05"), seconds(b.d)),
		fmt.Sprintf("process %s (pid %d) declares it may take %s", quote(b.argv0, 30), b.pid, seconds(b.d))
}
