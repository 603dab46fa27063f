//go:build !lite

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// `bg end-session` (a harness's SessionEnd hook) ends the session's
// watchers as tasks.onSessionEnd says: kill pauses them, saying why, and
// the home's runner stops checking them (it runs on for the others); keep
// leaves them running. Another session's are untouched.
func TestEndSessionEndsItsWatchers(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"s1", "s2", "s3"} {
		if r := e.runEnv([]string{"HANGDOG_SESSION=" + s}, "watch", "create", "--kind", "file", path); r.code != 0 {
			t.Fatalf("create for %s: %+v", s, r)
		}
	}
	show := func(session, id string) string {
		t.Helper()
		return e.runEnv([]string{"HANGDOG_SESSION=" + session}, "watch", "show", id).stdout
	}
	r := e.run("bg", "end-session", "--session", "s1")
	if r.code != 0 || !strings.Contains(r.stdout, "w1 paused") {
		t.Fatalf("end-session s1: %+v", r)
	}
	eventually(t, "s1's watcher to be paused with its reason and its task ended", 20*time.Second, func() bool {
		out := show("s1", "w1")
		return strings.Contains(out, "state:     paused (its session s1 ended (tasks.onSessionEnd: kill))")
	})
	runner := ""
	for _, l := range strings.Split(e.run("bg", "ls").stdout, "\n") {
		if strings.Contains(l, "watch runner") && strings.Contains(l, "running") {
			runner = strings.Fields(l)[0]
		}
	}
	if runner == "" {
		t.Fatalf("no runner running for s2's and s3's watchers:\n%s", e.run("bg", "ls").stdout)
	}
	eventually(t, "the runner to stop checking s1's watcher", 20*time.Second, func() bool {
		return strings.Contains(e.run("bg", "logs", runner).stdout, "w1 paused; stopping")
	})
	if r := e.runEnv([]string{"HANGDOG_TASKS_ONSESSIONEND=keep"}, "bg", "end-session", "--session", "s2"); r.code != 0 || strings.Contains(r.stdout, "paused") {
		t.Fatalf("end-session s2 under keep: %+v", r)
	}
	for _, c := range []struct{ session, id string }{{"s2", "w2"}, {"s3", "w3"}} {
		if out := show(c.session, c.id); !strings.Contains(out, "state:     active") {
			t.Errorf("%s of %s after end-session s1 and a kept s2:\n%s", c.id, c.session, out)
		}
	}
}
