package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hangdog/hangdog/settings"
)

// tmuxPane drives the real binary in a tmux server of its own, as a person
// at a 120x40 terminal would.
type tmuxPane struct {
	t    *testing.T
	e    *env
	sock string
}

var nonWord = regexp.MustCompile(`[^A-Za-z0-9]+`)

func startTmux(t *testing.T, e *env, args ...string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed; the interactive shell tests need it (apt-get install tmux)")
	}
	p := &tmuxPane{t: t, e: e, sock: fmt.Sprintf("hd%d%s", os.Getpid(), nonWord.ReplaceAllString(t.Name(), ""))}
	shellCmd := strings.Join(append([]string{hangdogBin}, args...), " ") + "; echo HANGDOG-EXITED-$?; sleep 600"
	p.tmux("-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", "-c", filepath.Dir(e.home), shellCmd)
	t.Cleanup(func() {
		exec.Command("tmux", "-L", p.sock, "kill-server").Run()
		killRunning(e)
	})
	return p
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	c := exec.Command("tmux", append([]string{"-L", p.sock}, args...)...)
	// The server inherits this environment, and the shell inherits the
	// server's: an isolated home and config, and NO_COLOR for plain panes.
	c.Env = append(p.e.environ(), "TERM=xterm-256color")
	out, err := c.CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (p *tmuxPane) keys(keys ...string) { p.tmux(append([]string{"send-keys", "-t", "0"}, keys...)...) }

// typeLine types text literally and presses Enter.
func (p *tmuxPane) typeLine(text string) {
	p.tmux("send-keys", "-t", "0", "-l", text)
	p.keys("Enter")
}

func (p *tmuxPane) pane() string { return p.tmux("capture-pane", "-p", "-t", "0") }

// waitPane polls the pane until cond holds.
func (p *tmuxPane) waitPane(what string, cond func(pane string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		last = p.pane()
		if cond(last) {
			return last
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("timed out waiting for %s; pane:\n%s", what, last)
	return ""
}

func (p *tmuxPane) waitFor(want ...string) string {
	p.t.Helper()
	return p.waitPane(strings.Join(want, " + "), func(pane string) bool {
		for _, w := range want {
			if !strings.Contains(pane, w) {
				return false
			}
		}
		return true
	})
}

// statusLine is the bottom line: the status bar.
func statusLine(pane string) string {
	lines := strings.Split(strings.TrimRight(pane, "\n"), "\n")
	return lines[len(lines)-1]
}

// killRunning stops whatever a test left running in its home.
func killRunning(e *env) {
	for _, task := range bgList(e) {
		if task.State == "running" || task.State == "starting" {
			e.command(context.Background(), "bg", "kill", task.ID, "--signal", "KILL").Run()
		}
	}
}

type bgTask struct {
	ID      string `json:"id"`
	State   string `json:"state"`
	Mode    string `json:"mode"`
	Command string `json:"command"`
}

func bgList(e *env) []bgTask {
	out, err := e.command(context.Background(), "bg", "ls", "--json", "--all").Output()
	if err != nil {
		return nil
	}
	var tasks []bgTask
	json.Unmarshal(out, &tasks)
	return tasks
}

func TestShellShowsOutputAndWatchdogStatus(t *testing.T) {
	e := newEnv(t)
	p := startTmux(t, e)
	p.waitFor("❯", "idle")
	if strings.Contains(statusLine(p.pane()), "watchdog:") {
		t.Fatalf("status bar shows the watchdog while idle:\n%s", p.pane())
	}
	p.typeLine("printf 'hello %s\\n' tmux; sleep 2; echo done-$((40+2))")
	pane := p.waitFor("hello tmux")
	if !strings.Contains(statusLine(pane), "watchdog: 1") {
		t.Fatalf("status bar while a command runs: %q", statusLine(pane))
	}
	pane = p.waitFor("done-42", "idle")
	if strings.Contains(statusLine(pane), "watchdog:") {
		t.Fatalf("status bar after the command: %q", statusLine(pane))
	}
}

func TestShellDetachKeepsTaskRunning(t *testing.T) {
	e := newEnv(t)
	p := startTmux(t, e, "shell")
	p.waitFor("idle")

	p.typeLine("echo first-$((1+1)); sleep 60")
	p.waitFor("first-2", "watchdog: 1")
	p.typeLine("/bg-detach testing the shell")
	p.waitFor("moved to the background", "testing the shell", "idle")

	p.typeLine("echo second-$((2+1)); sleep 61")
	p.waitFor("second-3", "watchdog: 1")
	p.keys("C-b")
	pane := p.waitPane("the second detach", func(pane string) bool {
		return strings.Count(pane, "moved to the background") == 2 && strings.Contains(statusLine(pane), "idle")
	})
	if !strings.Contains(pane, "detached with Ctrl+B") {
		t.Fatalf("pane:\n%s", pane)
	}
	running := map[string]bool{}
	for _, task := range bgList(e) {
		if task.State == "running" && task.Mode == "background" {
			running[task.Command] = true
		}
	}
	if !running["echo first-$((1+1)); sleep 60"] || !running["echo second-$((2+1)); sleep 61"] {
		t.Fatalf("`bg ls` after detaching: %+v", bgList(e))
	}
	p.waitFor("bg: 2 running")
}

func TestSettingsScreenRefusesAndSaves(t *testing.T) {
	e := newEnv(t)
	p := startTmux(t, e, "settings")
	p.waitFor("hangdog settings", "watchdog.agreeChecks")
	keyIndex := func(name string) int {
		for i, k := range settings.Keys() {
			if k.Key == name {
				return i
			}
		}
		t.Fatalf("no key %s", name)
		return 0
	}
	for range keyIndex("watchdog.confidence") {
		p.keys("Down")
	}
	p.keys("C-u")
	p.tmux("send-keys", "-t", "0", "-l", "1.7")
	p.waitFor("1.7 ✗", "refused: 1.7 is out of range; allowed: a number from 0 to 1")
	p.keys("C-s")
	p.waitFor("not saved: watchdog.confidence 1.7 is out of range")
	if _, err := os.Stat(filepath.Join(e.cfg, "hangdog", "config.yaml")); err == nil {
		t.Fatal("a refused value created the user file")
	}

	p.keys("C-r", "Down", "C-u")
	p.tmux("send-keys", "-t", "0", "-l", "3")
	p.keys("C-s")
	p.waitFor("saved 1 change(s) to " + filepath.Join(e.cfg, "hangdog", "config.yaml"))
	if r := e.run("config", "get", "watchdog.agreeChecks"); strings.TrimSpace(r.stdout) != "3" {
		t.Fatalf("config get watchdog.agreeChecks = %q (stderr %q)", r.stdout, r.stderr)
	}
	p.keys("Escape")
	p.waitFor("HANGDOG-EXITED-0")
}

func TestShellResizeRewraps(t *testing.T) {
	e := newEnv(t)
	p := startTmux(t, e)
	p.waitFor("idle")
	// One 150-column line: two rows at 120 columns, three at 60.
	p.typeLine("printf 'A%.0s' $(seq 149); echo Z")
	p.waitFor("AZ")
	long := strings.Repeat("A", 149) + "Z"
	joined := func(pane string) string { return strings.ReplaceAll(pane, "\n", "") }
	if !strings.Contains(joined(p.pane()), long) {
		t.Fatalf("long line not wrapped whole:\n%s", p.pane())
	}

	p.tmux("resize-window", "-t", "0", "-x", "60", "-y", "20")
	// Until the shell redraws, tmux shows the 120-column frame cut at 60,
	// which has the same first row; only the new bar ends in /help.
	pane := p.waitPane("a 60-column layout", func(pane string) bool {
		bar := statusLine(pane)
		return strings.Contains(bar, "idle") && strings.HasSuffix(strings.TrimRight(bar, " "), "/help") &&
			strings.Contains(pane, strings.Repeat("A", 60)+"\n")
	})
	for i, line := range strings.Split(strings.TrimRight(pane, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 60 {
			t.Fatalf("line %d is %d columns at width 60: %q", i, n, line)
		}
	}
	if !strings.Contains(joined(pane), long) {
		t.Fatalf("re-wrapped line lost text:\n%s", pane)
	}
	p.tmux("resize-window", "-t", "0", "-x", "120", "-y", "40")
	p.waitPane("the 120-column layout again", func(pane string) bool {
		return strings.Contains(pane, strings.Repeat("A", 120)+"\n") && strings.Contains(statusLine(pane), "action: background")
	})
}
