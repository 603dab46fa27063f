//go:build linux

package taskctl

import (
	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// The caller's end of the wire's conversions (the supervisor's are in
// package supervisor): the registered task goes out in the hand-over's
// form, and a result comes back as the record front ends read.

// wireTask is the registered task m as the hand-over carries it.
func wireTask(m bgtasks.Meta) proto.Task {
	return proto.Task{
		ID: m.ID, Command: m.Command, Argv: m.Argv, Shell: m.Shell, Cwd: m.Cwd,
		Started: m.Started, Mode: m.Mode, State: m.State,
		SupervisorPID: m.SupervisorPID, SupervisorTicks: m.SupervisorTicks,
		Caller: m.Caller, Owner: m.Owner, Project: m.Project, QuietEnd: m.QuietEnd,
	}
}

// resultRecord is the wire's result as the record (bgtasks.Result) that
// front ends read.
func resultRecord(r proto.Result) bgtasks.Result {
	return bgtasks.Result{
		State: r.State, ExitCode: r.ExitCode, Signal: r.Signal, Ended: r.Ended, Reason: r.Reason,
		OutputBytes: r.OutputBytes, OutputUnloggedBytes: r.OutputUnloggedBytes, LogError: r.LogError,
	}
}
