package activity

import (
	"bytes"
	"sync"
	"time"
)

// windowSize is how much recent raw output a Tracker keeps for Snapshot to
// read lines from. Lines older than that are counted but not read.
const windowSize = 64 << 10

// Tracker follows one command's output. It is safe for one writer and any
// number of concurrent Snapshot callers.
type Tracker struct {
	mu         sync.Mutex
	started    time.Time
	total      int64
	lines      int64 // newline bytes seen
	lastOutput time.Time
	ring       []byte // the last windowSize bytes, circular
	next       int    // where the next byte goes in ring
	wrapped    bool

	// Where the previous Snapshot left off.
	seenTotal, seenLines int64

	snapMu  sync.Mutex // serialises Snapshots, which share scratch and last
	scratch []byte
	last    Stats // text fields of the previous Snapshot
}

// NewTracker returns a Tracker whose quiet time counts from now.
func NewTracker() *Tracker {
	return &Tracker{
		started: time.Now(),
		ring:    make([]byte, windowSize),
		scratch: make([]byte, 0, windowSize),
	}
}

// Write records a chunk of output. It never fails and does not allocate:
// it counts bytes and newlines and copies the chunk into the window.
func (t *Tracker) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	now := time.Now()
	newlines := bytes.Count(p, []byte{'\n'})
	t.mu.Lock()
	t.total += int64(len(p))
	t.lines += int64(newlines)
	t.lastOutput = now
	t.keep(p)
	t.mu.Unlock()
	return len(p), nil
}

// keep copies p into the circular window.
func (t *Tracker) keep(p []byte) {
	if len(p) >= len(t.ring) {
		copy(t.ring, p[len(p)-len(t.ring):])
		t.next, t.wrapped = 0, true
		return
	}
	n := copy(t.ring[t.next:], p)
	if n < len(p) {
		copy(t.ring, p[n:])
		t.wrapped = true
	}
	t.next = (t.next + len(p)) % len(t.ring)
	if t.next == 0 {
		t.wrapped = true
	}
}

// window copies the kept output, oldest first, into dst. whole is true when
// it is the output from the very start.
func (t *Tracker) window(dst []byte) (out []byte, whole bool) {
	dst = dst[:0]
	if t.wrapped {
		dst = append(dst, t.ring[t.next:]...)
	}
	return append(dst, t.ring[:t.next]...), !t.wrapped
}

// Snapshot reports the output so far. New* counts are since the previous
// Snapshot (by any caller).
func (t *Tracker) Snapshot(now time.Time) Stats {
	t.snapMu.Lock()
	defer t.snapMu.Unlock()

	t.mu.Lock()
	st := Stats{TotalBytes: t.total, NewBytes: t.total - t.seenTotal, LastOutput: t.lastOutput}
	newLines := t.lines - t.seenLines
	t.seenTotal, t.seenLines = t.total, t.lines
	quiet := st.NewBytes == 0 && st.TotalBytes > 0
	var raw []byte
	var whole bool
	if !quiet {
		raw, whole = t.window(t.scratch)
		t.scratch = raw
	}
	t.mu.Unlock()

	quietSince := st.LastOutput
	if quietSince.IsZero() {
		quietSince = t.started
	}
	st.SinceOutput = max(now.Sub(quietSince), 0)
	st.NewLines = int(min(newLines, 1<<30))
	if quiet {
		// Nothing new: the text is what the previous Snapshot read.
		st.LastLine, st.Repetition, st.Redrawing = t.last.LastLine, t.last.Repetition, t.last.Redrawing
		st.Tail = append([]string(nil), t.last.Tail...)
		return st
	}
	analyze(&st, raw, whole, st.NewLines)
	t.last = st
	t.last.Tail = append([]string(nil), st.Tail...)
	return st
}
