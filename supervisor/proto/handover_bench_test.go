package proto

import (
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/taskstate"
	"github.com/hangdog/hangdog/settings/watchdogconf"
)

// benchHandover is a hand-over as a command's run sends it: a task with its
// argv, the resolved watchdog settings, no environment of its own.
func benchHandover() Handover {
	started := time.Unix(1_800_000_000, 5)
	return Handover{
		Home: "/home/u/.local/state/hangdog",
		Task: Task{ID: "t7", Command: "go test ./...", Argv: []string{"go", "test", "./..."}, Cwd: "/src",
			Started: started, Mode: taskstate.Foreground, State: taskstate.Starting, SupervisorPID: 4242, SupervisorTicks: 99,
			Caller: "agent", Owner: "s1", Project: "/src"},
		Spec: Spec{Command: "go test ./...", Argv: []string{"go", "test", "./..."}, Cwd: "/src", Rows: 50, Cols: 200,
			Mode: taskstate.Foreground, Watchdog: watchdogconf.Default(), KeepEnded: 7 * 24 * time.Hour,
			Owner: "s1", Project: "/src", AgentProfile: true},
	}
}

// The caller's half of the hand-over, on every command's critical path.
func BenchmarkEncodeHandover(b *testing.B) {
	h := benchHandover()
	for b.Loop() {
		if _, err := EncodeHandover(h); err != nil {
			b.Fatal(err)
		}
	}
}

// The supervisor's half.
func BenchmarkDecodeHandover(b *testing.B) {
	p, err := EncodeHandover(benchHandover())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := DecodeHandover(p); err != nil {
			b.Fatal(err)
		}
	}
}
