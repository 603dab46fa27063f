package bgtasks

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// tempFiles lists the temporary files left in a task's directory.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tmps []string
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			tmps = append(tmps, e.Name())
		}
	}
	return tmps
}

// preparedResult is a running task with its result file made.
func preparedResult(t *testing.T) (*Registry, *Task, *ResultFile) {
	t.Helper()
	r := openTemp(t)
	task := createRunning(t, r, Meta{Command: "make"})
	rf, err := r.PrepareResult(task.ID)
	if err != nil {
		t.Fatal(err)
	}
	return r, task, rf
}

func TestResultFileWritesTheResultItWasMadeFor(t *testing.T) {
	r, task, rf := preparedResult(t)
	tmps := tempFiles(t, task.Dir)
	if len(tmps) != 1 {
		t.Fatalf("made ahead: %v, want one temporary file", tmps)
	}
	assertMode(t, task.Dir+"/"+tmps[0], 0o600)
	if got, _ := r.Get(task.ID); got.Result != nil {
		t.Fatal("a prepared result file already reads as a result")
	}
	if err := rf.Write(Result{State: Running}); err == nil {
		t.Fatal("a non-final state was accepted")
	}
	if err := rf.Write(Result{State: Exited, ExitCode: 2}); err != nil {
		t.Fatal(err)
	}
	got, err := r.Get(task.ID)
	if err != nil || got.State() != Exited || got.Result.ExitCode != 2 || got.Result.Ended.IsZero() {
		t.Fatalf("after Write: %+v (%v), want exited 2 with an end time", got, err)
	}
	assertMode(t, task.Dir+"/result.json", 0o600)
	if tmps := tempFiles(t, task.Dir); len(tmps) != 0 {
		t.Fatalf("left behind: %v", tmps)
	}
	if err := rf.Write(Result{State: Exited}); err == nil {
		t.Fatal("a second Write through the same file was accepted")
	}
}

// A reconciler (or a kill) that recorded the end first wins, as with
// WriteResult, and the file made ahead does not linger.
func TestResultFileKeepsTheFirstResult(t *testing.T) {
	r, task, rf := preparedResult(t)
	if err := r.WriteResult(task.ID, Result{State: Killed, ExitCode: 137}); err != nil {
		t.Fatal(err)
	}
	if err := rf.Write(Result{State: Exited}); !errors.Is(err, ErrAlreadyEnded) {
		t.Fatalf("Write after another result: %v, want ErrAlreadyEnded", err)
	}
	if got, _ := r.Get(task.ID); got.Result.State != Killed {
		t.Fatalf("result %+v, want the first (killed)", got.Result)
	}
	if tmps := tempFiles(t, task.Dir); len(tmps) != 0 {
		t.Fatalf("left behind: %v", tmps)
	}
}

func TestResultFileDiscardLeavesNothing(t *testing.T) {
	r, task, rf := preparedResult(t)
	rf.Discard()
	rf.Discard()
	if tmps := tempFiles(t, task.Dir); len(tmps) != 0 {
		t.Fatalf("left behind: %v", tmps)
	}
	if err := rf.Write(Result{State: Exited}); err == nil {
		t.Fatal("Write after Discard was accepted")
	}
	if _, err := r.PrepareResult("../x"); err == nil {
		t.Fatal("a bad task id was accepted")
	}
}
