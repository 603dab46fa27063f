package watch

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
	"github.com/hangdog/hangdog/settings"
)

// Tests that need real processes re-run this test binary with
// WATCH_TEST_HELPER set; TestMain then does that one job and exits.
const (
	helperEnv     = "WATCH_TEST_HELPER"
	helperHomeEnv = "WATCH_TEST_HOME"
	helperArgEnv  = "WATCH_TEST_ARG"
	// helperModelEnv: the base URL of an OpenAI-compatible model the
	// runner asks conditions of.
	helperModelEnv = "WATCH_TEST_MODEL"
)

func TestMain(m *testing.M) {
	if job := os.Getenv(helperEnv); job != "" {
		os.Exit(helperMain(job))
	}
	os.Exit(m.Run())
}

func helperMain(job string) int {
	reg, err := bgtasks.Open(os.Getenv(helperHomeEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	s, err := OpenStore(reg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	arg := os.Getenv(helperArgEnv)
	switch job {
	case "run", "run-crash-after-reserve":
		// The home's runner, as `hangdog __watch` runs it: every active
		// watcher of the home (the tests' homes hold the one, arg).
		h := &HomeRunner{Store: s, Log: os.Stdout, httpTimeout: 2 * time.Second}
		if u := os.Getenv(helperModelEnv); u != "" {
			judge, note, _ := JudgeFor(settings.DecisionModel{Source: "custom", Backend: "openai", URL: u, Model: "m", TimeoutSec: 60}, os.Getenv)
			h.JudgeFor = func(*Spec) (Judge, string) { return judge, note }
		}
		if job == "run-crash-after-reserve" {
			h.afterReserve = func() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL); select {} }
		}
		if err := h.Run(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
	case "create-pause-resume":
		// arg: a file to watch and an owner.
		path, owner, _ := strings.Cut(arg, "|")
		c, err := s.Create(context.Background(), &Request{Kind: KindFile, Target: path}, owner, "")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 4
		}
		id := c.Spec.ID
		for range 3 {
			if err := s.Pause(id, owner, "test"); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 5
			}
			if _, err := s.Resume(id, owner); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 6
			}
		}
		if err := s.Pause(id, owner, "final"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 7
		}
		fmt.Println(id)
	default:
		fmt.Fprintln(os.Stderr, "unknown helper job", job)
		return 9
	}
	return 0
}

// helper starts this test binary as a helper process doing job.
func helper(t *testing.T, home, job, arg string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+job, helperHomeEnv+"="+home, helperArgEnv+"="+arg)
	return cmd
}

func newStore(t *testing.T) *Store {
	t.Helper()
	reg, err := bgtasks.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(reg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func create(t *testing.T, s *Store, q *Request, owner string) *Created {
	t.Helper()
	c, err := s.Create(context.Background(), q, owner, "")
	if err != nil {
		t.Fatalf("create %+v: %v", q, err)
	}
	return c
}

func tick(t *testing.T, r *Runner) bool {
	t.Helper()
	stop, err := r.Tick(context.Background())
	if err != nil {
		t.Fatalf("tick: %v", err)
	}
	return stop
}

func events(t *testing.T, s *Store, id, kind string) []bgtasks.Event {
	t.Helper()
	evs, err := s.reg.Events(0)
	if err != nil {
		t.Fatal(err)
	}
	var out []bgtasks.Event
	for _, e := range evs {
		if e.WatcherID == id && (kind == "" || e.Kind == kind) {
			out = append(out, e)
		}
	}
	return out
}

func state(t *testing.T, s *Store, id string) *State {
	t.Helper()
	_, st, err := s.load(id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// setSpec rewrites a stored spec, for what create's validation would
// refuse in a test that must not wait a minute (short network intervals).
func setSpec(t *testing.T, s *Store, id string, fn func(*Spec)) {
	t.Helper()
	spec, _, err := s.load(id)
	if err != nil {
		t.Fatal(err)
	}
	fn(spec)
	if err := writeJSON(filepath.Join(s.watcherDir(id), "spec.json"), spec); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func renameFile(from, to string) error { return os.Rename(from, to) }
