package proto

import (
	"encoding/binary"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hangdog/hangdog/internal/taskstate"
)

// The variables every process of a task inherits: its id, and the home
// whose task it is (ids are per home). Together they find a lost task's
// processes after its supervisor died (taskctl.Kill).
const (
	TaskIDEnv   = "HANGDOG_TASK_ID"
	TaskHomeEnv = "HANGDOG_TASK_HOME"
)

// Started is FrameStarted's payload: the command is running.
type Started struct {
	TaskID string `json:"task_id"`
	PID    int    `json:"pid"`
}

// Detach is what a caller is told when its run moves to the background.
type Detach struct {
	TaskID    string `json:"task_id"`
	Reason    string `json:"reason"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Tail      string `json:"tail,omitempty"` // plain text, last lines
	// OutputBytes is how much output the log held at the detach: what the
	// caller shows as "the output so far".
	OutputBytes int64 `json:"output_bytes"`
	// Wait is what the watchdog saw the run waiting for when it detached it:
	// one of the watchdog's input kinds (prompt, secret, pager, editor,
	// repl, menu, form, stdin, screen) or "service" (a server up and
	// quiet); "" for a detach asked for by a caller. Front ends fit their
	// advice to it, since typing "y" helps a prompt and not a pager.
	Wait string `json:"wait,omitempty"`
	// ExitCode is set when the run moved to the background because its
	// command exited and left processes running (LeftRunning): the
	// command's own exit status, which the task's result will also carry.
	ExitCode    *int       `json:"exit_code,omitempty"`
	LeftRunning []LeftProc `json:"left_running,omitempty"`
}

// LeftProc is a process the command started that still ran when it exited.
type LeftProc struct {
	PID       int      `json:"pid"`
	Argv      []string `json:"argv"`
	Listening []string `json:"listening,omitempty"` // "127.0.0.1:8000"
}

// String names a left-over process as every front end does: "pid 123
// python3 -m http.server 0 (listening on 127.0.0.1:8000)", the program by
// its base name (Argv keeps the path). Here, not in taskctl, because the
// supervisor's detach reason says it too.
func (p LeftProc) String() string {
	var b strings.Builder
	args := slices.Clone(p.Argv)
	if len(args) > 0 {
		args[0] = path.Base(args[0])
	}
	argv := strings.Join(args, " ")
	if len(argv) > 200 {
		argv = argv[:200] + "…"
	}
	b.WriteString("pid ")
	b.WriteString(strconv.Itoa(p.PID))
	b.WriteString(" ")
	b.WriteString(argv)
	if len(p.Listening) > 0 {
		b.WriteString(" (listening on ")
		b.WriteString(strings.Join(p.Listening, ", "))
		b.WriteString(")")
	}
	return b.String()
}

// DescribeLeft lists what a command left running, comma-separated.
func DescribeLeft(left []LeftProc) string {
	parts := make([]string, len(left))
	for i, p := range left {
		parts[i] = p.String()
	}
	return strings.Join(parts, ", ")
}

// Verdict is the outcome of one watchdog check, as a status bar shows it:
// "stuck 0.92 (1/2)", or "waiting for you" when a person is at the terminal.
type Verdict struct {
	Status     string  `json:"status"`
	Confidence float64 `json:"confidence"`
	Streak     int     `json:"streak"`
	Agree      int     `json:"agree"` // checks in a row needed to act
	Trigger    string  `json:"trigger,omitempty"`
	Veto       string  `json:"veto,omitempty"`
	Input      string  `json:"input,omitempty"` // what a process blocked on the terminal waits for
	Due        bool    `json:"due"`
}

// Result is how a task ended, as FrameEnded and a kill's reply carry it:
// the wire form of the task's result record (bgtasks.Result), converted at
// each end. Its JSON names are the record's, so a client and a supervisor
// of two builds still read each other's.
type Result struct {
	State       taskstate.State `json:"state"`            // exited | killed
	ExitCode    int             `json:"exit_code"`        // 128+N when ended by signal N
	Signal      string          `json:"signal,omitempty"` // "SIGTERM" when ended by a signal
	Ended       time.Time       `json:"ended"`
	Reason      string          `json:"reason,omitempty"` // why hangdog ended it, for killed
	OutputBytes int64           `json:"output_bytes"`
	// OutputUnloggedBytes came after OutputBytes but is not in the log (a
	// full disk); LogError says why the log stopped taking output.
	OutputUnloggedBytes int64  `json:"output_unlogged_bytes,omitempty"`
	LogError            string `json:"log_error,omitempty"`
}

// Status is a running task's live state.
type Status struct {
	Mode        taskstate.Mode `json:"mode"`
	PID         int            `json:"pid"`
	OutputBytes int64          `json:"output_bytes"`
	// EchoOff says the task's terminal reads a line without echoing it (a
	// password prompt, read -s): a front end then hides what is typed too.
	// A program in raw mode (a REPL with line editing, an editor) turns echo
	// off to echo by itself, so only echo off in line mode counts.
	EchoOff bool `json:"echo_off,omitempty"`
}

// EncodeOffset is FrameOffset's payload: the output bytes now in the log,
// 8 bytes big-endian.
func EncodeOffset(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

// DecodeOffset reads FrameOffset's payload; ok is false if it is malformed.
func DecodeOffset(p []byte) (n int64, ok bool) {
	if len(p) != 8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(p)), true
}

// EncodeResize is FrameResize's payload: rows, cols as two big-endian
// uint16.
func EncodeResize(rows, cols uint16) []byte {
	return []byte{byte(rows >> 8), byte(rows), byte(cols >> 8), byte(cols)}
}

// DecodeResize reads FrameResize's payload; ok is false if it is malformed.
func DecodeResize(p []byte) (rows, cols uint16, ok bool) {
	if len(p) != 4 {
		return 0, 0, false
	}
	return uint16(p[0])<<8 | uint16(p[1]), uint16(p[2])<<8 | uint16(p[3]), true
}
