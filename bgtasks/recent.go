package bgtasks

import (
	"cmp"
	"fmt"
	"os"
	"slices"
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
// It costs what it returns, not what the home holds: a task is known to
// have ended by its result file, which is looked at (a stat) but read only
// for the newest. Those are found by the file's modification time, since
// the result is written when the task ends: a task whose file is older
// than the ended-th newest end so far, less a slack (endedBeforeWritten),
// cannot be among them. So an ended task costs one stat unless it is shown.
func (r *Registry) Recent(keep func(*Task) bool, ended int) (tasks []*Task, more bool, err error) {
	dir, err := os.Open(r.tasksDir())
	if err != nil {
		return nil, false, fmt.Errorf("list tasks in %s: %w", r.tasksDir(), err)
	}
	defer dir.Close()
	// Unsorted (os.ReadDir sorts): the order is decided below.
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return nil, false, fmt.Errorf("list tasks in %s: %w", r.tasksDir(), err)
	}
	add := func(t *Task) {
		if keep == nil || keep(t) {
			tasks = append(tasks, t)
		}
	}
	var done []endedFile
	for _, e := range entries {
		if !e.IsDir() || !ValidID(e.Name()) {
			continue
		}
		if written, ok := resultWritten(dir, e.Name()); ok {
			n, _ := taskNumber(e.Name())
			done = append(done, endedFile{id: e.Name(), n: n, written: written})
			continue
		}
		// No result: live, or lost and to be recorded so now.
		if t, ok := r.loadReconciled(e.Name()); ok {
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
	for _, f := range done {
		if ended != AllEnded && len(newest) == ended && (ended == 0 || newest[ended-1].After(f.written.Add(slack))) {
			more = true
			break
		}
		t, ok := r.loadReconciled(f.id)
		if !ok {
			continue
		}
		if t.Result != nil {
			slack = max(slack, endedBeforeWritten+t.Result.Ended.Sub(f.written))
		}
		n := len(tasks)
		add(t)
		if len(tasks) == n || !t.State().Ended() || ended == AllEnded {
			continue
		}
		at, _ := slices.BinarySearchFunc(newest, t.Result.Ended, func(a, b time.Time) int { return b.Compare(a) })
		newest = slices.Insert(newest, at, t.Result.Ended)
		if len(newest) > ended {
			newest = newest[:ended]
		}
	}
	slices.SortFunc(tasks, compareForListing)
	if ended == AllEnded {
		return tasks, more, nil
	}
	shown, n := tasks[:0], 0
	for _, t := range tasks {
		if t.State().Ended() {
			if n++; n > ended {
				more = true
				continue
			}
		}
		shown = append(shown, t)
	}
	return shown, more, nil
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
