package bgtasks

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The ended mark (<home>/ended-mark) lets a listing skip the stat of every
// old task. It says: every task numbered up to Through has a result file,
// except those in Live, and none of those files was written after Newest.
// A result is never removed or rewritten while its task's directory is
// there, and no id at or below Through is handed out again (nextTaskNumber
// goes past it), so once true the claim stays true: the mark can be stale
// but never wrong. Anyone who has looked may write it (atomically, no lock
// needed); a mark that is missing, damaged or past the task counter is
// ignored and the listing looks at every task, as it would without one.
type endedMark struct {
	Through uint64    `json:"through"`
	Live    []uint64  `json:"live,omitempty"`
	Newest  time.Time `json:"newest"`
}

const endedMarkName = "ended-mark"

// markKeepsAbove is how many of the newest task ids stay above the mark,
// looked at by every listing: the newest ended tasks are among them unless
// tasks end out of the order they started in, which the listing sees (the
// mark's Newest) and then looks at every task.
const markKeepsAbove = 256

func (r *Registry) endedMarkPath() string { return filepath.Join(r.home, endedMarkName) }

// readEndedMark returns the mark, or false when there is none to trust.
func (r *Registry) readEndedMark(counter uint64) (endedMark, bool) {
	var m endedMark
	if err := readJSON(r.endedMarkPath(), &m); err != nil || m.Through == 0 || m.Through > counter {
		return endedMark{}, false
	}
	return m, true
}

// readCounter is the last task number handed out, false if unknown.
func (r *Registry) readCounter() (uint64, bool) {
	b, err := os.ReadFile(r.counterPath())
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}

// advanceEndedMark moves the mark up to keep markKeepsAbove ids above it,
// from what a listing found: ended, every task it found with a result
// and when that was written; live, every task it found without one. That
// covers every task above old.Through (old: the mark the listing went by,
// zero for none) and those in old.Live. It writes nothing when the mark would not move
// far, so listings do not rewrite it each time.
func (r *Registry) advanceEndedMark(old endedMark, top uint64, ended map[uint64]time.Time, live []uint64) {
	through := top - min(top, markKeepsAbove)
	if through <= old.Through+markKeepsAbove {
		return
	}
	m := endedMark{Through: through, Newest: old.Newest}
	for _, n := range live {
		if n <= through {
			m.Live = append(m.Live, n)
		}
	}
	for n, written := range ended {
		if n <= through && written.After(m.Newest) {
			m.Newest = written
		}
	}
	slices.Sort(m.Live)
	_ = writeJSONAtomic(r.endedMarkPath(), m) // only a shortcut: a failure costs the next listing time
}

// markFloor is the number no new task may be given at or below: the
// mark's Through, 0 without a mark one can read. Call under the lock.
func (r *Registry) markFloor() uint64 {
	var m endedMark
	if err := readJSON(r.endedMarkPath(), &m); err != nil {
		return 0
	}
	return m.Through
}
