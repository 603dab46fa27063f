package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/hangdog/hangdog/bgtasks"
)

// /bg keeps its columns in line whatever a task's state says, and AGE is
// how long ago a task started, not how long it ran.
func TestTasksViewColumnsAndAge(t *testing.T) {
	now := time.Now()
	task := func(id string, started time.Duration, res *bgtasks.Result) *bgtasks.Task {
		return &bgtasks.Task{Meta: bgtasks.Meta{ID: id, Command: "cmd-" + id, Mode: bgtasks.Background, State: bgtasks.Running, Started: now.Add(-started)}, Result: res}
	}
	v := tasksView{tasks: []*bgtasks.Task{
		task("t3", 90*time.Second, nil),
		task("t2", 2*time.Hour, &bgtasks.Result{State: bgtasks.Exited, ExitCode: 139, Signal: "SIGSEGV", Ended: now.Add(-2*time.Hour + 5*time.Second)}),
		task("t1", 3*time.Hour, &bgtasks.Result{State: bgtasks.Exited, ExitCode: 0, Ended: now.Add(-3*time.Hour + time.Second)}),
		task("t4", 4*time.Hour, &bgtasks.Result{State: bgtasks.Exited, Signal: strings.Repeat("SIGNAL", 10), Ended: now.Add(-4 * time.Hour)}),
	}}
	rows := strings.Split(ansi.Strip(v.view(200, 20, "BAR")), "\n")
	header := rows[1]
	mode := strings.Index(header, "MODE")
	age := strings.Index(header, "AGE")
	want := map[string]string{"t3": "1m30s", "t2": "2h00m", "t1": "3h00m", "t4": "4h00m"}
	for _, r := range rows[2:6] {
		if got := ansi.StringWidth(r[:strings.Index(r, "background")]); got != mode {
			t.Errorf("MODE at column %d in the header, %d in %q", mode, got, r)
		}
		id := strings.Fields(strings.TrimPrefix(r, "▶"))[0]
		if got := strings.Fields(r[strings.Index(r, "background")+age-mode:])[0]; got != want[id] {
			t.Errorf("%s: AGE %q, want %q (since it started)\n%s", id, got, want[id], strings.Join(rows, "\n"))
		}
	}
	if !strings.Contains(rows[3], "ended by SIGSEGV") || !strings.Contains(rows[5], "…") {
		t.Errorf("states not shown whole, or a long one not cut:\n%s", strings.Join(rows, "\n"))
	}
}

// /bg opens at the task just moved to the background, even when it was
// left scrolled far down the list.
func TestTasksViewOpensAtTheTaskJustDetached(t *testing.T) {
	w := newWorld(t)
	for range 40 {
		task, err := w.reg.Create(bgtasks.Meta{Command: "true", Mode: bgtasks.Background})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.reg.WriteResult(task.ID, bgtasks.Result{State: bgtasks.Exited}); err != nil {
			t.Fatal(err)
		}
	}
	_, tm := w.shell(t)
	enter(tm, "/bg")
	waitFor(t, tm, "background tasks", "▶ t40")
	for range 45 {
		tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	}
	waitFor(t, tm, "▶ t1 ")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	enter(tm, "echo detach-me-$((6*7)); sleep 60")
	waitFor(t, tm, "detach-me-42", "watchdog: 1")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlB})
	waitFor(t, tm, "t41 moved to the background")
	enter(tm, "/bg")
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return strings.Contains(ansi.Strip(string(b)), "▶ t41 ")
	}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

// /bg shows the selected task's last watchdog checks, as the supervisor
// recorded them in the task's directory (debug off), and says so when a
// task has none.
func TestTasksViewShowsTheLastChecks(t *testing.T) {
	w := newWorld(t)
	os.MkdirAll(filepath.Dir(w.userFile), 0o700)
	// Checks every 50 ms from the first second, so one is recorded quickly.
	os.WriteFile(w.userFile, []byte("watchdog:\n  firstCheckMin: 0.01\n  intervalMin: 0.001\n"), 0o600)
	unchecked, err := w.reg.Create(bgtasks.Meta{Command: "true", Mode: bgtasks.Background})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.reg.WriteResult(unchecked.ID, bgtasks.Result{State: bgtasks.Exited}); err != nil {
		t.Fatal(err)
	}
	_, tm := w.shell(t)
	enter(tm, "sleep 30")
	// A verdict in the status bar: the supervisor has checked, and so
	// recorded, at least once.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return regexp.MustCompile(`▶ sleep 30 · \d+s │ (progressing|waiting for you|stuck|looping)`).MatchString(ansi.Strip(string(b)))
	}, teatest.WithDuration(20*time.Second))
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlB})
	waitFor(t, tm, "t2 moved to the background")
	enter(tm, "/bg")
	waitFor(t, tm, "▶ t2 ", "watchdog's last checks of t2", "task=t2 check=")
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	waitFor(t, tm, "▶ t1 ", "watchdog's last checks of t1", bgtasks.NoChecks)
}

// The checks take at most maxChecksRows of /bg: the newest whole, older
// ones while they fit, and the frame keeps its height.
func TestTasksViewChecksPaneFits(t *testing.T) {
	long := strings.Repeat("evidence ", 30)
	v := tasksView{
		tasks:    []*bgtasks.Task{{Meta: bgtasks.Meta{ID: "t1", Command: "cmd", Mode: bgtasks.Background, State: bgtasks.Running, Started: time.Now()}}},
		checksOf: "t1",
	}
	for i := 1; i <= bgtasks.MaxCheckRecords; i++ {
		v.checks = append(v.checks, fmt.Sprintf("check=%d %s end-of-%d", i, long, i))
	}
	frame := ansi.Strip(v.view(80, 30, "BAR"))
	rows := strings.Split(frame, "\n")
	if len(rows) != 30 || rows[29] != "BAR" {
		t.Fatalf("%d rows ending %q, want 30 ending with the bar:\n%s", len(rows), rows[len(rows)-1], frame)
	}
	newest := fmt.Sprintf("end-of-%d", bgtasks.MaxCheckRecords)
	if !strings.Contains(frame, fmt.Sprintf("check=%d ", bgtasks.MaxCheckRecords)) || !strings.Contains(frame, newest) {
		t.Errorf("the newest check is not shown whole:\n%s", frame)
	}
	if strings.Contains(frame, "check=1 ") {
		t.Errorf("the oldest check shown though the pane has no room:\n%s", frame)
	}
	pane := 0
	for i, r := range rows {
		if strings.Contains(r, "watchdog's last checks of t1") {
			pane = len(rows) - 2 - i // up to the status line
		}
	}
	if pane == 0 || pane > maxChecksRows {
		t.Errorf("the checks take %d rows, want 1 to %d:\n%s", pane, maxChecksRows, frame)
	}
}

// Checks read for a task selected earlier may land after those of the task
// selected now: they are not shown for it.
func TestTasksViewChecksOfAnEarlierSelectionAreDropped(t *testing.T) {
	task := func(id string) *bgtasks.Task {
		return &bgtasks.Task{Meta: bgtasks.Meta{ID: id, Command: "cmd", Mode: bgtasks.Background, State: bgtasks.Running, Started: time.Now()}}
	}
	v := tasksView{tasks: []*bgtasks.Task{task("t1"), task("t2")}, sel: 1}
	v.updateChecks(tasksChecksMsg{id: "t2", lines: []string{"check=7 of-t2"}})
	v.updateChecks(tasksChecksMsg{id: "t1", lines: []string{"check=3 of-t1"}})
	frame := ansi.Strip(v.view(100, 30, "BAR"))
	if !strings.Contains(frame, "of-t2") || strings.Contains(frame, "of-t1") {
		t.Errorf("t2 selected, t1's checks read last: want t2's shown\n%s", frame)
	}
}
