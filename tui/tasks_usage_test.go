package tui

import (
	"regexp"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
)

// /bg shows what each running task's whole tree costs, CPU time and
// resident memory, as `bg ls` does (taskctl.TreeUsage), read by the
// listing's command, not on the UI goroutine; an ended task shows none.
func TestTasksViewShowsCPUAndMemoryOfRunningTasks(t *testing.T) {
	w := newWorld(t)
	_, tm := w.shell(t)
	enter(tm, "true ended-$((2*3))")
	waitFor(t, tm, "idle")
	// A busy grandchild: its CPU counts, not only bash's.
	enter(tm, "echo busy-$((2*21)); bash -c 'while :; do :; done'")
	waitFor(t, tm, "busy-42", "watchdog: 1")
	time.Sleep(1500 * time.Millisecond) // some CPU time to show
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlB})
	waitFor(t, tm, "moved to the background")
	enter(tm, "/bg")
	// t2 running: CPU at least 0.1 s and some memory; t1 ended: dashes.
	running := regexp.MustCompile(`t2\s+running\s+background\s+\S+\s+([1-9]\d*(\.\d)?s|0\.[1-9]s|\d+m\d\ds)\s+\d+(\.\d)?[KMG]\s`)
	ended := regexp.MustCompile(`t1\s+exited 0\s+\S+\s+\S+\s+-\s+-\s`)
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		plain := ansi.Strip(string(b))
		return running.MatchString(plain) && ended.MatchString(plain)
	}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}
