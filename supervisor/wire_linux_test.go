package supervisor

import (
	"reflect"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/supervisor/proto"
)

// The supervisor keeps the record its caller registered, every field the
// hand-over carries, and sends its result whole. (taskctl's test holds the
// records' field counts against the wire's.)
func TestTheSupervisorsConversionsLoseNothing(t *testing.T) {
	started := time.Unix(1_800_000_000, 5)
	task := proto.Task{ID: "t7", Command: "make", Argv: []string{"make"}, Shell: true, Cwd: "/src", Started: started,
		Mode: bgtasks.Background, State: bgtasks.Starting, SupervisorPID: 42, SupervisorTicks: 99, Caller: "agent",
		Owner: "s1", Project: "/src", QuietEnd: true}
	want := bgtasks.Meta{ID: "t7", Command: "make", Argv: []string{"make"}, Shell: true, Cwd: "/src", Started: started,
		Mode: bgtasks.Background, State: bgtasks.Starting, SupervisorPID: 42, SupervisorTicks: 99, Caller: "agent",
		Owner: "s1", Project: "/src", QuietEnd: true}
	if got := taskMeta(task); !reflect.DeepEqual(got, want) {
		t.Errorf("taskMeta:\n got %+v\nwant %+v", got, want)
	}
	res := bgtasks.Result{State: bgtasks.Killed, ExitCode: 137, Signal: "SIGKILL", Ended: started, Reason: "stuck",
		OutputBytes: 10, OutputUnloggedBytes: 2, LogError: "disk full"}
	wantRes := proto.Result{State: bgtasks.Killed, ExitCode: 137, Signal: "SIGKILL", Ended: started, Reason: "stuck",
		OutputBytes: 10, OutputUnloggedBytes: 2, LogError: "disk full"}
	if got := wireResult(res); got != wantRes {
		t.Errorf("wireResult:\n got %+v\nwant %+v", got, wantRes)
	}
}
