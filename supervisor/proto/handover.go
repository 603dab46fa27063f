package proto

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/hangdog/hangdog/internal/binstruct"
	"github.com/hangdog/hangdog/internal/taskstate"
	"github.com/hangdog/hangdog/settings/watchdogconf"
)

// Spec is everything a supervisor needs to run a task. The caller resolves it
// (settings layers, cwd, environment) so the supervisor process loads nothing
// heavy at start-up; it travels in the hand-over (see Prestart).
type Spec struct {
	Command     string                `json:"command"`        // display form; run with bash -c when Shell
	Argv        []string              `json:"argv,omitempty"` // exec'd directly when !Shell
	Shell       bool                  `json:"shell"`
	Cwd         string                `json:"cwd"`
	Env         []string              `json:"-"` // handed to the supervisor by exec (or as Handover.Env), never written to disk (it may hold secrets)
	Rows        uint16                `json:"rows"`
	Cols        uint16                `json:"cols"`
	Mode        taskstate.Mode        `json:"mode"`
	Interactive bool                  `json:"interactive"` // a person is at the caller's terminal
	Watchdog    watchdogconf.Watchdog `json:"watchdog"`
	// KeepEnded is how long ended tasks are kept (tasks.keepDays); the
	// supervisor removes older ones once its own task has ended.
	KeepEnded time.Duration `json:"keep_ended"`
	// Owner is the session that starts the task ("" for nobody) and
	// Project the directory it belongs to (bgtasks.Scope; both as words,
	// this package reads no record).
	Owner   string `json:"owner,omitempty"`
	Project string `json:"project,omitempty"`
	// AgentProfile: nobody is at the terminal and tasks.agentProfile is
	// on, so the command gets the agent profile's environment, and a read
	// of the terminal with no prompt gets end of input, as under a pipe,
	// instead of a detach.
	AgentProfile bool `json:"agent_profile,omitempty"`
	// QuietEnd: the task's own events say how it stopped (a watcher's
	// runner announces its pause, expiry or decision), so its clean exit is
	// not news; a failure or a kill still is.
	QuietEnd bool `json:"quiet_end,omitempty"`
	// ForwardEvents: events.sink is set, so the caller makes sure the
	// home's forwarder runs before the task can end (fleet/autostart). The
	// caller's alone: it never travels to the supervisor.
	ForwardEvents bool `json:"-"`
}

// Handover is what a caller gives its prestarted supervisor: the registered
// task and how to run it. It travels over the caller link, not through a
// file, and reaches a supervisor that has already done everything that does
// not depend on the task. It is encoded with binstruct, not JSON: decoding
// it is on every command's critical path, and encoding/json's first use in
// a fresh process costs about 0.3 ms here.
type Handover struct {
	Home string `json:"home"`
	Task Task   `json:"task"`
	Spec Spec   `json:"spec"`
	// OwnEnv: Env is the task's environment, and the supervisor takes it
	// as its own before anything reads one. A supervisor started ahead of
	// its task (the MCP server's spare) was exec'd with its caller's
	// environment of that moment, and a call's differs (its BASH_ENV, for
	// one). Like the exec'd one it is never written to disk; the hand-over
	// travels over the caller link only.
	OwnEnv bool     `json:"own_env,omitempty"`
	Env    []string `json:"env,omitempty"`
}

// Task is the registered task as the hand-over carries it: the record the
// caller wrote when it registered the task, which the supervisor keeps up to
// date from then on. It is the record's wire form, not the record: taskctl
// fills it from the registry's record and the supervisor makes the record
// again from it, so the files on disk and this contract change apart. The
// record's fields that only the supervisor sets (the command's pid, a
// detach) are not here.
type Task struct {
	ID      string          `json:"id"`
	Command string          `json:"command"`
	Argv    []string        `json:"argv,omitempty"`
	Shell   bool            `json:"shell"`
	Cwd     string          `json:"cwd"`
	Started time.Time       `json:"started"`
	Mode    taskstate.Mode  `json:"mode"`
	State   taskstate.State `json:"state"`
	// The supervisor's own pid and start time, known to the caller before
	// the task exists (a supervisor that dies before it reports is found
	// lost at once).
	SupervisorPID   int    `json:"supervisor_pid,omitempty"`
	SupervisorTicks uint64 `json:"supervisor_start_ticks,omitempty"`
	Caller          string `json:"caller,omitempty"` // "agent" or "tty"
	Owner           string `json:"owner,omitempty"`
	Project         string `json:"project,omitempty"`
	QuietEnd        bool   `json:"quiet_end,omitempty"`
}

// handoverShape fingerprints the hand-over's layout. The frame starts with
// it, so a supervisor from another build refuses the task instead of
// misreading it.
var handoverShape = binstruct.Shape(Handover{})

// ErrOtherBuild means the two ends of a link come from different builds.
var ErrOtherBuild = errors.New("hangdog-supervisor is from another build than the hangdog that started it; reinstall hangdog so both come from one build (make install, the .deb, the release archive or the npm package)")

// EncodeHandover encodes h, fingerprint first.
func EncodeHandover(h Handover) ([]byte, error) {
	return binstruct.Append(binary.BigEndian.AppendUint64(nil, handoverShape), h)
}

// DecodeHandover decodes a hand-over, refusing one from another build
// (ErrOtherBuild).
func DecodeHandover(p []byte) (Handover, error) {
	var h Handover
	if len(p) < 8 || binary.BigEndian.Uint64(p) != handoverShape {
		return h, ErrOtherBuild
	}
	err := binstruct.Decode(p[8:], &h)
	return h, err
}
