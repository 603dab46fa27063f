//go:build linux

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/taskctl"
)

type bgSendInput struct {
	ID   string `json:"id" jsonschema:"the task id, e.g. t4"`
	Text string `json:"text" jsonschema:"what to type, sent exactly as given; end with a newline to press Enter, e.g. \"y\\n\""`
}

type bgDetachInput struct {
	Reason string `json:"reason,omitempty" jsonschema:"why, kept with the task (e.g. 'dev server is up')"`
}

const (
	// After input, a task's answer is shown once its output has been quiet
	// this long, or the limits pass: enough for the next prompt or a
	// short reply, without making the model wait on a busy task.
	sendSettleQuiet = 300 * time.Millisecond
	sendSettleMax   = 2 * time.Second
	sendNoOutputMax = time.Second

	killGrace  = 5 * time.Second
	killReason = "killed by the agent with bg_kill"
)

func (s *Server) bgSend(ctx context.Context, in bgSendInput) toolResult {
	t, bad := s.getTask(in.ID)
	if bad != nil {
		return *bad
	}
	if in.Text == "" {
		return errorResult("text is empty: give what to type, e.g. \"y\\n\" (the newline presses Enter)")
	}
	if t.State().Ended() {
		return errorResult("task %s has already ended (%s); nothing reads its input. bg_logs {\"id\": %q} shows its output", t.ID, taskState(t), t.ID)
	}
	before, err := logSize(t)
	if err != nil {
		return errorResult("%v", err)
	}
	sendCtx, cancel := context.WithTimeout(ctx, detachTimeout)
	defer cancel()
	if err := taskctl.SendInput(sendCtx, t, []byte(in.Text)); err != nil {
		return errorResult("could not type into task %s: %v", t.ID, err)
	}
	now, ended := s.settle(ctx, t.ID, before)
	var b strings.Builder
	data := taskRecord(t)
	data.OutputBytes = now
	fmt.Fprintf(&b, "Sent %d bytes to task %s.\n", len(in.Text), t.ID)
	if now > before {
		if raw, err := readLog(t, before, logsReadMax); err == nil {
			b.WriteString("Output since:\n")
			w := taskctl.Window{Base: before, Head: raw, Tail: raw, TailStart: before, Total: before + int64(len(raw))}
			shown := shape(w, s.limit, t.ID)
			data.Output, data.Omitted, data.Screen = shown.Text, shown.Omitted, shown.Screen
			writeOutput(&b, data.Output)
		}
	} else {
		b.WriteString("No new output yet.\n")
	}
	if ended != nil {
		out, size := data.Output, data.OutputBytes
		data = taskRecord(ended)
		data.Output, data.OutputBytes = out, size
		s.told.add(callKey(ctx), t.ID, endKind(ended.Result.State), "")
		fmt.Fprintf(&b, "The task has ended: %s.", taskctl.DescribeEnd(ended.Result, agentWords{}))
	} else {
		fmt.Fprintf(&b, "It is still running; bg_wait {\"id\": %q} waits for it to end.", t.ID)
	}
	return toolResult{text: b.String(), task: data}
}

// settle waits briefly for what a task prints after it was sent input: until
// its output has been quiet for a moment, it ended, or a short limit passed.
// It returns the log size then, and the task if it has ended.
func (s *Server) settle(ctx context.Context, id string, before int64) (int64, *bgtasks.Task) {
	start := time.Now()
	size, lastChange := before, start
	for {
		select {
		case <-ctx.Done():
			return size, nil
		case <-time.After(50 * time.Millisecond):
		}
		t, err := s.reg.Get(id)
		if err != nil {
			return size, nil
		}
		if n, err := logSize(t); err == nil && n != size {
			size, lastChange = n, time.Now()
		}
		if t.State().Ended() {
			// Its last bytes are on disk before its result is.
			if n, err := logSize(t); err == nil {
				size = n
			}
			return size, t
		}
		switch quiet := time.Since(lastChange); {
		case size > before && quiet >= sendSettleQuiet:
			return size, nil
		case size == before && time.Since(start) >= sendNoOutputMax:
			return size, nil
		case time.Since(start) >= sendSettleMax:
			return size, nil
		}
	}
}

func (s *Server) bgKill(ctx context.Context, in taskIDInput) toolResult {
	t, bad := s.getTask(in.ID)
	if bad != nil {
		return *bad
	}
	k, err := taskctl.Kill(ctx, s.reg, t.ID, taskctl.KillOptions{Signal: syscall.SIGTERM, Grace: killGrace, Reason: killReason})
	var ended *taskctl.EndedError
	switch {
	case errors.As(err, &ended):
		return s.alreadyEnded(ctx, ended.Task)
	case errors.Is(err, taskctl.ErrLostGone):
		return s.alreadyEnded(ctx, k.Task)
	case err != nil:
		return errorResult("could not stop task %s: %v", t.ID, err)
	case k.Lost:
		s.told.add(callKey(ctx), t.ID, bgtasks.EventLost, "")
		data := taskRecord(t)
		data.Status = "lost"
		return toolResult{task: data, text: fmt.Sprintf("Task %s (%s) was lost (its supervisor died); killed what was left of it: %s.", t.ID, commandLabel(t.Command), k.LostRemains())}
	}
	res := k.Result
	s.told.add(callKey(ctx), t.ID, bgtasks.EventKilled, "")
	tail, _ := s.reg.TailLines(t.ID, 10, 64<<10)
	var b strings.Builder
	fmt.Fprintf(&b, "Stopped task %s (%s) after %s (exit %d).", t.ID, commandLabel(t.Command), taskctl.Spoken.Format(res.Ended.Sub(t.Started)), res.ExitCode)
	data := taskRecord(t)
	data.setResult(&res)
	data.DurationMS = res.Ended.Sub(t.Started).Milliseconds()
	if strings.TrimSpace(tail) != "" {
		b.WriteString(" Last lines:\n")
		b.WriteString(tail)
		data.Output = tail
	}
	return toolResult{text: b.String(), task: data}
}

// alreadyEnded answers a bg_kill of a task that had ended: not an error,
// since what the agent wanted is so.
func (s *Server) alreadyEnded(ctx context.Context, t *bgtasks.Task) toolResult {
	r := s.endedTaskResult(ctx, t)
	r.text = fmt.Sprintf("Task %s had already ended; nothing to stop.\n%s", t.ID, r.text)
	r.isError = false
	return r
}

// bgDetach detaches this session's newest running bash call: the agent can
// only know its own calls, and detaching another session's would pull the
// rug from under a different agent.
func (s *Server) bgDetach(ctx context.Context, in bgDetachInput) toolResult {
	s.mu.Lock()
	id, newest := "", time.Time{}
	for tid, started := range s.foreground {
		if started.After(newest) {
			id, newest = tid, started
		}
	}
	s.mu.Unlock()
	if id == "" {
		return errorResult("no bash call of this session is running, so there is nothing to detach. (Tasks already in the background: bg_tasks.)")
	}
	t, bad := s.getTask(id)
	if bad != nil {
		return *bad
	}
	reason := termtext.OneLine(in.Reason)
	if reason == "" {
		reason = "detached by the agent with bg_detach"
	}
	dctx, cancel := context.WithTimeout(ctx, detachTimeout)
	defer cancel()
	d, err := taskctl.DetachRun(dctx, s.reg, t.ID, reason)
	if err != nil {
		return errorResult("could not detach task %s: %v", id, err)
	}
	s.told.add(callKey(ctx), id, bgtasks.EventDetached, "")
	data := taskRecord(t)
	data.Status, data.Reason, data.Wait, data.DurationMS = "detached", d.Reason, d.Wait, d.ElapsedMS
	return toolResult{task: data, text: fmt.Sprintf("Task %s (%s) moved to the background after %s; the bash call that ran it has returned with its output so far. %s",
		d.TaskID, commandLabel(t.Command), taskctl.Spoken.Format(time.Duration(d.ElapsedMS)*time.Millisecond), nextSteps(d.Wait, d.TaskID))}
}
