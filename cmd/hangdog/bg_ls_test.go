package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clipperhouse/displaywidth"

	"github.com/hangdog/hangdog/bgtasks"
)

// testRegistry gives the test its own hangdog home (through HANGDOG_HOME, as
// the commands find it) and the registry there.
func testRegistry(t *testing.T) *bgtasks.Registry {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv("HANGDOG_HOME", home)
	reg, err := bgtasks.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// hangdogOutcome is what one CLI invocation produced.
type hangdogOutcome struct {
	stdout, stderr string
	status         int // the process exit status main would use
	err            error
}

// execHangdog runs the CLI in-process with output captured.
func execHangdog(ctx context.Context, args ...string) hangdogOutcome {
	var out, errb bytes.Buffer
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errb)
	err := root.ExecuteContext(ctx)
	o := hangdogOutcome{err: err}
	var ec exitCode
	switch {
	case err == nil:
	case errors.As(err, &ec):
		o.status = int(ec)
	default:
		o.status = exitHangdogError
		errb.WriteString("hangdog: " + err.Error() + "\n")
	}
	o.stdout, o.stderr = out.String(), errb.String()
	return o
}

func hangdog(args ...string) hangdogOutcome { return execHangdog(context.Background(), args...) }

// standInSupervisor is a real process playing a task's supervisor, so the
// registry sees a live (or, once killed, dead) supervisor.
type standInSupervisor struct {
	cmd   *exec.Cmd
	ticks uint64
}

func startStandIn(t *testing.T) *standInSupervisor {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ticks, err := bgtasks.ProcStartTicks(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return &standInSupervisor{cmd: cmd, ticks: ticks}
}

func (s *standInSupervisor) die() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// runningTask creates a task whose supervisor is alive, with output.
func createRunningTask(t *testing.T, reg *bgtasks.Registry, m bgtasks.Meta, output string) (*bgtasks.Task, *standInSupervisor) {
	t.Helper()
	sup := startStandIn(t)
	m.SupervisorPID, m.SupervisorTicks = sup.cmd.Process.Pid, sup.ticks
	m.State = bgtasks.Running
	if m.Mode == "" {
		m.Mode = bgtasks.Background
	}
	task, err := reg.Create(m)
	if err != nil {
		t.Fatal(err)
	}
	if output != "" {
		if err := os.WriteFile(task.OutputPath(), []byte(output), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return task, sup
}

func endTask(t *testing.T, reg *bgtasks.Registry, id string, res bgtasks.Result) {
	t.Helper()
	if err := reg.WriteResult(id, res); err != nil {
		t.Fatal(err)
	}
}

func TestBgLsTable(t *testing.T) {
	reg := testRegistry(t)
	if o := hangdog("bg", "ls"); o.status != 0 || o.stdout != "" || !strings.Contains(o.stderr, "no tasks") {
		t.Fatalf("ls with no tasks: %+v", o)
	}
	now := time.Now()
	old, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "npm test", Started: now.Add(-212 * time.Second)}, "")
	endTask(t, reg, old.ID, bgtasks.Result{State: bgtasks.Exited, ExitCode: 1, Ended: now})
	killed, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "sleep 999", Started: now.Add(-time.Minute)}, "")
	endTask(t, reg, killed.ID, bgtasks.Result{State: bgtasks.Killed, ExitCode: 143, Signal: "SIGTERM", Ended: now.Add(-time.Second)})
	long := "make all \x1b[31mCC=clang\x1b[0m\n" + strings.Repeat("x", 200)
	createRunningTask(t, reg, bgtasks.Meta{Command: long, Mode: bgtasks.Foreground, Started: now.Add(-5 * time.Second)}, "")

	o := hangdog("bg", "ls")
	if o.status != 0 {
		t.Fatalf("bg ls: %+v", o)
	}
	lines := strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("want a header and 3 rows, got:\n%s", o.stdout)
	}
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "ID STATE MODE STARTED DURATION EXIT CPU MEM COMMAND" {
		t.Fatalf("header %q", lines[0])
	}
	wantRows := [][]string{
		{"t3", "running", "foreground", "", "", "-", "make all CC=clang xxx"},
		{"t1", "exited", "background", "", "212s", "1", "npm test"},
		{"t2", "killed", "background", "", "59s", "143 SIGTERM", "sleep 999"},
	}
	for i, want := range wantRows {
		row := lines[i+1]
		for j, cell := range want {
			if cell != "" && !strings.Contains(row, cell) {
				t.Errorf("row %d %q lacks column %d %q", i, row, j, cell)
			}
		}
		if !strings.HasPrefix(row, want[0]+" ") {
			t.Errorf("row %d is %q, want task %s (running first, then most recently ended)", i, row, want[0])
		}
	}
	// Not a terminal: the command is cut at 60 columns, and the table has
	// nothing a terminal would interpret.
	cmdCol := strings.Index(lines[0], "COMMAND")
	if got := []rune(lines[1][cmdCol:]); len(got) != lsCommandWidth || got[len(got)-1] != '…' {
		t.Errorf("long command shown as %q (%d runes), want %d ending in …", string(got), len(got), lsCommandWidth)
	}
	if strings.ContainsRune(o.stdout, 0x1b) {
		t.Error("table contains an escape character from the command")
	}
}

func TestBgLsLimitsEndedTasksUnlessAll(t *testing.T) {
	reg := testRegistry(t)
	for range lsRecentEnded + 3 {
		task, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "true"}, "")
		endTask(t, reg, task.ID, bgtasks.Result{State: bgtasks.Exited})
	}
	createRunningTask(t, reg, bgtasks.Meta{Command: "sleep 1000"}, "")
	o := hangdog("bg", "ls")
	if rows := strings.Count(o.stdout, "\n") - 1; rows != lsRecentEnded+1 {
		t.Fatalf("bg ls shows %d rows, want %d (running + %d recent)", rows, lsRecentEnded+1, lsRecentEnded)
	}
	if !strings.Contains(o.stderr, "older ended tasks not shown; `hangdog bg ls --all` lists them") {
		t.Fatalf("stderr %q does not say what was left out", o.stderr)
	}
	if o := hangdog("bg", "ls", "--all"); strings.Count(o.stdout, "\n")-1 != lsRecentEnded+4 || o.stderr != "" {
		t.Fatalf("bg ls --all: %d rows, stderr %q", strings.Count(o.stdout, "\n")-1, o.stderr)
	}
}

func TestBgLsJSON(t *testing.T) {
	reg := testRegistry(t)
	if o := hangdog("bg", "ls", "--json"); strings.TrimSpace(o.stdout) != "[]" {
		t.Fatalf("no tasks as JSON: %q", o.stdout)
	}
	ended, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "go test ./..."}, "")
	endTask(t, reg, ended.ID, bgtasks.Result{State: bgtasks.Exited, ExitCode: 2})
	running, sup := createRunningTask(t, reg, bgtasks.Meta{Command: "npm run dev"}, "")

	o := hangdog("bg", "ls", "--json")
	var got []struct {
		ID            string          `json:"id"`
		State         string          `json:"state"`
		Mode          string          `json:"mode"`
		Command       string          `json:"command"`
		SupervisorPID int             `json:"supervisor_pid"`
		DurationMS    *int64          `json:"duration_ms"`
		Result        *bgtasks.Result `json:"result"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil {
		t.Fatalf("bg ls --json: %v\n%s", err, o.stdout)
	}
	if len(got) != 2 || got[0].ID != running.ID || got[1].ID != ended.ID {
		t.Fatalf("tasks %+v", got)
	}
	if got[0].State != "running" || got[0].Result != nil || got[0].SupervisorPID != sup.cmd.Process.Pid || got[0].DurationMS == nil {
		t.Errorf("running task %+v", got[0])
	}
	if got[1].State != "exited" || got[1].Result == nil || got[1].Result.ExitCode != 2 || got[1].Command != "go test ./..." {
		t.Errorf("ended task %+v", got[1])
	}
}

func TestBgLsShowsLostTasks(t *testing.T) {
	reg := testRegistry(t)
	task, sup := createRunningTask(t, reg, bgtasks.Meta{Command: "make"}, "")
	sup.die()
	o := hangdog("bg", "ls")
	if !strings.Contains(o.stdout, task.ID+"  lost") || !strings.Contains(o.stdout, "?") {
		t.Fatalf("a task whose supervisor died is not shown lost:\n%s", o.stdout)
	}
}

// Columns are measured in terminal cells, so a command in a wide script is
// cut to the same width as any other and the rows stay aligned.
func TestBgLsTableCountsWideCharactersAsTwoCells(t *testing.T) {
	now := time.Now()
	tasks := []*bgtasks.Task{
		{Meta: bgtasks.Meta{ID: "t1", Command: strings.Repeat("日本語", 40), State: bgtasks.Running, Mode: bgtasks.Background, Started: now}},
		{Meta: bgtasks.Meta{ID: "t2", Command: "ls", State: bgtasks.Running, Mode: bgtasks.Background, Started: now}},
	}
	var b strings.Builder
	writeTaskTable(&b, tasks, nil, 0, now)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	cmdCol := strings.Index(lines[0], "COMMAND")
	wide := lines[1][cmdCol:]
	if w := displaywidth.String(wide); w > lsCommandWidth || w < lsCommandWidth-1 || !strings.HasSuffix(wide, "…") {
		t.Errorf("wide command shown as %q, %d cells; want it cut to %d cells ending in …", wide, w, lsCommandWidth)
	}
	if !strings.HasPrefix(lines[2][cmdCol:], "ls") {
		t.Errorf("rows are not aligned:\n%s", b.String())
	}
}
