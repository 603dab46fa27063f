package main

import (
	"fmt"
	"io"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/taskctl"
)

// runOutputTail is the end of a run's output for --json, at most n bytes,
// and how many bytes came before it: the log's tail, followed by what the
// log could not take (a full disk), which only the link has.
func runOutputTail(reg *bgtasks.Registry, link *taskctl.Link, n int64) ([]byte, int64, error) {
	extra, total := link.Unlogged()
	if total == 0 {
		return reg.TailOutput(link.TaskID, n)
	}
	if int64(len(extra)) > n {
		extra = extra[int64(len(extra))-n:]
	}
	logTail, logDropped, err := reg.TailOutput(link.TaskID, n-int64(len(extra)))
	if err != nil {
		return nil, 0, err
	}
	all := logDropped + int64(len(logTail)) + total
	tail := append(logTail, extra...)
	return tail, all - int64(len(tail)), nil
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
