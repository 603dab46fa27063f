package wake

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// The worker under test runs as a real process (this test binary with
// WAKE_TEST_HELPER set), so it can be killed -9.
func TestMain(m *testing.M) {
	if os.Getenv("WAKE_TEST_HELPER") != "" {
		reg, err := bgtasks.Open(os.Getenv("WAKE_TEST_HOME"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		w := &Worker{Reg: reg, Consumer: "agent", Run: os.Getenv("WAKE_TEST_RUN"), Seen: os.Getenv("WAKE_TEST_SEEN"),
			Log: os.Stdout, Poll: 20 * time.Millisecond, RetryAfter: 50 * time.Millisecond}
		if err := w.Loop(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type world struct {
	t    *testing.T
	reg  *bgtasks.Registry
	out  string // what the run command appended
	slow string // while it exists, the run command sleeps after appending
	run  string
	seen string
}

func newWorld(t *testing.T) *world {
	dir := t.TempDir()
	reg, err := bgtasks.Open(filepath.Join(dir, "home"))
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, reg: reg, out: filepath.Join(dir, "out"), slow: filepath.Join(dir, "slow")}
	// While slow exists the run waits after appending: the test removes
	// it to let the run finish, or kills the run to cut it short.
	w.run = fmt.Sprintf(`cat >> %s; while [ -e %s ]; do sleep 0.02; done`, w.out, w.slow)
	w.seen = fmt.Sprintf(`for id in $%s; do grep -q "\"seq\":$id," %s || exit 1; done`, IDsEnv, w.out)
	// A run outlives its worker by design and writes its exit status into
	// the home when it ends: it is ended before the home is removed, or
	// that write races the removal.
	t.Cleanup(func() { w.endRun() })
	return w
}

// endRun kills the run the record names, if any, with its process group,
// and waits until no process of the group is left; false if there was none.
func (w *world) endRun() bool {
	wk := &Worker{Reg: w.reg, Consumer: "agent"}
	rec, err := wk.readRecord()
	if err != nil || rec == nil || rec.PID == 0 {
		return false
	}
	_ = syscall.Kill(-rec.PID, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(-rec.PID, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func (w *world) start(seen bool) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WAKE_TEST_HELPER=1", "WAKE_TEST_HOME="+w.reg.Home(), "WAKE_TEST_RUN="+w.run)
	if seen {
		cmd.Env = append(cmd.Env, "WAKE_TEST_SEEN="+w.seen)
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// Registered: its cursor file exists.
	w.waitFor("the worker to register", func() bool {
		_, err := os.Stat(filepath.Join(w.reg.Home(), "consumers", "agent.cursor"))
		return err == nil
	})
	return cmd
}

func (w *world) event(reason string) int64 {
	e, err := w.reg.AppendEvent(bgtasks.Event{Kind: bgtasks.EventWatchFired, TaskID: "w1", Reason: reason})
	if err != nil {
		w.t.Fatal(err)
	}
	return e.Seq
}

func (w *world) count(seq int64) int {
	b, _ := os.ReadFile(w.out)
	return strings.Count(string(b), fmt.Sprintf(`"seq":%d,`, seq))
}

func (w *world) waitFor(what string, cond func() bool) {
	w.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			w.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func kill9(t *testing.T, cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
}

// killRun kills the run the record names, with its process group: a run
// cut short, as by a reboot or an OOM kill.
func (w *world) killRun() {
	w.t.Helper()
	if !w.endRun() {
		w.t.Fatal("no run in the record to kill")
	}
}

func TestWakeHandsEventsOverOnceAcrossKill9MidRun(t *testing.T) {
	w := newWorld(t)
	worker := w.start(true)
	a, b := w.event("one"), w.event("two")
	w.waitFor("events one and two", func() bool { return w.count(a) == 1 && w.count(b) == 1 })
	// And their run over: it looks for the slow file after appending, so
	// a slow file made before then would hold the worker there for 30 s.
	w.waitFor("the cursor past event two", func() bool {
		got, _ := os.ReadFile(filepath.Join(w.reg.Home(), "consumers", "agent.cursor"))
		return strings.TrimSpace(string(got)) == fmt.Sprint(b)
	})

	// A run that appends, then is still going when the worker is killed.
	writeFile(t, w.slow)
	c := w.event("three")
	w.waitFor("event three appended", func() bool { return w.count(c) == 1 })
	time.Sleep(100 * time.Millisecond)
	kill9(t, worker)
	w.killRun()
	os.Remove(w.slow)

	worker = w.start(true)
	d := w.event("four")
	w.waitFor("event four", func() bool { return w.count(d) == 1 })
	time.Sleep(300 * time.Millisecond)
	for _, seq := range []int64{a, b, c, d} {
		if n := w.count(seq); n != 1 {
			t.Errorf("event #%d handed over %d times, want once", seq, n)
		}
	}
	kill9(t, worker)
}

// Killed after the run finished and before the cursor moved: the record
// says handled, so the batch is not run again (no --seen needed).
func TestWakeHandledRecordIsNotRunAgain(t *testing.T) {
	w := newWorld(t)
	worker := w.start(false)
	kill9(t, worker)
	seq := w.event("done already")
	rec := &record{First: seq, Last: seq, IDs: []int64{seq}, Handled: true}
	wk := &Worker{Reg: w.reg, Consumer: "agent"}
	if err := wk.writeRecord(rec); err != nil {
		t.Fatal(err)
	}
	worker = w.start(false)
	next := w.event("new")
	w.waitFor("the next event", func() bool { return w.count(next) == 1 })
	if n := w.count(seq); n != 0 {
		t.Errorf("a batch recorded as handled was run again (%d)", n)
	}
	kill9(t, worker)
}

// Without --seen a run cut short is handed over again: at-least-once.
func TestWakeWithoutSeenIsAtLeastOnce(t *testing.T) {
	w := newWorld(t)
	worker := w.start(false)
	writeFile(t, w.slow)
	seq := w.event("x")
	w.waitFor("the event appended", func() bool { return w.count(seq) == 1 })
	kill9(t, worker)
	w.killRun()
	os.Remove(w.slow)
	worker = w.start(false)
	w.waitFor("the event handed over again", func() bool { return w.count(seq) == 2 })
	kill9(t, worker)
}

// A worker killed -9 during a run does not take the run with it: the run
// (an agent's turn) finishes, and the next worker counts its batch as
// handed over by the run's own exit status, without --seen and without a
// second run.
func TestWakeRunOutlivesKilledWorkerAndCountsOnce(t *testing.T) {
	w := newWorld(t)
	worker := w.start(false)
	writeFile(t, w.slow)
	seq := w.event("x")
	w.waitFor("the event appended", func() bool { return w.count(seq) == 1 })
	kill9(t, worker)
	worker = w.start(false)
	time.Sleep(200 * time.Millisecond) // the new worker finds the run still going
	os.Remove(w.slow)
	next := w.event("next")
	w.waitFor("the next event", func() bool { return w.count(next) == 1 })
	if n := w.count(seq); n != 1 {
		t.Errorf("the batch of the run that outlived its worker was handed over %d times, want once", n)
	}
	kill9(t, worker)
}

// The end of a wake worker's own task (a kill -9, a bg kill) is the
// waker's own noise: no worker hands it to an agent.
func TestWakeDoesNotHandOverWakeWorkersOwnEnds(t *testing.T) {
	w := newWorld(t)
	worker := w.start(false)
	old, err := w.reg.Create(bgtasks.Meta{Command: "hangdog wake", Argv: WorkerArgv("/usr/bin/hangdog", "agent", "cat", "", false)})
	if err != nil {
		t.Fatal(err)
	}
	code := 137
	end := old.Event(bgtasks.EventExited)
	end.ExitCode, end.Signal = &code, "SIGKILL"
	ev, err := w.reg.AppendEvent(end)
	if err != nil {
		t.Fatal(err)
	}
	next := w.event("real news")
	w.waitFor("the real event", func() bool { return w.count(next) == 1 })
	if n := w.count(ev.Seq); n != 0 {
		t.Errorf("a wake worker's own end was handed to the agent (%d times)", n)
	}
	kill9(t, worker)
}

func writeFile(t *testing.T, path string) {
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Two workers started with one consumer name: the second refuses, naming
// the first's pid, so 30 events are handed over 30 times, not 55; once the
// first is killed -9 (the kernel drops its lock) another takes over.
func TestWakeOneWorkerPerConsumerAcrossProcesses(t *testing.T) {
	w := newWorld(t)
	first := w.start(false) // registered: it holds the consumer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	second := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	second.Env = append(os.Environ(), "WAKE_TEST_HELPER=1", "WAKE_TEST_HOME="+w.reg.Home(), "WAKE_TEST_RUN="+w.run)
	out, err := second.CombinedOutput()
	if code := second.ProcessState.ExitCode(); code != 3 || !strings.Contains(string(out), fmt.Sprintf("pid %d", first.Process.Pid)) {
		t.Errorf("a second worker for the consumer: exit %d (%v), %q; want a refusal naming pid %d", code, err, out, first.Process.Pid)
	}
	var seqs []int64
	for i := range 30 {
		seqs = append(seqs, w.event(fmt.Sprint("e", i)))
	}
	last := seqs[len(seqs)-1]
	w.waitFor("all 30 events", func() bool { return w.count(last) >= 1 })
	for _, seq := range seqs {
		if n := w.count(seq); n != 1 {
			t.Errorf("event #%d handed over %d times, want once", seq, n)
		}
	}
	kill9(t, first)
	w.start(false)
	e := w.event("after the first worker died")
	w.waitFor("the next worker to hand over", func() bool { return w.count(e) == 1 })
}
