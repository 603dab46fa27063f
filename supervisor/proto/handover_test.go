package proto

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/taskstate"
	"github.com/hangdog/hangdog/settings/watchdogconf"
)

func TestHandoverRoundTrip(t *testing.T) {
	started := time.Unix(1_800_000_000, 5)
	want := Handover{
		Home: "/home/u/.local/state/hangdog",
		Task: Task{ID: "t7", Command: "go test ./...", Argv: []string{"go", "test", "./..."}, Cwd: "/src",
			Started: started, Mode: taskstate.Foreground, State: taskstate.Starting, SupervisorPID: 4242, SupervisorTicks: 99, Caller: "agent"},
		Spec: Spec{Command: "go test ./...", Argv: []string{"go", "test", "./..."}, Cwd: "/src", Rows: 50, Cols: 200,
			Mode: taskstate.Foreground, Interactive: true, Watchdog: watchdogconf.Default()},
	}
	want.Spec.Watchdog.DecisionModel.URL = "http://localhost:11434/v1"
	sent := want
	sent.Spec.Env = []string{"OPENAI_API_KEY=sk-never-on-the-link"}
	p, err := EncodeHandover(sent)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(p, []byte("sk-never-on-the-link")) {
		t.Fatal("the environment travelled in the hand-over; it reaches the supervisor by exec only")
	}
	got, err := DecodeHandover(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("hand-over round trip:\n got %+v\nwant %+v", got, want)
	}
}

// A spare supervisor, exec'd before its task with its caller's environment
// of that moment, gets the task's own in the hand-over, whole (empty
// values, '=' inside values, an empty environment told from none).
func TestHandoverCarriesTheTasksOwnEnvironmentWhenAsked(t *testing.T) {
	for _, env := range [][]string{{"A=1", "EMPTY=", "EQ=a=b", "BASH_ENV=/tmp/s/3.bashenv"}, {}} {
		p, err := EncodeHandover(Handover{Home: "/h", OwnEnv: true, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeHandover(p)
		if err != nil {
			t.Fatal(err)
		}
		if !got.OwnEnv || len(got.Env) != len(env) || (len(env) > 0 && !reflect.DeepEqual(got.Env, env)) {
			t.Errorf("sent %q, got own=%v %q", env, got.OwnEnv, got.Env)
		}
	}
}

// A supervisor from another build refuses the task with an error that says
// how to fix the install, instead of misreading it.
func TestHandoverFromAnotherBuildIsRefused(t *testing.T) {
	p, err := EncodeHandover(Handover{Home: "/h"})
	if err != nil {
		t.Fatal(err)
	}
	p[0] ^= 0xff
	if _, err := DecodeHandover(p); !errors.Is(err, ErrOtherBuild) {
		t.Fatalf("got %v, want ErrOtherBuild", err)
	}
	if _, err := DecodeHandover(p[:3]); !errors.Is(err, ErrOtherBuild) {
		t.Fatalf("a frame too short for the fingerprint: got %v, want ErrOtherBuild", err)
	}
}
