package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/internal/syncbuf"

	"github.com/hangdog/hangdog/internal/testbin"
)

// hangdogBin is the binary under test, built once for the package with
// hangdog-full and hangdog-supervisor beside it, as `make build` leaves them,
// so tests drive it as users do.
var hangdogBin string

func TestMain(m *testing.M) {
	testbin.Main(m, "hdbin", true, func(bin string) { hangdogBin = bin })
}

// env is an isolated hangdog world: its own home and config.
type env struct {
	t     *testing.T
	home  string
	cfg   string
	extra []string // more environment for every hangdog started
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := testbin.TempRoot(t, "hd")
	e := &env{t: t, home: testbin.Home(root), cfg: filepath.Join(root, "c")}
	return e
}

func (e *env) environ() []string {
	env := append(os.Environ(), "HANGDOG_HOME="+e.home, "XDG_CONFIG_HOME="+e.cfg, "NO_COLOR=1")
	return append(env, e.extra...)
}

func (e *env) command(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, hangdogBin, args...)
	c.Env = e.environ()
	c.Dir = filepath.Dir(e.home)
	return c
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs hangdog to completion (bounded by a generous timeout).
func (e *env) run(args ...string) result {
	e.t.Helper()
	r := testbin.Run(e.t, hangdogBin, e.environ(), filepath.Dir(e.home), args...)
	return result{r.Stdout, r.Stderr, r.Code}
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

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}

func itoa(n int) string { return strconv.Itoa(n) }

// syncBuffer: a process's output or a log read while it is written.
type syncBuffer = syncbuf.Buffer
