//go:build linux

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/internal/termtext"
	"github.com/hangdog/hangdog/taskctl"
)

type bashInput struct {
	Command         string  `json:"command" jsonschema:"the shell command to run with bash -c, e.g. 'npm test' or 'cd web && make build'"`
	Cwd             string  `json:"cwd,omitempty" jsonschema:"directory to run it in (default: where this session's previous bash call ended, at first the server's directory)"`
	TimeoutSeconds  float64 `json:"timeout_seconds,omitempty" jsonschema:"return after this many seconds if the command is still running; it is then moved to the background, never killed (default and upper bound: the server's --max-wait, 50 s unless set; hangdog still returns early when the command looks stuck)"`
	RunInBackground bool    `json:"run_in_background,omitempty" jsonschema:"start the command as a background task and return its id at once; you are told when it ends (for servers, watchers, long builds)"`
}

// detachTimeout bounds asking a supervisor to detach; it answers at once
// unless it is gone.
const detachTimeout = 10 * time.Second

func (s *Server) bash(ctx context.Context, in bashInput) toolResult {
	if strings.TrimSpace(in.Command) == "" {
		return errorResult("command is empty: give the shell command to run, e.g. {\"command\": \"ls -la\"}")
	}
	if in.TimeoutSeconds < 0 {
		return errorResult("timeout_seconds must be positive (or left out for no limit)")
	}
	mode := bgtasks.Foreground
	if in.RunInBackground {
		mode = bgtasks.Background
	}
	// Resolved as `hangdog run` resolves the same shell string in that
	// directory; nobody is at an agent's terminal.
	// What is wrong with the settings goes at the top of the result: the
	// command runs without the bad entries, and the agent can tell the user.
	var warnings strings.Builder
	warn := func(msg string) { fmt.Fprintf(&warnings, "hangdog: warning: %s\n", msg) }
	// A call with no cwd runs where the session's previous call ended.
	cwd := in.Cwd
	if cwd == "" {
		var gone string
		if cwd, gone = s.shell.defaultCwd(); gone != "" {
			warn(gone)
		}
	}
	var env []string
	var sc *shellCall
	if !in.RunInBackground {
		var err error
		if env, sc, err = s.shell.prepare(os.Environ()); err != nil {
			return errorResult("hangdog could not run it: %v", err)
		}
	}
	spec, err := taskctl.Resolve(taskctl.Request{Command: in.Command, Cwd: cwd, Mode: mode, Rows: agentRows, Cols: agentCols, Env: env, Warn: warn, Owner: s.Consumer()})
	if err != nil {
		return errorResult("hangdog could not run it: %v", err)
	}
	link, err := s.start(spec)
	if err != nil {
		return errorResult("hangdog could not start the command: %v", err)
	}
	defer link.Close()
	s.announceTask(link.TaskID, in.Command)
	var res toolResult
	if in.RunInBackground {
		res = s.startBackground(link, in.Command)
	} else {
		res = s.runForeground(ctx, link, in, sc)
	}
	res.text = warnings.String() + res.text
	if res.task != nil {
		res.task.Command = in.Command
		res.task.OutputPath = link.OutputPath()
		if w := strings.TrimSpace(warnings.String()); w != "" {
			res.task.Warnings = append(strings.Split(w, "\n"), res.task.Warnings...)
		}
		if st := res.task.Status; s.cfg.LeftRunning != nil && (st == "started" || st == "detached") {
			if err := s.cfg.LeftRunning(link.TaskID, in.Command, res.task.Wait, res.task.Reason, st == "started"); err != nil {
				s.logError(fmt.Errorf("record task %s for the session: %w", link.TaskID, err))
			}
		}
	}
	return res
}

// start starts the task under the spare supervisor when it fits, else
// under one started for it. The next spare is started once the call's
// reply is written (Run's onReplied).
func (s *Server) start(spec taskctl.Spec) (*taskctl.Link, error) {
	p := s.spare.take(spec.Env)
	if p == nil {
		var err error
		if p, err = taskctl.Prestart(spec.Env); err != nil {
			return nil, err
		}
	}
	return p.Start(s.reg, spec)
}

func (s *Server) startBackground(link *taskctl.Link, command string) toolResult {
	ev, err := link.Next()
	if err != nil {
		return errorResult("task %s: %v; its supervisor log is %s", link.TaskID, err, link.SupervisorLogPath())
	}
	if ev.Kind == taskctl.EventFailed {
		r := errorResult("could not start the command: %s", ev.Message)
		r.task = &taskOutput{Status: "failed", TaskID: link.TaskID, Error: ev.Message}
		return r
	}
	return toolResult{task: &taskOutput{Status: "started", TaskID: link.TaskID, PID: ev.PID}, text: fmt.Sprintf("Started task %s in the background (pid %d): %s.\n"+
		"You will be told at the top of a later tool result when it ends. Meanwhile: bg_logs {\"id\": %q} shows its output, "+
		"bg_send answers a prompt, bg_wait waits for it, bg_kill stops it.", link.TaskID, ev.PID, commandLabel(command), link.TaskID)}
}

// runForeground streams the run until it ends or is detached. The command
// belongs to this call: if a person cancels the call (or the client goes
// away), the command is interrupted, as Ctrl-C would; if the client gave up
// waiting, it is detached instead (cancel.go).
func (s *Server) runForeground(ctx context.Context, link *taskctl.Link, in bashInput, sc *shellCall) toolResult {
	id := link.TaskID
	started := time.Now()
	s.mu.Lock()
	s.foreground[id] = started
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.foreground, id)
		s.mu.Unlock()
	}()

	key := callKey(ctx)
	defer s.cancelReason(key)
	stopOnCancel := context.AfterFunc(ctx, func() {
		if reason := s.cancelReason(key); clientTimedOut(reason) {
			s.detachByTimeout(context.Background(), id, timeoutDetachReason(reason))
			return
		}
		link.Stop(syscall.SIGINT)
	})
	defer stopOnCancel()
	if wait, capped := s.capWait(time.Duration(in.TimeoutSeconds * float64(time.Second))); wait > 0 {
		reason := fmt.Sprintf("timeout_seconds=%g passed and it is still running", in.TimeoutSeconds)
		if capped {
			reason = fmt.Sprintf("still running after %s, the longest this server lets a call block (hangdog mcp --max-wait)", taskctl.Spoken.Format(wait))
		}
		detachCtx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(wait, func() { s.detachByTimeout(detachCtx, id, reason) })
		defer func() {
			timer.Stop()
			cancel()
		}()
	}

	prog := newProgress(ctx)
	progCtx, stopProgress := context.WithCancel(ctx)
	progDone := make(chan struct{})
	go func() {
		defer close(progDone)
		prog.run(progCtx, id)
	}()
	// No progress may follow the call's result.
	defer func() {
		stopProgress()
		<-progDone
	}()

	p := &bashPresenter{s: s, ctx: ctx, command: in.Command, started: started, out: taskctl.NewCapture()}
	o, err := link.Follow(func(ev taskctl.Event) error {
		switch ev.Kind {
		case taskctl.EventOutput:
			p.out.Write(ev.Output)
			prog.write(ev.Output)
		case taskctl.EventWarning:
			p.warnings = append(p.warnings, ev.Message)
			s.told.add(key, id, bgtasks.EventWarning, ev.Message)
		}
		return nil
	})
	if err != nil {
		o = taskctl.Outcome{Kind: taskctl.Lost, TaskID: id, Err: err}
	}
	// A command that exited leaving processes running has ended its shell
	// too: where it ended is the session's, as for any ended call.
	if o.Kind == taskctl.Ended || o.Kind == taskctl.Detached && o.Detach.ExitCode != nil {
		if err := sc.ended(); err != nil {
			s.logError(err)
		}
	}
	return taskctl.Present[toolResult](o, p)
}

// bashPresenter says how a bash call's run came back, as its tool result:
// the output it captured, the warnings it was given, and what to do next.
type bashPresenter struct {
	s        *Server
	ctx      context.Context // the call's
	command  string
	started  time.Time
	out      *taskctl.Capture
	warnings []string
}

func (p *bashPresenter) Failed(o taskctl.Outcome) toolResult {
	r := errorResult("could not start the command: %s", o.Message)
	r.task = &taskOutput{Status: "failed", TaskID: o.TaskID, Error: o.Message}
	return r
}

func (p *bashPresenter) Detached(o taskctl.Outcome) toolResult {
	// A call its client gave up on returns nothing anyone reads: its
	// detach event is left to tell the session at its next result.
	if p.ctx.Err() == nil {
		p.s.told.add(callKey(p.ctx), o.TaskID, bgtasks.EventDetached, "")
	}
	return p.s.detachedResult(o.Detach, p.command, p.out, p.warnings)
}

func (p *bashPresenter) Ended(o taskctl.Outcome) toolResult {
	took := time.Since(p.started)
	if o.FromRecord {
		took = o.Task.Duration(time.Now())
	}
	return p.s.endedResult(callKey(p.ctx), o.TaskID, o.Result, took, p.out, p.warnings)
}

func (p *bashPresenter) Lost(o taskctl.Outcome) toolResult {
	return p.s.lostRun(o.TaskID, p.out, o.Err)
}

func (s *Server) detachByTimeout(ctx context.Context, id, reason string) {
	ctx, cancel := context.WithTimeout(ctx, detachTimeout)
	defer cancel()
	// It may have ended or been detached meanwhile; then the link says so
	// and there is nothing to report.
	if _, err := taskctl.DetachRun(ctx, s.reg, id, taskctl.WithJudgeSaw(s.reg, id, reason)); err != nil && ctx.Err() == nil {
		if t, gerr := s.reg.Get(id); gerr == nil && !t.State().Ended() && t.Mode == bgtasks.Foreground {
			s.logError(fmt.Errorf("detach %s at its timeout: %w", id, err))
		}
	}
}

func (s *Server) detachedResult(d *taskctl.Detach, command string, out *taskctl.Capture, warnings []string) toolResult {
	if d.ExitCode != nil {
		return s.leftRunningResult(d, command, out, warnings)
	}
	var b strings.Builder
	reason := strings.TrimRight(termtext.OneLine(d.Reason), ".")
	fmt.Fprintf(&b, "Task %s (%s) is still running: hangdog moved it to the background after %s: %s.\n",
		d.TaskID, commandLabel(command), taskctl.Spoken.Format(time.Duration(d.ElapsedMS)*time.Millisecond), reason)
	writeWarnings(&b, warnings)
	b.WriteString("Output so far:\n")
	w := out.Window()
	shown := shape(w, s.limit, d.TaskID)
	writeOutput(&b, shown.Text)
	// A screen's cursor sits anywhere: only a line-by-line program's
	// unfinished last line can be a question.
	if prompt := taskctl.UnfinishedLine(w); prompt != "" && !shown.Screen && !taskctl.FullScreenWait(d.Wait) && !strings.Contains(reason, prompt) {
		fmt.Fprintf(&b, "Its last line has no newline yet, so it may be waiting for an answer to: %s\n", commandLabel(prompt))
	}
	b.WriteString(nextSteps(d.Wait, d.TaskID))
	return toolResult{text: b.String(), task: &taskOutput{
		Status: "detached", TaskID: d.TaskID, DurationMS: d.ElapsedMS, Reason: d.Reason, Wait: d.Wait,
		Output: shown.Text, Omitted: shown.Omitted, Screen: shown.Screen, OutputBytes: w.Total, Warnings: warnings,
	}}
}

// leftRunningResult reports a command that exited and left processes
// running (`server &`): its exit, as any ended command's, then what it
// left and that the task stays until they end. A non-zero exit is an
// error, as for any command.
func (s *Server) leftRunningResult(d *taskctl.Detach, command string, out *taskctl.Capture, warnings []string) toolResult {
	code := *d.ExitCode
	var b strings.Builder
	fmt.Fprintf(&b, "Exit %d after %s (task %s).\n", code, taskctl.Spoken.Format(time.Duration(d.ElapsedMS)*time.Millisecond), d.TaskID)
	fmt.Fprintf(&b, "It left running: %s. Task %s keeps running until they end; bg_kill {\"id\": %q} stops them.\n",
		taskctl.DescribeLeft(d.LeftRunning), d.TaskID, d.TaskID)
	writeWarnings(&b, warnings)
	w := out.Window()
	shown := shape(w, s.limit, d.TaskID)
	writeOutput(&b, shown.Text)
	left := make([]leftProc, 0, len(d.LeftRunning))
	for _, p := range d.LeftRunning {
		left = append(left, leftProc{PID: p.PID, Argv: p.Argv, Listening: p.Listening})
	}
	return toolResult{text: strings.TrimRight(b.String(), "\n"), isError: code != 0, task: &taskOutput{
		Status: "detached", TaskID: d.TaskID, ExitCode: &code, DurationMS: d.ElapsedMS, Reason: d.Reason, Wait: d.Wait,
		Output: shown.Text, Omitted: shown.Omitted, Screen: shown.Screen, OutputBytes: w.Total, Warnings: warnings, LeftRunning: left,
	}}
}

func (s *Server) endedResult(call, id string, r *bgtasks.Result, took time.Duration, out *taskctl.Capture, warnings []string) toolResult {
	var b strings.Builder
	isError := false
	switch r.State {
	case bgtasks.Killed:
		isError = true
		s.told.add(call, id, bgtasks.EventKilled, "")
		fmt.Fprintf(&b, "%s\n", killedLine(r.Reason))
		fmt.Fprintf(&b, "Task %s was killed after %s (exit %d). Output before it was stopped:\n", id, taskctl.Spoken.Format(took), r.ExitCode)
	case bgtasks.Lost:
		isError = true
		s.told.add(call, id, bgtasks.EventLost, "")
		fmt.Fprintf(&b, "⚠ hangdog lost track of task %s after %s: %s\nOutput:\n", id, taskctl.Spoken.Format(took), termtext.OneLine(r.Reason))
	default:
		fmt.Fprintf(&b, "%s after %s (task %s).\n", capitalize(taskctl.DescribeEnd(r, agentWords{})), taskctl.Spoken.Format(took), id)
	}
	writeWarnings(&b, warnings)
	w := out.Window()
	shown := shape(w, s.limit, id)
	writeOutput(&b, shown.Text)
	o := &taskOutput{TaskID: id, DurationMS: took.Milliseconds(), Output: shown.Text, Omitted: shown.Omitted, Screen: shown.Screen, OutputBytes: w.Total, Warnings: warnings}
	o.setResult(r)
	// A command that failed is a failed call, as a harness counts it; the
	// text still says exit N and shows the output.
	return toolResult{text: strings.TrimRight(b.String(), "\n"), isError: isError || r.ExitCode != 0, task: o}
}

// lostRun reports a run whose supervisor link broke with no end on record.
func (s *Server) lostRun(id string, out *taskctl.Capture, cause error) toolResult {
	why := cause.Error()
	if errors.Is(cause, taskctl.ErrSupervisorGone) {
		why = "its supervisor exited without reporting a result"
	}
	w := out.Window()
	shown := shape(w, s.limit, id)
	r := errorResult("⚠ hangdog lost track of task %s: %s. Its output so far is kept (bg_logs {\"id\": %q}):\n%s",
		id, why, id, shown.Text)
	r.task = &taskOutput{Status: "lost", TaskID: id, Reason: why, Output: shown.Text, Omitted: shown.Omitted, Screen: shown.Screen, OutputBytes: w.Total}
	return r
}

func writeWarnings(b *strings.Builder, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(b, "hangdog warning: %s\n", termtext.OneLine(w))
	}
}

func writeOutput(b *strings.Builder, text string) {
	if strings.TrimSpace(text) == "" {
		b.WriteString("(no output)\n")
		return
	}
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteString("\n")
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
