//go:build linux

package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/taskctl"
)

type bgWaitInput struct {
	ID             string  `json:"id" jsonschema:"the task id, e.g. t4"`
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty" jsonschema:"how long to wait at most (default 60); the task keeps running after"`
}

const defaultWait = 60 * time.Second

// bgWait polls the task's record: it is a file read, and its end is written
// there (or found by reconciling a dead supervisor) before anything else.
func (s *Server) bgWait(ctx context.Context, in bgWaitInput) toolResult {
	t, bad := s.getTask(in.ID)
	if bad != nil {
		return *bad
	}
	if in.TimeoutSeconds < 0 {
		return errorResult("timeout_seconds must be positive")
	}
	asked := time.Duration(in.TimeoutSeconds * float64(time.Second))
	if asked == 0 {
		asked = defaultWait
	}
	wait, _ := s.capWait(asked)
	deadline := time.Now().Add(wait)
	delay := 20 * time.Millisecond
	for !t.State().Ended() {
		if time.Now().After(deadline) {
			return s.stillRunning(t, wait)
		}
		select {
		case <-ctx.Done():
			return errorResult("bg_wait was cancelled; task %s keeps running", t.ID)
		case <-time.After(min(delay, time.Until(deadline)+time.Millisecond)):
		}
		delay = min(delay*2, 250*time.Millisecond)
		if t, bad = s.getTask(in.ID); bad != nil {
			return *bad
		}
	}
	return s.endedTaskResult(ctx, t)
}

func (s *Server) stillRunning(t *bgtasks.Task, waited time.Duration) toolResult {
	size, _ := logSize(t)
	w, _ := logWindow(t, size)
	var b strings.Builder
	fmt.Fprintf(&b, "Task %s (%s) is still running after waiting %s (running for %s in all). Latest output:\n",
		t.ID, commandLabel(t.Command), taskctl.Spoken.Format(waited), taskctl.Spoken.Format(t.Duration(time.Now())))
	latest := termtext.LastLines(shape(w, s.limit, t.ID).Text, 30)
	writeOutput(&b, latest)
	b.WriteString(nextSteps("", t.ID))
	data := taskRecord(t)
	data.Output, data.OutputBytes = latest, size
	return toolResult{text: b.String(), task: data}
}

// endedTaskResult reports a task that has ended, from its record on disk.
// A kill is an error result that starts with its reason, as for bash.
func (s *Server) endedTaskResult(ctx context.Context, t *bgtasks.Task) toolResult {
	r := t.Result
	size, _ := logSize(t)
	w, err := logWindow(t, size)
	if err != nil {
		return errorResult("%v", err)
	}
	took := t.Duration(time.Now())
	var b strings.Builder
	isError := false
	s.told.add(callKey(ctx), t.ID, endKind(r.State), "")
	switch r.State {
	case bgtasks.Killed:
		isError = true
		fmt.Fprintf(&b, "%s\nTask %s (%s) was killed after %s (exit %d). Output:\n", killedLine(r.Reason), t.ID, commandLabel(t.Command), taskctl.Spoken.Format(took), r.ExitCode)
	case bgtasks.Lost:
		isError = true
		fmt.Fprintf(&b, "⚠ Task %s (%s) was lost: %s. Output:\n", t.ID, commandLabel(t.Command), termtext.OneLine(r.Reason))
	default:
		fmt.Fprintf(&b, "Task %s (%s): %s after %s.\n", t.ID, commandLabel(t.Command), taskctl.DescribeEnd(r, agentWords{}), taskctl.Spoken.Format(took))
	}
	data := taskRecord(t)
	shown := shape(w, s.limit, t.ID)
	data.Output, data.Omitted, data.Screen = shown.Text, shown.Omitted, shown.Screen
	data.OutputBytes = size
	writeOutput(&b, data.Output)
	// As for bash: a command that failed makes a failed call.
	return toolResult{text: strings.TrimRight(b.String(), "\n"), isError: isError || r.ExitCode != 0, task: data}
}
