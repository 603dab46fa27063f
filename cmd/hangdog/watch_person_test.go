//go:build !lite

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// runAtTerminal is run with a terminal on stdin, as a person at it runs
// hangdog (output is still read from pipes).
func (e *env) runAtTerminal(extra []string, args ...string) result {
	e.t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		e.t.Fatalf("open a pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	c := exec.Command(hangdogBin, args...)
	c.Env = append(e.environ(), extra...)
	c.Dir = filepath.Dir(e.home)
	var out, errb bytes.Buffer
	c.Stdin, c.Stdout, c.Stderr = tty, &out, &errb
	err = c.Run()
	code := 0
	if x, ok := err.(*exec.ExitError); ok {
		code = x.ExitCode()
	} else if err != nil {
		e.t.Fatalf("run hangdog %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

// The owner check keeps one agent from another, not from their user: the
// person at a terminal pauses, resumes and removes any watcher `watch ls
// --all` lists. A caller inside a hangdog task (an agent's shell, even on
// a PTY) or without a terminal is still told there is no such watcher.
func TestWatchPersonAtTerminalManagesAnyWatcher(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.runEnv([]string{"HANGDOG_SESSION=agent-1"}, "watch", "create", "--kind", "file", path); r.code != 0 {
		t.Fatalf("create: %+v", r)
	}
	person := []string{"HANGDOG_SESSION=", "HANGDOG_TASK_ID="}
	if ls := e.runAtTerminal(person, "watch", "ls", "--all"); ls.code != 0 || !strings.Contains(ls.stdout, "w1") {
		t.Fatalf("watch ls --all: %+v", ls)
	}
	if r := e.runEnv([]string{"HANGDOG_SESSION=agent-2"}, "watch", "pause", "w1"); r.code == 0 || !strings.Contains(r.stderr, "no such watcher") {
		t.Errorf("pause by another agent: %+v, want no such watcher", r)
	}
	if r := e.runAtTerminal([]string{"HANGDOG_SESSION=", "HANGDOG_TASK_ID=t9"}, "watch", "rm", "w1"); r.code == 0 || !strings.Contains(r.stderr, "no such watcher") {
		t.Errorf("rm from inside a task: %+v, want no such watcher", r)
	}
	for _, cmd := range []string{"show", "pause", "resume"} {
		if r := e.runAtTerminal(person, "watch", cmd, "w1"); r.code != 0 {
			t.Errorf("watch %s w1 by the person: %+v", cmd, r)
		}
	}
	if r := e.runAtTerminal(person, "watch", "rm", "w1"); r.code != 0 || !strings.Contains(r.stdout, "w1 deleted") {
		t.Fatalf("watch rm w1 by the person: %+v", r)
	}
	if ls := e.runAtTerminal(person, "watch", "ls", "--all"); strings.Contains(ls.stdout, "w1") {
		t.Errorf("w1 is still listed:\n%s", ls.stdout)
	}
}
