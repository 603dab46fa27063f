package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// A run's supervisor is started from earlyrun's initialiser, so its start-up
// overlaps with the CLI's. That holds only while earlyrun initialises before
// the heavy packages: an import added to it or to spawn can quietly undo it.
func TestEarlyRunInitialisesBeforeTheCLI(t *testing.T) {
	e := newEnv(t)
	e.extra = append(e.extra, "GODEBUG=inittrace=1")
	r := e.run("run", "--", "true")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	order := map[string]int{}
	n := 0
	for _, line := range strings.Split(r.stderr, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order[f[1]] = n
			n++
		}
	}
	early, ok := order["github.com/hangdog/hangdog/cmd/hangdog/internal/earlyrun"]
	if !ok {
		t.Fatalf("no init trace of earlyrun in:\n%s", r.stderr)
	}
	for _, heavy := range []string{"reflect", "net", "github.com/spf13/cobra", "github.com/spf13/viper"} {
		at, ok := order[heavy]
		if !ok {
			t.Fatalf("no init trace of %s: this test's package names are stale", heavy)
		}
		if at < early {
			t.Errorf("%s initialises before earlyrun (%d < %d): the supervisor starts later than it could", heavy, at, early)
		}
	}
}

// The supervisor earlyrun starts is the one the run uses: a second one would
// mean the early start is wasted work.
func TestRunAdoptsTheEarlySupervisor(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := e.command(ctx, "run", "--", "sleep", "5")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		c.Process.Kill()
		c.Wait()
	}()
	var sups []int
	eventually(t, "the task to be running", 10*time.Second, func() bool {
		meta, _ := os.ReadFile(bgtasks.Opened(e.home).MetaPath("t1"))
		if !bytes.Contains(meta, []byte(`"state": "running"`)) {
			return false
		}
		sups = e.supervisors()
		return true
	})
	if len(sups) != 1 {
		t.Fatalf("%d supervisors run for one task (pids %v), want 1", len(sups), sups)
	}
}

// supervisors lists the live supervisor processes of this env's home.
func (e *env) supervisors() []int {
	var sups []int
	for _, pid := range e.processes() {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if bytes.HasSuffix(cmdline, []byte("\x00__supervise\x00")) {
			sups = append(sups, pid)
		}
	}
	return sups
}

// An unused early supervisor (the run was refused before it was adopted)
// exits with its caller and leaves nothing behind.
func TestUnusedEarlySupervisorExitsWithItsCaller(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{{"run", "--no-such-flag", "--", "true"}, {"bg", "run", "--tail", "3"}} {
		r := e.run(args...)
		if r.code != exitHangdogError || !strings.Contains(r.stderr, "unknown flag") {
			t.Fatalf("%v: exit %d, stderr %q; want exit %d and an unknown-flag error", args, r.code, r.stderr, exitHangdogError)
		}
	}
	eventually(t, "no process of this home to be left", 10*time.Second, func() bool {
		return len(e.processes()) == 0
	})
	if _, err := os.Stat(filepath.Join(e.home, "tasks", "t1")); err == nil {
		t.Error("a refused run registered a task")
	}
}
