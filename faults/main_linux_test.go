//go:build linux

package faults

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/syncbuf"

	"github.com/hangdog/hangdog/internal/testbin"
)

var hangdogBin string

func TestMain(m *testing.M) {
	testbin.Main(m, "hdfault", true, func(bin string) { hangdogBin = bin })
}

// world is an isolated hangdog home and config.
type world struct {
	t     *testing.T
	root  string
	home  string
	cfg   string
	extra []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root := testbin.TempRoot(t, "hf")
	return &world{t: t, root: root, home: testbin.Home(root), cfg: filepath.Join(root, "c")}
}

func (w *world) environ() []string {
	env := append(os.Environ(), "HANGDOG_HOME="+w.home, "XDG_CONFIG_HOME="+w.cfg, "NO_COLOR=1")
	return append(env, w.extra...)
}

func (w *world) command(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, hangdogBin, args...)
	c.Env = w.environ()
	c.Dir = w.root
	return c
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs hangdog to completion, bounded by a generous timeout.
func (w *world) run(args ...string) result {
	w.t.Helper()
	r := testbin.Run(w.t, hangdogBin, w.environ(), w.root, args...)
	return result{r.Stdout, r.Stderr, r.Code}
}

// runJSON runs `hangdog run --json -- …` and decodes its report.
func (w *world) runJSON(args ...string) (map[string]any, result) {
	w.t.Helper()
	r := w.run(append([]string{"run", "--json", "--"}, args...)...)
	var rep map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		w.t.Fatalf("run --json: not one JSON object: %v\nstdout: %.2000s\nstderr: %s", err, r.stdout, r.stderr)
	}
	return rep, r
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s", timeout, what)
}

// syncBuffer: a process's output or a log read while it is written.
type syncBuffer = syncbuf.Buffer

// listedTask is a task as `bg ls --all --json` shows it.
type listedTask struct {
	ID     string `json:"id"`
	State  string `json:"state"`
	Mode   string `json:"mode"`
	Result *struct {
		State    string `json:"state"`
		ExitCode int    `json:"exit_code"`
		Unlogged int64  `json:"output_unlogged_bytes"`
	} `json:"result"`
	Damaged string `json:"damaged"`
}

func listTasks(t *testing.T, w *world) []listedTask {
	t.Helper()
	r := w.run("bg", "ls", "--all", "--json")
	var tasks []listedTask
	if err := json.Unmarshal([]byte(r.stdout), &tasks); err != nil {
		t.Fatalf("bg ls --json: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	return tasks
}

// taskState is a task's listed state ("" if it is not listed).
func taskState(t *testing.T, w *world, id string) string {
	t.Helper()
	for _, tk := range listTasks(t, w) {
		if tk.ID == id {
			return tk.State
		}
	}
	return ""
}
