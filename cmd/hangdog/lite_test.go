package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hangdog/hangdog/bgtasks"
)

// The start-up of every `hangdog run` depends on what the lite CLI and the
// supervisor link: one shared file importing the shell or the MCP server
// would quietly double it.
func TestHotPathBinariesLinkNoHeavyPackages(t *testing.T) {
	deps := func(tags, pkg string) string {
		out, err := exec.Command("go", "list", "-tags", tags, "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		return string(out)
	}
	heavy := []string{"charmbracelet/bubbletea", "charmbracelet/lipgloss", "modelcontextprotocol/go-sdk", "hangdog/hangdog/tui"}
	full := deps("", "github.com/hangdog/hangdog/cmd/hangdog")
	for _, h := range heavy {
		if !strings.Contains(full, h) {
			t.Fatalf("hangdog-full does not link %s: this test's package names are stale", h)
		}
	}
	lite := deps("lite", "github.com/hangdog/hangdog/cmd/hangdog")
	sup := deps("", "github.com/hangdog/hangdog/cmd/hangdog-supervisor")
	for _, h := range heavy {
		if strings.Contains(lite, h) {
			t.Errorf("the lite hangdog links %s", h)
		}
		if strings.Contains(sup, h) {
			t.Errorf("hangdog-supervisor links %s", h)
		}
	}
	for _, h := range []string{"spf13/viper", "spf13/cobra"} {
		if strings.Contains(sup, h) {
			t.Errorf("hangdog-supervisor links %s", h)
		}
	}
	// The watchers' runner stays resident while any watcher is active:
	// its pages are what it links (docs/benchmarks.md, "Idle watchers").
	runner := deps("", "github.com/hangdog/hangdog/cmd/hangdog-watch")
	for _, h := range append(heavy, "spf13/cobra") {
		if strings.Contains(runner, h) {
			t.Errorf("hangdog-watch links %s", h)
		}
	}
	// Nor the watcher service around it: the fleet's client (NATS), the
	// approval pages, the start of tasks (and the supervisor's watchdog
	// with them). hangdog-full's __watch has them.
	service := []string{"github.com/nats-io/nats.go", "github.com/hangdog/hangdog/approval", "github.com/hangdog/hangdog/taskctl", "github.com/hangdog/hangdog/watchctl"}
	for _, pkg := range service {
		if !slices.Contains(strings.Split(full, "\n"), pkg) {
			t.Fatalf("hangdog-full does not link %s: this test's package names are stale", pkg)
		}
		if slices.Contains(strings.Split(runner, "\n"), pkg) {
			t.Errorf("hangdog-watch links %s", pkg)
		}
	}
	// The supervisor asks remote models through a helper process: the HTTP
	// client's initialisers would cost every start-up.
	for _, pkg := range []string{"net/http", "crypto/tls"} {
		if !slices.Contains(strings.Split(full, "\n"), pkg) {
			t.Fatalf("hangdog-full does not link %s: this test's package names are stale", pkg)
		}
		if slices.Contains(strings.Split(sup, "\n"), pkg) {
			t.Errorf("hangdog-supervisor links %s", pkg)
		}
	}
}

// copyAlone puts a copy of the lite hangdog in a directory of its own.
func copyAlone(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(hangdogBin)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "hangdog")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestLiteHangdogWithoutFullSaysHowToFixIt(t *testing.T) {
	e := newEnv(t)
	bin := copyAlone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, args := range [][]string{{"mcp"}, {"settings"}, {}} {
		c := exec.CommandContext(ctx, bin, args...)
		c.Env = e.environ()
		out, err := c.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitHangdogError {
			t.Fatalf("hangdog %v without hangdog-full: %v, want exit %d\n%s", args, err, exitHangdogError, out)
		}
		msg := string(out)
		if !strings.Contains(msg, "hangdog-full") || !strings.Contains(msg, "make install") || !strings.Contains(msg, "npm package") || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
			t.Fatalf("hangdog %v: want one line naming hangdog-full and how to reinstall (make install, the npm package…), got %q", args, msg)
		}
	}
}

// Without hangdog-supervisor beside it, hangdog re-executes itself as the
// supervisor: slower, never broken.
func TestRunWithoutSupervisorBinaryStillWorks(t *testing.T) {
	e := newEnv(t)
	bin := copyAlone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, bin, "run", "--", "sh", "-c", "echo out; exit 7")
	c.Env = e.environ()
	out, err := c.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 || string(out) != "out\n" {
		t.Fatalf("run without hangdog-supervisor: err %v, output %q; want exit 7 and \"out\\n\"", err, out)
	}
	// And a task that stays shows which program supervises it.
	c = exec.CommandContext(ctx, bin, "bg", "run", "--json", "--", "sleep", "30")
	c.Env = e.environ()
	out, err = c.Output()
	if err != nil {
		t.Fatalf("bg run: %v", err)
	}
	var started struct {
		TaskID string `json:"task_id"`
	}
	if err := json.Unmarshal(out, &started); err != nil {
		t.Fatalf("bg run --json: %v in %q", err, out)
	}
	defer e.run("bg", "kill", started.TaskID)
	meta, err := os.ReadFile(bgtasks.Opened(e.home).MetaPath(started.TaskID))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		SupervisorPID int `json:"supervisor_pid"`
	}
	if err := json.Unmarshal(meta, &m); err != nil || m.SupervisorPID == 0 {
		t.Fatalf("meta.json has no supervisor pid (%v): %s", err, meta)
	}
	exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(m.SupervisorPID), "exe"))
	if err != nil || exe != bin {
		t.Fatalf("supervisor runs %q (%v), want the hangdog binary itself, %s", exe, err, bin)
	}
}

// The lite CLI's stand-ins for the heavy commands show hangdog-full's help,
// however it is asked for.
func TestHelpOfHandedOverCommandsIsTheFullOne(t *testing.T) {
	e := newEnv(t)
	viaFlag := e.run("mcp", "--help")
	viaHelp := e.run("help", "mcp")
	if viaFlag.code != 0 || viaHelp.code != 0 || !strings.Contains(viaFlag.stdout, "--consumer") || viaHelp.stdout != viaFlag.stdout {
		t.Fatalf("`mcp --help` (exit %d) and `help mcp` (exit %d) differ or lack the full flags:\n%s\n---\n%s", viaFlag.code, viaHelp.code, viaFlag.stdout, viaHelp.stdout)
	}
}
