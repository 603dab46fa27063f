package bgtasks

import (
	"fmt"
	"os"
	"time"
)

// DamagedExitCode is the ExitCode of a task whose files are damaged: the
// real code is unknown, as for a lost task.
const DamagedExitCode = LostExitCode

// damaged makes a task out of one whose meta.json (meta is false: its
// result.json) cannot be decoded, instead of hiding it: it is listed, its
// output can be read, and it counts as ended (lost) with the damage as its
// reason, so that `bg rm` and `bg prune` can remove it. Nothing is written:
// the files stay as they are for whoever wants to look at them.
func (r *Registry) damaged(t *Task, id, file string, cause error) *Task {
	t.ID = id
	if t.Command == "" {
		t.Command = "(unknown: " + metaFileName + " is damaged)"
	}
	ended := time.Now()
	if fi, err := os.Stat(t.Dir); err == nil {
		ended = fi.ModTime()
	}
	if t.Started.IsZero() || t.Started.After(ended) {
		t.Started = ended
	}
	t.Damaged = fmt.Sprintf("%s is damaged (%v)", file, cause)
	res := Result{
		State: Lost, ExitCode: DamagedExitCode, Ended: ended,
		Reason: t.Damaged + "; the exit status is unknown, the output is kept",
	}
	if fi, err := os.Stat(t.OutputPath()); err == nil {
		res.OutputBytes = fi.Size()
	}
	t.Result = &res
	return t
}
