package watchdog

import (
	"math"
	"time"

	"github.com/hangdog/hangdog/supervisor/activity"
	"github.com/hangdog/hangdog/supervisor/sampler"
)

// Thresholds for what counts as activity.
const (
	// idleCPUPercent: below this share of one core over a window the tree is
	// doing no work; at or above it, it is (progress). Idle runtimes, timers
	// and GC ticks stay well under it.
	idleCPUPercent = 2.0
	// repetitiveAt: output this repetitive is a loop printing the same lines,
	// so its new lines are not progress.
	repetitiveAt = 0.6
)

// window is the evidence gathered since the previous due check (or since the
// start). The sampler's and the tracker's deltas cover only the span since
// their previous call, and the supervisor samples at fast checks too, so the
// Watch adds up every sample and snapshot it is shown: a due check then judges
// the whole window, not the last second of it.
type window struct {
	start      time.Time // previous due check, or the command's start
	startBytes int64     // output bytes at start

	cpuSeconds float64
	span       time.Duration
	disk       int64
	timerSleep bool // the last sample waits on a timer that approaches
	incomplete bool // a sample in the window failed or had holes

	redrawing   bool // some snapshot's output redrew earlier lines (a progress display)
	lines       int
	distinct    int // summed over snapshots: repeats across snapshots count again
	maxDistinct int // the most any one snapshot reported: a true lower bound

	// What was folded in last, carried across windows, so a sample or a
	// snapshot shown twice (to FastCheckWanted and then Fast) counts once.
	lastTree  time.Time
	lastTotal int64
}

func newWindow(start time.Time, startBytes int64) window {
	return window{start: start, startBytes: startBytes}
}

// next is the window that starts at a due check at now.
func (w window) next(now time.Time, total int64) window {
	n := newWindow(now, total)
	n.lastTree, n.lastTotal = w.lastTree, w.lastTotal
	return n
}

func (w *window) addTree(t sampler.Tree, ok bool) {
	if !ok {
		w.incomplete = true
		return
	}
	if !t.Time.IsZero() && t.Time.Equal(w.lastTree) {
		return
	}
	w.lastTree = t.Time
	if !t.First {
		// The first sample's counters are not a delta (sampler.Tree.First):
		// what the tree did before it is told by the samples after it and,
		// as activity, by noteActivity.
		w.cpuSeconds += t.CPUPercent / 100 * t.Window.Seconds()
		w.span += t.Window
		w.disk += t.ReadBytes + t.WriteBytes
	}
	// What the last sample says: whether a timer still approaches at the
	// check. A poll is told from a bound only by its second sighting (see
	// timers.go), so the window's first samples cannot be the ones to ask.
	w.timerSleep = t.TimerSleep
	w.incomplete = w.incomplete || !t.Complete
}

// addOutput counts the lines a snapshot reports. Lines cannot arrive without
// bytes, so a snapshot whose byte total was already seen adds nothing new.
func (w *window) addOutput(s activity.Stats) {
	if s.TotalBytes == w.lastTotal {
		return
	}
	w.lastTotal = s.TotalBytes
	w.redrawing = w.redrawing || s.Redrawing
	w.lines += s.NewLines
	w.distinct += s.NewDistinctLines
	w.maxDistinct = max(w.maxDistinct, s.NewDistinctLines)
}

// distinctLines estimates how many of the window's new lines differ from
// each other. One snapshot per window gives the exact count. With several,
// the same line printed in each (a retry loop) would be counted once per
// snapshot, so the sum is capped by the share of recent output that does not
// repeat — but never below what a single snapshot saw.
func (w window) distinctLines(repetition float64) int {
	est := int(math.Ceil(float64(w.lines) * (1 - min(max(repetition, 0), 1))))
	return max(w.maxDistinct, min(w.distinct, est))
}

func (w *window) add(o Observation) {
	w.addTree(o.Tree, o.TreeOK)
	w.addOutput(o.Output)
}

// cpuPercent is the tree's CPU over the window, as a share of one core.
func (w window) cpuPercent(current sampler.Tree) float64 {
	if w.span <= 0 {
		return current.CPUPercent
	}
	return w.cpuSeconds / w.span.Seconds() * 100
}
