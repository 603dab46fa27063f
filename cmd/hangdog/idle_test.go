package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// An idle background task's supervisor sleeps: no timer wakes it while
// the command is quiet (its PTY reader used to poll 20 times a second,
// which made 20 idle watchers cost 1.6 % of a core). Counted as voluntary
// context switches of all its threads over two seconds.
func TestIdleBackgroundSupervisorSleeps(t *testing.T) {
	e := newEnv(t)
	r := e.run("bg", "run", "--", "sleep", "60")
	if r.code != 0 {
		t.Fatalf("bg run: %+v", r)
	}
	id := strings.TrimSpace(r.stdout)
	t.Cleanup(func() { e.run("bg", "kill", id) })
	task, err := bgtasks.Opened(e.home).Get(id)
	if err != nil || task.SupervisorPID == 0 {
		t.Fatalf("task %s: %v %+v", id, err, task)
	}
	switches := func() int {
		n := 0
		statuses, _ := filepath.Glob("/proc/" + strconv.Itoa(task.SupervisorPID) + "/task/*/status")
		for _, st := range statuses {
			b, _ := os.ReadFile(st)
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
					k, _ := strconv.Atoi(strings.TrimSpace(v))
					n += k
				}
			}
		}
		return n
	}
	// Start-up is not idle, and it includes the image trim a second after
	// the command starts (supervisor.trimAfter): sampling at exactly one
	// second could catch it.
	time.Sleep(1500 * time.Millisecond)
	before := switches()
	time.Sleep(2 * time.Second)
	if n := switches() - before; n > 6 {
		t.Errorf("an idle supervisor woke %d times in 2 s; want it asleep (a 50 ms poll is 40)", n)
	}
	// Its output still arrives, and it still ends promptly when the
	// command has exited and the last child it left, holding the
	// terminal, ends.
	r = e.run("bg", "run", "--", "bash", "-c", "sleep 1 & echo done-here")
	id2 := strings.TrimSpace(r.stdout)
	eventually(t, "the task with a lingering child to end", 3*time.Second, func() bool {
		return strings.Contains(e.run("bg", "ls").stdout, "exited")
	})
	if out := e.run("bg", "logs", id2).stdout; !strings.Contains(out, "done-here") {
		t.Errorf("output %q", out)
	}
}
