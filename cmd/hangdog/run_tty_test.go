package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestRunFromATerminalIsInteractive runs `hangdog run` in a real terminal
// (tmux): keys reach the command, the terminal's size is the command's, and
// a prompt is waiting for the person there, so it is never detached.
func TestRunFromATerminalIsInteractive(t *testing.T) {
	e := newEnv(t)
	p := startTmux(t, e, "run", "--set", "watchdog.inputWaitSec=1",
		`'stty size; read -p "name? " n; echo "hi:$n"'`)
	p.waitFor("40 120", "name?")
	// Well past inputWaitSec: an agent's call would have been detached by now.
	time.Sleep(3 * time.Second)
	for _, tk := range e.tasks() {
		if tk.Mode != "foreground" || tk.State != "running" {
			t.Fatalf("a prompt with a person at the terminal was acted on: %+v", tk)
		}
	}
	p.typeLine("bob")
	pane := p.waitFor("hi:bob", "HANGDOG-EXITED-0")
	if strings.Count(pane, "name?") != 1 {
		t.Errorf("the prompt shows %d times:\n%s", strings.Count(pane, "name?"), pane)
	}
}

func TestCtrlCInATerminalStopsTheRun(t *testing.T) {
	e := newEnv(t)
	p := startTmux(t, e, "run", "--", "sleep", "300")
	// Ctrl-C must reach hangdog as a key, through its raw terminal: sent any
	// earlier, the terminal turns it into SIGINT for tmux's own shell too.
	tty := strings.TrimSpace(p.tmux("display-message", "-p", "-t", "0", "#{pane_tty}"))
	p.waitPane("hangdog to put the terminal in raw mode", func(string) bool {
		out, err := exec.Command("stty", "-F", tty, "-a").Output()
		return err == nil && strings.Contains(string(out), "-isig")
	})
	p.keys("C-c")
	p.waitFor("HANGDOG-EXITED-130")
}
