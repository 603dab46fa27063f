package tui

import (
	"testing"

	"github.com/hangdog/hangdog/bgtasks"
)

// A command that starts a server with & and exits: the shell's result line
// says the command's exit, and names what it left running and where it
// listens (taskctl.DescribeLeft, the words every front end uses); the task
// runs on in the background.
func TestResultLineNamesWhatTheCommandLeftRunning(t *testing.T) {
	w := newWorld(t)
	_, tm := w.shell(t)
	// The command sleeps 0.5 s; 2 s, so that python has started
	// listening by the time the command exits on a loaded machine.
	enter(tm, "python3 -m http.server 0 --bind 127.0.0.1 & sleep 2")
	waitFor(t, tm, "exited 0 after", "t1 keeps running what it left", "/kill t1", "  pid ", " python3 -m http.server 0 --bind 127.0.0.1 (listening on 127.0.0.1:")
	task, err := w.reg.Get("t1")
	if err != nil || task.State() != bgtasks.Running || task.Mode != bgtasks.Background {
		t.Fatalf("t1 should run on in the background: %+v %v", task, err)
	}
}
