// Package bgtasks owns the on-disk task registry: one private directory per
// task holding its metadata, every byte of its output and its result (and, for
// a proxied MCP server, its tool calls in flight), plus the
// per-user event log that announces detaches, kills and completions, and
// the ended mark that spares listings a look at every old task. Many
// hangdog processes use it at once; every write is atomic or append-only and
// every allocation happens under a cross-process lock.
package bgtasks

import (
	"time"

	"github.com/hangdog/hangdog/internal/taskstate"
)

// Mode and State are the task's words shared with the supervisor's wire
// contract (see taskstate); the names here are the ones the rest of the
// program uses.
type (
	Mode  = taskstate.Mode
	State = taskstate.State
)

const (
	Foreground = taskstate.Foreground
	Background = taskstate.Background

	Starting = taskstate.Starting
	Running  = taskstate.Running
	Exited   = taskstate.Exited
	Killed   = taskstate.Killed
	Lost     = taskstate.Lost
)

// Meta is a task's metadata file (meta.json), rewritten atomically by its
// supervisor on every change.
type Meta struct {
	ID      string    `json:"id"`
	Command string    `json:"command"`        // as the user typed it, for display
	Argv    []string  `json:"argv,omitempty"` // exec'd directly when len > 0 and Shell is false
	Shell   bool      `json:"shell"`          // true: run `bash -c Command`
	Cwd     string    `json:"cwd"`
	Started time.Time `json:"started"`
	Mode    Mode      `json:"mode"`
	State   State     `json:"state"` // starting | running; final states live in Result

	// The supervisor process (owner of the PTY and socket).
	SupervisorPID   int    `json:"supervisor_pid,omitempty"`
	SupervisorTicks uint64 `json:"supervisor_start_ticks,omitempty"` // /proc/PID/stat field 22
	// The command's process (bash or the exec'd program), leader of the
	// terminal's foreground group PGID.
	PID        int    `json:"pid,omitempty"`
	PGID       int    `json:"pgid,omitempty"`
	StartTicks uint64 `json:"start_ticks,omitempty"`

	DetachedAt   *time.Time `json:"detached_at,omitempty"`
	DetachReason string     `json:"detach_reason,omitempty"`
	Caller       string     `json:"caller,omitempty"` // "agent" (stdin not a tty) or "tty"

	// Owner is the session that started the task ("" for nobody) and
	// Project the directory it belongs to; see Scope.
	Owner   string `json:"owner,omitempty"`
	Project string `json:"project,omitempty"`
	// QuietEnd: a clean exit is announced by no event (proto.Spec.QuietEnd).
	QuietEnd bool `json:"quiet_end,omitempty"`
	// MCPServer names the MCP server a task is (`hangdog mcp-proxy`): its
	// supervisor is the proxy, which records its calls in flight.
	MCPServer string `json:"mcp_server,omitempty"`
}

// Result is a task's result file (result.json), written once, atomically,
// when the task ends. Its presence is what makes a task ended.
type Result struct {
	State       State     `json:"state"`            // exited | killed
	ExitCode    int       `json:"exit_code"`        // 128+N when ended by signal N
	Signal      string    `json:"signal,omitempty"` // "SIGTERM" when ended by a signal
	Ended       time.Time `json:"ended"`
	Reason      string    `json:"reason,omitempty"` // why hangdog ended it, for killed
	OutputBytes int64     `json:"output_bytes"`
	// OutputUnloggedBytes is output that came after OutputBytes but could
	// not be written to output.log (a full disk): its caller, if one was
	// attached, still got it; the log has only the first OutputBytes.
	OutputUnloggedBytes int64  `json:"output_unlogged_bytes,omitempty"`
	LogError            string `json:"log_error,omitempty"` // why the log stopped taking output
}

// Task is a task as a reader sees it: metadata, result (nil while running) and
// the derived state (Lost when the supervisor is gone without a result).
type Task struct {
	Meta
	Result *Result `json:"result,omitempty"`
	Dir    string  `json:"dir"`
	// Damaged says which of the task's files could not be decoded; such a
	// task is listed as lost with a Result made up for it (not on disk).
	Damaged string `json:"damaged,omitempty"`
	// Calls are a running proxied MCP server's tools/calls in flight
	// (Meta.MCPServer), as its proxy last recorded them.
	Calls []Call `json:"calls,omitempty"`
}

// Event kinds in the per-user event log.
const (
	EventExited   = "exited"
	EventKilled   = "killed"
	EventDetached = "detached"
	EventWarning  = "warning"
	EventLost     = "lost"

	// Watcher events (package watch): a fire, a pause with its reason, and
	// an expiry. TaskID holds the watcher's id for them.
	EventWatchFired   = "watch_fired"
	EventWatchPaused  = "watch_paused"
	EventWatchExpired = "watch_expired"
)

// Event is one line of <home>/events.jsonl.
type Event struct {
	Seq        int64     `json:"seq"` // 1, 2, 3… unique and increasing per home
	Time       time.Time `json:"time"`
	Kind       string    `json:"kind"`
	TaskID     string    `json:"task_id"`
	Command    string    `json:"command"`
	ExitCode   *int      `json:"exit_code,omitempty"`
	Signal     string    `json:"signal,omitempty"`
	DurationMS int64     `json:"duration_ms"`
	Reason     string    `json:"reason,omitempty"`
	Tail       string    `json:"tail,omitempty"` // last lines of output, plain text
	// Owner and Project are the task's (Meta.Owner, Meta.Project), so a
	// reader can keep to its own session's news; see Scope.
	Owner   string `json:"owner,omitempty"`
	Project string `json:"project,omitempty"`
	// WatcherID and DedupeKey are set on watcher events: the key is unique
	// per fire, so a fire re-delivered after a crash is recognised.
	// Payload is what the watched source said: untrusted text, capped by
	// the watcher, never instructions.
	WatcherID string `json:"watcher_id,omitempty"`
	DedupeKey string `json:"dedupe_key,omitempty"`
	Payload   string `json:"payload,omitempty"`
	// Decision, Comment and From are set on an approval watcher's fire:
	// the option a person chose on the approval page, their comment
	// (untrusted text, marked as such) and where it came from ("a person,
	// through the approval link": never a tool or a hangdog process).
	Decision string `json:"decision,omitempty"`
	Comment  string `json:"comment,omitempty"`
	From     string `json:"from,omitempty"`
	// Host and HomeID are set on an event read from the fleet's stream
	// (package fleet, `hangdog wake --from`): the sandbox it happened in
	// and its home's id there; Seq is then that home's. A local log's
	// events have neither.
	Host   string `json:"host,omitempty"`
	HomeID string `json:"home_id,omitempty"`
}
