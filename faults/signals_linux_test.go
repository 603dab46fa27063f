//go:build linux

package faults

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// startRun starts `hangdog run ARGS…` through bash with prefix run first
// (e.g. `trap "" INT` to start it with SIGINT ignored, as a script's `cmd &`
// does), and waits until its task is running.
func startRun(t *testing.T, w *world, prefix string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	c := w.command(t.Context(), append([]string{"-c", prefix + `; exec "$0" "$@"`, hangdogBin, "run"}, args...)...)
	c.Path, c.Args[0] = "/bin/bash", "bash"
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	var id string
	eventually(t, "the run's task to be running", 10*time.Second, func() bool {
		for _, tk := range listTasks(t, w) {
			if tk.State == "running" {
				id = tk.ID
				return true
			}
		}
		return false
	})
	return c, id
}

func exitStatus(t *testing.T, c *exec.Cmd, within time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(within):
		t.Fatalf("the run did not end within %s", within)
	}
	return -1
}

// Started with SIGINT and SIGQUIT ignored, an interrupted run still ends
// its command by SIGINT (130), not by SIGKILL after the grace (137).
func TestInheritedSignalIgnoreDoesNotReachTheCommand(t *testing.T) {
	w := newWorld(t)
	c, _ := startRun(t, w, `trap "" INT QUIT`, "--", "sleep", "30")
	time.Sleep(200 * time.Millisecond) // the command itself has started
	c.Process.Signal(syscall.SIGINT)
	if code := exitStatus(t, c, 10*time.Second); code != 130 {
		t.Fatalf("exit %d after SIGINT, want 130 (137: the command ignored SIGINT and was killed)", code)
	}
}
