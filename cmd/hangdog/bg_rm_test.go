package main

import (
	"errors"
	"os"
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
