package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

const sampleLog = "build started\r\n\x1b[32mok\x1b[0m   pkg/a\r\n50%\r100%\r\nwarning: \x1b]8;;http://x\x07link\x1b]8;;\x07\r\nPassword: "

func TestBgLogsPlainAndRaw(t *testing.T) {
	reg := testRegistry(t)
	task, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "make"}, sampleLog)

	o := hangdog("bg", "logs", task.ID)
	want := "build started\nok   pkg/a\n100%\nwarning: link\nPassword: "
	if o.status != 0 || o.stdout != want {
		t.Fatalf("bg logs: status %d, stdout %q; want %q", o.status, o.stdout, want)
	}
	if o := hangdog("bg", "logs", "--raw", task.ID); o.stdout != sampleLog {
		t.Fatalf("bg logs --raw changed the bytes: %q", o.stdout)
	}
}

func TestBgLogsTail(t *testing.T) {
	reg := testRegistry(t)
	task, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "make"}, sampleLog)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tail", "2"}, "warning: link\nPassword: "},
		{[]string{"-n", "1"}, "Password: "},
		{[]string{"--tail", "0"}, ""},
		{[]string{"--tail", "99"}, "build started\nok   pkg/a\n100%\nwarning: link\nPassword: "},
		{[]string{"--tail", "1", "--raw"}, "Password: "},
	} {
		o := hangdog(append([]string{"bg", "logs", task.ID}, tc.args...)...)
		if o.stdout != tc.want {
			t.Errorf("bg logs %v = %q, want %q", tc.args, o.stdout, tc.want)
		}
	}
	// A final newline ends the last line rather than starting an empty one.
	if err := os.WriteFile(task.OutputPath(), []byte("a\nb\nc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if o := hangdog("bg", "logs", task.ID, "--tail", "2"); o.stdout != "b\nc\n" {
		t.Errorf("--tail 2 of a\\nb\\nc\\n = %q", o.stdout)
	}
}

func TestBgLogsTailAcrossBlocks(t *testing.T) {
	reg := testRegistry(t)
	var log strings.Builder
	for i := range 20000 {
		log.WriteString(strings.Repeat("=", i%97) + "\n")
	}
	task, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "gen"}, log.String())
	lines := strings.SplitAfter(log.String(), "\n")
	want := strings.Join(lines[len(lines)-1-5000:], "")
	if o := hangdog("bg", "logs", task.ID, "--tail", "5000", "--raw"); o.stdout != want {
		t.Fatalf("--tail 5000 gave %d bytes, want %d", len(o.stdout), len(want))
	}
}

func TestBgLogsUnknownTask(t *testing.T) {
	testRegistry(t)
	o := hangdog("bg", "logs", "t9")
	if o.status != exitHangdogError || strings.TrimSpace(o.stderr) != "hangdog: no task t9; `hangdog bg ls` lists tasks" {
		t.Fatalf("bg logs t9: status %d, stderr %q", o.status, o.stderr)
	}
}

func TestBgLogsTaskWithoutOutputYet(t *testing.T) {
	reg := testRegistry(t)
	task, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "sleep 5"}, "")
	if o := hangdog("bg", "logs", task.ID); o.status != 0 || o.stdout != "" {
		t.Fatalf("logs of a silent task: %+v", o)
	}
}

// lockedBuffer collects a command's stdout while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitForOutput blocks until out contains want or the follower has exited.
func waitForOutput(t *testing.T, out *lockedBuffer, want string, done <-chan error) {
	t.Helper()
	for !strings.Contains(out.String(), want) {
		select {
		case err := <-done:
			t.Fatalf("follower exited (%v) before printing %q; printed %q", err, want, out.String())
		default:
		}
		waitABit()
	}
}

func TestBgLogsFollowUntilTheTaskEnds(t *testing.T) {
	reg := testRegistry(t)
	task, _ := createRunningTask(t, reg, bgtasks.Meta{Command: "installer"}, "")

	var out lockedBuffer
	done := make(chan error, 1)
	go func() {
		root := newRootCmd()
		root.SetArgs([]string{"bg", "logs", "-f", task.ID})
		root.SetOut(&out)
		root.SetErr(&out)
		done <- root.ExecuteContext(context.Background())
	}()

	appendOutput(t, task, "step 1\r\n\x1b[1mstep")
	waitForOutput(t, &out, "step 1\n", done)
	appendOutput(t, task, " 2\r\nContinue? [y/N] ")
	// The unfinished prompt line is shown once output pauses.
	waitForOutput(t, &out, "step 2\nContinue? [y/N] ", done)
	appendOutput(t, task, "y\r\nfinished\r\n")
	endTask(t, reg, task.ID, bgtasks.Result{State: bgtasks.Exited})
	if err := <-done; err != nil {
		t.Fatalf("bg logs -f: %v", err)
	}
	if got, want := out.String(), "step 1\nstep 2\nContinue? [y/N] y\nfinished\n"; got != want {
		t.Fatalf("followed output %q, want %q", got, want)
	}
}

func TestBgLogsFollowEndsWhenSupervisorDies(t *testing.T) {
	reg := testRegistry(t)
	task, sup := createRunningTask(t, reg, bgtasks.Meta{Command: "server"}, "listening\n")
	done := make(chan hangdogOutcome, 1)
	go func() { done <- hangdog("bg", "logs", "--follow", task.ID) }()
	sup.die()
	o := <-done
	if o.status != 0 || o.stdout != "listening\n" {
		t.Fatalf("bg logs -f on a lost task: %+v", o)
	}
}

func appendOutput(t *testing.T, task *bgtasks.Task, s string) {
	t.Helper()
	f, err := os.OpenFile(task.OutputPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// waitABit paces a loop that polls for something another process or
// goroutine does; no test asserts how long anything takes.
func waitABit() { time.Sleep(10 * time.Millisecond) }
