package bgtasks

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"
)

// endedBeforeWritten bounds how much later a result's recorded end can be
// than its file's modification time. The end is taken (time.Now) just
// before the file is written, but the file system stamps it from a coarse
// clock that may lag the one Go reads by a tick. Recent adds the largest
// lag it sees among the results it reads, so a file system whose clock is
// off (a network one) is allowed for too.
const endedBeforeWritten = 50 * time.Millisecond

// AllEnded, given to Recent, lists every ended task.
const AllEnded = -1

// endedFile is an ended task known by its result file alone.
type endedFile struct {
	id      string
	n       uint64
	written time.Time
}

// Recent returns what a listing shows, in List's order: every task that is
// live (reconciled, as List does) and the newest `ended` ended ones
// (AllEnded for all), of those keep accepts (nil accepts all). more says
// that ended tasks may have been left out.
//
// It costs what it returns, not what the home holds. A task is known to
// have ended by its result file, which is looked at (a stat) but read only
// for the newest. Those are found by the file's modification time, since
// the result is written when the task ends: a task whose file is older
// than the ended-th newest end so far, less a slack (endedBeforeWritten),
// cannot be among them. Below the ended mark (see endedMark) not even that
// stat is needed: only the newest few hundred tasks and the old ones still
// running are looked at, unless tasks ended so far out of order that an
// old one could be among the newest, and then every task is.
func (r *Registry) Recent(keep func(*Task) bool, ended int) (tasks []*Task, more bool, err error) {
	dir, err := os.Open(r.tasksDir())
	if err != nil {
		return nil, false, fmt.Errorf("list tasks in %s: %w", r.tasksDir(), err)
	}
	defer dir.Close()
	counter, counted := r.readCounter()
	mark, marked := r.readEndedMark(counter)
	if marked && counted && ended != AllEnded {
		// The tasks above the mark (and a few past the counter, should it
		// have fallen behind), and those below it that had not ended.
		ids := slices.DeleteFunc(slices.Clone(mark.Live), func(n uint64) bool { return n > mark.Through })
		for n := mark.Through + 1; n <= counter+16; n++ {
			ids = append(ids, n)
		}
		l := r.listing(dir, ids, keep, ended, mark.Newest)
		if l.complete {
			r.advanceEndedMark(mark, counter, l.ended, l.live)
			return l.tasks, true, nil // the tasks below the mark have ended
		}
	}
	// Every task.
	entries, err := dir.ReadDir(-1) // unsorted (os.ReadDir sorts): the order is decided by listing
	if err != nil {
		return nil, false, fmt.Errorf("list tasks in %s: %w", r.tasksDir(), err)
	}
	ids := make([]uint64, 0, len(entries))
	for _, e := range entries {
		if n, ok := taskNumber(e.Name()); ok && e.IsDir() {
			ids = append(ids, n)
		}
	}
	l := r.listing(dir, ids, keep, ended, time.Time{})
	if counted {
		// Every task was looked at, so any mark can be replaced; a good
		// one only once it would move far.
		if !marked {
			mark = endedMark{}
		}
		r.advanceEndedMark(mark, counter, l.ended, l.live)
	}
	return l.tasks, l.more, nil
}

// listed is what listing found.
type listed struct {
	tasks []*Task
	more  bool
	// complete: no task left unlooked-at can be among the newest ended.
	complete bool
	// What was seen, for the ended mark: when each ended task's result was
	// written, and the tasks that have a directory but no result.
	ended map[uint64]time.Time
	live  []uint64
}

// listing is Recent over the tasks numbered ids, given that no other task's
// result was written after floor (zero: there is no other task).
func (r *Registry) listing(dir *os.File, ids []uint64, keep func(*Task) bool, ended int, floor time.Time) listed {
	l := listed{ended: map[uint64]time.Time{}}
	add := func(t *Task) {
		if keep == nil || keep(t) {
			l.tasks = append(l.tasks, t)
		}
	}
	var done []endedFile
	for _, n := range ids {
		id := "t" + strconv.FormatUint(n, 10)
		written, hasResult, exists := resultWritten(dir, id)
		switch {
		case hasResult:
			l.ended[n] = written
			done = append(done, endedFile{id: id, n: n, written: written})
			continue
		case !exists:
			continue // removed, or never made
		}
		l.live = append(l.live, n)
		// No result: live, or lost and to be recorded so now.
		if t, ok := r.loadReconciled(id); ok {
			add(t)
		}
	}
	slices.SortFunc(done, func(a, b endedFile) int {
		if c := b.written.Compare(a.written); c != 0 {
			return c
		}
		return cmp.Compare(b.n, a.n)
	})
	var newest []time.Time // the ends of the newest ended tasks kept, newest first, at most `ended`
	slack := endedBeforeWritten
	enough := func(written time.Time) bool {
		return ended != AllEnded && len(newest) == ended && (ended == 0 || newest[ended-1].After(written.Add(slack)))
	}
	for _, f := range done {
		if enough(f.written) {
			l.more = true
			break
		}
		t, ok := r.loadReconciled(f.id)
		if !ok {
			continue
		}
		if t.Result != nil {
			slack = max(slack, endedBeforeWritten+t.Result.Ended.Sub(f.written))
		}
		n := len(l.tasks)
		add(t)
		if len(l.tasks) == n || !t.State().Ended() || ended == AllEnded {
			continue
		}
		at, _ := slices.BinarySearchFunc(newest, t.Result.Ended, func(a, b time.Time) int { return b.Compare(a) })
		newest = slices.Insert(newest, at, t.Result.Ended)
		if len(newest) > ended {
			newest = newest[:ended]
		}
	}
	l.complete = floor.IsZero() || enough(floor)
	slices.SortFunc(l.tasks, compareForListing)
	if ended == AllEnded {
		return l
	}
	shown, n := l.tasks[:0], 0
	for _, t := range l.tasks {
		if t.State().Ended() {
			if n++; n > ended {
				l.more = true
				continue
			}
		}
		shown = append(shown, t)
	}
	l.tasks = shown
	return l
}

// loadReconciled reads a task as List does: reconciled, and left out when
// its files cannot be read at all.
func (r *Registry) loadReconciled(id string) (*Task, bool) {
	t, err := r.load(id)
	if err != nil {
		return nil, false
	}
	if rt, err := r.Reconcile(t); err == nil {
		t = rt
	}
	return t, true
}
