package main

import (
	"strings"
	"testing"

	"github.com/hangdog/hangdog/bgtasks"
)

func TestBgWaitReturnsTheExitCodeWhenTheTaskEnds(t *testing.T) {
	reg := testRegistry(t)
	task, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "make test"}, "")
	done := make(chan hangdogOutcome, 1)
	go func() { done <- hangdog("bg", "wait", task.ID) }()
	endTask(t, reg, task.ID, bgtasks.Result{State: bgtasks.Exited, ExitCode: 3})
	o := <-done
	if o.status != 3 || o.stderr != "" || o.stdout != "" {
		t.Fatalf("bg wait: %+v, want status 3 and no output", o)
	}
}

func TestBgWaitOnEndedTasks(t *testing.T) {
	reg := testRegistry(t)
	cases := []struct {
		res         bgtasks.Result
		status      int
		stderrHas   []string
		quietStderr bool
	}{
		{res: bgtasks.Result{State: bgtasks.Exited}, status: 0, quietStderr: true},
		{res: bgtasks.Result{State: bgtasks.Exited, ExitCode: 139, Signal: "SIGSEGV"}, status: 139, quietStderr: true},
		{res: bgtasks.Result{State: bgtasks.Killed, ExitCode: 137, Signal: "SIGKILL", Reason: "watchdog: stuck\nwaiting for input"},
			status: 137, stderrHas: []string{"killed", "SIGKILL", "watchdog: stuck waiting for input", "exit 137"}},
	}
	for _, c := range cases {
		task, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "x"}, "")
		endTask(t, reg, task.ID, c.res)
		o := hangdog("bg", "wait", task.ID)
		if o.status != c.status {
			t.Errorf("%+v: status %d, want %d", c.res, o.status, c.status)
		}
		if c.quietStderr && o.stderr != "" {
			t.Errorf("%+v: stderr %q, want none", c.res, o.stderr)
		}
		for _, s := range c.stderrHas {
			if !strings.Contains(o.stderr, s) {
				t.Errorf("%+v: stderr %q lacks %q", c.res, o.stderr, s)
			}
		}
		if strings.Count(o.stderr, "\n") > 1 {
			t.Errorf("%+v: stderr is more than one line: %q", c.res, o.stderr)
		}
	}
}

func TestBgWaitOnALostTask(t *testing.T) {
	reg := testRegistry(t)
	task, sup := createRunningTask(t, reg, bgtasks.Meta{Command: "make"}, "partial output\n")
	done := make(chan hangdogOutcome, 1)
	go func() { done <- hangdog("bg", "wait", task.ID) }()
	sup.die()
	o := <-done
	if o.status != exitHangdogError {
		t.Fatalf("bg wait on a lost task: status %d, want %d", o.status, exitHangdogError)
	}
	if !strings.Contains(o.stderr, "lost") || !strings.Contains(o.stderr, task.OutputPath()) || strings.Count(o.stderr, "\n") != 1 {
		t.Fatalf("stderr %q should be one line saying the task was lost and where its output is", o.stderr)
	}
}

func TestBgWaitTimeout(t *testing.T) {
	reg := testRegistry(t)
	task, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "sleep 600"}, "")
	o := hangdog("bg", "wait", task.ID, "--timeout", "300ms")
	if o.status != exitWaitTimeout {
		t.Fatalf("status %d, want %d", o.status, exitWaitTimeout)
	}
	if !strings.Contains(o.stderr, "still running") || !strings.Contains(o.stderr, "bg kill "+task.ID) {
		t.Fatalf("stderr %q should say the task is still running and how to stop it", o.stderr)
	}
	if got, err := reg.Get(task.ID); err != nil || got.State() != bgtasks.Running {
		t.Fatalf("the timeout touched the task: %v %v", got.State(), err)
	}
}

func TestBgWaitUnknownTask(t *testing.T) {
	testRegistry(t)
	if o := hangdog("bg", "wait", "t404"); o.status != exitHangdogError || !strings.Contains(o.stderr, "no task t404") {
		t.Fatalf("bg wait t404: %+v", o)
	}
}

// The read-side commands against a real supervisor, through the built binary.
func TestReadCommandsOnARealTask(t *testing.T) {
	e := newEnv(t)
	started := e.run("bg", "run", "--", "sh", "-c", `printf 'a\033[31mb\r\nhalf\rfull\r\nno newline'; exit 3`)
	id := strings.TrimSpace(started.stdout)
	if started.code != 0 || id == "" {
		t.Fatalf("bg run: %+v", started)
	}
	if w := e.run("bg", "wait", id); w.code != 3 || w.stderr != "" {
		t.Fatalf("bg wait: exit %d, stderr %q; want 3 and nothing", w.code, w.stderr)
	}
	if l := e.run("bg", "logs", id); l.stdout != "ab\nfull\nno newline" {
		t.Fatalf("bg logs: %q", l.stdout)
	}
	if l := e.run("bg", "logs", id, "--tail", "1", "--raw"); l.stdout != "no newline" {
		t.Fatalf("bg logs --tail 1 --raw: %q", l.stdout)
	}
	if ls := e.run("bg", "ls"); !strings.Contains(ls.stdout, id+"  exited") {
		t.Fatalf("bg ls:\n%s", ls.stdout)
	}
	if ev := e.run("events"); !strings.Contains(ev.stdout, id+" exited 3") {
		t.Fatalf("events:\n%s", ev.stdout)
	}
	if rm := e.run("bg", "rm", id); rm.code != 0 {
		t.Fatalf("bg rm: %+v", rm)
	}
	if l := e.run("bg", "logs", id); l.code != exitHangdogError || !strings.Contains(l.stderr, "no task "+id) {
		t.Fatalf("bg logs after rm: %+v", l)
	}
}
