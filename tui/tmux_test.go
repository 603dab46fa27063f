package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clipperhouse/displaywidth"
)

// pane drives the real hangdog shell in a tmux server of its own, as a
// person at a terminal of that size would.
type pane struct {
	t      *testing.T
	sock   string
	home   string // HANGDOG_HOME
	cfg    string // XDG_CONFIG_HOME
	dir    string // where the shell starts
	env    []string
	width  int
	height int
}

var (
	nonWord = regexp.MustCompile(`[^A-Za-z0-9]+`)
	paneSeq atomic.Int64
)

// startPane starts `hangdog` in a width×height tmux pane; env adds to the
// isolated environment (NO_COLOR=1 unless env sets NO_COLOR itself).
func startPane(t *testing.T, width, height int, env ...string) *pane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed; the shell's terminal tests need it")
	}
	root, err := os.MkdirTemp("", "hdx")
	if err != nil {
		t.Fatal(err)
	}
	// A socket of its own per pane, also across -count runs of one test.
	p := &pane{t: t, sock: fmt.Sprintf("hdx%d-%d-%s", os.Getpid(), paneSeq.Add(1), nonWord.ReplaceAllString(t.Name(), "")),
		home: filepath.Join(root, "h"), cfg: filepath.Join(root, "c"), dir: filepath.Join(root, "w"), width: width, height: height}
	os.MkdirAll(p.dir, 0o755)
	p.env = append(os.Environ(), "HANGDOG_HOME="+p.home, "XDG_CONFIG_HOME="+p.cfg, "TERM=xterm-256color", "HISTFILE=/dev/null")
	hasNoColor := false
	for _, e := range env {
		hasNoColor = hasNoColor || strings.HasPrefix(e, "NO_COLOR=")
	}
	if !hasNoColor {
		p.env = append(p.env, "NO_COLOR=1")
	}
	p.env = append(p.env, env...)
	cmd := hangdogBin + "; echo HANGDOG-EXITED-$?; sleep 600"
	p.tmux("-f", "/dev/null", "new-session", "-d", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "-c", p.dir, cmd)
	t.Cleanup(func() {
		exec.Command("tmux", "-L", p.sock, "kill-server").Run()
		killHome(p)
		os.RemoveAll(root)
	})
	return p
}

// killHome stops every task the test's home still has running.
func killHome(p *pane) {
	out, _ := p.hangdog("bg", "ls", "--json", "--all")
	var tasks []struct{ ID, State string }
	json.Unmarshal([]byte(out), &tasks)
	for _, task := range tasks {
		if task.State == "running" || task.State == "starting" {
			p.hangdog("bg", "kill", task.ID, "--signal", "KILL")
		}
	}
}

// hangdog runs the CLI in the pane's world.
func (p *pane) hangdog(args ...string) (string, error) {
	c := exec.Command(hangdogBin, args...)
	c.Env = p.env
	out, err := c.Output()
	return string(out), err
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	c := exec.Command("tmux", append([]string{"-L", p.sock}, args...)...)
	c.Env = p.env
	out, err := c.CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (p *pane) keys(keys ...string) { p.tmux(append([]string{"send-keys", "-t", "0"}, keys...)...) }

// typeText types text literally.
func (p *pane) typeText(text string) { p.tmux("send-keys", "-t", "0", "-l", text) }

// typeLine types text literally and presses Enter.
func (p *pane) typeLine(text string) {
	p.typeText(text)
	p.keys("Enter")
}

// capture is the pane as tmux draws it: exactly height rows.
func (p *pane) capture() []string {
	out := p.tmux("capture-pane", "-p", "-t", "0")
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// captureEscapes is the pane with its SGR attributes.
func (p *pane) captureEscapes() []string {
	out := p.tmux("capture-pane", "-p", "-e", "-t", "0")
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// wait polls the pane until cond holds, for up to 30 s on a loaded machine.
func (p *pane) wait(what string, cond func(rows []string) bool) []string {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var rows []string
	for time.Now().Before(deadline) {
		rows = p.capture()
		if cond(rows) {
			return rows
		}
		time.Sleep(40 * time.Millisecond)
	}
	p.t.Fatalf("timed out waiting for %s; pane:\n%s", what, strings.Join(rows, "\n"))
	return nil
}

// waitFor waits until the pane shows every string in want.
func (p *pane) waitFor(want ...string) []string {
	p.t.Helper()
	return p.wait(strings.Join(want, " + "), func(rows []string) bool {
		all := strings.Join(rows, "\n")
		for _, w := range want {
			if !strings.Contains(all, w) {
				return false
			}
		}
		return true
	})
}

// bar is the pane's last row: where the status bar must be.
func bar(rows []string) string { return rows[len(rows)-1] }

// idle waits for the shell's prompt with nothing running.
func (p *pane) idle() []string {
	p.t.Helper()
	return p.wait("an idle status bar", func(rows []string) bool {
		return strings.Contains(bar(rows), "idle") && strings.Contains(bar(rows), "/help")
	})
}

// script writes an executable shell script into the pane's start directory
// and returns its name; a command typed as ./name keeps hostile text out of
// the echoed command line.
func (p *pane) script(name, body string) string {
	p.t.Helper()
	if err := os.WriteFile(filepath.Join(p.dir, name), []byte("#!/bin/bash\n"+body), 0o755); err != nil {
		p.t.Fatal(err)
	}
	return "./" + name
}

// checkFrame fails unless the pane holds exactly height rows, none wider
// than the terminal, with the status bar on the last row.
func (p *pane) checkFrame(rows []string, what string) {
	p.t.Helper()
	if len(rows) != p.height {
		p.t.Fatalf("%s: %d rows at height %d:\n%s", what, len(rows), p.height, strings.Join(rows, "\n"))
	}
	for i, r := range rows {
		if w := displaywidth.String(r); w > p.width {
			p.t.Fatalf("%s: row %d is %d columns at width %d: %q", what, i, w, p.width, r)
		}
	}
	if !strings.Contains(bar(rows), "/help") && !strings.Contains(bar(rows), "esc back") {
		p.t.Fatalf("%s: the last row is not the status bar: %q\n%s", what, bar(rows), strings.Join(rows, "\n"))
	}
}

// taskState is a task's state as `hangdog bg ls` reports it.
func (p *pane) taskState(id string) string {
	out, _ := p.hangdog("bg", "ls", "--json", "--all")
	var tasks []struct{ ID, State string }
	json.Unmarshal([]byte(out), &tasks)
	for _, task := range tasks {
		if task.ID == id {
			return task.State
		}
	}
	return "absent"
}
