package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/taskctl"
)

// runOutputWindow is the start and the end of a run's output for --json,
// enough of each for a text of limit bytes: the log's, followed by what the
// log could not take (a full disk), which only the link has.
func runOutputWindow(reg *bgtasks.Registry, link *taskctl.Link, limit int64) (taskctl.Window, error) {
	t, err := reg.Get(link.TaskID)
	if err != nil {
		return taskctl.Window{}, err
	}
	headKeep, tailKeep := max(taskctl.HeadKeep, limit), max(taskctl.TailKeep, limit)
	var w taskctl.Window
	f, err := os.Open(t.OutputPath())
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return taskctl.Window{}, fmt.Errorf("read output of task %s: %w", t.ID, err)
	default:
		defer f.Close()
		fi, err := f.Stat()
		if err == nil {
			w, err = taskctl.ReadWindow(f, fi.Size(), headKeep, tailKeep)
		}
		if err != nil {
			return taskctl.Window{}, fmt.Errorf("read output of task %s: %w", t.ID, err)
		}
	}
	extra, unlogged := link.Unlogged()
	if unlogged == 0 {
		return w, nil
	}
	// The log is an exact prefix; the rest follows it, its end in memory
	// (all of it, or only that end: then the tail is that end alone).
	tail := extra
	if int64(len(extra)) == unlogged {
		tail = append(w.Tail, extra...)
	}
	if int64(len(tail)) > tailKeep {
		tail = tail[int64(len(tail))-tailKeep:]
	}
	w.Total += unlogged
	w.Tail, w.TailStart = tail, w.Total-int64(len(tail))
	return w, nil
}

// reportUnlogged tells the caller how much of the output its task's log
// could not keep, if any: the caller got it, `bg logs` will not have it.
func reportUnlogged(w io.Writer, id string, r *bgtasks.Result) {
	if r == nil || r.OutputUnloggedBytes == 0 {
		return
	}
	fmt.Fprintf(w, "hangdog: %d bytes of %s's output (after its first %d) are not in its log (%s): they were shown here only; `hangdog bg logs %s` has the first %d\n",
		r.OutputUnloggedBytes, id, r.OutputBytes, r.LogError, id, r.OutputBytes)
}
