//go:build linux

package supervisor

import (
	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// The supervisor's end of the wire's conversions (the caller's are in
// taskctl): the hand-over's task becomes the record it keeps, and its
// result record goes out in the wire's form.

// taskMeta is the record of the task the hand-over carries, as the caller
// registered it.
func taskMeta(t proto.Task) bgtasks.Meta {
	return bgtasks.Meta{
		ID: t.ID, Command: t.Command, Argv: t.Argv, Shell: t.Shell, Cwd: t.Cwd,
		Started: t.Started, Mode: t.Mode, State: t.State,
		SupervisorPID: t.SupervisorPID, SupervisorTicks: t.SupervisorTicks,
		Caller: t.Caller, Owner: t.Owner, Project: t.Project, QuietEnd: t.QuietEnd,
	}
}

// wireResult is res as FrameEnded and a kill's reply carry it.
func wireResult(res bgtasks.Result) proto.Result {
	return proto.Result{
		State: res.State, ExitCode: res.ExitCode, Signal: res.Signal, Ended: res.Ended, Reason: res.Reason,
		OutputBytes: res.OutputBytes, OutputUnloggedBytes: res.OutputUnloggedBytes, LogError: res.LogError,
	}
}
