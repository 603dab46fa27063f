package testbin

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
	"github.com/hangdog/hangdog/taskctl"
)

// TempRoot makes a short temporary directory for a test's hangdog world
// (unix socket paths are limited to 108 bytes), whose home is Home(root).
// When the test ends it stops every task still running in that home and
// removes the directory: a detached prompt or a server a test left behind
// would otherwise outlive the test under its own supervisor.
func TempRoot(t testing.TB, prefix string) string {
	t.Helper()
	root, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		StopTasks(Home(root))
		os.RemoveAll(root)
	})
	return root
}

// Home is the hangdog home of a TempRoot.
func Home(root string) string { return filepath.Join(root, "h") }

// StopTasks kills every task of home that has not ended, as `bg kill`
// does (its whole tree).
func StopTasks(home string) {
	if _, err := os.Stat(home); err != nil {
		return
	}
	reg, err := bgtasks.Open(home)
	if err != nil {
		return
	}
	tasks, err := reg.List()
	if err != nil {
		return
	}
	for _, task := range tasks {
		if task.State().Ended() {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _ = taskctl.Kill(ctx, reg, task.ID, taskctl.KillOptions{Grace: time.Second, Reason: "the test ended"})
		cancel()
	}
}

// KillMarked SIGKILLs every process (but this one) whose environment holds
// entry exactly, e.g. a run's unique HANGDOG_E2E_RUN=…: what an agent
// session started outside any task.
func KillMarked(entry string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains("\x00"+string(b)+"\x00", "\x00"+entry+"\x00") {
			continue
		}
		var pid int
		fmt.Sscanf(p, "/proc/%d/environ", &pid)
		if pid > 0 && pid != os.Getpid() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
