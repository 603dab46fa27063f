package mcpserver

import (
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/taskctl"
)

// The structuredContent of the tools, so a harness reads a result's fields
// instead of matching "Exit N after" in the text. The SDK infers each
// tool's outputSchema from these types and checks every result against it.

// taskOutput is the result of bash, bg_logs, bg_send, bg_wait, bg_kill and
// bg_detach: one task, as the call left it.
type taskOutput struct {
	Status      string             `json:"status" jsonschema:"exited | killed | lost (a task that ended), running (still running), detached (a bash call moved to the background; it keeps running; or its command exited, with exit_code, and left processes running, see left_running), started (run_in_background), failed (could not start), error (the call itself was wrong; see error)"`
	TaskID      string             `json:"task_id,omitempty" jsonschema:"the task's id, for the bg_* tools"`
	Command     string             `json:"command,omitempty" jsonschema:"the command as given"`
	PID         int                `json:"pid,omitempty" jsonschema:"the command's process id"`
	ExitCode    *int               `json:"exit_code,omitempty" jsonschema:"the exit code once it ended (128+N for signal N)"`
	Signal      string             `json:"signal,omitempty" jsonschema:"the signal that ended it, e.g. SIGTERM"`
	DurationMS  int64              `json:"duration_ms,omitempty" jsonschema:"how long it ran, or has run so far, in milliseconds"`
	Reason      string             `json:"reason,omitempty" jsonschema:"why hangdog detached or killed it, or why it was lost"`
	Wait        string             `json:"wait,omitempty" jsonschema:"what the watchdog saw it waiting for when it detached it: prompt, secret, pager, editor, repl, menu, form, stdin, screen or service"`
	Output      string             `json:"output,omitempty" jsonschema:"its output as plain text, as shown in the result (the middle left out when long)"`
	Omitted     *taskctl.ByteRange `json:"omitted,omitempty" jsonschema:"the bytes of its log left out of output; bg_logs since_offset=from reads them"`
	Screen      bool               `json:"screen,omitempty" jsonschema:"output ends with the last frame a full-screen program (an editor, a pager, top) drew, one row of its screen a line"`
	NextOffset  *int64             `json:"next_offset,omitempty" jsonschema:"bg_logs: the offset to continue reading from"`
	OutputBytes int64              `json:"output_bytes,omitempty" jsonschema:"the size of its log so far, in bytes"`
	OutputPath  string             `json:"output_path,omitempty" jsonschema:"the file holding all its raw output (terminal codes included)"`
	Warnings    []string           `json:"warnings,omitempty" jsonschema:"warnings hangdog gave about the run or its settings"`
	LeftRunning []leftProc         `json:"left_running,omitempty" jsonschema:"bash: the processes the command started that still ran when it exited (a server started with &); the task keeps running until they end or bg_kill stops them"`
	Error       string             `json:"error,omitempty" jsonschema:"what was wrong with the call, when status is error or failed"`
}

// leftProc is one process a command left running.
type leftProc struct {
	PID       int      `json:"pid"`
	Argv      []string `json:"argv" jsonschema:"its command line"`
	Listening []string `json:"listening,omitempty" jsonschema:"the addresses it listens on, e.g. 127.0.0.1:8000"`
}

// tasksOutput is bg_tasks's result.
type tasksOutput struct {
	Tasks       []taskInfo `json:"tasks" jsonschema:"running tasks first, then ended ones, newest first"`
	HiddenEnded int        `json:"hidden_ended,omitempty" jsonschema:"older ended tasks not listed (all=true lists them)"`
	Error       string     `json:"error,omitempty" jsonschema:"why the tasks could not be listed"`
}

// taskInfo is one task in bg_tasks.
type taskInfo struct {
	TaskID     string `json:"task_id"`
	Status     string `json:"status" jsonschema:"starting, running, exited, killed or lost"`
	Mode       string `json:"mode" jsonschema:"foreground (a bash call is waiting on it) or background"`
	Command    string `json:"command"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	Signal     string `json:"signal,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	OutputPath string `json:"output_path"`
}

// taskRecord is what a task's record says of it, for a result to add to.
func taskRecord(t *bgtasks.Task) *taskOutput {
	o := &taskOutput{
		Status: string(t.State()), TaskID: t.ID, Command: t.Command, PID: t.PID,
		DurationMS: t.Duration(time.Now()).Milliseconds(), OutputPath: t.OutputPath(),
	}
	if r := t.Result; r != nil {
		o.setResult(r)
	}
	if o.Status == string(bgtasks.Starting) {
		o.Status = "running"
	}
	return o
}

func (o *taskOutput) setResult(r *bgtasks.Result) {
	code := r.ExitCode
	o.Status, o.ExitCode, o.Signal, o.Reason = string(r.State), &code, r.Signal, r.Reason
	if r.State == bgtasks.Lost {
		o.ExitCode = nil
	}
}

func taskInfoOf(t *bgtasks.Task, now time.Time) taskInfo {
	i := taskInfo{TaskID: t.ID, Status: string(t.State()), Mode: string(t.Mode), Command: t.Command,
		DurationMS: t.Duration(now).Milliseconds(), OutputPath: t.OutputPath()}
	if r := t.Result; r != nil && r.State != bgtasks.Lost {
		code := r.ExitCode
		i.ExitCode, i.Signal = &code, r.Signal
	}
	return i
}
