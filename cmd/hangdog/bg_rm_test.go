package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

func TestBgRm(t *testing.T) {
	reg := testRegistry(t)
	ended, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "a"}, "out")
	endTask(t, reg, ended.ID, bgtasks.Result{State: bgtasks.Exited})
	running, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "b"}, "")

	o := hangdog("bg", "rm", ended.ID, running.ID, "t99")
	if o.status != exitHangdogError {
		t.Fatalf("status %d, want %d when some ids could not be removed", o.status, exitHangdogError)
	}
	if o.stdout != "removed "+ended.ID+"\n" {
		t.Fatalf("stdout %q", o.stdout)
	}
	if !strings.Contains(o.stderr, "task "+running.ID+" is still running; stop it with `hangdog bg kill "+running.ID+"` first") ||
		!strings.Contains(o.stderr, "no task t99") || strings.Count(o.stderr, "\n") != 2 {
		t.Fatalf("stderr %q should have one line per failure", o.stderr)
	}
	if _, err := os.Stat(ended.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("removed task's directory remains: %v", err)
	}
	if _, err := reg.Get(running.ID); err != nil {
		t.Fatalf("running task was touched: %v", err)
	}
	if o := hangdog("bg", "rm"); o.status != exitHangdogError {
		t.Fatalf("bg rm without ids: %+v", o)
	}
}

func TestBgPrune(t *testing.T) {
	reg := testRegistry(t)
	now := time.Now()
	old, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "a"}, "")
	endTask(t, reg, old.ID, bgtasks.Result{State: bgtasks.Exited, Ended: now.Add(-48 * time.Hour)})
	recent, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "b"}, "")
	endTask(t, reg, recent.ID, bgtasks.Result{State: bgtasks.Killed, Ended: now})
	running, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "c"}, "")

	if o := hangdog("bg", "prune", "--older-than", "24h"); o.status != 0 || o.stdout != "pruned 1: "+old.ID+"\n" {
		t.Fatalf("prune --older-than 24h: %+v", o)
	}
	if o := hangdog("bg", "prune"); o.status != 0 || o.stdout != "pruned 1: "+recent.ID+"\n" {
		t.Fatalf("prune: %+v", o)
	}
	if o := hangdog("bg", "prune"); o.status != 0 || o.stdout != "nothing to prune\n" {
		t.Fatalf("prune with nothing ended: %+v", o)
	}
	if _, err := reg.Get(running.ID); err != nil {
		t.Fatalf("prune touched the running task: %v", err)
	}
}

// expiredTaskHome is a home holding one task that ended ten days ago, whose
// last automatic prune was two hours ago: the next supervisor to finish
// prunes.
func expiredTaskHome(t *testing.T) (*env, *bgtasks.Registry, *bgtasks.Task) {
	t.Helper()
	e := newEnv(t)
	reg, err := bgtasks.Open(e.home)
	if err != nil {
		t.Fatal(err)
	}
	old, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "make"}, "old output\n")
	endTask(t, reg, old.ID, bgtasks.Result{State: bgtasks.Exited, Ended: time.Now().Add(-10 * 24 * time.Hour)})
	stamp := strconv.FormatInt(time.Now().Add(-2*time.Hour).Unix(), 10) + "\n"
	if err := os.WriteFile(filepath.Join(e.home, "last-prune"), []byte(stamp), 0o600); err != nil {
		t.Fatal(err)
	}
	return e, reg, old
}

func TestASupervisorRemovesExpiredTasksAfterItsTask(t *testing.T) {
	e, reg, old := expiredTaskHome(t)
	if r := e.run("run", "--", "true"); r.code != 0 {
		t.Fatalf("run: %+v", r)
	}
	eventually(t, "the expired task to be removed", 10*time.Second, func() bool {
		_, err := reg.Get(old.ID)
		return errors.Is(err, bgtasks.ErrNotFound)
	})
	tasks, err := reg.List()
	if err != nil || len(tasks) != 1 {
		t.Fatalf("tasks left: %v (%v), want the run's own", tasks, err)
	}
	eventually(t, "the removal in the supervisor's log", 10*time.Second, func() bool {
		b, _ := os.ReadFile(tasks[0].SupervisorLogPath())
		return strings.Contains(string(b), "removed 1 tasks that ended more than 7 days ago (tasks.keepDays): "+old.ID)
	})
}

func TestKeepDaysZeroKeepsExpiredTasks(t *testing.T) {
	e, reg, old := expiredTaskHome(t)
	e.extra = append(e.extra, "HANGDOG_TASKS_KEEPDAYS=0")
	if r := e.run("run", "--", "true"); r.code != 0 {
		t.Fatalf("run: %+v", r)
	}
	tasks, err := reg.List()
	if err != nil || len(tasks) != 2 {
		t.Fatalf("tasks: %v (%v), want the old one and the run's", tasks, err)
	}
	for _, task := range tasks {
		if task.ID != old.ID {
			eventually(t, "the run's supervisor to exit", 10*time.Second, func() bool { return !alive(task.SupervisorPID) })
		}
	}
	if _, err := reg.Get(old.ID); err != nil {
		t.Fatalf("keepDays 0 removed the old task: %v", err)
	}
}
