package taskctl

import (
	"reflect"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// The hand-over carries every field of the record the caller registered,
// and a result from the wire comes back as the record, every field of it.
// A field added to a record fails this until it is carried (or, for the
// task's, until it is said to be the supervisor's own).
func TestTheCallersConversionsLoseNothing(t *testing.T) {
	started := time.Unix(1_800_000_000, 5)
	m := bgtasks.Meta{ID: "t7", Command: "make", Argv: []string{"make"}, Shell: true, Cwd: "/src", Started: started,
		Mode: bgtasks.Background, State: bgtasks.Starting, SupervisorPID: 42, SupervisorTicks: 99, Caller: "agent",
		Owner: "s1", Project: "/src", QuietEnd: true}
	want := proto.Task{ID: "t7", Command: "make", Argv: []string{"make"}, Shell: true, Cwd: "/src", Started: started,
		Mode: bgtasks.Background, State: bgtasks.Starting, SupervisorPID: 42, SupervisorTicks: 99, Caller: "agent",
		Owner: "s1", Project: "/src", QuietEnd: true}
	if got := wireTask(m); !reflect.DeepEqual(got, want) {
		t.Errorf("wireTask:\n got %+v\nwant %+v", got, want)
	}
	// The supervisor's own: PID, PGID, StartTicks, DetachedAt, DetachReason.
	// And MCPServer, which only `hangdog mcp-proxy` sets, being its task's
	// supervisor itself: no hand-over ever carries it.
	if n, carried := reflect.TypeFor[bgtasks.Meta]().NumField(), reflect.TypeFor[proto.Task]().NumField(); n != carried+6 {
		t.Errorf("bgtasks.Meta has %d fields, proto.Task %d and 6 are not handed over: carry the new one in the hand-over (proto.Task, wireTask, supervisor's taskMeta) or list it here", n, carried)
	}

	r := proto.Result{State: bgtasks.Killed, ExitCode: 137, Signal: "SIGKILL", Ended: started, Reason: "stuck",
		OutputBytes: 10, OutputUnloggedBytes: 2, LogError: "disk full"}
	wantRes := bgtasks.Result{State: bgtasks.Killed, ExitCode: 137, Signal: "SIGKILL", Ended: started, Reason: "stuck",
		OutputBytes: 10, OutputUnloggedBytes: 2, LogError: "disk full"}
	if got := resultRecord(r); got != wantRes {
		t.Errorf("resultRecord:\n got %+v\nwant %+v", got, wantRes)
	}
	if n, carried := reflect.TypeFor[bgtasks.Result]().NumField(), reflect.TypeFor[proto.Result]().NumField(); n != carried {
		t.Errorf("bgtasks.Result has %d fields, proto.Result %d: carry the new one (proto.Result, supervisor's wireResult, resultRecord)", n, carried)
	}
}
