package bgtasks

import (
	"path/filepath"
	"time"
)

// State is the task's current state: its result's state once it has one,
// else what its metadata says (Starting if nothing yet).
func (t *Task) State() State {
	if t.Result != nil {
		return t.Result.State
	}
	if t.Meta.State == "" {
		return Starting
	}
	return t.Meta.State
}

// OutputPath is output.log: every byte the command wrote to its terminal.
func (t *Task) OutputPath() string { return filepath.Join(t.Dir, outputFileName) }

// SocketPath is the supervisor's control socket.
func (t *Task) SocketPath() string { return filepath.Join(t.Dir, socketFileName) }

// SupervisorLogPath is supervisor.log: what the task's supervisor printed.
func (t *Task) SupervisorLogPath() string { return filepath.Join(t.Dir, supervisorLogName) }

// MetaPath is meta.json.
func (t *Task) MetaPath() string { return filepath.Join(t.Dir, metaFileName) }

// ResultPath is result.json; it exists once the task has ended.
func (t *Task) ResultPath() string { return filepath.Join(t.Dir, resultFileName) }

// Duration is how long the task ran: until its end, or until now while it
// is running.
func (t *Task) Duration(now time.Time) time.Duration {
	end := now
	if t.Result != nil && !t.Result.Ended.IsZero() {
		end = t.Result.Ended
	}
	if t.Started.IsZero() || end.Before(t.Started) {
		return 0
	}
	return end.Sub(t.Started)
}
