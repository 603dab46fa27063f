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
	w.run = fmt.Sprintf(`cat >> %s; if [ -e %s ]; then exec sleep 30; fi`, w.out, w.slow) // exec: the sleep dies with the worker (Pdeathsig)
	w.seen = fmt.Sprintf(`for id in $%s; do grep -q "\"seq\":$id," %s || exit 1; done`, IDsEnv, w.out)
	return w
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
	os.Remove(w.slow)
	worker = w.start(false)
	w.waitFor("the event handed over again", func() bool { return w.count(seq) == 2 })
	kill9(t, worker)
}

func writeFile(t *testing.T, path string) {
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}
